import assert from 'node:assert/strict';
import { RateLimiter } from '../../src/server/limits';

describe('server rate limiter (sliding window per key)', () => {
  it('allows `limit` requests per window and gives the exact wait', () => {
    let now = 1_000_000;
    const rl = new RateLimiter(3, 10_000, () => now);
    assert.deepEqual(rl.take('k'), { allowed: true });
    now += 1000;
    rl.take('k');
    now += 1000;
    rl.take('k');
    now += 500;
    assert.deepEqual(rl.take('k'), { allowed: false, retryAfterMs: 7500 }); // first hit leaves at +10 s
    assert.deepEqual(rl.take('other'), { allowed: true }, 'keys are counted separately');
    now += 7499;
    assert.equal(rl.take('k').allowed, false);
    now += 1;
    assert.equal(rl.take('k').allowed, true, 'a slot frees exactly when the oldest request leaves the window');
  });

  it('refused requests are not counted', () => {
    let now = 0;
    const rl = new RateLimiter(1, 1000, () => now);
    rl.take('k');
    for (let i = 0; i < 10; i++) rl.take('k');
    now = 1000;
    assert.equal(rl.take('k').allowed, true);
  });

  it('sweeps idle keys', () => {
    let now = 0;
    const rl = new RateLimiter(1, 1000, () => now);
    rl.take('k');
    now = 5000;
    rl.sweep();
    assert.equal((rl as unknown as { hits: Map<string, number[]> }).hits.size, 0);
  });
});
