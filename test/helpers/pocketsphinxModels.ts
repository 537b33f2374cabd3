/**
 * The French and Spanish pocketsphinx models for the service's tests. French: the acoustic model and a
 * language model of the shared CC0 corpus's first {@link LM_LINES} lines, from `ensureFrenchLm`
 * (test/helpers/frenchLm.ts: fetched and built once, cached under `.cache/french-lm/` by the corpus's
 * sha256 and the builder's version, shared with the other French tests). Spanish: the shared copy's
 * files laid out as languages.ts says.
 *
 * {@link modelsDirWith} then makes a models directory of the test's own (DICTEE_MODELS_DIR) holding copies.
 */
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { POCKETSPHINX_ES } from '../../src/server/engine/pocketsphinx/languages';
import { FRENCH_CORPUS, ensureFrenchLm } from './frenchLm';

export const FR_SPEECH = '/work/shared/speech/fr';
export const ES_SPEECH = '/work/shared/speech/es';
const ES_MODEL = path.join(ES_SPEECH, 'model', 'cmusphinx-es-5.2');
export const LM_LINES = 100_000;

export function frenchAvailable(): boolean {
  return existsSync(FRENCH_CORPUS) && existsSync(path.join(FR_SPEECH, 'voxforge-fr-sb'));
}

export function spanishAvailable(): boolean {
  return existsSync(ES_MODEL) && existsSync(path.join(ES_SPEECH, 'voxforge-es'));
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
    const lm = await ensureFrenchLm({ maxLines: LM_LINES });
    cpSync(path.join(lm.modelsDir, 'pocketsphinx-fr'), path.join(dir, 'pocketsphinx-fr'), { recursive: true });
    cpSync(path.dirname(lm.arpa), path.join(dir, 'lm-fr'), { recursive: true });
  }
  if (o.es) installSpanish(dir);
  return dir;
}
