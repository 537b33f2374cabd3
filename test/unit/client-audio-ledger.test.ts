import assert from 'node:assert/strict';
import { AudioLedger } from '../../src/client/audioLedger';

const FRAME = 4;
/** A frame of `FRAME` bytes all equal to `n`. */
const f = (n: number): Buffer => Buffer.alloc(FRAME, n);
const bytes = (frames: Buffer[]): number[] => [...Buffer.concat(frames)];

describe('client: AudioLedger', () => {
  it('frames chunks of any size, sends whole frames, and queues the partial one on request (never an odd byte)', () => {
    const l = new AudioLedger(FRAME, 100, 100);
    l.push(Buffer.from([1, 2, 3]), true);
    assert.deepEqual(l.takeQueue(), [], 'no whole frame yet');
    assert.equal(l.queuedBytes, 3, 'the partial frame counts as queued');
    l.push(Buffer.from([4, 5, 6, 7, 8, 9, 10]), true);
    assert.deepEqual(bytes(l.takeQueue()), [1, 2, 3, 4, 5, 6, 7, 8]);
    l.pushPartial(true);
    assert.deepEqual(bytes(l.takeQueue()), [9, 10]);
    l.push(Buffer.from([11]), true);
    l.pushPartial(true);
    assert.deepEqual(l.takeQueue(), [], 'a lone odd byte waits for its pair');
    assert.equal(l.stats.sentBytes, 10);
    assert.equal(l.nextOffset, 10);
  });

  it('while disconnected, bounds the queue by dropping the oldest frames, and reports the overflow once per disconnection', () => {
    const l = new AudioLedger(FRAME, 3 * FRAME, 100);
    const results = [1, 2, 3, 4, 5].map((n) => l.queue(f(n), false));
    assert.deepEqual(
      results.map((r) => r.dropped),
      [0, 0, 0, FRAME, FRAME],
    );
    assert.deepEqual(
      results.map((r) => r.overflowBegan),
      [false, false, false, true, false],
    );
    assert.equal(l.stats.droppedBytes, 2 * FRAME);
    assert.deepEqual(
      l.takeQueue().map((b) => b[0]),
      [3, 4, 5],
      'the newest frames, in order',
    );
    // Sent: the next overflow is a new one.
    l.queue(f(6), false);
    l.queue(f(7), false);
    l.queue(f(8), false);
    assert.equal(l.queue(f(9), false).overflowBegan, true);
    // Connected, nothing is dropped however much waits.
    for (let i = 0; i < 10; i++) assert.equal(l.queue(f(i), true).dropped, 0);
  });

  it('keeps at least `retainBytes` of sent audio, and after a resume re-sends from the service offset, mid-frame too', () => {
    const l = new AudioLedger(FRAME, 100, 2 * FRAME);
    for (const n of [1, 2, 3, 4]) l.queue(f(n), true);
    l.takeQueue();
    assert.deepEqual(bytes([l.pending()]), bytes([f(3), f(4)]), 'the window keeps the last two frames');
    const r = l.resumeAt(2 * FRAME + 2);
    assert.deepEqual(r, { offset: 10, resent: 6, lost: 0, firstRetained: 8, sentUpTo: 16 });
    assert.deepEqual(bytes(l.takeQueue()), [3, 3, 4, 4, 4, 4], 'from the middle of frame 3 on');
    assert.equal(l.stats.resentBytes, 6);
    assert.equal(l.nextOffset, 16);
  });

  it('a resume older than the window: what is gone is counted as unrecoverable; the rest is re-sent before the queue', () => {
    const l = new AudioLedger(FRAME, 100, 2 * FRAME);
    for (const n of [1, 2, 3, 4]) l.queue(f(n), true);
    l.takeQueue();
    l.queue(f(5), false);
    const r = l.resumeAt(0);
    assert.deepEqual([r.lost, r.firstRetained, r.resent], [2 * FRAME, 2 * FRAME, 2 * FRAME]);
    assert.equal(l.stats.unrecoverableBytes, 2 * FRAME);
    assert.deepEqual(
      l.takeQueue().map((b) => b[0]),
      [3, 4, 5],
    );
  });

  it('a resume at or past what was sent re-sends nothing', () => {
    const l = new AudioLedger(FRAME, 100, 100);
    l.queue(f(1), true);
    l.takeQueue();
    assert.deepEqual(l.resumeAt(FRAME), { offset: FRAME, resent: 0, lost: 0, firstRetained: 0, sentUpTo: FRAME });
    assert.equal(l.resumeAt(3 * FRAME).sentUpTo, FRAME, 'the service reporting more than was sent is told by sentUpTo');
    assert.deepEqual(l.takeQueue(), []);
  });

  it('a new service session re-sends what was sent after the last final text, and offsets start from zero', () => {
    const l = new AudioLedger(FRAME, 100, 100);
    l.queue(f(1), true);
    l.queue(f(2), true);
    l.takeQueue();
    l.markFinal(); // frames 1 and 2 are covered by final text
    l.queue(f(3), true);
    l.takeQueue();
    l.queue(f(4), false);
    const r = l.startNewSession();
    assert.deepEqual([r.offset, r.resent], [2 * FRAME, FRAME]);
    assert.equal(l.nextOffset, 0);
    assert.deepEqual(
      l.takeQueue().map((b) => b[0]),
      [3, 4],
    );
    assert.equal(l.nextOffset, 2 * FRAME, 'the new session numbers from zero');
    // The window of the old session is gone: a resume of the new one cannot reach into it.
    assert.equal(l.resumeAt(0).lost, 0);
  });

  it('the pending audio is the sent window followed by the queue', () => {
    const l = new AudioLedger(FRAME, 100, 100);
    l.queue(f(1), true);
    l.takeQueue();
    l.queue(f(2), false);
    l.push(Buffer.from([9, 9]), false);
    assert.deepEqual(bytes([l.pending()]), bytes([f(1), f(2)]), 'the partial frame is not pending until queued');
    assert.equal(l.queuedBytes, FRAME + 2);
  });
});
