/**
 * The lock `npm run models -- synth` writes (`synthetic`): a model of a catalogue entry's files whose bytes
 * are not the published ones is taken by `--model DIR` only as what it is — its files checked against its
 * own lock, never passed off as the pinned model, and named synthetic to the service.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { catalogueEntry } from '../../src/server/engine/sherpa/catalogue';
import { LOCK_FILE, LOCK_FORMAT, type ModelLock, ModelCorruptError, resolveModel } from '../../src/server/engine/sherpa/model';

const NEMOTRON = 'sherpa-onnx-nemotron-3.5-asr-streaming-0.6b-560ms-int8-2026-06-11';

/** A directory with the entry's four files (text, not a model) and a lock of them; `synthetic` as given. */
function laidOut(synthetic: unknown): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-synth-lock-'));
  const entry = catalogueEntry(NEMOTRON)!;
  const files: ModelLock['files'] = {};
  for (const f of entry.files) {
    const body = `synthetic ${f.role}`;
    writeFileSync(path.join(dir, f.path), body);
    files[f.path] = { size: body.length, sha256: createHash('sha256').update(body).digest('hex') };
  }
  const lock = {
    format: LOCK_FORMAT,
    model: NEMOTRON,
    repo: entry.hfRepo,
    revision: 'synthetic-1',
    files,
    ...(synthetic === undefined ? {} : { synthetic }),
  };
  writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify(lock));
  return dir;
}

describe('sherpa-onnx: the lock of a synthetic model', () => {
  it('marked synthetic: taken, files checked against its own lock, and said synthetic', async () => {
    const m = await resolveModel(laidOut('made by npm run models -- synth'));
    assert.equal(m.name, NEMOTRON);
    assert.equal(m.featureDim, 128, "the entry's configuration");
    assert.match(m.synthetic ?? '', /synth/);
  });

  it('not marked: the same files are refused, their sizes are not the catalogue pins', async () => {
    await assert.rejects(
      resolveModel(laidOut(undefined)),
      (e: Error) => e instanceof ModelCorruptError && /the catalogue pins/.test(e.message),
    );
  });

  it('a synthetic mark that is not a note, or a changed file, is refused', async () => {
    await assert.rejects(resolveModel(laidOut(true)), /synthetic is not a note/);
    const dir = laidOut('synthetic');
    writeFileSync(path.join(dir, 'tokens.txt'), 'changed');
    await assert.rejects(resolveModel(dir), /tokens\.txt .* has 7 bytes, its lock says/);
  });
});
