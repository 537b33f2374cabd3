/**
 * Fetching and importing models (`npm run models`). An archive is hashed while it streams to a
 * staging directory next to its destination; only an archive whose size and sha256 match the
 * catalogue is extracted (system `tar`), its files are checked against the entry, hashed into the
 * marker (engine/sherpa/model.ts), and the directory is renamed into place in one step. Nothing
 * half-downloaded or unverified is ever at the model's path.
 */
import { errorMessage } from '../shared/errors';
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { MODEL_MARKER, type ModelMarker, sha256File, verifiedModel } from '../server/engine/sherpa/model';
import type { CatalogueEntry } from './catalogue';

const run = promisify(execFile);

export class ModelInstallError extends Error {}

/** Where models go: DICTEE_MODELS_DIR, else $XDG_CACHE_HOME/dictee/models, else ~/.cache/dictee/models. */
export function defaultModelsDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.DICTEE_MODELS_DIR) return path.resolve(env.DICTEE_MODELS_DIR);
  return path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'dictee', 'models');
}

export function findEntry(catalogue: CatalogueEntry[], name: string): CatalogueEntry {
  const e = catalogue.find((c) => c.name === name);
  if (!e) throw new ModelInstallError(`no model named ${JSON.stringify(name)} in the catalogue; known: ${catalogue.map((c) => c.name).join(', ')}`);
  return e;
}

export interface InstallResult {
  dir: string;
  /** false when a verified copy was already installed. */
  installed: boolean;
}

export interface FetchOptions {
  modelsDir: string;
  /** Replaces the catalogue URL's directory (an internal mirror): BASE/<archive file name>. */
  baseUrl?: string;
  /** Bytes received so far / expected. */
  onProgress?: (received: number, total: number | null) => void;
  /** No byte for this long: the download fails (default 60 s). */
  idleTimeoutMs?: number;
}

async function alreadyInstalled(dir: string): Promise<boolean> {
  if (!existsSync(path.join(dir, MODEL_MARKER))) return false;
  try {
    await verifiedModel(dir);
    return true;
  } catch {
    return false;
  }
}

function staging(modelsDir: string): string {
  mkdirSync(modelsDir, { recursive: true });
  const dir = path.join(modelsDir, `.staging-${process.pid}-${randomBytes(4).toString('hex')}`);
  mkdirSync(dir);
  return dir;
}

