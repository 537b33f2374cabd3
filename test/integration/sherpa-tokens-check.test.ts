/**
 * A `tokens.txt` that does not name every token the model can emit (a line missing, a gap in the ids, an id
 * twice, or another model's vocabulary) is refused at start by loadModel, with what is wrong, before any
 * native code reads it: sherpa-onnx would load it and turn the missing token into wrong text mid-dictation.
 * On synthetic models (npm run models -- synth) of the NeMo (Nemotron 3.5) and Zipformer2 shapes, whose
 * lock is rewritten after the change so that only the tokens check can refuse them.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadModel } from '../../src/server/engine/sherpa/load';
import { LOCK_FILE, ModelCorruptError, type ModelLock, sha256File } from '../../src/server/engine/sherpa/model';
import { onnxMetadata } from '../../src/server/engine/sherpa/tokensFile';
import { NEMOTRON, ZIPFORMER_EN, synthFixture, synthUnavailable } from '../helpers/synthModels';

/** A copy of the synthetic model `name` whose tokens.txt is `edit(lines)`, its lock rewritten to match. */
async function withTokens(name: string, edit: (lines: string[]) => string[]): Promise<string> {
  const { dir: src } = await synthFixture(name);
  const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'dictee-tokens-')), name);
  cpSync(src, dir, { recursive: true });
  const tokens = path.join(dir, 'tokens.txt');
  const lines = readFileSync(tokens, 'utf8').split('\n').filter(Boolean);
  writeFileSync(tokens, `${edit(lines).join('\n')}\n`);
  const lock = JSON.parse(readFileSync(path.join(dir, LOCK_FILE), 'utf8')) as ModelLock;
  lock.files['tokens.txt'] = { size: readFileSync(tokens).length, sha256: await sha256File(tokens) };
  writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify(lock));
  return dir;
}

const refused = (re: RegExp) => (e: Error) => {
  assert.ok(e instanceof ModelCorruptError, `a ModelCorruptError, got ${e.name}: ${e.message}`);
  assert.match(e.message, re);
  return true;
};

describe('sherpa-onnx: tokens.txt checked against the model at start', function () {
  this.timeout(120_000);
  before(function () {
    const why = synthUnavailable();
    if (why) this.skip();
  });

  it('reads the vocab_size the ONNX metadata declares, without reading the graph', async () => {
    const { dir } = await synthFixture(NEMOTRON);
    const lines = readFileSync(path.join(dir, 'tokens.txt'), 'utf8').split('\n').filter(Boolean).length;
    assert.equal(onnxMetadata(path.join(dir, 'encoder.int8.onnx')).get('vocab_size'), String(lines - 1));
  });

  it('the generated models pass as they are', async () => {
    assert.equal((await loadModel((await synthFixture(NEMOTRON)).dir, 'model', {})).kind, 'online');
    assert.equal((await loadModel((await synthFixture(ZIPFORMER_EN)).dir, 'model', {})).kind, 'online');
  });

  it('NeMo: a token the model can emit missing (the last word before the language tags) is refused', async () => {
    const dir = await withTokens(NEMOTRON, (l) => [...l.slice(0, l.length - 4), ...l.slice(l.length - 3)]);
    await assert.rejects(loadModel(dir, 'model', {}), refused(/tokens\.txt has no token of id \d+ .*the model can emit it/));
  });

  it('NeMo: a vocabulary shorter than the model (the ids contiguous) is refused by its count', async () => {
    const dir = await withTokens(NEMOTRON, (l) => [...l.slice(0, l.length - 3), l[l.length - 1]!.replace(/\d+$/, String(l.length - 3))]);
    await assert.rejects(
      loadModel(dir, 'model', {}),
      refused(/has \d+ tokens, the model emits \d+ \(its vocab_size metadata plus the blank\)/),
    );
  });

  it('Zipformer2: a gap in the ids, an id twice, a line without an id: each refused with its line', async () => {
    const gap = await withTokens(ZIPFORMER_EN, (l) => l.map((x, i) => (i === l.length - 1 ? x.replace(/\d+$/, String(l.length + 5)) : x)));
    await assert.rejects(loadModel(gap, 'model', {}), refused(/has no token of id \d+/));
    const twice = await withTokens(ZIPFORMER_EN, (l) => [...l, l[3]!]);
    await assert.rejects(loadModel(twice, 'model', {}), refused(/line \d+: id 3 appears twice/));
    const noId = await withTokens(ZIPFORMER_EN, (l) => [...l.slice(0, 3), '▁word', ...l.slice(3)]);
    await assert.rejects(loadModel(noId, 'model', {}), refused(/line 4: "▁word" is not a token id/));
  });
});
