/**
 * `npm run models -- synth NAME --size real`: the real-size model is Nemotron 3.5's only (its dimensions are
 * the only ones sourced), and a size that is not `tiny` or `real` is a usage error. The model itself (~660 MB)
 * is made by `npm run bench -- capacity` only, never here.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from '../../src/shared/args';
import { synthModel } from '../../src/models/synth';
import { synthCommand } from '../../src/models/synthCommand';
import { PARAKEET, synthUnavailable } from '../helpers/synthModels';

describe('npm run models -- synth --size', () => {
  it('a size other than tiny or real is a usage error, before anything is written', async () => {
    await assert.rejects(
      synthCommand(PARAKEET, { out: mkdtempSync(path.join(os.tmpdir(), 'dictee-synth-size-')), size: 'huge' }, () => undefined),
      (e: Error) => e instanceof UsageError && /--size must be tiny or real/.test(e.message),
    );
  });

  it('real is refused for a model whose real dimensions the generator does not have (Parakeet)', async function () {
    if (synthUnavailable()) this.skip();
    await assert.rejects(
      synthModel(PARAKEET, mkdtempSync(path.join(os.tmpdir(), 'dictee-synth-size-')), { size: 'real' }),
      /--size real is made for the NeMo streaming family \(Nemotron 3\.5\) only/,
    );
  });
});
