/**
 * An installed sherpa-onnx model: a directory named after its catalogue entry holding the entry's
 * files and the lock {@link LOCK_FILE} (model, revision, every file's size and sha256) that
 * `npm run models` wrote once each file matched the hash pinned in the catalogue or published by the
 * hub. Every file is hashed again against the lock before any native call: a corrupt model file
 * aborts the native library (the whole process), so it must never reach it.
 *
 * The service calls {@link resolveModel} (`--model NAME|DIR`), then builds the addon's configuration
 * with {@link onlineRecognizerConfig} / {@link offlineRecognizerConfig} (pure functions).
 */
import { errorMessage } from '../../../shared/errors';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, lstatSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EngineUnavailableError } from '../engine';
import { CATALOGUE, type CatalogueEntry, catalogueEntry } from './catalogue';

/** The lock inside an installed model's directory. */
export const LOCK_FILE = 'dictee-model.lock.json';
export const LOCK_FORMAT = 'dictee-model-lock/1';

export interface ModelLock {
  format: typeof LOCK_FORMAT;
  model: string;
  /** Hugging Face repository the files were read from (or would have been). */
  repo: string;
  /** The commit of `repo` the files are those of. */
  revision: string;
  files: Record<string, { size: number; sha256: string }>;
  /**
   * Set by `npm run models -- synth` (src/models/synth.ts): a test model of the entry's exact shape whose
   * weights were made up, not the published one. Its files are checked against this lock but not against
   * the catalogue's pins; the service says so in its log at start. It recognises no speech.
   */
  synthetic?: string;
}

/** A verified model, everything the service needs to configure it. */
export interface SherpaModel {
  dir: string;
  name: string;
  kind: 'online' | 'offline';
  languages: string[];
  perStreamLanguage: boolean;
  punctuates: boolean;
  licence: string;
  revision: string;
  encoder: string;
  decoder: string;
  joiner: string;
  tokens: string;
  featureDim: number;
  modelType?: string;
  /** The lock's `synthetic` note: a test model made by `npm run models -- synth`, not the published weights. */
  synthetic?: string;
}

export class ModelNotInstalledError extends EngineUnavailableError {}
export class ModelCorruptError extends EngineUnavailableError {}

/** Where models go: DICTEE_MODELS_DIR, else $XDG_CACHE_HOME/dictee/models, else ~/.cache/dictee/models. */
export function defaultModelsDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.DICTEE_MODELS_DIR) return path.resolve(env.DICTEE_MODELS_DIR);
  return path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'dictee', 'models');
}

export function sha256File(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream(file)
      .on('data', (d) => h.update(d))
      .on('error', reject)
      .on('end', () => resolve(h.digest('hex')));
  });
}

const HEX64 = /^[0-9a-f]{64}$/;

/** Parses and checks a lock's shape (`source` names it in errors); throws {@link ModelCorruptError}. */
function parseLock(text: string, source: string): ModelLock {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new ModelCorruptError(`${source} is not JSON (${errorMessage(e)})`);
  }
  const l = v as Partial<ModelLock>;
  const bad = (why: string): never => {
    throw new ModelCorruptError(`${source} is not a model lock: ${why}`);
  };
  if (typeof v !== 'object' || v === null) bad('not an object');
  if (l.format !== LOCK_FORMAT) bad(`format is ${JSON.stringify(l.format)}, ${LOCK_FORMAT} expected`);
  if (typeof l.model !== 'string' || !l.model) bad('no model name');
  if (typeof l.repo !== 'string' || typeof l.revision !== 'string' || !l.revision) bad('no repo or revision');
  if (typeof l.files !== 'object' || l.files === null || !Object.keys(l.files).length) bad('no files');
  if (l.synthetic !== undefined && (typeof l.synthetic !== 'string' || !l.synthetic)) bad('synthetic is not a note');
  for (const [rel, f] of Object.entries(l.files!)) {
    if (!safeRelative(rel)) bad(`file name ${JSON.stringify(rel)} leaves the model directory`);
    if (!f || !Number.isSafeInteger(f.size) || f.size < 0 || typeof f.sha256 !== 'string' || !HEX64.test(f.sha256))
      bad(`${rel} has no size and sha256`);
  }
  return l as ModelLock;
}

export function readLockFile(file: string): ModelLock {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ModelCorruptError(`cannot read the lock ${file} (${errorMessage(e)})`);
  }
  return parseLock(text, file);
}

/** A path inside a directory: relative, no `..`, no empty or absolute part, no backslash. */
export function safeRelative(rel: string): boolean {
  if (!rel || rel.includes('\\') || rel.includes('\0') || path.posix.isAbsolute(rel) || /^[A-Za-z]:/.test(rel)) return false;
  return rel.split('/').every((p) => p !== '' && p !== '.' && p !== '..');
}

