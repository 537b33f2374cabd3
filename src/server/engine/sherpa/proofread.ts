/**
 * The proofreading pass of the sherpa-onnx engine: an offline model (Parakeet TDT 0.6B v3, int8) decodes
 * each finished sentence's audio again as a whole, with the session's keyterms as the stream's hotwords.
 * It runs in the decoder worker's proofreading thread (pocketsphinx/proofreadThread.ts, the same thread
 * protocol as pocketsphinx's), so a whole-sentence decode never holds back the worker's sessions.
 */
import { errorMessage } from '../../../shared/errors';
import { EngineUnavailableError } from '../engine';
import type { SentenceDecoder } from '../pocketsphinx/recognizer';
import { type SherpaAddon, type SherpaOffline, floatSamples } from './addon';
import { bpeVocabFor, offlineConfig } from './load';
import type { SherpaModel } from './model';

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
    const stream = hotwords === undefined ? this.recognizer.createStream() : this.recognizer.createStream(hotwords);
    stream.acceptWaveform({ samples: floatSamples(samples), sampleRate: 16000 });
    this.recognizer.decode(stream);
    return this.recognizer.getResult(stream).text.trim();
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
