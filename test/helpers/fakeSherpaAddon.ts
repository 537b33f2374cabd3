/**
 * A FAKE of the `sherpa-onnx-node` addon's OnlineRecognizer and OfflineRecognizer (the interfaces of
 * src/server/engine/sherpa/addon.ts), for testing the sherpa-onnx engine's own logic (batching, language
 * pinning, keyterms, punctuation, proofreading) where no speech model can be downloaded. It recognises
 * nothing: it releases the words of a script, one per voiced chunk of audio it decodes, and records every
 * call. Nothing here says anything about a real model's accuracy.
 *
 * Its results carry the fields of the addon's JSON results (docs/engines.md, "What a sherpa-onnx result
 * carries"), derived from the script so that tests can predict them:
 * - tokens ({@link fakeTokens}): a word's letters in pieces of 3 characters, the first with a leading
 *   space (the addon's `▁`), its trailing punctuation a token of its own;
 * - online: token j of a word released by a chunk comes out at the chunk's start + j × 10 ms, in seconds
 *   from the segment's start (its last reset; `start_time`: the samples accepted before it); `ys_probs`
 *   only with `probs` (a zipformer's greedy search; NeMo transducers give none): see {@link fakeTokenProb};
 * - offline (a TDT under modified_beam_search): the answer's words share the audio evenly, a word's tokens
 *   its span evenly, each token's duration its share; `ys_log_probs` always.
 */
import type {
  SherpaAddon,
  SherpaOffline,
  SherpaOfflineResult,
  SherpaOfflineStream,
  SherpaOnline,
  SherpaOnlineResult,
  SherpaOnlineStream,
  Waveform,
} from '../../src/server/engine/sherpa/addon';

/** Samples one decode consumes (100 ms at 16 kHz), like a streaming model's chunk. */
export const FAKE_CHUNK = 1600;

/** A word's tokens as the addon's results write them: pieces of 3 letters, the first with a leading space, trailing punctuation apart. */
export function fakeTokens(word: string): string[] {
  const m = /^(.*?)([.,;:!?…]*)$/u.exec(word)!;
  const body = [...m[1]!];
  const pieces: string[] = [];
  for (let i = 0; i < body.length; i += 3) pieces.push(body.slice(i, i + 3).join(''));
  if (pieces.length === 0) pieces.push('');
  pieces[0] = ` ${pieces[0]}`;
  if (m[2]) pieces.push(m[2]);
  return pieces;
}

/**
 * The probability of token `j` of the `k`-th word (1-based) of a script or answer, whose tokens are
 * `tokens`: `sure` (0.9 online, 0.8 offline), except the last letter token of every 3rd word: 0.3.
 */
export function fakeTokenProb(k: number, tokens: readonly string[], j: number, sure: number): number {
  let lastLetter = -1;
  tokens.forEach((t, i) => {
    if (/[\p{L}\p{N}]/u.test(t)) lastLetter = i;
  });
  return k % 3 === 0 && j === lastLetter ? 0.3 : sure;
}

const seconds = (samples: number): number => Math.round((samples / 16000) * 100) / 100;
const logOf = (p: number): number => Math.round(Math.log(p) * 1e6) / 1e6;

export class FakeOnlineStream implements SherpaOnlineStream {
  readonly options = new Map<string, string>();
  /** Every setOption call, in order. */
  readonly optionCalls: Array<[string, string]> = [];
  buffered: number[] = [];
  words: string[] = [];
  /** Tokens of the current segment, and when each came out (s from the segment's start), its log-probability. */
  tokens: string[] = [];
  timestamps: number[] = [];
  logProbs: number[] = [];
  /** Samples decoded since the last reset, and the samples accepted before it. */
  decoded = 0;
  acceptedAtReset = 0;
  /** Index of the next script word, per script (a reset does not rewind the speaker). */
  next = 0;
  accepted = 0;
  acceptWaveform(w: Waveform): void {
    if (w.sampleRate !== 16000) throw new Error(`fake: sampleRate ${w.sampleRate}`);
    for (const s of w.samples) this.buffered.push(s);
    this.accepted += w.samples.length;
  }
  setOption(key: string, value: string): void {
    this.options.set(key, value);
    this.optionCalls.push([key, value]);
  }
}

export interface FakeOnlineOptions {
  /** The words released, per pinned language (`auto` when no language is set). */
  scripts: Record<string, string[]>;
  /** Throw from decode/decodeStreams when this returns true. */
  failWhen?: (streams: FakeOnlineStream[]) => boolean;
  /** Results carry `ys_probs` (a zipformer's greedy search); without, none (NeMo transducers). */
  probs?: boolean;
}

