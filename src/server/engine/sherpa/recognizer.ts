/**
 * A sherpa-onnx streaming transducer behind the {@link Recognizer} contract, through the
 * `sherpa-onnx-node` addon. Runs in a decoder worker thread: one OnlineRecognizer per model and thread
 * (batcher.ts), one stream per session, the streams of the thread's sessions decoded together.
 *
 * - The segmenter decides the utterances (the addon's own endpointing stays off). At the end of one,
 *   silence is fed so that its last chunk is decoded, its words are read and the stream is reset.
 * - Multilingual models: the stream's `language` is pinned to the session's (auto-detection misfires on
 *   short phrases), again after every reset.
 * - `auto_punctuation: false`: the model's punctuation and sentence capitals are taken off (text.ts).
 * - Proofreading: with a proofreading model (`--proofread-model`), the sentence's audio is decoded again
 *   by an offline model in the worker's proofreading thread, with the session's keyterms as hotwords;
 *   without one, or when that fails, the first pass with a capital and a final period.
 * - Details (asked by the session): word times, and confidences where the result has token
 *   log-probabilities, from the result's tokens (tokens.ts), at the end of an utterance and of the
 *   proofreading decode. Times are on the recognizer's clock (ms of audio pushed since it was made or
 *   restored): the stream's own clock also counts the silence fed to end each utterance, so each
 *   utterance notes where it began on both. No alternatives: greedy search keeps one hypothesis, and the
 *   offline result gives only the best of its beam.
 */
import { autoPunctuationOf, keytermsOf, type EffectiveConfig } from '../../../protocol';
import type { SentenceDecoder } from '../pocketsphinx/recognizer';
import type { DetailedHypothesis } from '../pocketsphinx/recognizer';
import type { Proofread, RecognizedWord, Recognizer } from '../recognizer';
import { type SherpaOnlineResult, type SherpaOnlineStream, floatSamples } from './addon';
import type { OnlineBatcher } from './batcher';
import { hotwordsOf, keptWords, modelWords, proofreadText } from './text';
import { type TokenTimes, wordTimings } from './tokens';
import { IDLE_UTTERANCE_WINDOWS, SentenceAudio } from '../sentenceAudio';

export { loadSherpa } from './addon';

export const SHERPA_ENGINE_NAME = 'sherpa-onnx';
/** The partial result is read every 5 windows (100 ms). */
const RESULT_EVERY_WINDOWS = 5;

interface SherpaSessionOptions {
  batcher: OnlineBatcher;
  /** The model takes each stream's language (the catalogue's `perStreamLanguage`): it is pinned from `configure`. */
  perStreamLanguage: boolean;
  /** Silence fed at the end of an utterance so that its last chunk is decoded. */
  tailPaddingMs: number;
  config: EffectiveConfig;
  /** The proofreading pass (an offline model in a thread of its own); absent: first pass, capital, period. */
  proofreader?: () => SentenceDecoder;
  onProgress?: () => void;
}

export class SherpaRecognizer implements Recognizer {
  readonly name = SHERPA_ENGINE_NAME;
  readonly resumeFrom = 'utterance-start';
  private readonly batcher: OnlineBatcher;
  private readonly stream: SherpaOnlineStream;
  private readonly language: string | undefined;
  private readonly autoPunctuation: boolean;
  private readonly hotwords: string | undefined;
  /** The keyterms' words: their capitals stay when the model's are taken off. */
  private readonly keep: ReadonlySet<string>;
  private readonly padding: Float32Array;
  private inUtterance = false;
  private windows = 0;
  private last = '';
  /** Windows of the current sentence, kept for the proofreading pass (only with one). */
  private readonly sentence = new SentenceAudio<Int16Array>();
  private disposed = false;
  /** Ms of audio pushed since this recognizer was made or restored (the clock of word times). */
  private clockMs = 0;
  /** Ms of audio the stream has accepted since it was made: pushed windows, end-of-utterance silence, lead-ins fed again. */
  private streamMs = 0;
  private windowMs = 20;
  /** Where the open utterance began, on this recognizer's clock and on the stream's. */
  private utteranceOrigin = { clockMs: 0, streamMs: 0 };

  constructor(private readonly o: SherpaSessionOptions) {
    this.batcher = o.batcher;
    this.stream = this.batcher.recognizer.createStream();
    this.language = o.perStreamLanguage ? o.config.language : undefined;
    this.autoPunctuation = autoPunctuationOf(o.config);
    this.hotwords = hotwordsOf(keytermsOf(o.config));
    this.keep = keptWords(keytermsOf(o.config));
    this.padding = new Float32Array(Math.round((16000 * o.tailPaddingMs) / 1000));
    this.pin();
    this.batcher.add(this.stream);
  }

  push(window: Buffer, _voiced: boolean, ms: number): RecognizedWord[] | undefined {
    this.batcher.check(this.stream);
    if (!this.inUtterance) this.start();
    this.clockMs += ms;
    this.windowMs = ms;
    const pcm = new Int16Array(window.length >> 1);
    for (let i = 0; i < pcm.length; i++) pcm[i] = window.readInt16LE(i * 2);
    this.accept(floatSamples(pcm));
    if (this.o.proofreader) this.sentence.push(pcm);
    this.batcher.wants();
    if (++this.windows % RESULT_EVERY_WINDOWS !== 0) return undefined;
    const text = this.batcher.recognizer.getResult(this.stream).text.trim();
    if (text === this.last) {
      if (text === '' && this.windows >= IDLE_UTTERANCE_WINDOWS) this.restartIdle();
      return undefined;
    }
    this.last = text;
    return modelWords(text, this.autoPunctuation, this.keep);
  }

