/**
 * `fetch NAME`: the model's files one by one from its Hugging Face mirror at a fixed revision,
 * falling back to the release archive; each file checked against the shared lock, the catalogue's
 * pin, or (neither) the sha256 the hub publishes for it at that revision, which the lock then
 * records. A download cut short is resumed from its `.part` file by the next run.
 */
import { errorMessage } from '../shared/errors';
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { CATALOGUE, type CatalogueEntry } from '../server/engine/sherpa/catalogue';
import { LOCK_FILE, LOCK_FORMAT, type ModelLock, resolveModel } from '../server/engine/sherpa/model';
import { DownloadError, type Expected, type HttpOptions, downloadFile, getJson, gitBlobIdOf, sha256Of } from './download';
import {
  type InstallOptions,
  type InstallResult,
  ModelInstallError,
  checkFreeSpace,
  checkStaged,
  extractModel,
  findEntry,
  installStaged,
  pinnedLock,
  sharedLock,
} from './install';
import { Progress, type ProgressSink } from './progress';

const DEFAULT_HUB = 'https://huggingface.co';

export interface FetchOptions extends InstallOptions, Omit<HttpOptions, 'progress'> {
  /** The hub (default HF_ENDPOINT, else https://huggingface.co). */
  hubUrl?: string;
  /** Replaces the directory of the release archive's URL (an internal mirror). */
  releasesUrl?: string;
  /** Another revision of the mirror than the catalogue's (a branch or a commit): the hub's hashes are checked, and locked. */
  revision?: string;
  /** Where the progress bar goes (stderr). */
  progressTo?: ProgressSink;
  now?: () => number;
}

interface Sibling {
  rfilename: string;
  size?: number;
  blobId?: string;
  lfs?: { sha256?: string; size?: number };
}

function fileUrl(hub: string, repo: string, revision: string, rel: string): string {
  return `${hub.replace(/\/+$/, '')}/${repo}/resolve/${encodeURIComponent(revision)}/${rel.split('/').map(encodeURIComponent).join('/')}`;
}

/** The hub's own description of the files at `revision`: the commit it resolves to, sizes and hashes. */
async function hubLock(
  entry: CatalogueEntry,
  revision: string,
  hub: string,
  o: FetchOptions,
): Promise<{ lock: ModelLock; expected: Map<string, Expected> }> {
  const url = `${hub.replace(/\/+$/, '')}/api/models/${entry.hfRepo}/revision/${encodeURIComponent(revision)}?blobs=true`;
  const info = (await getJson(url, o)) as { sha?: unknown; siblings?: Sibling[] };
  if (typeof info.sha !== 'string' || !/^[0-9a-f]{40}$/.test(info.sha) || !Array.isArray(info.siblings)) {
    throw new ModelInstallError(`${url} did not describe a revision (no commit or no file list)`);
  }
  const expected = new Map<string, Expected>();
  const files: ModelLock['files'] = {};
  for (const f of entry.files) {
    const s = info.siblings.find((x) => x.rfilename === f.path);
    if (!s) throw new ModelInstallError(`${entry.hfRepo} at ${info.sha} has no ${f.path}; the catalogue and the mirror disagree`);
    const size = s.lfs?.size ?? s.size;
    if (typeof size !== 'number') throw new ModelInstallError(`${url} gives no size for ${f.path}`);
    const sha256 = s.lfs?.sha256 && /^[0-9a-f]{64}$/.test(s.lfs.sha256) ? s.lfs.sha256 : null;
    if (!sha256 && !s.blobId) throw new ModelInstallError(`${url} publishes no hash for ${f.path}; it cannot be checked`);
    if (f.sha256 && info.sha === entry.revision && (sha256 !== f.sha256 || size !== f.size)) {
      throw new ModelInstallError(`the hub's ${f.path} at ${info.sha} differs from the catalogue's pin; nothing was installed`);
    }
    expected.set(f.path, { size, sha256, ...(sha256 ? {} : { gitBlobSha1: s.blobId! }) });
    files[f.path] = { size, sha256: sha256 ?? '' }; // filled in from the download for non-LFS files
  }
  return { lock: { format: LOCK_FORMAT, model: entry.name, repo: entry.hfRepo, revision: info.sha, files }, expected };
}

