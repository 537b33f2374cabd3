/**
 * The `simulated` engine. It does NOT recognise speech: no speech model can be installed here.
 * It uses the real voice-activity decision and releases the next word of a script once per
 * 300 ms of voiced audio, so any speech gives a deterministic transcript:
 *
 *   after T ms of voiced 20 ms windows, exactly min(floor(T / 300), script words) words are out;
 *   word k (1-based) comes out in the window where the voiced total reaches k × 300 ms.
 *
 * After the script's last word it releases nothing more. First pass: lower case, no punctuation.
 * Proofreading: the script's own tokens (casing and punctuation), never a different word.
 *
 * A script whose first line is `#utterances` is one utterance per line (blank lines are skipped), so
 * that tests can tell where each utterance ends: the voiced audio of an utterance releases the words of
 * one line only, one per 300 ms as above; when the segmenter ends the utterance (a pause of
 * `engine_endpointing`), the rest of the line comes out at once, and the next voiced audio starts the
 * next line. Voiced audio beyond a line's words releases nothing.
 *
 * Details (`configure.config.details`), so that tests can predict them:
 * - a word ends where it is released (the end of the window that released it; the end of the
 *   utterance for the rest of a line) and starts where the previous word of its utterance ended, or at
 *   the utterance's first voiced window;
 * - word k of the script (1-based) has confidence {@link DOUBTFUL_CONFIDENCE} when k is a multiple of
 *   {@link DOUBTFUL_EVERY}, {@link SURE_CONFIDENCE} otherwise;
 * - each doubtful word of a chunk, in order (at most 5), gives one alternative: the chunk's text
 *   without that word (an empty one is left out).
 */
import type { EffectiveConfig } from '../../protocol';
import type { Proofread, RecognizedWord, Recognizer, UtteranceWords } from './recognizer';
import { type Engine, languageRefusal } from './engine';
import { allBuiltInScripts, builtInScript } from './scripts';

export const SIMULATED_ENGINE_NAME = 'simulated';
export const MS_PER_WORD = 300;
export const SIMULATED_SAMPLE_RATES = [8000, 16000, 22050, 24000, 32000, 44100, 48000] as const;
const DOUBTFUL_EVERY = 5;
/** Under the default `dictee.proofreading.threshold` (0.4), so that its doubtful words are marked. */
export const DOUBTFUL_CONFIDENCE = 0.3;
export const SURE_CONFIDENCE = 0.9;

/** The simulated engine's alternatives of a chunk: its text without each doubtful word in turn. */
function simulatedAlternatives(words: readonly RecognizedWord[], form: 'raw' | 'proofread'): string[] {
  const out: string[] = [];
  words.forEach((w, i) => {
    if (w.confidence !== DOUBTFUL_CONFIDENCE) return;
    const text = words
      .filter((_, j) => j !== i)
      .map((x) => x[form])
      .join(' ')
      .trim();
    if (text !== '' && !out.includes(text)) out.push(text);
  });
  return out.slice(0, 5);
}

/** First-pass form of a script token: punctuation stripped at both ends, lower case. */
export function rawForm(token: string): string {
  return token.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '').toLocaleLowerCase();
}

/**
 * Splits a script into words. A token with no letter or digit (a dash, a lone colon) is attached to
 * the previous word's proofread form, so every released word has a non-empty raw form.
 */
export function tokenize(script: string): RecognizedWord[] {
  const words: RecognizedWord[] = [];
  let leading = '';
  for (const token of script.split(/\s+/u).filter((t) => t !== '')) {
    const raw = rawForm(token);
    if (raw === '') {
      const last = words[words.length - 1];
      if (last) last.proofread += ` ${token}`;
      else leading += `${token} `;
      continue;
    }
    words.push({ raw, proofread: leading + token });
    leading = '';
  }
  return words;
}

/** The first line that makes a script one utterance per line. */
const UTTERANCES_MARKER = '#utterances';

/** A script of one utterance per line: its words, and where each line's words end. */
interface UtteranceScript {
  words: RecognizedWord[];
  /** Index just after the last word of each line, in order. */
  ends: number[];
}

/** The script as utterances, when its first line is {@link UTTERANCES_MARKER}; otherwise null. */
export function parseUtterances(script: string): UtteranceScript | null {
  const lines = script.replace(/\r\n?/gu, '\n').split('\n');
  if (lines[0]?.trim().toLowerCase() !== UTTERANCES_MARKER) return null;
  const words: RecognizedWord[] = [];
  const ends: number[] = [];
  for (const line of lines.slice(1)) {
    const w = tokenize(line);
    if (w.length === 0) continue;
    words.push(...w);
    ends.push(words.length);
  }
  return { words, ends };
}

interface SimulatedSnapshot {
  engine: 'simulated';
  cursor: number;
  voicedMs: number;
  /** Utterance scripts: the line being said, and whether voiced audio was heard in it. */
  line?: number;
  heard?: boolean;
}

export class SimulatedRecognizer implements Recognizer {
  readonly name = SIMULATED_ENGINE_NAME;
  readonly resumeFrom = 'first-word';
  /** Words come from the voice-activity decision; the samples themselves are never read. */
  readonly ignoresAudio = true;
  /** Unvoiced windows only move the word clock, which no checkpoint holds. */
  readonly releasesOnlyWhenVoiced: boolean = true;
  private cursor = 0;
  private voicedMs = 0;
  /** Words released since the last end of utterance (never revised: released words are final). */
  private utterance: RecognizedWord[] = [];
  private line = 0;
  private heard = false;
  /** Ms of audio pushed since this recognizer was made or restored (the clock of word times). */
  private clockMs = 0;
  /** Where the next released word starts (undefined: at the utterance's next voiced window). */
  private wordStartMs: number | undefined;