export class FakeOnlineRecognizer implements SherpaOnline {
  /** decode (1) and decodeStreams (n) calls, as the number of streams each decoded. */
  readonly calls: Array<{ method: 'decode' | 'decodeStreams'; streams: number }> = [];
  readonly streams: FakeOnlineStream[] = [];
  constructor(
    readonly config: Record<string, unknown>,
    private readonly o: FakeOnlineOptions,
  ) {}
  createStream(): FakeOnlineStream {
    const s = new FakeOnlineStream();
    this.streams.push(s);
    return s;
  }
  isReady(s: SherpaOnlineStream): boolean {
    return (s as FakeOnlineStream).buffered.length >= FAKE_CHUNK;
  }
  decode(s: SherpaOnlineStream): void {
    this.calls.push({ method: 'decode', streams: 1 });
    this.step([s as FakeOnlineStream]);
  }
  decodeStreams(streams: SherpaOnlineStream[]): void {
    this.calls.push({ method: 'decodeStreams', streams: streams.length });
    this.step(streams as FakeOnlineStream[]);
  }
  getResult(s: SherpaOnlineStream): SherpaOnlineResult {
    const f = s as FakeOnlineStream;
    return {
      text: f.words.join(' '),
      tokens: [...f.tokens],
      timestamps: [...f.timestamps],
      ys_probs: this.o.probs ? [...f.logProbs] : [],
      start_time: seconds(f.acceptedAtReset),
    };
  }
  reset(s: SherpaOnlineStream): void {
    const f = s as FakeOnlineStream;
    f.words = [];
    f.tokens = [];
    f.timestamps = [];
    f.logProbs = [];
    f.buffered = [];
    f.decoded = 0;
    f.acceptedAtReset = f.accepted;
  }
  private step(streams: FakeOnlineStream[]): void {
    if (this.o.failWhen?.(streams)) throw new Error('fake: decode failed');
    for (const s of streams) {
      if (s.buffered.length < FAKE_CHUNK) throw new Error('fake: decode of a stream that is not ready');
      const chunk = s.buffered.splice(0, FAKE_CHUNK);
      const energy = Math.sqrt(chunk.reduce((a, x) => a + x * x, 0) / chunk.length);
      const script = this.o.scripts[s.options.get('language') ?? 'auto'] ?? [];
      if (energy > 0.01 && s.next < script.length) {
        const word = script[s.next++]!;
        const tokens = fakeTokens(word);
        s.words.push(word);
        tokens.forEach((t, j) => {
          s.tokens.push(t);
          s.timestamps.push(seconds(s.decoded + j * 160));
          s.logProbs.push(logOf(fakeTokenProb(s.next, tokens, j, 0.9)));
        });
      }
      s.decoded += FAKE_CHUNK;
    }
  }
}

export class FakeOfflineStream implements SherpaOfflineStream {
  samples = 0;
  constructor(readonly hotwords: string | undefined) {}
  acceptWaveform(w: Waveform): void {
    this.samples += w.samples.length;
  }
}

export class FakeOfflineRecognizer implements SherpaOffline {
  readonly decoded: FakeOfflineStream[] = [];
  constructor(
    readonly config: Record<string, unknown>,
    private readonly answer: (samples: number, hotwords: string | undefined) => string,
  ) {}
  createStream(hotwords?: string): FakeOfflineStream {
    return new FakeOfflineStream(hotwords);
  }
  decode(s: SherpaOfflineStream): void {
    this.decoded.push(s as FakeOfflineStream);
  }
  getResult(s: SherpaOfflineStream): SherpaOfflineResult {
    const f = s as FakeOfflineStream;
    const text = this.answer(f.samples, f.hotwords);
    const words = text.split(/\s+/u).filter((w) => w !== '');
    const r = { text, tokens: [] as string[], timestamps: [] as number[], durations: [] as number[], ys_log_probs: [] as number[] };
    const span = f.samples / Math.max(1, words.length);
    words.forEach((w, i) => {
      const tokens = fakeTokens(w);
      const each = span / tokens.length;
      tokens.forEach((t, j) => {
        r.tokens.push(t);
        r.timestamps.push(seconds(i * span + j * each));
        r.durations.push(seconds(each));
        r.ys_log_probs.push(logOf(fakeTokenProb(i + 1, tokens, j, 0.8)));
      });
    });
    return r;
  }
}

/** A fake addon whose recognizers are kept in `online` and `offline` for the test to inspect. */
export function fakeSherpaAddon(
  o: FakeOnlineOptions & { offline?: (samples: number, hotwords: string | undefined) => string },
): SherpaAddon & {
  online: FakeOnlineRecognizer[];
  offline: FakeOfflineRecognizer[];
} {
  const online: FakeOnlineRecognizer[] = [];
  const offline: FakeOfflineRecognizer[] = [];
  return {
    version: 'fake',
    online,
    offline,
    OnlineRecognizer: class {
      constructor(config: object) {
        const r = new FakeOnlineRecognizer(config as Record<string, unknown>, o);
        online.push(r);
        return r;
      }
    } as unknown as SherpaAddon['OnlineRecognizer'],
    OfflineRecognizer: class {
      constructor(config: object) {
        const r = new FakeOfflineRecognizer(config as Record<string, unknown>, o.offline ?? (() => ''));
        offline.push(r);
        return r;
      }
    } as unknown as NonNullable<SherpaAddon['OfflineRecognizer']>,
  };
}
