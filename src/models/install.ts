/**
 * Installing models (`npm run models`): what fetch and import share, and import, remove and list.
 * Files are gathered in a staging directory beside the destination, each checked against the lock
 * or the catalogue's pin, the lock written beside them, and the directory renamed into place: nothing
 * unverified is ever at the model's path.
 */
import { randomBytes } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  closeSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  statfsSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { CATALOGUE, type CatalogueEntry, catalogueEntry, entrySize } from '../server/engine/sherpa/catalogue';
import { LOCK_FILE, LOCK_FORMAT, type ModelLock, lockMismatch, readLockFile, sha256File } from '../server/engine/sherpa/model';
import { type ArchiveLimits, DEFAULT_LIMITS, entryPath, readTar } from './archive';

export class ModelInstallError extends Error {
  override readonly name = 'ModelInstallError';
}

export interface InstallOptions {
  modelsDir: string;
  catalogue?: readonly CatalogueEntry[];
  /** A shared lock file (`--lock FILE`). */
  lock?: string;
  limits?: ArchiveLimits;
  /** Lines for the person (stderr). */
  log?: (line: string) => void;
}

export interface InstallResult {
  dir: string;
  /** false when a verified copy was already there. */
  installed: boolean;
  /** The lock in the model directory. */
  lockFile: string;
  /** Where else the lock was written (`--lock FILE` that did not exist yet). */
  sharedLockWritten?: string;
  source: 'hub' | 'archive' | 'import' | 'present';
  revision: string;
}

export function findEntry(name: string, catalogue: readonly CatalogueEntry[] = CATALOGUE): CatalogueEntry {
  const e = catalogueEntry(name, catalogue);
  if (!e)
    throw new ModelInstallError(
      `no model named ${JSON.stringify(name)} in the catalogue; known: ${catalogue.map((c) => c.name).join(', ')} (npm run models -- list)`,
    );
  return e;
}

/** The shared lock of `o.lock`, checked against the entry; undefined when no `--lock` or the file is still to be written. */
export function sharedLock(entry: CatalogueEntry, o: InstallOptions): ModelLock | undefined {
  if (!o.lock || !existsSync(o.lock)) return undefined;
  const lock = readLockFile(o.lock);
  const why = lockMismatch(lock, entry);
  if (why) throw new ModelInstallError(`the lock ${o.lock} does not fit ${entry.name}: ${why}`);
  return lock;
}

/** The lock the catalogue's pins make, when every file is pinned at a commit. */
export function pinnedLock(entry: CatalogueEntry): ModelLock | undefined {
  if (!/^[0-9a-f]{40}$/.test(entry.revision) || entry.files.some((f) => !f.sha256)) return undefined;
  return {
    format: LOCK_FORMAT,
    model: entry.name,
    repo: entry.hfRepo,
    revision: entry.revision,
    files: Object.fromEntries(entry.files.map((f) => [f.path, { size: f.size, sha256: f.sha256! }])),
  };
}

/** Throws unless `dir`'s file system has `bytes` free (plus a margin). */
export function checkFreeSpace(dir: string, bytes: number): void {
  mkdirSync(dir, { recursive: true });
  const s = statfsSync(dir);
  const free = s.bavail * s.bsize;
  const need = bytes + 64 * 2 ** 20;
  if (free < need) {
    throw new ModelInstallError(
      `not enough disk space in ${dir}: ${(need / 1e6).toFixed(0)} MB needed, ${(free / 1e6).toFixed(0)} MB free; free some space or choose another directory with --dir (or DICTEE_MODELS_DIR)`,
    );
  }
}

function newStaging(modelsDir: string, tag: string): string {
  mkdirSync(modelsDir, { recursive: true });
  const dir = path.join(modelsDir, `.${tag}-${process.pid}-${randomBytes(4).toString('hex')}`);
  mkdirSync(dir);
  return dir;
}

