/** docs/dictation.md is generated from the grammar's tables: it must match them. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { DOC_PATH, dictationDoc } from '../../scripts/dictation-docs';

describe('dictation: docs/dictation.md', () => {
  it('is what `npm run docs:dictation` writes from the current tables (run it after changing them)', () => {
    assert.equal(readFileSync(DOC_PATH, 'utf8'), dictationDoc());
  });
});
