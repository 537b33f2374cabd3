/**
 * A pocketsphinx decoder behind the {@link Recognizer} contract. Runs in a worker thread: every call
 * blocks while pocketsphinx decodes.
 *
 * - Streaming: every window goes to `ps_process_raw`; every {@link HYP_EVERY_WINDOWS} windows the
 *   partial hypothesis is read, and a changed one is returned (it replaces the last).
 * - `endUtterance`: `ps_end_utt`, whose final hypothesis replaces the partial.
 * - Proofreading: the sentence's whole audio is decoded again as one utterance by a
 *   {@link SentenceDecoder} (in the service, a thread of its own per worker), so the worker goes on
 *   decoding meanwhile; the result, with a capital and a final period, comes later (a promise).
 *   After a restart the audio of a sentence begun before it is gone: its first-pass words are used.
 * - Details (asked by the session): at the end of an utterance, and of the proofreading decode, the
 *   words' times and posterior probabilities and the n-best list (ffi.ts `details`). Times are on the
 *   recognizer's clock: ms of audio pushed since it was made or restored. A proofread word's confidence
 *   weighs its posterior against the first pass's words at the same place (confidence.ts), unless
 *   {@link POSTERIOR_ONLY_ENV} is `posterior` (the bench's baseline).
 */
import type { Proofread, RecognizedWord, Recognizer, UtteranceWords } from '../recognizer';
import { sentenceCase } from '../recognizer';
import { type DecoderOptions, FRAME_MS, type PocketsphinxApi, type PocketsphinxModel, type UtteranceDetails } from './ffi';
import { MAX_ALTERNATIVES } from '../details';
import { type TimedWord, twoPassConfidence } from './confidence';
import type { TokenTimes } from '../sherpa/tokens';
import { Downsampler } from '../downsample';
import { IDLE_UTTERANCE_WINDOWS, SentenceAudio } from '../sentenceAudio';

export const POCKETSPHINX_ENGINE_NAME = 'pocketsphinx';
/** The partial hypothesis is read every 5 windows (100 ms): reading it costs a backtrace. */
const HYP_EVERY_WINDOWS = 5;
/** The rate of the audio sessions send (a model trained at a lower one gets it resampled). */
const SESSION_SAMPLE_RATE = 16000;
/** `DICTEE_POCKETSPHINX_CONFIDENCE=posterior`: proofread words keep their bare posterior (for comparison). */
const POSTERIOR_ONLY_ENV = 'DICTEE_POCKETSPHINX_CONFIDENCE';

interface PocketsphinxSnapshot {
  engine: 'pocketsphinx';
}

function words(hyp: string): RecognizedWord[] {
  return hyp
    .split(/\s+/u)
    .filter((w) => w !== '')
    .map((w) => ({ raw: w, proofread: w }));
}

/** The hypothesis's words with their details, `startMs` the place of the decode's first frame; undefined when they do not match. */
function detailedWords(hyp: string, d: UtteranceDetails, startMs: number): RecognizedWord[] | undefined {
  const out = words(hyp);
  if (out.length !== d.words.length || out.some((w, i) => w.raw !== d.words[i]!.word)) return undefined;
  return out.map((w, i) => {
    const s = d.words[i]!;
    return { ...w, start_ms: startMs + s.startFrame * FRAME_MS, end_ms: startMs + (s.endFrame + 1) * FRAME_MS, confidence: s.confidence };
  });
}

/** The words that carry a time and a confidence, for confidence.ts. */
function timedWords(ws: readonly RecognizedWord[]): TimedWord[] {
  return ws.flatMap((w) =>
    w.start_ms !== undefined && w.end_ms !== undefined && w.confidence !== undefined
      ? [{ word: w.raw, startMs: w.start_ms, endMs: w.end_ms, confidence: w.confidence }]
      : [],
  );
}

/**
 * The proofread form of a sentence decoded with details: a capital and a final period, on its words too.
 * `firstPass`: the first pass's words of the sentence, for the confidences (none: the bare posteriors).
 */
function proofreadSentence(hyp: string, d: UtteranceDetails, startMs: number, firstPass: readonly TimedWord[]): Proofread {
  const text = sentenceCase(words(hyp).map((w) => w.raw));
  const timed = detailedWords(hyp, d, startMs);
  const alternatives = d.alternatives.map((a) => sentenceCase(a.split(/\s+/u))).filter((a) => a !== text);
  if (!timed) return { text, alternatives };
  const forms = text.split(' ');
  return {
    text,
    words: timed.map((w, i) => {
      const confidence = twoPassConfidence(timedWords([w])[0]!, firstPass);
      return { ...w, proofread: forms[i] ?? w.raw, confidence };
    }),
    alternatives,
  };
}