/** Writes the lock into `stage`, renames `stage` to the model's place (an older copy moved aside, then removed). */
export function installStaged(
  stage: string,
  entry: CatalogueEntry,
  lock: ModelLock,
  o: InstallOptions,
  source: InstallResult['source'],
): InstallResult {
  const unhashed = Object.entries(lock.files).filter(([, f]) => !/^[0-9a-f]{64}$/.test(f.sha256));
  if (unhashed.length) throw new ModelInstallError(`no sha256 for ${unhashed.map(([rel]) => rel).join(', ')}; nothing was installed`);
  writeFileSync(path.join(stage, LOCK_FILE), `${JSON.stringify(lock, null, 2)}\n`);
  const dest = path.join(o.modelsDir, entry.name);
  let old: string | undefined;
  if (existsSync(dest)) {
    old = path.join(o.modelsDir, `.old-${entry.name}-${randomBytes(4).toString('hex')}`);
    renameSync(dest, old);
  }
  renameSync(stage, dest);
  if (old) rmSync(old, { recursive: true, force: true });
  const r: InstallResult = { dir: dest, installed: true, lockFile: path.join(dest, LOCK_FILE), source, revision: lock.revision };
  if (o.lock && !existsSync(o.lock)) {
    writeFileSync(o.lock, `${JSON.stringify(lock, null, 2)}\n`);
    r.sharedLockWritten = path.resolve(o.lock);
  }
  return r;
}

/** Checks the staged files against `lock` (sizes and sha256). */
export async function checkStaged(stage: string, lock: ModelLock, what: string): Promise<void> {
  for (const [rel, want] of Object.entries(lock.files)) {
    const f = path.join(stage, rel);
    if (!existsSync(f)) throw new ModelInstallError(`${what} lacks ${rel}; nothing was installed`);
    const size = statSync(f).size;
    if (size !== want.size)
      throw new ModelInstallError(`${rel} from ${what} has ${size} bytes, ${want.size} expected; nothing was installed`);
    const sha = await sha256File(f);
    if (sha !== want.sha256)
      throw new ModelInstallError(
        `${rel} from ${what} has sha256 ${sha}, ${want.sha256} expected (lock or catalogue); nothing was installed`,
      );
  }
}

/** Writes the entry's files found in `archive` into `stage` (one top directory named after the model, or none). */
export async function extractModel(
  archive: string,
  entry: CatalogueEntry,
  stage: string,
  limits: ArchiveLimits = DEFAULT_LIMITS,
): Promise<void> {
  const wanted = new Map(entry.files.map((f) => [f.path, f]));
  const seen = new Set<string>();
  const fds: number[] = [];
  try {
    await readTar(archive, limits, (e) => {
      const rel0 = entryPath(e, archive);
      if (e.type !== 'file') return undefined;
      const parts = rel0.split('/');
      const rel = parts[0] === entry.name ? parts.slice(1).join('/') : rel0;
      const f = wanted.get(rel);
      if (!f) return undefined;
      if (seen.has(rel)) throw new ModelInstallError(`${path.basename(archive)} holds ${rel} twice; refused`);
      if (e.size !== f.size && f.sha256)
        throw new ModelInstallError(`${rel} in ${path.basename(archive)} has ${e.size} bytes, ${f.size} expected; nothing was installed`);
      seen.add(rel);
      mkdirSync(path.dirname(path.join(stage, rel)), { recursive: true });
      const fd = openSync(path.join(stage, rel), 'wx');
      fds.push(fd);
      return fd;
    });
  } finally {
    for (const fd of fds) closeSync(fd);
  }
  const missing = entry.files.filter((f) => !seen.has(f.path)).map((f) => f.path);
  if (missing.length) throw new ModelInstallError(`${path.basename(archive)} lacks ${missing.join(', ')}; nothing was installed`);
}

function archiveBase(file: string): string {
  return path.basename(file).replace(/\.(tar\.bz2|tbz2?|tar\.gz|tgz|tar)$/i, '');
}

/**
 * `import DIR|ARCHIVE`: a model brought from another machine, verified against `--lock`, the lock it
 * carries (a directory fetched elsewhere), or the catalogue's pins.
 */
