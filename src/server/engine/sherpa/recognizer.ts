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
 */
import { autoPunctuationOf, keytermsOf, type EffectiveConfig } from '../../../protocol';
import type { SentenceDecoder } from '../pocketsphinx/recognizer';
import type { RecognizedWord, Recognizer } from '../recognizer';
import { type SherpaOnlineStream, floatSamples } from './addon';
import type { OnlineBatcher } from './batcher';
import { hotwordsOf, keptWords, modelWords, proofreadText } from './text';

export { loadSherpa } from './addon';

export const SHERPA_ENGINE_NAME = 'sherpa-onnx';
/** The partial result is read every 5 windows (100 ms). */
const RESULT_EVERY_WINDOWS = 5;
/** Audio kept before the first word of a sentence, for the proofreading pass. */
const LEAD_IN_WINDOWS = 25;
/** An utterance with no word for this many windows (10 s) restarts from a short lead-in: silence costs nothing. */
const IDLE_UTTERANCE_WINDOWS = 500;

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
  private sentenceAudio: Int16Array[] = [];
  private utteranceAudioStart = 0;
  private sentenceHasWords = false;
  /** A sentence begun before a restart has no audio here. */
  private sentenceComplete = true;
  private disposed = false;

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

  push(window: Buffer, _voiced: boolean, _ms: number): RecognizedWord[] | undefined {
    this.batcher.check(this.stream);
    if (!this.inUtterance) this.start();
    const pcm = new Int16Array(window.length >> 1);
    for (let i = 0; i < pcm.length; i++) pcm[i] = window.readInt16LE(i * 2);
    this.stream.acceptWaveform({ samples: floatSamples(pcm), sampleRate: 16000 });
    if (this.o.proofreader) this.sentenceAudio.push(pcm);
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

  endUtterance(): RecognizedWord[] {
    if (!this.inUtterance) return [];
    this.stream.acceptWaveform({ samples: this.padding, sampleRate: 16000 });
    this.batcher.decodeNow(this.stream);
    const text = this.batcher.recognizer.getResult(this.stream).text.trim();
    this.resetStream();
    this.inUtterance = false;
    const out = modelWords(text, this.autoPunctuation, this.keep);
    if (out.length) this.sentenceHasWords = true;
    else if (!this.sentenceHasWords) this.trimLeadIn();
    return out;
  }

  endSentence(firstPass: RecognizedWord[], proofread: boolean): string | Promise<string> | undefined {
    // The open utterance (a sentence closed without a pause) belongs to the next sentence.
    const keep = this.inUtterance ? this.sentenceAudio.slice(this.utteranceAudioStart) : [];
    const audio = this.inUtterance ? this.sentenceAudio.slice(0, this.utteranceAudioStart) : this.sentenceAudio;
    const complete = this.sentenceComplete;
    this.sentenceAudio = keep;
    this.utteranceAudioStart = 0;
    this.sentenceHasWords = false;
    this.sentenceComplete = true;
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
    return this.o
      .proofreader()
      .decode(samples, this.o.onProgress, this.hotwords)
      .then((text) => (text.trim() === '' ? fallback : proofreadText(text, this.autoPunctuation, this.keep)));
  }

  checkpoint(): { engine: 'sherpa-onnx' } {
    return { engine: 'sherpa-onnx' };
  }

  restore(snapshot: unknown): void {
    if ((snapshot as { engine?: string } | null)?.engine !== 'sherpa-onnx') throw new Error('not a checkpoint of the sherpa-onnx engine');
    if (this.inUtterance) this.resetStream();
    this.inUtterance = false;
    this.sentenceAudio = [];
    this.sentenceHasWords = false;
    this.sentenceComplete = false;
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
    this.utteranceAudioStart = this.sentenceAudio.length;
  }

  /** Silence before the first word of a sentence: keep only a short lead-in. */
  private trimLeadIn(): void {
    if (this.sentenceAudio.length > LEAD_IN_WINDOWS) this.sentenceAudio = this.sentenceAudio.slice(-LEAD_IN_WINDOWS);
  }

  /** A long utterance with no word: the stream starts again (its features would grow without end). */
  private restartIdle(): void {
    this.resetStream();
    if (!this.sentenceHasWords) this.trimLeadIn();
    const lead = this.sentenceAudio.slice(-LEAD_IN_WINDOWS);
    this.utteranceAudioStart = this.sentenceAudio.length - lead.length;
    for (const w of lead) this.stream.acceptWaveform({ samples: floatSamples(w), sampleRate: 16000 });
  }
}
