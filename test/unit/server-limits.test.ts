import assert from 'node:assert/strict';
import { HttpInits } from '../../src/server/live/httpInits';
import { InProcessLimits, RateLimiter } from '../../src/server/storage/limits';

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
    assert.equal(rl.trackedKeys, 0);
  });
});

describe('server in-process limits (concurrency slots per organisation)', () => {
  it('gives at most `concurrencyLimit` slots per organisation; a slot is per session, taken again at no cost', async () => {
    const l = new InProcessLimits(100, 1000, 2);
    assert.equal(await l.acquireSlot('o1', 'a'), true);
    assert.equal(await l.acquireSlot('o1', 'a'), true, 'the same session holds one slot');
    assert.equal(await l.acquireSlot('o1', 'b'), true);
    assert.equal(await l.acquireSlot('o1', 'c'), false, 'the organisation is at its limit');
    assert.equal(await l.acquireSlot('o2', 'c'), true, 'organisations are counted separately');
    assert.equal(l.slotsHeld('o1'), 2);
  });

  it('a released slot is free at once; releasing twice or an unknown session changes nothing', async () => {
    const l = new InProcessLimits(100, 1000, 1);
    await l.acquireSlot('o', 'a');
    l.releaseSlot('o', 'a');
    l.releaseSlot('o', 'a');
    l.releaseSlot('o', 'zzz');
    assert.equal(await l.acquireSlot('o', 'b'), true);
    assert.equal(l.slotsHeld('o'), 1);
  });

  it('counts the rate per key through the same interface', async () => {
    const l = new InProcessLimits(1, 60_000, 1);
    assert.deepEqual(await l.takeRate('k'), { allowed: true });
    const refused = await l.takeRate('k');
    assert.ok(!refused.allowed && refused.retryAfterMs > 0 && refused.retryAfterMs <= 60_000);
  });
});

describe('server failed API-key attempts (per address)', () => {
  it('counted apart from the master key, with the limit given (DICTEE_AUTH_FAILURE_LIMIT)', async () => {
    let now = 1000;
    const l = new InProcessLimits(100, 60_000, 10, () => now, 3);
    for (let i = 0; i < 2; i++) await l.keyFailed('10.0.0.1');
    assert.equal(await l.keyFailureWait('10.0.0.1'), 0, '2 failures of 3: may still try');
    now = 11_000;
    await l.keyFailed('10.0.0.1');
    assert.equal(await l.keyFailureWait('10.0.0.1'), 50_000, 'the oldest failure leaves the window 50 s later');
    assert.equal(await l.masterKeyWait('10.0.0.1'), 0, 'the master key is counted apart');
    assert.equal(await l.keyFailureWait('10.0.0.2'), 0, 'another address is not affected');
    now = 61_000;
    assert.equal(await l.keyFailureWait('10.0.0.1'), 0);
    assert.throws(() => new InProcessLimits(100, 60_000, 10, () => now, 0), /authFailureLimit/);
  });
});

describe('server failed master-key attempts (per address)', () => {
  it('10 failures within a minute make the address wait until the oldest is a minute old; other addresses are not affected', async () => {
    let now = 1000;
    const l = new InProcessLimits(100, 60_000, 10, () => now);
    for (let i = 0; i < 9; i++) await l.masterKeyFailed('10.0.0.1');
    assert.equal(await l.masterKeyWait('10.0.0.1'), 0, '9 failures: may still try');
    now = 31_000;
    await l.masterKeyFailed('10.0.0.1');
    assert.equal(await l.masterKeyWait('10.0.0.1'), 30_000, 'the oldest failure leaves the window 30 s later');
    assert.equal(await l.masterKeyWait('10.0.0.2'), 0);
    now = 61_000;
    assert.equal(await l.masterKeyWait('10.0.0.1'), 0);
    assert.deepEqual(await l.takeRate('10.0.0.1'), { allowed: true }, 'key rates are counted apart');
  });
});

describe('server HTTP-initialised session ids', () => {
  it('the next session of the key adopts the latest unused id within the adoption time; a given-back id waits again', () => {
    let now = 0;
    const inits = new HttpInits(1000, () => now);
    inits.add('k', 'first');
    now = 10;
    inits.add('k', 'second');
    assert.equal(
      inits.adopt('other', () => false),
      undefined,
      'ids are per key',
    );
    assert.equal(
      inits.adopt('k', (id) => id === 'second'),
      'first',
      'an id already taken by a session is skipped',
    );
    assert.equal(
      inits.adopt('k', () => false),
      'second',
    );
    assert.equal(
      inits.adopt('k', () => false),
      undefined,
      'each id is adopted once',
    );
    inits.giveBack('k', 'second');
    now = 1009;
    assert.equal(
      inits.adopt('k', () => false),
      'second',
    );
    inits.giveBack('k', 'second');
    now = 1010;
    assert.equal(
      inits.adopt('k', () => false),
      undefined,
      'expired after the adoption time',
    );
  });
});
