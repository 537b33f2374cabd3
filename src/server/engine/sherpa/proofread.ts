/**
 * The proofreading pass of the sherpa-onnx engine: an offline model (Parakeet TDT 0.6B v3, int8) decodes
 * each finished sentence's audio again as a whole, with the session's keyterms as the stream's hotwords.
 * It runs in the decoder worker's proofreading thread (pocketsphinx/proofreadThread.ts, the same thread
 * protocol as pocketsphinx's), so a whole-sentence decode never holds back the worker's sessions.
 */
import { errorMessage } from '../../../shared/errors';
import { EngineUnavailableError } from '../engine';
import type { DetailedHypothesis, SentenceDecoder } from '../pocketsphinx/recognizer';
import { type SherpaAddon, type SherpaOffline, type SherpaOfflineResult, floatSamples } from './addon';
import { bpeVocabFor, offlineConfig } from './load';
import type { SherpaModel } from './model';
import type { TokenTimes } from './tokens';

const ms = (seconds: readonly number[]): number[] => seconds.map((s) => s * 1000);

/** The tokens of an offline result, on the clock of its audio (`samples` long); undefined without tokens and times. */
function offlineTokens(r: SherpaOfflineResult, samples: number): TokenTimes | undefined {
  if (!r.tokens?.length || !r.timestamps?.length) return undefined;
  return {
    tokens: r.tokens,
    startMs: ms(r.timestamps),
    ...(r.durations?.length ? { durationMs: ms(r.durations) } : {}),
    ...(r.ys_log_probs?.length ? { logProbs: r.ys_log_probs } : {}),
    endMs: (samples * 1000) / 16000,
  };
}

export class SherpaSentenceDecoder implements SentenceDecoder {
  private readonly recognizer: SherpaOffline;

  constructor(addon: SherpaAddon, model: SherpaModel, cacheDir?: string) {
    if (!addon.OfflineRecognizer)
      throw new EngineUnavailableError('this sherpa-onnx-node has no OfflineRecognizer: the proofreading model cannot run');
    let bpeVocab: string;
    try {
      bpeVocab = bpeVocabFor(model.tokens, cacheDir);
    } catch (e) {
      throw new EngineUnavailableError(`cannot derive the hotwords vocabulary from ${model.tokens}: ${errorMessage(e)}`);
    }
    try {
      this.recognizer = new addon.OfflineRecognizer(offlineConfig(model, bpeVocab));
    } catch (e) {
      throw new EngineUnavailableError(`sherpa-onnx refused the proofreading model in ${model.dir}: ${errorMessage(e)}`);
    }
  }

  /** The sentence's text (blocks while the model decodes). `hotwords`: the addon's `/`-separated phrases. */
  decodeNow(samples: Int16Array, hotwords?: string): string {
    return this.decodeDetailedNow(samples, hotwords).hyp;
  }

  /** The sentence's text and its tokens' times and log-probabilities, where the result has them. */
  decodeDetailedNow(samples: Int16Array, hotwords?: string): DetailedHypothesis {
    const stream = hotwords === undefined ? this.recognizer.createStream() : this.recognizer.createStream(hotwords);
    stream.acceptWaveform({ samples: floatSamples(samples), sampleRate: 16000 });
    this.recognizer.decode(stream);
    const r = this.recognizer.getResult(stream);
    const tokens = offlineTokens(r, samples.length);
    return tokens ? { hyp: r.text.trim(), tokens } : { hyp: r.text.trim() };
  }

  decodeDetailed(samples: Int16Array, _onProgress?: () => void, hotwords?: string): Promise<DetailedHypothesis> {
    try {
      return Promise.resolve(this.decodeDetailedNow(samples, hotwords));
    } catch (e) {
      return Promise.reject(e as Error);
    }
  }

  decode(samples: Int16Array, _onProgress?: () => void, hotwords?: string): Promise<string> {
    try {
      return Promise.resolve(this.decodeNow(samples, hotwords));
    } catch (e) {
      return Promise.reject(e as Error);
    }
  }

  dispose(): void {
    /* the addon frees the recognizer with its handle */
  }
}
