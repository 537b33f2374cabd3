/**
 * `fetch pocketsphinx-es` and `import pocketsphinx-es DIR`: CMU Sphinx's Spanish model
 * `cmusphinx-es-5.2` (16 kHz PTM; GPL-3.0), from the files of the public repository
 * `synesthesiam/es_pocketsphinx-cmu` at a pinned commit, each downloaded file checked against its
 * pinned size and sha256 as it arrives (and the dictionary once more after gunzip, in JS), then
 * installed as
 *
 *   <models dir>/pocketsphinx-es/hmm/{feat.params,mdef,means,noisedict,sendump,transition_matrices,variances}
 *   <models dir>/pocketsphinx-es/es.dict, LICENSE
 *   <models dir>/pocketsphinx-es/dictee-model.lock.json
 *
 * Nothing unverified is ever at the model's path, and nothing native has read any of it. The
 * repository's `acoustic_model/mixture_weights` is not taken: pocketsphinx reads `sendump` (the same
 * weights, quantised) when it is there.
 *
 * The pins of the installed files are `POCKETSPHINX_ES` in src/server/engine/pocketsphinx/languages.ts
 * (the one list, which the service verifies); only the repository's address and the dictionary
 * archive's own pin are here.
 */
import { errorMessage } from '../shared/errors';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { LOCK_FILE, LOCK_FORMAT, type ModelLock, sha256File } from '../server/engine/sherpa/model';
import { POCKETSPHINX_ES, verifyPinnedFiles } from '../server/engine/pocketsphinx/languages';
import { DownloadError, type HttpOptions, downloadFile } from './download';
import { takeFetchLock } from './fetch';
import { type InstallResult, ModelInstallError, checkFreeSpace, checkStaged } from './install';
import { Progress, type ProgressSink } from './progress';

interface PinnedFile {
  /** Path in the installed model directory. */
  path: string;
  /** Path in the repository. */
  from: string;
  size: number;
  sha256: string;
  /** The repository's file is gzip: its own size and sha256 (the fields above are the content's). */
  gzip?: { size: number; sha256: string };
}

/** The dictionary's archive in the repository (its own pin; the decompressed file's is in languages.ts). */
const ES_DICT_GZIP = {
  from: 'base_dictionary.txt.gz',
  size: 151621,
  sha256: '807f2813dfdfa07852148951d2b58681eab9d7e97128b41b78dc44d936fc8eab',
};

/**
 * Where and how to get the Spanish model: the pins are those of `POCKETSPHINX_ES` (languages.ts,
 * the list the service verifies), with the gzip archive's own pin added to the dictionary.
 */
export const POCKETSPHINX_ES_SOURCE = {
  name: POCKETSPHINX_ES.name,
  language: POCKETSPHINX_ES.language,
  licence: POCKETSPHINX_ES.licence,
  repo: POCKETSPHINX_ES.repository.repo,
  commit: POCKETSPHINX_ES.repository.commit,
  /** Where the files are served (raw.githubusercontent.com's layout: BASE/<repo>/<commit>/<path>). */
  baseUrl: 'https://raw.githubusercontent.com',
  hmm: POCKETSPHINX_ES.hmm,
  dict: POCKETSPHINX_ES.dict,
  files: POCKETSPHINX_ES.files.map((f): PinnedFile =>
    f.from === ES_DICT_GZIP.from ? { ...f, gzip: { size: ES_DICT_GZIP.size, sha256: ES_DICT_GZIP.sha256 } } : { ...f },
  ),
};

type EsModel = typeof POCKETSPHINX_ES_SOURCE;

function lockOf(m: EsModel): ModelLock {
  return {
    format: LOCK_FORMAT,
    model: m.name,
    repo: `github:${m.repo}`,
    revision: m.commit,
    files: Object.fromEntries(m.files.map((f) => [f.path, { size: f.size, sha256: f.sha256 }])),
  };
}

