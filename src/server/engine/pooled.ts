/**
 * Engines whose decoders run in the worker pool (pocketsphinx, sherpa-onnx), and {@link openEngine}:
 * the start-time checks that make a missing library or model fail the service's start (exit 1),
 * never the first session.
 */
import { availableParallelism } from 'node:os';
import path from 'node:path';
import type { EffectiveConfig } from '../../protocol';
import type { ServerLogger } from '../log';
import { DEFAULT_POCKETSPHINX_MODEL, POCKETSPHINX_SAMPLE_RATE, loadPocketsphinx } from './pocketsphinx/ffi';
import { pocketsphinxModelSet } from './pocketsphinx/modelSet';
import type { SearchEffort } from './pocketsphinx/languages';
import { defaultModelsDir } from './sherpa/model';
import { POCKETSPHINX_ENGINE_NAME } from './pocketsphinx/recognizer';
import { DecoderPool } from './pool';
import { type Engine, type EngineBusy, EngineUnavailableError, type WorkerRecognizer, languageRefusal } from './engine';
import { checkModels, loadModel } from './sherpa/load';
import { SHERPA_ENGINE_NAME, loadSherpa } from './sherpa/recognizer';
import { SILERO_SAMPLE_RATE, type VadName, defaultSileroModel, loadVadAddon, verifySileroModel } from './sileroVad';
import { SIMULATED_ENGINE_NAME, SimulatedEngine } from './simulated';
import type { WorkerEngine } from './workerProtocol';
import { type RemoteEngineOptions, openRemoteEngine } from './remote/remoteEngine';

export const ENGINE_NAMES = ['simulated', 'pocketsphinx', 'sherpa-onnx', 'realtime', 'vosk'] as const;
export type EngineName = (typeof ENGINE_NAMES)[number];

class PooledEngine implements Engine {
  /** Languages installed but not served, and why (pocketsphinx: a model that fails its check). */
  refused?: ReadonlyArray<{ language: string; reason: string }>;

  constructor(
    readonly name: string,
    readonly languages: readonly string[],
    private readonly sampleRate: number,
    private readonly pool: DecoderPool,
    /** Keyterms are applied (sherpa-onnx with a proofreading model: the proofreading pass's hotwords). */
    private readonly keyterms: 'proofreading' | 'none' = 'none',
    /** The simulated engine in the pool (`--vad silero`): its own checks, then the sample rate. */
    private readonly simulated?: SimulatedEngine,
  ) {}

  appliesKeyterms(config: EffectiveConfig): boolean {
    return this.keyterms === 'proofreading' && config.enable_final_proofreading;
  }

  unsupported(config: EffectiveConfig): string | undefined {
    if (this.simulated) {
      const refusal = this.simulated.unsupported(config);
      if (refusal || config.sample_rate === this.sampleRate) return refusal;
      return `sample_rate ${config.sample_rate} Hz is not supported with the Silero voice-activity detector (--vad silero); use ${this.sampleRate}`;
    }
    if (config.encoding !== 'pcm_s16le') {
      return `encoding ${JSON.stringify(config.encoding)} is not supported; the only supported encoding is "pcm_s16le"`;
    }
    if (!this.languages.includes(config.language)) return languageRefusal(this.name, config.language, this.languages);
    if (config.sample_rate !== this.sampleRate) {
      return `sample_rate ${config.sample_rate} Hz is not supported by the ${this.name} engine; use ${this.sampleRate}`;
    }
    return undefined;
  }

  create(): WorkerRecognizer {
    return { kind: 'worker', name: this.name, open: (init) => this.pool.open(init) };
  }