export async function importModel(src: string, o: InstallOptions & { name?: string }): Promise<InstallResult> {
  const catalogue = o.catalogue ?? CATALOGUE;
  const abs = path.resolve(src);
  if (!existsSync(abs)) throw new ModelInstallError(`no such file or directory: ${abs}`);
  const isDir = lstatSync(abs).isDirectory();
  const carried = isDir && existsSync(path.join(abs, LOCK_FILE)) ? readLockFile(path.join(abs, LOCK_FILE)) : undefined;
  const name = o.name ?? carried?.model ?? (isDir ? path.basename(abs) : archiveBase(abs));
  const entry = catalogueEntry(name, catalogue);
  if (!entry) {
    throw new ModelInstallError(
      `cannot tell which model ${abs} is (${JSON.stringify(name)} is not in the catalogue); name it with --name <model> (npm run models -- list)`,
    );
  }
  if (carried) {
    const why = lockMismatch(carried, entry);
    if (why) throw new ModelInstallError(`the lock in ${abs} does not fit ${entry.name}: ${why}`);
  }
  const lock = sharedLock(entry, o) ?? carried ?? pinnedLock(entry);
  if (!lock) {
    throw new ModelInstallError(
      `nothing pins ${entry.name}'s files here (the catalogue does not, and neither ${abs} nor --lock brings a lock): copy the lock that npm run models -- fetch wrote on the machine that downloaded it (${LOCK_FILE}), and pass it with --lock FILE`,
    );
  }
  const bytes = Object.values(lock.files).reduce((n, f) => n + f.size, 0);
  checkFreeSpace(o.modelsDir, bytes);
  const stage = newStaging(o.modelsDir, `import-${entry.name}`);
  try {
    if (isDir) {
      const root =
        existsSync(path.join(abs, entry.name)) && lstatSync(path.join(abs, entry.name)).isDirectory() ? path.join(abs, entry.name) : abs;
      for (const rel of Object.keys(lock.files)) {
        const from = path.join(root, rel);
        let st;
        try {
          st = lstatSync(from);
        } catch {
          throw new ModelInstallError(`${root} lacks ${rel}; nothing was installed`);
        }
        if (!st.isFile())
          throw new ModelInstallError(`${from} is not a regular file (a link, a directory or a device); refused, nothing was installed`);
        mkdirSync(path.dirname(path.join(stage, rel)), { recursive: true });
        copyFileSync(from, path.join(stage, rel));
      }
    } else {
      await extractModel(abs, entry, stage, o.limits);
    }
    await checkStaged(stage, lock, abs); // the copies are what is checked
    return installStaged(stage, entry, lock, o, 'import');
  } catch (e) {
    rmSync(stage, { recursive: true, force: true });
    throw e;
  }
}

/** `remove NAME`: the installed model and any download of it left half done. */
export function removeModel(name: string, o: InstallOptions): string[] {
  const entry = findEntry(name, o.catalogue ?? CATALOGUE);
  if (!existsSync(o.modelsDir)) throw new ModelInstallError(`${entry.name} is not installed in ${o.modelsDir}`);
  const gone = readdirSync(o.modelsDir)
    .filter((f) => f === entry.name || f.startsWith(`.partial-${entry.name}@`))
    .map((f) => path.join(o.modelsDir, f));
  if (!gone.length) throw new ModelInstallError(`${entry.name} is not installed in ${o.modelsDir}`);
  for (const f of gone) rmSync(f, { recursive: true, force: true });
  return gone;
}

interface ListRow {
  entry: CatalogueEntry;
  /** `installed`: lock and file sizes fit (`verify` hashes them); `damaged`: they do not; `partial`: a download to resume. */
  state: 'installed' | 'damaged' | 'partial' | 'not installed';
  bytes: number;
}

/** `list`: every catalogue entry and its state here (sizes only: hashing is `verify`'s job). */
export function listModels(o: InstallOptions): ListRow[] {
  const here = existsSync(o.modelsDir) ? readdirSync(o.modelsDir) : [];
  return (o.catalogue ?? CATALOGUE).map((entry) => {
    const dir = path.join(o.modelsDir, entry.name);
    let state: ListRow['state'] = 'not installed';
    if (existsSync(path.join(dir, LOCK_FILE))) {
      try {
        const lock = readLockFile(path.join(dir, LOCK_FILE));
        const ok =
          !lockMismatch(lock, entry) &&
          Object.entries(lock.files).every(([rel, f]) => existsSync(path.join(dir, rel)) && statSync(path.join(dir, rel)).size === f.size);
        state = ok ? 'installed' : 'damaged';
      } catch {
        state = 'damaged';
      }
    } else if (existsSync(dir)) state = 'damaged';
    else if (here.some((f) => f.startsWith(`.partial-${entry.name}@`))) state = 'partial';
    return { entry, state, bytes: entrySize(entry) };
  });
}