/** The lock's files are exactly the entry's, with the entry's pins where it has them. Returns why not, or null. */
export function lockMismatch(lock: ModelLock, entry: CatalogueEntry): string | null {
  if (lock.model !== entry.name) return `it is the lock of ${lock.model}, not ${entry.name}`;
  const want = entry.files.map((f) => f.path).sort();
  const have = Object.keys(lock.files).sort();
  if (want.join('\n') !== have.join('\n')) return `it lists ${have.join(', ')}; ${entry.name} is ${want.join(', ')}`;
  // A synthetic model (npm run models -- synth) has the entry's files, not its bytes: its own lock is checked.
  if (lock.synthetic) return null;
  for (const f of entry.files) {
    const l = lock.files[f.path]!;
    if (l.size !== f.size && f.sha256) return `${f.path} has ${l.size} bytes in the lock, the catalogue pins ${f.size}`;
    if (f.sha256 && l.sha256 !== f.sha256) return `${f.path}'s sha256 in the lock differs from the catalogue's pin`;
  }
  return null;
}

/** Checks every file of `lock` in `dir`: a regular file (no link), its size, its sha256. */
async function verifyFiles(dir: string, lock: ModelLock, advice: string): Promise<void> {
  for (const [rel, want] of Object.entries(lock.files)) {
    const file = path.join(dir, rel);
    let st;
    try {
      st = lstatSync(file);
    } catch {
      throw new ModelCorruptError(`model file ${rel} is missing from ${dir}; ${advice}`);
    }
    if (!st.isFile()) throw new ModelCorruptError(`model file ${rel} in ${dir} is not a regular file (a link or a device); ${advice}`);
    if (st.size !== want.size)
      throw new ModelCorruptError(`model file ${rel} in ${dir} has ${st.size} bytes, its lock says ${want.size}; ${advice}`);
    const sha = await sha256File(file);
    if (sha !== want.sha256)
      throw new ModelCorruptError(`model file ${rel} in ${dir} does not match its sha256 in the lock (damaged or changed); ${advice}`);
  }
}

interface ResolveOptions {
  /** A shared lock (`--lock FILE`): the installed model must be exactly the one it pins. */
  lock?: ModelLock;
  catalogue?: readonly CatalogueEntry[];
}

function looksLikePath(s: string): boolean {
  return s.includes('/') || s.includes(path.sep) || s.startsWith('.') || s.startsWith('~');
}

/**
 * `--model NAME|DIR`: the catalogue model NAME installed in `modelsDir`, or the model directory DIR,
 * with every file checked against its lock (and `o.lock`) before anything native runs. Throws
 * {@link ModelNotInstalledError} or {@link ModelCorruptError} whose message says what to run.
 */
export async function resolveModel(
  nameOrDir: string,
  modelsDir: string = defaultModelsDir(),
  o: ResolveOptions = {},
): Promise<SherpaModel> {
  const catalogue = o.catalogue ?? CATALOGUE;
  const named = looksLikePath(nameOrDir) ? undefined : catalogueEntry(nameOrDir, catalogue);
  let dir: string;
  if (named) {
    dir = path.join(modelsDir, named.name);
    if (!existsSync(dir)) {
      throw new ModelNotInstalledError(
        `model ${named.name} is not installed in ${modelsDir}. Install it with: npm run models -- fetch ${named.name} (it needs access to huggingface.co or github.com; ` +
          `on a machine without it, fetch it on one that has it and copy the directory or its archive over, then: npm run models -- import <dir|archive>)`,
      );
    }
  } else {
    dir = path.resolve(nameOrDir);
    if (!existsSync(dir)) {
      throw new ModelNotInstalledError(
        `${JSON.stringify(nameOrDir)} is neither a model directory nor a model of the catalogue (${catalogue.map((e) => e.name).join(', ')}); npm run models -- list shows them and what is installed`,
      );
    }
  }
  const lockFile = path.join(dir, LOCK_FILE);
  if (!existsSync(lockFile)) {
    throw new ModelNotInstalledError(
      `${dir} has no ${LOCK_FILE}, so its files cannot be checked before they are loaded; install it with npm run models -- import ${dir} (it checks every file against the catalogue and writes the lock)`,
    );
  }
  const lock = readLockFile(lockFile);
  const entry = catalogueEntry(lock.model, catalogue);
  const again = `install it again with npm run models -- fetch ${lock.model} (it replaces a damaged copy) or import`;
  if (!entry)
    throw new ModelCorruptError(
      `${lockFile} is the lock of ${lock.model}, which this version's catalogue does not know (npm run models -- list)`,
    );
  if (named && named.name !== entry.name) throw new ModelCorruptError(`${dir} holds ${entry.name}, not ${named.name}; ${again}`);
  const why = lockMismatch(lock, entry);
  if (why) throw new ModelCorruptError(`${lockFile} does not fit the catalogue: ${why}; ${again}`);
  if (o.lock) {
    const shared =
      lockMismatch(o.lock, entry) ??
      (o.lock.revision !== lock.revision || !sameFiles(o.lock, lock)
        ? `the model in ${dir} is revision ${lock.revision}, the shared lock pins ${o.lock.revision} with other files`
        : null);
    if (shared)
      throw new ModelCorruptError(
        `the shared lock does not match: ${shared}; run npm run models -- fetch ${entry.name} --lock <that lock file>`,
      );
  }
  await verifyFiles(dir, lock, again);
  const file = (role: string): string => path.join(dir, entry.files.find((f) => f.role === role)!.path);
  return {
    dir,
    name: entry.name,
    kind: entry.kind,
    languages: [...entry.languages],
    perStreamLanguage: entry.perStreamLanguage,
    punctuates: entry.punctuates,
    licence: entry.licence,
    revision: lock.revision,
    encoder: file('encoder'),
    decoder: file('decoder'),
    joiner: file('joiner'),
    tokens: file('tokens'),
    featureDim: entry.featureDim,
    ...(entry.modelType ? { modelType: entry.modelType } : {}),
    ...(lock.synthetic ? { synthetic: lock.synthetic } : {}),
  };
}

