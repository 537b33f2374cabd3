/**
 * From `--model NAME|DIR` (and `--proofread-model`) to a verified model and the addon's configuration
 * for it. Everything here runs before any native call: a missing or corrupt model fails the start with
 * what to run, never the native library.
 *
 * The on-disk model and its verification are engine/sherpa/model.ts ({@link verifiedModel}); this file
 * is the one place the engine reaches it through.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EngineUnavailableError } from '../engine';
import { ModelNotInstalledError, type SherpaModel, verifiedModel } from './model';

/** `online`: a streaming transducer (the first pass); `offline`: a whole-utterance one (the proofreading pass). */
export type ModelKind = 'online' | 'offline';

/** A verified model, what it is for, and how much silence ends its last chunk. */
export interface LoadedModel extends SherpaModel {
  kind: ModelKind;
  /** Silence fed at the end of an utterance so that its last chunk is decoded (the model's chunk, at least). */
  tailPaddingMs: number;
}

/** Where `npm run models` installs: DICTEE_MODELS_DIR, else $XDG_CACHE_HOME/dictee/models, else ~/.cache/dictee/models. */
export function modelsDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.DICTEE_MODELS_DIR) return path.resolve(env.DICTEE_MODELS_DIR);
  return path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'dictee', 'models');
}

/** A model name (a catalogue entry) rather than a path: no separator, not `.` or `..`. */
export function isModelName(nameOrDir: string): boolean {
  return !/[\\/]/.test(nameOrDir) && nameOrDir !== '.' && nameOrDir !== '..' && !nameOrDir.startsWith('~');
}

/** The model's kind: the marker's when it says, else an offline NeMo transducer by its type. */
export function kindOf(model: SherpaModel): ModelKind {
  const said = (model as { kind?: unknown }).kind;
  if (said === 'online' || said === 'offline') return said;
  return model.modelType === 'nemo_transducer' ? 'offline' : 'online';
}

/**
 * Resolves and verifies `--model` (`role: 'model'`, a streaming model) or `--proofread-model` (`role:
 * 'proofread'`, an offline one). A NAME is looked for in {@link modelsDir}; its absence says what to run.
 */
export async function loadModel(nameOrDir: string, role: 'model' | 'proofread', env: NodeJS.ProcessEnv = process.env): Promise<LoadedModel> {
  const flag = role === 'model' ? '--model' : '--proofread-model';
  const byName = isModelName(nameOrDir) && !existsSync(nameOrDir);
  const dir = byName ? path.join(modelsDir(env), nameOrDir) : path.resolve(nameOrDir);
  if (byName && !existsSync(dir)) {
    throw new ModelNotInstalledError(
      `model ${nameOrDir} is not installed in ${modelsDir(env)}: run npm run models -- fetch ${nameOrDir}` +
        ` (on a machine that cannot reach the model's host, download it on one that can and run npm run models -- import <archive or directory> there);` +
        ` npm run models -- list shows the models ${flag} takes`,
    );
  }
  let model: SherpaModel;
  try {
    model = await verifiedModel(dir); // every file hashed before any native call
  } catch (e) {
    if (byName && e instanceof EngineUnavailableError) throw new (e.constructor as typeof EngineUnavailableError)(`${e.message} (npm run models -- fetch ${nameOrDir} installs it again)`);
    throw e;
  }
  const kind = kindOf(model);
  const want: ModelKind = role === 'model' ? 'online' : 'offline';
  if (kind !== want) {
    throw new EngineUnavailableError(
      role === 'model'
        ? `${model.name} (${dir}) is an offline model: it serves the proofreading pass (--proofread-model ${nameOrDir}), not streaming (--model takes a streaming model)`
        : `${model.name} (${dir}) is a streaming model: --proofread-model takes an offline model (Parakeet TDT 0.6B v3)`,
    );
  }
  const chunkMs = (model as { chunkMs?: unknown }).chunkMs;
  return { ...model, kind, tailPaddingMs: Math.max(400, typeof chunkMs === 'number' ? chunkMs : 560) };
}

/** The OnlineRecognizer's configuration (streaming-asr.js): the segmenter decides utterances, so no endpointing. */
export function onlineConfig(model: SherpaModel): object {
  return {
    featConfig: { sampleRate: 16000, featureDim: model.featureDim },
    modelConfig: {
      transducer: { encoder: model.encoder, decoder: model.decoder, joiner: model.joiner },
      tokens: model.tokens,
      numThreads: 1,
      provider: 'cpu',
      ...(model.modelType ? { modelType: model.modelType } : {}),
    },
    decodingMethod: 'greedy_search',
    enableEndpoint: false,
  };
}

/**
 * The OfflineRecognizer's configuration (non-streaming-asr.js) for the proofreading pass. Decoded with
 * `modified_beam_search` and a BPE vocabulary, so that a stream can take the session's keyterms as
 * hotwords in plain words (as sherpa-onnx's Parakeet hotwords example does).
 */
export function offlineConfig(model: SherpaModel, bpeVocab: string): object {
  return {
    featConfig: { sampleRate: 16000, featureDim: model.featureDim },
    modelConfig: {
      transducer: { encoder: model.encoder, decoder: model.decoder, joiner: model.joiner },
      tokens: model.tokens,
      numThreads: 1,
      provider: 'cpu',
      modelType: model.modelType ?? 'nemo_transducer',
      modelingUnit: 'bpe',
      bpeVocab,
    },
    decodingMethod: 'modified_beam_search',
    maxActivePaths: 4,
    hotwordsScore: 1.5,
  };
}

/**
 * A BPE vocabulary derived from the model's `tokens.txt` (one `piece<TAB>-1.0` a line: equal scores make
 * the encoder a longest match), as sherpa-onnx's Parakeet hotwords example derives it. Written once per
 * tokens file under `cacheDir` (never into the verified model directory), atomically.
 */
export function bpeVocabFor(tokensFile: string, cacheDir: string = path.join(os.tmpdir(), 'dictee-sherpa')): string {
  const tokens = readFileSync(tokensFile, 'utf8');
  const file = path.join(cacheDir, `bpe-${createHash('sha256').update(tokens).digest('hex').slice(0, 16)}.vocab`);
  if (existsSync(file)) return file;
  const vocab = tokens
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => `${line.split(' ')[0]}\t-1.0`)
    .join('\n');
  mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  writeFileSync(tmp, `${vocab}\n`);
  renameSync(tmp, file);
  return file;
}