/** Checks an installed copy: every pinned file there, of its size and sha256 (before anything native reads it). */
export async function verifyPocketsphinxEs(dir: string, m: EsModel = POCKETSPHINX_ES_SOURCE): Promise<void> {
  await verifyPinnedFiles(dir, m.name, m.files, `npm run models -- fetch ${m.name} (or import) installs it again`);
}

/** Gunzips a verified archive into `out`, refusing more bytes than the content's pin (a gzip bomb stops there). */
async function gunzipTo(gz: string, out: string, f: PinnedFile): Promise<void> {
  mkdirSync(path.dirname(out), { recursive: true });
  let n = 0;
  const gunzip = createGunzip();
  gunzip.on('data', (b: Buffer) => {
    n += b.length;
    if (n > f.size)
      gunzip.destroy(new ModelInstallError(`${f.from} unpacks to more than the ${f.size} bytes of ${f.path}; nothing was installed`));
  });
  try {
    await pipeline(createReadStream(gz), gunzip, createWriteStream(out));
  } catch (e) {
    if (e instanceof ModelInstallError) throw e;
    throw new ModelInstallError(`${f.from} is not a valid gzip file (${errorMessage(e)}); nothing was installed`);
  }
}

/** Moves `stage` to the model's place (an older copy moved aside, then removed), the lock written first. */
function install(stage: string, m: EsModel, modelsDir: string, source: InstallResult['source']): InstallResult {
  const lock = lockOf(m);
  writeFileSync(path.join(stage, LOCK_FILE), `${JSON.stringify(lock, null, 2)}\n`);
  const dest = path.join(modelsDir, m.name);
  let old: string | undefined;
  if (existsSync(dest)) {
    old = path.join(modelsDir, `.old-${m.name}-${randomBytes(4).toString('hex')}`);
    renameSync(dest, old);
  }
  renameSync(stage, dest);
  if (old) rmSync(old, { recursive: true, force: true });
  return { dir: dest, installed: true, lockFile: path.join(dest, LOCK_FILE), source, revision: m.commit };
}

interface EsFetchOptions extends Omit<HttpOptions, 'progress'> {
  modelsDir: string;
  /** Another host serving the repository's files in the same layout (a mirror; tests). */
  baseUrl?: string;
  progressTo?: ProgressSink;
  log?: (line: string) => void;
}

async function present(dest: string, m: EsModel, log: (s: string) => void): Promise<InstallResult | undefined> {
  if (!existsSync(dest)) return undefined;
  try {
    await verifyPocketsphinxEs(dest, m);
    return { dir: dest, installed: false, lockFile: path.join(dest, LOCK_FILE), source: 'present', revision: m.commit };
  } catch (e) {
    log(`the installed copy of ${m.name} fails its check (${errorMessage(e)}); installing it again`);
    return undefined;
  }
}

