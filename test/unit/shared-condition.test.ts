import assert from 'node:assert/strict';
import { Condition } from '../../src/shared/condition';

/** Whether `p` has settled before the next turn of the event loop (a poll's timer could not have fired). */
async function settledThisTurn(p: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void p.then(() => (settled = true));
  await new Promise((r) => setImmediate(r));
  return settled;
}

describe('shared: Condition (a wait woken where the state changes)', () => {
  it('resolves true at once when the condition already holds', async () => {
    assert.equal(await new Condition(() => true).wait(10_000), true);
  });

  it('wakes the waiters in the turn the owner says the state changed, not at a later tick', async () => {
    let count = 2;
    const zero = new Condition(() => count === 0);
    const a = zero.wait(10_000);
    const b = zero.wait(10_000);
    count = 1;
    zero.changed();
    assert.equal(await settledThisTurn(a), false, 'not while the count is 1');
    count = 0;
    zero.changed();
    assert.equal(await settledThisTurn(a), true);
    assert.equal(await a, true);
    assert.equal(await b, true);
  });

  it('resolves with the condition at the deadline when nobody says it changed', async () => {
    let open = true;
    const closed = new Condition(() => !open);
    assert.equal(await closed.wait(20), false);
    const w = closed.wait(20);
    open = false; // changed without a word: seen at the deadline
    assert.equal(await w, true);
  });
});
