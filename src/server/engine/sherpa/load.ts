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
import { errorMessage } from '../../../shared/errors';
import { EngineUnavailableError } from '../engine';
import { ADDON_ID } from './addon';
import { CATALOGUE, type CatalogueEntry } from './catalogue';
import { probeRecognizer } from './probe';
import { checkTokens } from './tokensFile';
import {
  ModelCorruptError,
  type SherpaModel,
  defaultModelsDir,
  offlineRecognizerConfig,
  onlineRecognizerConfig,
  resolveModel,
} from './model';

/** `online`: a streaming transducer (the first pass); `offline`: a whole-utterance one (the proofreading pass). */
type ModelKind = SherpaModel['kind'];

/** A verified model, and how much silence ends its last chunk. */
export interface LoadedModel extends SherpaModel {
  /** Silence fed at the end of an utterance so that its last chunk is decoded (the model's chunk, at least). */
  tailPaddingMs: number;
}

/** The silence that decodes a streaming model's last chunk: Nemotron's chosen export has 560 ms chunks. */
const TAIL_PADDING_MS = 560;

/**
 * The catalogue the service resolves `--model NAME` in: the built-in one, and the entries of the JSON file
 * `DICTEE_MODEL_CATALOGUE` names (a team's own models, laid out and locked as `npm run models` does).
 */
function serviceCatalogue(env: NodeJS.ProcessEnv = process.env): readonly CatalogueEntry[] {
  const file = env.DICTEE_MODEL_CATALOGUE;
  if (!file) return CATALOGUE;
  let extra: unknown;
  try {
    extra = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new EngineUnavailableError(`DICTEE_MODEL_CATALOGUE ${file} cannot be read as JSON (${errorMessage(e)})`);
  }
  const entries = Array.isArray(extra) ? (extra as CatalogueEntry[]) : [];
  const bad = entries.find(
    (e) =>
      !e ||
      typeof e.name !== 'string' ||
      (e.kind !== 'online' && e.kind !== 'offline') ||
      !Array.isArray(e.files) ||
      !Array.isArray(e.languages),
  );
  if (!Array.isArray(extra) || bad)
    throw new EngineUnavailableError(`DICTEE_MODEL_CATALOGUE ${file} is not a list of catalogue entries (name, kind, languages, files)`);
  return [...CATALOGUE, ...entries];
}

/**
 * Resolves and verifies `--model` (`role: 'model'`, a streaming model) or `--proofread-model` (`role:
 * 'proofread'`, an offline one): a NAME in the models directory, or a DIR; every file hashed against its
 * lock before any native call. A missing or damaged model's error says what to run.
 */
export async function loadModel(
  nameOrDir: string,
  role: 'model' | 'proofread',
  env: NodeJS.ProcessEnv = process.env,
): Promise<LoadedModel> {
  const model = await resolveModel(nameOrDir, defaultModelsDir(env), { catalogue: serviceCatalogue(env) });
  const want: ModelKind = role === 'model' ? 'online' : 'offline';
  if (model.kind !== want) {
    throw new ModelCorruptError(
      role === 'model'
        ? `${model.name} (${model.dir}) is an offline model: it serves the proofreading pass (--proofread-model ${nameOrDir}), not streaming (--model takes a streaming model)`
        : `${model.name} (${model.dir}) is a streaming model: --proofread-model takes an offline model (Parakeet TDT 0.6B v3)`,
    );
  }
  checkTokens(model); // before any native code reads tokens.txt
  return { ...model, tailPaddingMs: TAIL_PADDING_MS };
}

/** The OnlineRecognizer's configuration (streaming-asr.js): the segmenter decides utterances, so no endpointing. */
export function onlineConfig(model: SherpaModel): object {
  return onlineRecognizerConfig(model, { decodingMethod: 'greedy_search', enableEndpoint: false });
}

/**
 * The OfflineRecognizer's configuration (non-streaming-asr.js) for the proofreading pass. Decoded with
 * `modified_beam_search` and a BPE vocabulary, so that a stream can take the session's keyterms as
 * hotwords in plain words (as sherpa-onnx's Parakeet hotwords example does).
 */
export function offlineConfig(model: SherpaModel, bpeVocab: string): object {
  const base = offlineRecognizerConfig(model);
  return {
    ...base,
    modelConfig: { ...(base.modelConfig as object), modelType: model.modelType ?? 'nemo_transducer', modelingUnit: 'bpe', bpeVocab },
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

/**
 * Each model loaded once by the native library in a child process (probe.ts), with the configuration the
 * threads will use, before any thread loads it: a model sherpa-onnx would end the process on stops the
 * start with its reason. A synthetic model (npm run models -- synth) is said so in the log.
 */
export async function checkModels(
  model: LoadedModel,
  proofreadModel: LoadedModel | undefined,
  warn: (msg: string, fields: Record<string, unknown>) => void,
): Promise<void> {
  for (const m of [model, proofreadModel]) {
    if (m?.synthetic)
      warn('sherpa-onnx: a SYNTHETIC model (made-up weights, for tests): it recognises no speech', { model: m.name, dir: m.dir });
  }
  await probeRecognizer('online', onlineConfig(model), model.dir, { addonId: ADDON_ID });
  if (proofreadModel)
    await probeRecognizer('offline', offlineConfig(proofreadModel, bpeVocabFor(proofreadModel.tokens)), proofreadModel.dir, {
      addonId: ADDON_ID,
    });
}
