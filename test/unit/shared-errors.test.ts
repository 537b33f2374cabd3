import assert from 'node:assert/strict';
import { errorMessage } from '../../src/shared/errors';

describe('shared: errorMessage', () => {
  it('gives the message of an Error, a string as it is, and the string form of anything else', () => {
    assert.equal(errorMessage(new TypeError('bad type')), 'bad type');
    assert.equal(errorMessage('plain text'), 'plain text');
    assert.equal(errorMessage(42), '42');
    assert.equal(errorMessage(undefined), 'undefined');
    assert.equal(errorMessage({ toString: () => 'custom' }), 'custom');
  });

  it('never throws, even for a value whose string form throws', () => {
    const hostile = {
      toString() {
        throw new Error('no');
      },
    };
    assert.equal(errorMessage(hostile), 'unknown error');
    assert.equal(errorMessage(Object.create(null)), 'unknown error');
  });
});
