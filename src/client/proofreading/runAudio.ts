/**
 * Play Back: a run's audio, kept in memory on the user's machine (never written to the document, never
 * sent anywhere else), as it was sent to the service, so that a sentence can be played again from the
 * times the service gave its words (`start_ms`, `end_ms`: the chunk's place in the session's audio).
 * Each new service session of the run (a generation) starts its times afresh. Bounded: past `maxBytes`
 * the oldest audio is forgotten. Pure: no `vscode`.
 */
import { placeWords } from './wordMap';

/** 16-bit mono PCM. */
const BYTES_PER_SAMPLE = 2;

/** At most an hour of 16 kHz audio (about 115 MB) per run by default. */
const DEFAULT_MAX_AUDIO_BYTES = 60 * 60 * 16000 * BYTES_PER_SAMPLE;

export class RunAudio {
  private readonly parts: Buffer[] = [];
  /** Bytes received since the run began (forgotten ones included). */
  private total = 0;
  /** Bytes forgotten at the front. */
  private dropped = 0;
  /** Where each generation's audio begins, in bytes since the run began. */
  private readonly generations: number[] = [0];

  constructor(
    readonly sampleRate: number,
    private readonly maxBytes = DEFAULT_MAX_AUDIO_BYTES,
  ) {}

  /** The current generation (0 for the run's first service session). */
  get generation(): number {
    return this.generations.length - 1;
  }

  /** Audio sent to the service. */
  append(pcm: Buffer): void {
    if (pcm.length === 0) return;
    this.parts.push(Buffer.from(pcm));
    this.total += pcm.length;
    let held = this.total - this.dropped;
    while (held > this.maxBytes && this.parts.length > 1) {
      const first = this.parts.shift()!;
      this.dropped += first.length;
      held -= first.length;
    }
  }

  /** The run goes on in a new service session: its times start at the audio sent from now on. */
  beginGeneration(): void {
    this.generations.push(this.total);
  }

  /** Bytes of audio kept. */
  get bytes(): number {
    return this.total - this.dropped;
  }

  /** The audio of `[startMs, endMs)` of generation `generation`, or undefined when it is not kept (any more). */
  slice(generation: number, startMs: number, endMs: number): Buffer | undefined {
    const base = this.generations[generation];
    if (base === undefined || !(endMs > startMs) || startMs < 0) return undefined;
    const bytesPerMs = (this.sampleRate * BYTES_PER_SAMPLE) / 1000;
    const align = (n: number): number => n - (n % BYTES_PER_SAMPLE);
    const from = base + align(Math.floor(startMs * bytesPerMs));
    const to = Math.min(base + align(Math.ceil(endMs * bytesPerMs)), this.total, this.generations[generation + 1] ?? Infinity);
    if (from < this.dropped || from >= to) return undefined;
    const out = Buffer.alloc(to - from);
    let at = this.dropped;
    for (const p of this.parts) {
      const pEnd = at + p.length;
      if (pEnd > from && at < to) p.copy(out, Math.max(0, at - from), Math.max(0, from - at), Math.min(p.length, to - at));
      at = pEnd;
      if (at >= to) break;
    }
    return out;
  }
}

/** A word of the sentence shown while it plays, lit between its times (relative to the start of what plays); without times, never lit. */
export interface TimedWord {
  text: string;
  startMs?: number;
  endMs?: number;
}

/**
 * The words the player shows of a chunk: its text as it stands now in the document (`written`: the chunk's text, edited or
 * corrected since, maybe), word by word, each with the times of the engine's words it was written from (relative to `startMs`).
 * Text written over the engine's words (a correction) has the times of the words it stands in place of, when it lies between
 * words still there; other text has none.
 */
export function shownWords(
  written: string,
  words: ReadonlyArray<{ text: string; start_ms?: number; end_ms?: number }>,
  startMs: number,
): TimedWord[] {
  const spans = placeWords(written, words);
  return [...written.matchAll(/\S+/gu)].map((m) => {
    const start = m.index;
    const end = start + m[0].length;
    const timed = spans
      .filter((s) => s.start < end && s.end > start)
      .flatMap((s) => s.words.map((i) => words[i]!))
      .filter((w) => typeof w.start_ms === 'number' && typeof w.end_ms === 'number');
    if (timed.length === 0) return { text: m[0] };
    return {
      text: m[0],
      startMs: Math.max(0, Math.min(...timed.map((w) => w.start_ms!)) - startMs),
      endMs: Math.max(0, Math.max(...timed.map((w) => w.end_ms!)) - startMs),
    };
  });
}
