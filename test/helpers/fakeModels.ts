/**
 * Directories laid out as models installed by `npm run models`, with a marker whose sha256s match, whose
 * files are NOT models (text): they pass every check made before a native call, for tests that stop
 * there or run a fake addon (fakeSherpaAddon.ts).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MODEL_MARKER } from '../../src/server/engine/sherpa/model';

/** A directory laid out as an installed model, with a marker whose hashes match (the files are not a model). */
export function fakeInstalled(dir: string, o: { modelType?: string; languages?: string[] } = {}): string {
  mkdirSync(dir, { recursive: true });
  const names = ['encoder.int8.onnx', 'decoder.int8.onnx', 'joiner.int8.onnx', 'tokens.txt'];
  const files: Record<string, { size: number; sha256: string }> = {};
  for (const n of names) {
    const body = n === 'tokens.txt' ? '<blk> 0\n▁le 1\n▁patient 2\n' : `not a model: ${n}`;
    writeFileSync(path.join(dir, n), body);
    files[n] = { size: Buffer.byteLength(body), sha256: createHash('sha256').update(body).digest('hex') };
  }
  writeFileSync(
    path.join(dir, MODEL_MARKER),
    JSON.stringify({
      name: path.basename(dir),
      languages: o.languages ?? ['fr', 'en', 'es', 'de'],
      archiveSha256: '0',
      pinned: false,
      files,
      transducer: { encoder: names[0], decoder: names[1], joiner: names[2], tokens: names[3] },
      featureDim: 128,
      ...(o.modelType ? { modelType: o.modelType } : {}),
    }),
  );
  return dir;
}