function samplesOf(buf: Buffer): Int16Array {
  if (buf.byteOffset % 2 === 0) return new Int16Array(buf.buffer, buf.byteOffset, buf.length >> 1);
  const copy = Buffer.from(buf);
  return new Int16Array(copy.buffer, copy.byteOffset, copy.length >> 1);
}

/** Decodes a whole sentence again (the proofreading pass), possibly elsewhere. */
export interface SentenceDecoder {
  /**
   * The hypothesis for the sentence. `onProgress` is called while work on it goes on. `hotwords`: phrases
   * to bias towards (`/`-separated, sherpa-onnx's form); a decoder that cannot use them ignores them.
   */
  decode(samples: Int16Array, onProgress?: () => void, hotwords?: string): Promise<string>;
  /** The hypothesis with its details (frames from the first sample), for a decoder that has them. */
  decodeDetailed?(samples: Int16Array, onProgress?: () => void, hotwords?: string): Promise<DetailedHypothesis>;
  dispose(): void;
}

export interface DetailedHypothesis {
  hyp: string;
  /** Absent when the decoder could not give them. */
  details?: UtteranceDetails;
  /** sherpa-onnx: the result's tokens with their times (ms from the first sample), when it has them. */
  tokens?: TokenTimes;
}

/**
 * The second pass in this thread: the whole sentence in one call with `full_utt`, so that the decoder
 * normalises its features over the whole sentence (as a decoder given the whole file does). Blocks
 * while it decodes: the service runs it in a thread of its own (proofreadThread.ts).
 */
export class Proofreader implements SentenceDecoder {
  private readonly decoder: unknown;

  constructor(
    private readonly ps: PocketsphinxApi,
    model: PocketsphinxModel,
    /** Its search (default: the proofreading search, ffi.ts `proofread`). */
    opts: DecoderOptions = { proofread: true },
  ) {
    this.decoder = ps.init(model, opts);
  }

  decodeNow(samples: Int16Array): string {
    this.ps.startUtt(this.decoder);
    this.ps.processRaw(this.decoder, samples, true);
    this.ps.endUtt(this.decoder);
    return this.ps.hyp(this.decoder);
  }

  decodeDetailedNow(samples: Int16Array): DetailedHypothesis {
    const hyp = this.decodeNow(samples);
    return { hyp, details: this.ps.details(this.decoder, MAX_ALTERNATIVES) };
  }

  decodeDetailed(samples: Int16Array): Promise<DetailedHypothesis> {
    try {
      return Promise.resolve(this.decodeDetailedNow(samples));
    } catch (e) {
      return Promise.reject(e as Error);
    }
  }

  decode(samples: Int16Array): Promise<string> {
    try {
      return Promise.resolve(this.decodeNow(samples));
    } catch (e) {
      return Promise.reject(e as Error);
    }
  }

  dispose(): void {
    this.ps.free(this.decoder);
  }
}

export class PocketsphinxRecognizer implements Recognizer {
  readonly name = POCKETSPHINX_ENGINE_NAME;
  readonly resumeFrom = 'utterance-start';
  private readonly decoder: unknown;
  private inUtterance = false;
  private utteranceWindows = 0;
  /** Whether the voice-activity detector found speech in a window of the open utterance. */
  private utteranceVoiced = false;
  private lastHyp = '';
  /** Windows of the current sentence (at the model's rate), kept for the whole-sentence re-decode. */
  private readonly sentence = new SentenceAudio<Buffer>();
  /** The first pass's words of the current sentence, with details (utterances ended so far). */
  private sentenceFirstPass: TimedWord[] = [];
  private readonly posteriorOnly = process.env[POSTERIOR_ONLY_ENV] === 'posterior';
  /** A model trained at a lower rate (8 kHz): the session's audio brought to it. */
  private readonly modelRate: number;
  private downsampler: Downsampler | undefined;
  private disposed = false;
  /** Ms of audio pushed since this recognizer was made or restored (the clock of word times). */
  private clockMs = 0;
  /** Where the decoder's open utterance began on that clock. */
  private utteranceStartMs = 0;
  private windowMs = 20;

  constructor(
    private readonly ps: PocketsphinxApi,
    model: PocketsphinxModel,
    private readonly proofreader: () => SentenceDecoder,
    private readonly onProgress?: () => void,
    /** A decoder made beforehand for this model (loading one takes most of a second). */
    decoder?: unknown,
  ) {
    this.decoder = decoder ?? ps.init(model, { live: true });
    this.modelRate = model.sampleRate ?? SESSION_SAMPLE_RATE;
    this.downsampler = this.newDownsampler();
  }

  private newDownsampler(): Downsampler | undefined {
    return this.modelRate === SESSION_SAMPLE_RATE ? undefined : new Downsampler(SESSION_SAMPLE_RATE, this.modelRate);
  }