/** One `fetch` at a time per model: a pid file beside the models. */
export function takeFetchLock(modelsDir: string, name: string): () => void {
  const file = path.join(modelsDir, `.fetch-${name}.pid`);
  for (let i = 0; i < 2; i++) {
    try {
      const fd = openSync(file, 'wx');
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch {
      const pid = Number(String(existsSync(file) ? readFileSync(file, 'utf8') : '').trim());
      let alive = false;
      try {
        alive = pid > 0 && pid !== process.pid && (process.kill(pid, 0), true);
      } catch {
        alive = false;
      }
      if (alive) throw new ModelInstallError(`another npm run models -- fetch ${name} is running (pid ${pid}); wait for it, or stop it`);
      rmSync(file, { force: true }); // left by a process that is gone
    }
  }
  throw new ModelInstallError(`cannot take ${file}`);
}

export async function fetchModel(name: string, o: FetchOptions): Promise<InstallResult> {
  const entry = findEntry(name, o.catalogue ?? CATALOGUE);
  const log = o.log ?? (() => {});
  const hub = o.hubUrl ?? process.env.HF_ENDPOINT ?? DEFAULT_HUB;
  const shared = sharedLock(entry, o);
  const dest = path.join(o.modelsDir, entry.name);
  if (existsSync(dest) && (!o.revision || o.revision === entry.revision)) {
    try {
      const m = await resolveModel(dest, o.modelsDir, {
        ...(shared ? { lock: shared } : {}),
        ...(o.catalogue ? { catalogue: o.catalogue } : {}),
      });
      const r: InstallResult = {
        dir: dest,
        installed: false,
        lockFile: path.join(dest, LOCK_FILE),
        source: 'present',
        revision: m.revision,
      };
      if (o.lock && !existsSync(o.lock)) {
        copyFileSync(r.lockFile, o.lock);
        r.sharedLockWritten = path.resolve(o.lock);
      }
      return r;
    } catch (e) {
      log(`the installed copy of ${entry.name} fails its check (${errorMessage(e)}); installing it again`);
    }
  }
  // What the files must be: the shared lock, else the catalogue's pins, else the hub's word at a fixed revision.
  const pinned = !o.revision || o.revision === entry.revision ? pinnedLock(entry) : undefined;
  let lock = shared ?? pinned;
  let expected: Map<string, Expected>;
  if (lock) {
    expected = new Map(Object.entries(lock.files).map(([rel, f]) => [rel, { size: f.size, sha256: f.sha256 }]));
  } else {
    try {
      ({ lock, expected } = await hubLock(entry, o.revision ?? entry.revision, hub, o));
    } catch (e) {
      throw new ModelInstallError(
        `cannot read which files ${entry.name} is made of at ${o.revision ?? entry.revision} from ${hub} (${errorMessage(e)}); without that nothing can check a download. ` +
          `Check the network (HTTPS_PROXY, NO_PROXY), or fetch it on a machine that reaches the hub and bring the directory here: npm run models -- import <dir>`,
      );
    }
  }
  const stage = path.join(o.modelsDir, `.partial-${entry.name}@${lock.revision.slice(0, 12)}`);
  mkdirSync(o.modelsDir, { recursive: true });
  const release = takeFetchLock(o.modelsDir, entry.name);
  try {
    mkdirSync(stage, { recursive: true });
    const total = [...expected.values()].reduce((n, f) => n + (f.size ?? 0), 0);
    const onDisk = [...expected.keys()].reduce(
      (n, rel) => n + sizeIfAny(path.join(stage, rel)) + sizeIfAny(path.join(stage, `${rel}.part`)),
      0,
    );
    checkFreeSpace(o.modelsDir, total - onDisk);
    const progress = new Progress(total, o.progressTo ?? { write: () => true }, o.now, onDisk);
    let source: InstallResult['source'] = 'hub';
    try {
      for (const [rel, want] of expected) {
        const final = path.join(stage, rel);
        if (existsSync(final)) {
          if (await matches(final, want)) continue; // done by an earlier run
          rmSync(final, { force: true });
        }
        progress.file(rel);
        mkdirSync(path.dirname(final), { recursive: true });
        const r = await downloadFile(fileUrl(hub, entry.hfRepo, lock.revision, rel), `${final}.part`, want, { ...o, progress });
        if (r.hub.repoCommit && r.hub.repoCommit !== lock.revision) {
          rmSync(`${final}.part`, { force: true });
          throw new ModelInstallError(
            `the hub served ${rel} from revision ${r.hub.repoCommit}, ${lock.revision} was asked; nothing was installed`,
          );
        }
        renameSync(`${final}.part`, final);
      }
      progress.done();
    } catch (e) {
      progress.done();
      if (!(e instanceof DownloadError) || e.integrity) throw wrap(e, entry);
      source = 'archive';
      log(`the mirror failed (${errorMessage(e)}); trying the release archive`);
      await fromArchive(entry, stage, o);
      for (const [rel, want] of expected) {
        if (await matches(path.join(stage, rel), want)) continue;
        for (const f of [rel, 'archive.tar.bz2']) rmSync(path.join(stage, f), { force: true }); // the next run starts the archive over
        throw new ModelInstallError(
          `${rel} in the release archive is not the file the ${shared ? 'lock' : lock === pinned ? 'catalogue' : 'hub'} names (size or hash); nothing was installed`,
        );
      }
    }
    // A file the hub keeps outside LFS is known by its git blob id: its sha256 is locked from the checked bytes.
    for (const rel of expected.keys()) if (!lock.files[rel]!.sha256) lock.files[rel]!.sha256 = await sha256Of(path.join(stage, rel));
    await checkStaged(stage, lock, source === 'hub' ? `${hub}/${entry.hfRepo}` : 'the release archive');
    for (const f of readdirSync(stage)) if (f.endsWith('.part') || f === 'archive.tar.bz2') rmSync(path.join(stage, f), { force: true });
    return installStaged(stage, entry, lock, o, source);
  } finally {
    release();
    if (existsSync(stage) && readdirSync(stage).length === 0) rmSync(stage, { recursive: true, force: true });
  }
}

/** Whether `file` is the file expected: its size, and its sha256 or (outside LFS) its git blob id. */
async function matches(file: string, want: Expected): Promise<boolean> {
  if (!existsSync(file) || (want.size !== null && statSync(file).size !== want.size)) return false;
  if (want.sha256) return (await sha256Of(file)) === want.sha256;
  if (want.gitBlobSha1) return (await gitBlobIdOf(file)) === want.gitBlobSha1;
  return false;
}

function sizeIfAny(f: string): number {
  return existsSync(f) ? statSync(f).size : 0;
}

function wrap(e: unknown, entry: CatalogueEntry): Error {
  if (e instanceof ModelInstallError) return e;
  if (e instanceof DownloadError && e.integrity) {
    return new ModelInstallError(
      `${errorMessage(e)}. The mirror offers other bytes than the lock or the catalogue pins: with --lock, check that the lock comes from a good fetch; ` +
        `without it the mirror changed since this catalogue was made: npm run models -- fetch ${entry.name} --revision main takes its current files, checked against the hashes it publishes, and locks them`,
    );
  }
  return new ModelInstallError(`${errorMessage(e)} (fetch ${entry.name} again to resume; what was downloaded is kept)`);
}

async function fromArchive(entry: CatalogueEntry, stage: string, o: FetchOptions): Promise<void> {
  const url = o.releasesUrl
    ? `${o.releasesUrl.replace(/\/+$/, '')}/${path.posix.basename(new URL(entry.archiveUrl).pathname)}`
    : entry.archiveUrl;
  if (entry.archiveSize) checkFreeSpace(o.modelsDir, entry.archiveSize);
  const archive = path.join(stage, 'archive.tar.bz2');
  const progress = new Progress(entry.archiveSize ?? 0, o.progressTo ?? { write: () => true }, o.now);
  progress.file(path.posix.basename(url));
  try {
    await downloadFile(url, `${archive}.part`, { size: null, sha256: null, unhashed: true }, { ...o, progress });
  } catch (e) {
    progress.done();
    throw new ModelInstallError(
      `neither the mirror nor the release archive could be downloaded (${errorMessage(e)}). Check the network (HTTPS_PROXY, NO_PROXY), then fetch again (it resumes); ` +
        `a machine without access: fetch on one that has it and import the directory here (npm run models -- import <dir>)`,
    );
  }
  progress.done();
  renameSync(`${archive}.part`, archive);
  for (const f of entry.files) rmSync(path.join(stage, f.path), { force: true });
  try {
    await extractModel(archive, entry, stage, o.limits);
  } catch (e) {
    for (const f of ['archive.tar.bz2', ...entry.files.map((x) => x.path)]) rmSync(path.join(stage, f), { force: true }); // the next run starts over
    throw e;
  }
}