  /** @param lineEnds with an utterance script: the index just after the last word of each line. */
  constructor(
    private readonly words: readonly RecognizedWord[],
    private readonly lineEnds?: readonly number[],
  ) {}

  /** Where the words the current utterance may release end. */
  private get limit(): number {
    return this.lineEnds ? (this.lineEnds[this.line] ?? this.words.length) : this.words.length;
  }

  push(_window: Buffer, voiced: boolean, ms: number): RecognizedWord[] | undefined {
    this.clockMs += ms;
    if (!voiced) return undefined;
    this.wordStartMs ??= this.clockMs - ms;
    this.heard = true;
    const limit = this.limit;
    if (this.cursor >= limit) return undefined;
    this.voicedMs += ms;
    let released = false;
    while (this.voicedMs >= MS_PER_WORD && this.cursor < limit) {
      this.voicedMs -= MS_PER_WORD;
      this.release();
      released = true;
    }
    return released ? [...this.utterance] : undefined;
  }

  endUtterance(details?: boolean): UtteranceWords {
    if (this.lineEnds && this.heard) {
      // The utterance ends its line: the rest of the line comes out now, the next audio starts the next one.
      const limit = this.limit;
      while (this.cursor < limit) this.release();
      this.line++;
      this.voicedMs = 0;
    }
    this.heard = false;
    this.wordStartMs = undefined;
    const out: UtteranceWords = this.utterance;
    this.utterance = [];
    if (details) out.alternatives = simulatedAlternatives(out, 'raw');
    return out;
  }

  endSentence(words: RecognizedWord[], proofread: boolean, details?: boolean): Proofread | undefined {
    if (!proofread) return undefined;
    const text = words.map((w) => w.proofread).join(' ');
    return details ? { text, alternatives: simulatedAlternatives(words, 'proofread') } : text;
  }

  /** The script's next word, out now: it ends here and starts where the previous one ended. */
  private release(): void {
    const k = this.cursor++;
    const start = this.wordStartMs ?? this.clockMs;
    const confidence = (k + 1) % DOUBTFUL_EVERY === 0 ? DOUBTFUL_CONFIDENCE : SURE_CONFIDENCE;
    // The script's words are { raw, proofread }: built field by field (a spread with more fields is V8's slow path).
    const w = this.words[k]!;
    this.utterance.push({ raw: w.raw, proofread: w.proofread, start_ms: start, end_ms: this.clockMs, confidence });
    this.wordStartMs = this.clockMs;
  }

  checkpoint(): SimulatedSnapshot {
    const s: SimulatedSnapshot = { engine: 'simulated', cursor: this.cursor, voicedMs: this.voicedMs };
    if (this.lineEnds) Object.assign(s, { line: this.line, heard: this.heard });
    return s;
  }

  restore(snapshot: unknown): void {
    const s = snapshot as Partial<SimulatedSnapshot> | null;
    if (!s || s.engine !== 'simulated' || typeof s.cursor !== 'number' || typeof s.voicedMs !== 'number') {
      throw new Error('not a checkpoint of the simulated engine');
    }
    this.cursor = Math.max(0, Math.min(this.words.length, Math.floor(s.cursor)));
    this.voicedMs = s.voicedMs;
    this.utterance = [];
    this.wordStartMs = undefined;
    this.line = typeof s.line === 'number' ? s.line : 0;
    this.heard = s.heard === true;
  }

  /** Words released so far (for tests and logs). */
  get released(): number {
    return this.cursor;
  }
}

export class SimulatedEngine implements Engine {
  readonly name = SIMULATED_ENGINE_NAME;
  /** With `--script`, the script is released whatever the language. */
  readonly languages: readonly string[];
  /** @param script text that overrides the built-in sample reports (`--script FILE`). */
  constructor(private readonly script?: string) {
    this.languages = script ? ['any'] : [...new Set(allBuiltInScripts().map((s) => s.language))];
  }

  unsupported(config: EffectiveConfig): string | undefined {
    if (config.encoding !== 'pcm_s16le') {
      return `encoding ${JSON.stringify(config.encoding)} is not supported; the only supported encoding is "pcm_s16le"`;
    }
    if (!(SIMULATED_SAMPLE_RATES as readonly number[]).includes(config.sample_rate)) {
      return `sample_rate ${config.sample_rate} Hz is not supported by the ${this.name} engine; use one of ${SIMULATED_SAMPLE_RATES.join(', ')}`;
    }
    if (!this.script && !builtInScript(config.language, config.specialty)) {
      return languageRefusal(this.name, config.language, this.languages);
    }
    return undefined;
  }

  /** Each script's words, split once: every session of a script reads the same (never changed) words. */
  private readonly parsed = new Map<string, { words: readonly RecognizedWord[]; ends?: readonly number[] }>();

  create(config: EffectiveConfig): SimulatedRecognizer {
    const text = this.script ?? builtInScript(config.language, config.specialty) ?? '';
    let p = this.parsed.get(text);
    if (!p) {
      const u = parseUtterances(text);
      p = u ? { words: u.words, ends: u.ends } : { words: tokenize(text) };
      this.parsed.set(text, p);
    }
    return new SimulatedRecognizer(p.words, p.ends);
  }
}