/** Downloads, verifies and installs a catalogue model. */
export async function fetchModel(entry: CatalogueEntry, o: FetchOptions): Promise<InstallResult> {
  const dest = path.join(o.modelsDir, entry.name);
  if (await alreadyInstalled(dest)) return { dir: dest, installed: false };
  if (!entry.sha256 || entry.size === null) {
    throw new ModelInstallError(
      `the catalogue has no pinned sha256 for ${entry.name}: it cannot be fetched safely; download ${entry.url} yourself, check it, and run npm run models -- import <archive> --name ${entry.name}`,
    );
  }
  const url = o.baseUrl ? `${o.baseUrl.replace(/\/+$/, '')}/${path.posix.basename(new URL(entry.url).pathname)}` : entry.url;
  const stage = staging(o.modelsDir);
  try {
    const archive = path.join(stage, 'archive.tar.bz2');
    const sha = await download(url, archive, entry.size, o);
    if (sha !== entry.sha256) throw new ModelInstallError(`${entry.name}: the download's sha256 is ${sha}, the catalogue pins ${entry.sha256}; nothing was installed`);
    return await install(entry, archive, sha, true, stage, dest);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** Installs an archive from disk: it must match a pinned entry, or name an entry with `name`. */
export async function importModel(catalogue: CatalogueEntry[], archive: string, o: { modelsDir: string; name?: string }): Promise<InstallResult> {
  if (!existsSync(archive)) throw new ModelInstallError(`no such file: ${archive}`);
  const sha = await sha256File(archive);
  let entry = catalogue.find((c) => c.sha256 === sha);
  let pinned = Boolean(entry);
  if (!entry && o.name) {
    const named = findEntry(catalogue, o.name);
    if (named.sha256) throw new ModelInstallError(`${archive} is not ${named.name}: its sha256 is ${sha}, the catalogue pins ${named.sha256}; nothing was installed`);
    entry = named;
    pinned = false;
  }
  if (!entry) {
    throw new ModelInstallError(`${archive} (sha256 ${sha}) matches no pinned model of the catalogue; for a model the catalogue does not pin yet, add --name <name>`);
  }
  const dest = path.join(o.modelsDir, entry.name);
  const stage = staging(o.modelsDir);
  try {
    return await install(entry, archive, sha, pinned, stage, dest);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

async function download(url: string, file: string, size: number, o: FetchOptions): Promise<string> {
  const idleMs = o.idleTimeoutMs ?? 60_000;
  const abort = new AbortController();
  const idle = setTimeout(() => abort.abort(), idleMs);
  let res: Response;
  try {
    res = await fetch(url, { signal: abort.signal, redirect: 'follow' });
  } catch (e) {
    clearTimeout(idle);
    throw new ModelInstallError(`cannot download ${url}: ${abort.signal.aborted ? `no answer within ${idleMs} ms` : errorMessage(e)}`);
  }
  if (!res.ok || !res.body) {
    clearTimeout(idle);
    throw new ModelInstallError(`cannot download ${url}: HTTP ${res.status}`);
  }
  const hash = createHash('sha256');
  let received = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      idle.refresh();
      received += chunk.length;
      if (received > size) {
        cb(new ModelInstallError(`${url} sent more than the ${size} bytes the catalogue pins; nothing was installed`));
        return;
      }
      hash.update(chunk);
      o.onProgress?.(received, size);
      cb(null, chunk);
    },
  });
  try {
    await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>), meter, createWriteStream(file));
  } catch (e) {
    if (e instanceof ModelInstallError) throw e;
    throw new ModelInstallError(`download of ${url} failed: ${abort.signal.aborted ? `no data for ${idleMs} ms` : errorMessage(e)}`);
  } finally {
    clearTimeout(idle);
  }
  if (received !== size) throw new ModelInstallError(`${url} sent ${received} bytes, the catalogue pins ${size}; nothing was installed`);
  return hash.digest('hex');
}

async function install(entry: CatalogueEntry, archive: string, sha: string, pinned: boolean, stage: string, dest: string): Promise<InstallResult> {
  const out = path.join(stage, 'x');
  mkdirSync(out);
  try {
    await run('tar', ['-xjf', archive, '-C', out, '--no-same-owner']);
  } catch (e) {
    throw new ModelInstallError(`${path.basename(archive)} is not a readable .tar.bz2 archive: ${errorMessage(e).split('\n')[0]}`);
  }
  const top = readdirSync(out);
  const root = top.length === 1 && statSync(path.join(out, top[0]!)).isDirectory() ? path.join(out, top[0]!) : out;
  const t = entry.transducer;
  const missing = [t.encoder, t.decoder, t.joiner, t.tokens].filter((f) => !existsSync(path.join(root, f)));
  if (missing.length) throw new ModelInstallError(`the archive of ${entry.name} lacks ${missing.join(', ')}; nothing was installed`);
  const files: ModelMarker['files'] = {};
  for (const rel of [t.encoder, t.decoder, t.joiner, t.tokens]) {
    const f = path.join(root, rel);
    files[rel] = { size: statSync(f).size, sha256: await sha256File(f) };
  }
  const marker: ModelMarker = {
    name: entry.name,
    languages: entry.languages,
    archiveSha256: sha,
    pinned,
    files,
    transducer: t,
    featureDim: entry.featureDim,
    ...(entry.modelType ? { modelType: entry.modelType } : {}),
  };
  writeFileSync(path.join(root, MODEL_MARKER), `${JSON.stringify(marker, null, 2)}\n`);
  // Into place in one rename; an older (unverifiable) copy is moved aside first, then removed.
  const old = existsSync(dest) ? path.join(stage, 'old') : undefined;
  if (old) renameSync(dest, old);
  renameSync(root, dest);
  return { dir: dest, installed: true };
}