  endUtterance(details?: boolean): RecognizedWord[] {
    if (!this.inUtterance) return [];
    this.accept(this.padding);
    this.batcher.decodeNow(this.stream);
    const result = this.batcher.recognizer.getResult(this.stream);
    const text = result.text.trim();
    const timings = details ? wordTimings(text, this.onlineTokens(result)) : undefined;
    this.resetStream();
    this.inUtterance = false;
    const out = modelWords(text, this.autoPunctuation, this.keep, timings);
    this.sentence.utteranceEnded(out.length > 0);
    return out;
  }

  endSentence(firstPass: RecognizedWord[], proofread: boolean, details?: boolean): Proofread | Promise<Proofread> | undefined {
    const { audio, complete, startMs } = this.sentence.endSentence(this.inUtterance, this.clockMs, this.windowMs);
    if (!proofread) return undefined;
    // The first pass's words are already as the session asked (auto_punctuation): a capital and a period.
    const fallback = proofreadText(firstPass.map((w) => w.raw).join(' '), true);
    if (!this.o.proofreader || !complete || audio.length === 0) return fallback;
    const samples = new Int16Array(audio.reduce((n, w) => n + w.length, 0));
    let at = 0;
    for (const w of audio) {
      samples.set(w, at);
      at += w.length;
    }
    const decoder = this.o.proofreader();
    if (details && decoder.decodeDetailed) {
      return decoder
        .decodeDetailed(samples, this.o.onProgress, this.hotwords)
        .then((d) => (d.hyp.trim() === '' ? fallback : this.proofreadSentence(d, startMs)));
    }
    return decoder
      .decode(samples, this.o.onProgress, this.hotwords)
      .then((text) => (text.trim() === '' ? fallback : proofreadText(text, this.autoPunctuation, this.keep)));
  }

  /** The proofread sentence with its words' times (the decode's, `startMs` later) and confidences, where the result has them. */
  private proofreadSentence(d: DetailedHypothesis, startMs: number): Proofread {
    const hyp = d.hyp.trim();
    const text = proofreadText(hyp, this.autoPunctuation, this.keep);
    const t = d.tokens;
    const timings = t ? wordTimings(hyp, { ...t, startMs: t.startMs.map((ms) => startMs + ms), endMs: startMs + t.endMs }) : undefined;
    const words = modelWords(hyp, this.autoPunctuation, this.keep, timings);
    if (!timings || words.some((w) => w.start_ms === undefined)) return text;
    const forms = text.split(' ');
    return { text, words: words.map((w, i) => ({ ...w, proofread: forms[i] ?? w.raw })) };
  }

  /**
   * The online result's tokens on this recognizer's clock. The result's times count from the start of the
   * stream's segment (`start_time` on the stream's clock); the utterance began at `utteranceOrigin`. Times
   * past the audio pushed (the silence fed to end the utterance) are brought back to its end.
   */
  private onlineTokens(r: SherpaOnlineResult): TokenTimes {
    const o = this.utteranceOrigin;
    const segmentMs = r.start_time !== undefined ? r.start_time * 1000 : o.streamMs;
    const onClock = (s: number): number => Math.min(this.clockMs, Math.max(0, o.clockMs + segmentMs + s * 1000 - o.streamMs));
    return {
      tokens: r.tokens ?? [],
      startMs: (r.timestamps ?? []).map(onClock),
      ...(r.ys_probs?.length ? { logProbs: r.ys_probs } : {}),
      endMs: this.clockMs,
    };
  }

  checkpoint(): { engine: 'sherpa-onnx' } {
    return { engine: 'sherpa-onnx' };
  }

  restore(snapshot: unknown): void {
    if ((snapshot as { engine?: string } | null)?.engine !== 'sherpa-onnx') throw new Error('not a checkpoint of the sherpa-onnx engine');
    if (this.inUtterance) this.resetStream();
    this.inUtterance = false;
    this.clockMs = 0;
    this.sentence.restored();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.batcher.remove(this.stream);
  }

  private pin(): void {
    if (this.language) this.stream.setOption?.('language', this.language);
  }

  private resetStream(): void {
    this.batcher.recognizer.reset(this.stream);
    this.pin();
    this.last = '';
    this.windows = 0;
  }

  private start(): void {
    this.inUtterance = true;
    this.windows = 0;
    this.last = '';
    this.sentence.beginUtterance();
    this.utteranceOrigin = { clockMs: this.clockMs, streamMs: this.streamMs };
  }

  private accept(samples: Float32Array): void {
    this.stream.acceptWaveform({ samples, sampleRate: 16000 });
    this.streamMs += (samples.length * 1000) / 16000;
  }

  /** A long utterance with no word: the stream starts again (its features would grow without end). */
  private restartIdle(): void {
    this.resetStream();
    const lead = this.sentence.restartIdle();
    this.utteranceOrigin = { clockMs: this.clockMs - lead.length * this.windowMs, streamMs: this.streamMs };
    for (const w of lead) this.accept(floatSamples(w));
  }
}