  busy(): EngineBusy | undefined {
    return this.pool.busy();
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

interface OpenEngineOptions {
  engine: EngineName;
  /** `--model DIR` (pocketsphinx), `--model NAME|DIR` (sherpa-onnx). */
  model?: string;
  /** `--proofread-model NAME|DIR` (sherpa-onnx): the offline model of the proofreading pass. */
  proofreadModel?: string;
  /** `--script FILE` text (simulated). */
  script?: string;
  /** `--vad` (default energy). */
  vad?: VadName;
  /** `--vad-model FILE`: the Silero VAD file (default: the one `npm run vad:setup` installs in the models directory). */
  vadModel?: string;
  /** Worker threads (default: one per core). */
  workers?: number;
  log: ServerLogger;
  /** Directory of the built worker entry (default: beside this bundle). */
  distDir?: string;
  /** `--engine realtime|vosk`: the upstream (engine/remote/). */
  remote?: Omit<RemoteEngineOptions, 'engine' | 'log'>;
  /** pocketsphinx: where the other languages' models are (default: DICTEE_MODELS_DIR, else ~/.cache/dictee/models). */
  modelsDir?: string;
  /** pocketsphinx: `--search` (default accurate). */
  search?: SearchEffort;
}

/** Builds the engine and checks that it can run. Throws an EngineUnavailableError with the reason. */
export async function openEngine(o: OpenEngineOptions): Promise<Engine> {
  const silero = o.vad === 'silero';
  if (o.engine === 'simulated' && !silero) return new SimulatedEngine(o.script);
  if (o.engine === 'realtime' || o.engine === 'vosk') {
    if (!o.remote) throw new EngineUnavailableError(`--engine ${o.engine} needs --engine-url`);
    if (silero)
      throw new EngineUnavailableError(
        `--vad silero runs in the decoder threads; the ${o.engine} engine decodes elsewhere: use --vad energy`,
      );
    return openRemoteEngine({ ...o.remote, engine: o.engine, log: o.log });
  }
  // Hashed before anything native runs (a corrupt ONNX file aborts the process); the workers check again.
  const sileroModel = silero ? verifySileroModel(o.vadModel ?? defaultSileroModel()) : undefined;
  if (silero) loadVadAddon();
  let spec: WorkerEngine;
  let languages: readonly string[];
  let keyterms: 'proofreading' | 'none' = 'none';
  let simulated: SimulatedEngine | undefined;
  let refused: Array<{ language: string; reason: string }> = [];
  if (o.engine === 'simulated') {
    // The detector is native: the segmenters run in the decoder threads, as for the real engines.
    simulated = new SimulatedEngine(o.script);
    spec = { engine: 'simulated', ...(o.script !== undefined ? { script: o.script } : {}) };
    languages = simulated.languages;
  } else if (o.engine === 'pocketsphinx') {
    // Every language's files checked (hashed) before anything native reads them (modelSet.ts).
    const set = await pocketsphinxModelSet(
      o.model ?? DEFAULT_POCKETSPHINX_MODEL,
      o.model !== undefined,
      o.modelsDir ?? defaultModelsDir(),
      o.search,
    );
    for (const r of set.refused) o.log.warn('pocketsphinx: a language is not served', { language: r.language, reason: r.reason });
    for (const n of set.notes) {
      o.log.info('pocketsphinx: language model', {
        language: n.language,
        specialty: n.specialty,
        lm: n.lm,
        dict: n.dict,
        grammar_words_added_to_lm: n.addedToLm,
        grammar_words_added_to_dict: n.addedToDict,
        grammar_words_unpronounceable: n.unpronounceable.length ? n.unpronounceable : undefined,
        loaded: n.loaded,
        binary_lm: n.binaryNote,
        search: n.search,
      });
    }
    loadPocketsphinx(); // the library is there (a clear message now, not in a worker)
    spec = { engine: 'pocketsphinx', models: set.models };
    languages = set.languages;
    refused = set.refused;
  } else {
    if (!o.model) throw new Error('--engine sherpa-onnx needs --model NAME|DIR (npm run models -- list shows the models)');
    // Both models' files hashed before any native call (a corrupt model aborts the native library).
    const model = await loadModel(o.model, 'model');
    const proofreadModel = o.proofreadModel ? await loadModel(o.proofreadModel, 'proofread') : undefined;
    loadSherpa();
    await checkModels(model, proofreadModel, (msg, fields) => o.log.warn(msg, fields));
    spec = { engine: 'sherpa-onnx', model, ...(proofreadModel ? { proofreadModel } : {}) };
    languages = model.languages;
    if (proofreadModel) keyterms = 'proofreading';
  }
  if (sileroModel !== undefined) spec.sileroModel = sileroModel;
  const name = simulated ? SIMULATED_ENGINE_NAME : o.engine === 'pocketsphinx' ? POCKETSPHINX_ENGINE_NAME : SHERPA_ENGINE_NAME;
  const pool = new DecoderPool({
    size: o.workers ?? availableParallelism(),
    script: path.join(o.distDir ?? __dirname, 'engine-worker.js'),
    spec,
    // What a session starts from: a fresh recognizer's checkpoint (a resume before the first event restores it).
    engineSnapshot: simulated ? { engine: 'simulated', cursor: 0, voicedMs: 0 } : { engine: name },
    log: o.log,
  });
  await pool.start();
  const engine = new PooledEngine(name, languages, silero ? SILERO_SAMPLE_RATE : POCKETSPHINX_SAMPLE_RATE, pool, keyterms, simulated);
  if (refused.length) engine.refused = refused;
  return engine;
}
