/**
 * Directories laid out as models installed by `npm run models` (four files and their lock), whose files are
 * NOT models (text), described by a catalogue file of their own (what `DICTEE_MODEL_CATALOGUE` gives the
 * service): they pass every check made before a native call, for tests that stop there or run a fake addon
 * (fakeSherpaAddon.ts).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CatalogueEntry } from '../../src/server/engine/sherpa/catalogue';
import { LOCK_FILE, LOCK_FORMAT, type ModelLock } from '../../src/server/engine/sherpa/model';

/** The catalogue file describing the fake models of `modelsDir` (pass it as DICTEE_MODEL_CATALOGUE). */
export function fakeCatalogue(modelsDir: string): string {
  return path.join(modelsDir, '.fake-catalogue.json');
}

/** A directory laid out as an installed model, with a lock whose hashes match (the files are not a model). */
export function fakeInstalled(dir: string, o: { modelType?: string; languages?: string[] } = {}): string {
  mkdirSync(dir, { recursive: true });
  const roles = ['encoder', 'decoder', 'joiner', 'tokens'] as const;
  const names = ['encoder.int8.onnx', 'decoder.int8.onnx', 'joiner.int8.onnx', 'tokens.txt'];
  const files: ModelLock['files'] = {};
  for (const n of names) {
    const body = n === 'tokens.txt' ? '<blk> 0\n▁le 1\n▁patient 2\n' : `not a model: ${n}`;
    writeFileSync(path.join(dir, n), body);
    files[n] = { size: Buffer.byteLength(body), sha256: createHash('sha256').update(body).digest('hex') };
  }
  const name = path.basename(dir);
  const offline = o.modelType === 'nemo_transducer';
  const lock: ModelLock = { format: LOCK_FORMAT, model: name, repo: `fake/${name}`, revision: '0'.repeat(40), files };
  writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify(lock));
  const languages = o.languages ?? ['fr', 'en', 'es', 'de'];
  const entry: CatalogueEntry = {
    name,
    kind: offline ? 'offline' : 'online',
    languages,
    perStreamLanguage: !offline && languages.length > 1,
    punctuates: true,
    featureDim: 128,
    ...(o.modelType ? { modelType: o.modelType } : {}),
    licence: 'none (test files, not a model)',
    hfRepo: `fake/${name}`,
    revision: '0'.repeat(40),
    archiveUrl: `http://127.0.0.1:9/${name}.tar.bz2`,
    archiveSize: null,
    files: names.map((n, i) => ({ role: roles[i]!, path: n, size: files[n]!.size, sha256: files[n]!.sha256 })),
  };
  const catalogue = fakeCatalogue(path.dirname(dir));
  const entries = existsSync(catalogue)
    ? (JSON.parse(readFileSync(catalogue, 'utf8')) as CatalogueEntry[]).filter((e) => e.name !== name)
    : [];
  writeFileSync(catalogue, JSON.stringify([...entries, entry]));
  return dir;
}
