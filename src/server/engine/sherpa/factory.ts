/**
 * The sherpa-onnx engine inside a decoder worker thread (engine/worker.ts): the thread's OnlineRecognizer
 * (loaded once, at the thread's start: a model the addon refuses fails the service's start), a recognizer
 * per session on it, and the proofreading thread when there is a proofreading model.
 */
import { errorMessage } from '../../../shared/errors';
import type { EffectiveConfig } from '../../../protocol';
import { ThreadProofreader } from '../pocketsphinx/proofreadThread';
import { EngineUnavailableError } from '../engine';
import type { DetailedHypothesis } from '../pocketsphinx/recognizer';
import type { Recognizer } from '../recognizer';
import type { WorkerEngine } from '../workerProtocol';
import { type SherpaAddon, loadSherpa } from './addon';
import { batcherFor } from './batcher';
import { onlineConfig } from './load';
import { SherpaSentenceDecoder } from './proofread';
import { SherpaRecognizer } from './recognizer';

type SherpaSpec = Extract<WorkerEngine, { engine: 'sherpa-onnx' }>;

interface SherpaFactory {
  make(config: EffectiveConfig, onProgress?: () => void): Recognizer;
  prepare(): void;
}

/** `script`: the worker entry (the proofreading thread runs it with `role: 'proofreader'`). */
export function sherpaFactory(spec: SherpaSpec, script: string, addon: SherpaAddon = loadSherpa()): SherpaFactory {
  const batcher = batcherFor(spec.model.dir, () => {
    try {
      return new addon.OnlineRecognizer(onlineConfig(spec.model));
    } catch (e) {
      throw new EngineUnavailableError(`sherpa-onnx refused the model in ${spec.model.dir}: ${errorMessage(e)}`);
    }
  });
  const thread = spec.proofreadModel ? new ThreadProofreader(script, spec) : undefined;
  return {
    make: (config, onProgress) =>
      new SherpaRecognizer({
        batcher,
        perStreamLanguage: spec.model.perStreamLanguage,
        tailPaddingMs: spec.model.tailPaddingMs,
        config,
        ...(thread ? { proofreader: () => thread } : {}),
        ...(onProgress ? { onProgress } : {}),
      }),
    // The model is loaded once per thread (above); the proofreading thread loads its own.
    prepare: () => thread?.warm(),
  };
}

/**
 * The proofreading thread's decode. A model the addon refuses fails every sentence with its reason (the
 * segmenter keeps the first pass) rather than the thread being started, and failing, again at each one.
 */
export function sherpaProofreader(
  spec: SherpaSpec,
  addon?: SherpaAddon,
): (pcm: Int16Array, hotwords?: string, details?: boolean) => DetailedHypothesis {
  let decoder: SherpaSentenceDecoder;
  try {
    if (!spec.proofreadModel) throw new Error('no proofreading model (--proofread-model)');
    decoder = new SherpaSentenceDecoder(addon ?? loadSherpa(), spec.proofreadModel);
  } catch (e) {
    const why = errorMessage(e);
    return () => {
      throw new Error(why);
    };
  }
  return (pcm, hotwords, details) => (details ? decoder.decodeDetailedNow(pcm, hotwords) : { hyp: decoder.decodeNow(pcm, hotwords) });
}
