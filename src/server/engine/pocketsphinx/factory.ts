/**
 * A decoder worker's pocketsphinx recognizers: one model per language (and per domain language
 * model, modelSet.ts), picked by the session's `language` and `specialty`. Loading a decoder takes
 * most of a second (more for a large language model): one spare per language's general model is kept
 * ready, so a new session starts at once.
 */
import type { EffectiveConfig } from '../../../protocol';
import type { Recognizer } from '../recognizer';
import { loadPocketsphinx } from './ffi';
import { type PocketsphinxDecoderModel, modelKey } from './modelSet';
import type { ThreadProofreader } from './proofreadThread';
import { PocketsphinxRecognizer } from './recognizer';

export interface Factory {
  make(config: EffectiveConfig, onProgress?: () => void): Recognizer;
  /**
   * Loads what the next session will need (a spare decoder). It blocks this thread for most of a
   * second: it runs only while the thread decodes for no session (at start, after its last session).
   */
  prepare(): void;
}

export function pocketsphinxFactory(models: readonly PocketsphinxDecoderModel[], proofreader: ThreadProofreader): Factory {
  const ps = loadPocketsphinx();
  const spares = new Map<string, unknown>();
  return {
    make: (config, onProgress) => {
      const key = modelKey(models, config.language, config.specialty);
      const model = models.find((m) => m.key === key);
      if (!model) throw new Error(`no pocketsphinx model serves language ${config.language}`);
      const decoder = spares.get(model.key);
      spares.delete(model.key);
      const sentences = proofreader.forModel(model.key, model.sampleRate ?? 16000);
      return new PocketsphinxRecognizer(ps, model, () => sentences, onProgress, decoder);
    },
    prepare: () => {
      proofreader.warm();
      for (const m of models) {
        if (m.specialty !== 'general' || spares.has(m.key)) continue;
        try {
          spares.set(m.key, ps.init(m, { live: true }));
        } catch (e) {
          throw new Error(`the ${m.language} model (${m.dir}) cannot be loaded: ${(e as Error).message}`);
        }
      }
    },
  };
}