  push(window: Buffer, voiced: boolean, ms: number): RecognizedWord[] | undefined {
    if (!this.inUtterance) this.start();
    if (voiced) this.utteranceVoiced = true;
    this.clockMs += ms;
    this.windowMs = ms;
    let copy: Buffer = Buffer.from(window);
    if (this.downsampler) {
      const down = this.downsampler.push(samplesOf(copy));
      copy = Buffer.from(down.buffer, down.byteOffset, down.byteLength);
    }
    this.ps.processRaw(this.decoder, samplesOf(copy), false);
    this.sentence.push(copy);
    this.utteranceWindows++;
    if (this.utteranceWindows % HYP_EVERY_WINDOWS !== 0) return undefined;
    const hyp = this.ps.hyp(this.decoder);
    if (hyp === this.lastHyp || !this.utteranceVoiced) {
      if ((hyp === '' || !this.utteranceVoiced) && this.utteranceWindows >= IDLE_UTTERANCE_WINDOWS) this.restartIdle();
      return undefined;
    }
    this.lastHyp = hyp;
    return words(hyp);
  }

  endUtterance(details?: boolean): UtteranceWords {
    if (!this.inUtterance) return [];
    this.ps.endUtt(this.decoder);
    this.inUtterance = false;
    // Words where the detector heard no speech are the search's guesses in the noise floor ("up up up" in
    // a silent room): dropped, as if the utterance had found nothing.
    const hyp = this.utteranceVoiced ? this.ps.hyp(this.decoder) : '';
    let out: UtteranceWords = words(hyp);
    if (details && out.length) {
      const d = this.ps.details(this.decoder, MAX_ALTERNATIVES);
      out = detailedWords(hyp, d, this.utteranceStartMs) ?? out;
      out.alternatives = d.alternatives;
      this.sentenceFirstPass.push(...timedWords(out));
    }
    this.sentence.utteranceEnded(out.length > 0);
    return out;
  }

  endSentence(firstPass: RecognizedWord[], proofread: boolean, details?: boolean): Proofread | Promise<Proofread> | undefined {
    const { audio, complete, startMs } = this.sentence.endSentence(this.inUtterance, this.clockMs, this.windowMs);
    const firstPassWords = this.posteriorOnly ? [] : this.sentenceFirstPass;
    this.sentenceFirstPass = [];
    if (!proofread) return undefined;
    const text = sentenceCase(firstPass.map((w) => w.raw));
    // Without a second pass: the first pass with a capital and a period (its words, in those forms, make the
    // text: details.ts), and with details no other readings (this engine has them: an empty list).
    const fallback: Proofread = details ? { text, alternatives: [] } : text;
    if (!complete || audio.length === 0) return fallback;
    const decoder = this.proofreader();
    if (details && decoder.decodeDetailed) {
      return decoder
        .decodeDetailed(samplesOf(Buffer.concat(audio)), this.onProgress)
        .then(({ hyp, details: d }) => {
          if (words(hyp).length === 0) return fallback;
          return d ? proofreadSentence(hyp, d, startMs, firstPassWords) : sentenceCase(words(hyp).map((w) => w.raw));
        })
        .catch(() => fallback); // the proofreading thread failed or ran out of time (a loaded machine)
    }
    return decoder.decode(samplesOf(Buffer.concat(audio)), this.onProgress).then((hyp) => {
      const again = words(hyp).map((w) => w.raw);
      return again.length ? sentenceCase(again) : fallback;
    });
  }

  checkpoint(): PocketsphinxSnapshot {
    return { engine: 'pocketsphinx' };
  }

  restore(snapshot: unknown): void {
    const s = snapshot as Partial<PocketsphinxSnapshot> | null;
    if (!s || s.engine !== 'pocketsphinx') throw new Error('not a checkpoint of the pocketsphinx engine');
    if (this.inUtterance) this.ps.endUtt(this.decoder);
    this.inUtterance = false;
    this.sentence.restored();
    this.sentenceFirstPass = [];
    this.downsampler = this.newDownsampler();
    this.clockMs = 0;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.inUtterance) this.ps.endUtt(this.decoder);
    this.ps.free(this.decoder);
  }

  private start(): void {
    this.ps.startUtt(this.decoder);
    this.inUtterance = true;
    this.utteranceWindows = 0;
    this.utteranceVoiced = false;
    this.lastHyp = '';
    this.sentence.beginUtterance();
    this.utteranceStartMs = this.clockMs;
  }

  /** A long utterance with no word: start again from a short lead-in, so silence costs nothing. */
  private restartIdle(): void {
    this.ps.endUtt(this.decoder);
    this.start();
    const lead = this.sentence.restartIdle();
    this.utteranceStartMs = this.clockMs - lead.length * this.windowMs;
    for (const w of lead) this.ps.processRaw(this.decoder, samplesOf(w), false);
  }
}