function sameFiles(a: ModelLock, b: ModelLock): boolean {
  const ka = Object.keys(a.files).sort();
  return (
    ka.join('\n') === Object.keys(b.files).sort().join('\n') &&
    ka.every((k) => a.files[k]!.sha256 === b.files[k]!.sha256 && a.files[k]!.size === b.files[k]!.size)
  );
}

/**
 * The catalogue models that have a directory and a lock in `modelsDir`, in catalogue order (the
 * recommended first): cheap, nothing hashed; {@link resolveModel} verifies the one chosen.
 */
export function installedModels(
  modelsDir: string = defaultModelsDir(),
  catalogue: readonly CatalogueEntry[] = CATALOGUE,
): CatalogueEntry[] {
  return catalogue.filter((e) => existsSync(path.join(modelsDir, e.name, LOCK_FILE)));
}

/** The model directory DIR (compatibility with `--model DIR`): {@link resolveModel} on a path. */
function verifiedModel(dir: string): Promise<SherpaModel> {
  return resolveModel(path.resolve(dir));
}

interface RecognizerOptions {
  numThreads?: number;
  provider?: string;
  /** Online only. `modified_beam_search` is what hotwords need. */
  decodingMethod?: 'greedy_search' | 'modified_beam_search';
  maxActivePaths?: number;
  /** Online only: the addon's endpoint rules (off: the service's segmenter decides). */
  enableEndpoint?: boolean;
  hotwordsFile?: string;
  hotwordsScore?: number;
}

const SAMPLE_RATE = 16000;

function modelConfig(m: SherpaModel, o: RecognizerOptions): Record<string, unknown> {
  return {
    transducer: { encoder: m.encoder, decoder: m.decoder, joiner: m.joiner },
    tokens: m.tokens,
    numThreads: o.numThreads ?? 1,
    provider: o.provider ?? 'cpu',
    debug: 0,
    ...(m.modelType ? { modelType: m.modelType } : {}),
  };
}

/** `new OnlineRecognizer(config)`'s config for a streaming model (sherpa-onnx-node's OnlineRecognizerConfig). */
export function onlineRecognizerConfig(m: SherpaModel, o: RecognizerOptions = {}): Record<string, unknown> {
  if (m.kind !== 'online')
    throw new ModelCorruptError(`${m.name} is an offline model (a proofreading pass); the first pass needs a streaming model`);
  const decodingMethod = o.decodingMethod ?? (o.hotwordsFile ? 'modified_beam_search' : 'greedy_search');
  if (o.hotwordsFile && decodingMethod !== 'modified_beam_search')
    throw new ModelCorruptError('hotwords need decodingMethod modified_beam_search');
  return {
    featConfig: { sampleRate: SAMPLE_RATE, featureDim: m.featureDim },
    modelConfig: modelConfig(m, o),
    decodingMethod,
    ...(decodingMethod === 'modified_beam_search' ? { maxActivePaths: o.maxActivePaths ?? 4 } : {}),
    enableEndpoint: o.enableEndpoint ? 1 : 0,
    ...(o.hotwordsFile ? { hotwordsFile: o.hotwordsFile, hotwordsScore: o.hotwordsScore ?? 1.5 } : {}),
  };
}

/** `new OfflineRecognizer(config)` / `createAsync(config)`'s config for an offline model (e.g. Parakeet for proofreading). */
export function offlineRecognizerConfig(
  m: SherpaModel,
  o: Pick<RecognizerOptions, 'numThreads' | 'provider'> = {},
): Record<string, unknown> {
  if (m.kind !== 'offline')
    throw new ModelCorruptError(
      `${m.name} is a streaming model; the proofreading pass needs an offline one (e.g. sherpa-onnx-nemo-parakeet-tdt-0.6b-v3-int8)`,
    );
  return { featConfig: { sampleRate: SAMPLE_RATE, featureDim: m.featureDim }, modelConfig: modelConfig(m, o) };
}