export async function fetchPocketsphinxEs(o: EsFetchOptions, m: EsModel = POCKETSPHINX_ES_SOURCE): Promise<InstallResult> {
  const dest = path.join(o.modelsDir, m.name);
  const log = o.log ?? (() => {});
  const there = await present(dest, m, log);
  if (there) return there;
  const base = `${(o.baseUrl ?? m.baseUrl).replace(/\/+$/u, '')}/${m.repo}/${m.commit}`;
  mkdirSync(o.modelsDir, { recursive: true });
  const release = takeFetchLock(o.modelsDir, m.name);
  const stage = path.join(o.modelsDir, `.partial-${m.name}@${m.commit.slice(0, 12)}`);
  const downloads = path.join(stage, '.download');
  const total = m.files.reduce((n, f) => n + (f.gzip?.size ?? f.size), 0);
  try {
    mkdirSync(downloads, { recursive: true });
    checkFreeSpace(o.modelsDir, total + m.files.reduce((n, f) => n + f.size, 0));
    const progress = new Progress(total, o.progressTo ?? { write: () => true }, undefined);
    try {
      for (const f of m.files) {
        const url = `${base}/${f.from}`;
        const part = path.join(downloads, `${f.from.replace(/\//gu, '_')}.part`);
        progress.file(f.from);
        const want = f.gzip ?? { size: f.size, sha256: f.sha256 };
        try {
          await downloadFile(url, part, want, { ...o, progress });
        } catch (e) {
          if (e instanceof DownloadError && e.integrity) {
            throw new ModelInstallError(
              `${url} is not the ${f.from} that ${m.name} pins (${errorMessage(e)}); nothing was installed. A host or mirror that serves other bytes at a pinned commit is not to be trusted`,
            );
          }
          throw new ModelInstallError(
            `cannot download ${f.from} of ${m.repo} (${errorMessage(e)}). Check the network (HTTPS_PROXY, NO_PROXY), then fetch again (it resumes); ` +
              `a machine without access: npm run models -- import ${m.name} DIR, with DIR a copy of the repository at ${m.commit.slice(0, 12)} or an installed ${m.name}`,
          );
        }
        const out = path.join(stage, f.path);
        mkdirSync(path.dirname(out), { recursive: true });
        if (f.gzip) await gunzipTo(part, out, f);
        else renameSync(part, out);
      }
    } finally {
      progress.done();
    }
    rmSync(downloads, { recursive: true, force: true });
    await checkStaged(stage, lockOf(m), `${m.repo}@${m.commit.slice(0, 12)}`);
    return install(stage, m, o.modelsDir, 'hub');
  } finally {
    release();
    // A download cut short is kept to be resumed; anything else staged goes.
    const keep = existsSync(downloads) && readdirSync(downloads).some((f) => f.endsWith('.part'));
    if (existsSync(stage) && !keep) rmSync(stage, { recursive: true, force: true });
  }
}

/**
 * Installs the model from a directory brought from another machine: an installed `pocketsphinx-es`
 * (hmm/, es.dict, LICENSE), or a copy of the repository (acoustic_model/, base_dictionary.txt.gz,
 * LICENSE) at the pinned commit. Every file is checked against the same pins as `fetch`.
 */
export async function importPocketsphinxEs(src: string, modelsDir: string, m: EsModel = POCKETSPHINX_ES_SOURCE): Promise<InstallResult> {
  if (!existsSync(src) || !statSync(src).isDirectory()) {
    throw new ModelInstallError(`${src} is not a directory (an installed ${m.name}, or a copy of ${m.repo} at ${m.commit.slice(0, 12)})`);
  }
  const installed = existsSync(path.join(src, m.hmm, 'mdef'));
  if (!installed && !existsSync(path.join(src, 'acoustic_model', 'mdef'))) {
    throw new ModelInstallError(
      `${src} holds neither ${m.hmm}/mdef (an installed ${m.name}) nor acoustic_model/mdef (a copy of ${m.repo}); nothing was installed`,
    );
  }
  mkdirSync(modelsDir, { recursive: true });
  checkFreeSpace(
    modelsDir,
    m.files.reduce((n, f) => n + f.size, 0),
  );
  const stage = path.join(modelsDir, `.import-${m.name}-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    for (const f of m.files) {
      const from = path.join(src, installed ? f.path : f.from);
      if (!existsSync(from)) throw new ModelInstallError(`${src} lacks ${installed ? f.path : f.from}; nothing was installed`);
      const out = path.join(stage, f.path);
      mkdirSync(path.dirname(out), { recursive: true });
      if (f.gzip && !installed) {
        const size = statSync(from).size;
        const sha = await sha256File(from);
        if (size !== f.gzip.size || sha !== f.gzip.sha256) {
          throw new ModelInstallError(`${f.from} in ${src} is not the pinned file (${size} bytes, sha256 ${sha}); nothing was installed`);
        }
        await gunzipTo(from, out, f);
      } else await copyFile(from, out);
    }
    await checkStaged(stage, lockOf(m), src);
    return install(stage, m, modelsDir, 'import');
  } finally {
    if (existsSync(stage)) rmSync(stage, { recursive: true, force: true });
  }
}
