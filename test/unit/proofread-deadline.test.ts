import assert from 'node:assert/strict';
import { jobDeadline, tooLate } from '../../src/server/engine/pocketsphinx/proofreadThread';

describe('proofreading thread: when a sentence is given up', () => {
  it('counts a job queued behind another from the time the one before it was allowed, not from its posting', () => {
    // A 5 s sentence (limit 20 s) posted at t=0, then a 2 s one (limit 14 s) posted at t=1 s behind it.
    const first = jobDeadline(0, 0, 20_000);
    const second = jobDeadline(1000, first, 14_000);
    assert.equal(first, 20_000);
    assert.equal(second, 34_000, 'the second starts its own 14 s when the first runs out at the latest');
    // With the thread idle (the previous deadline long past), a job gets its own limit from now.
    assert.equal(jobDeadline(100_000, second, 14_000), 114_000);
  });

  it('has the thread skip a job it comes to after its deadline, with the reason and no text', () => {
    const job = { job: 7, pcm: new ArrayBuffer(0), deadline: 34_000 };
    assert.equal(tooLate(job, 34_000), undefined, 'at its deadline it is still decoded');
    const skipped = tooLate(job, 35_500);
    assert.ok(skipped && 'error' in skipped, 'after it, an error answer');
    assert.equal(skipped.job, 7);
    assert.match(skipped.error, /skipped: its time ran out 1500 ms before/);
    assert.equal(tooLate({ job: 8, pcm: new ArrayBuffer(0) }, 1e15), undefined, 'a job without a deadline is always decoded');
  });
});
