import assert from 'node:assert/strict';
import { DictationError } from '../../src/client/errors';
import { Backoff, backoffDelay, gaveUpError } from '../../src/client/retry';

const cause = (code: DictationError['code'], retryAfterMs = 0): DictationError =>
  new DictationError({ code, message: `${code} happened`, retryAfterMs, fatal: false });

describe('client: the retry policy', () => {
  it('exponential backoff with full jitter, capped', () => {
    const o = { maxAttempts: 8, baseMs: 250, maxMs: 10_000, random: () => 0.999999 };
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 7, 8].map((a) => backoffDelay(a, cause('NETWORK_ERROR'), o)),
      [249, 499, 999, 1999, 3999, 7999, 9999, 9999],
    );
    assert.equal(backoffDelay(3, cause('NETWORK_ERROR'), { ...o, random: () => 0 }), 0, 'full jitter reaches zero');
  });

  it('RATE_LIMITED waits retry_after_ms (5000 when absent) plus the jitter', () => {
    const o = { maxAttempts: 8, baseMs: 100, maxMs: 1000, random: () => 0.5 };
    assert.equal(backoffDelay(1, cause('RATE_LIMITED', 1200), o), 1250);
    assert.equal(backoffDelay(1, cause('RATE_LIMITED'), o), 5050);
  });

  it('an INIT_ERROR with a wait (the recogniser is not available now) waits retry_after_ms plus the jitter, within the same budget', () => {
    const o = { maxAttempts: 2, baseMs: 100, maxMs: 1000, random: () => 0.5 };
    assert.equal(backoffDelay(1, cause('INIT_ERROR', 2000), o), 2050);
    const b = new Backoff(o);
    assert.deepEqual(
      [b.next(cause('INIT_ERROR', 2000)), b.next(cause('INIT_ERROR', 2000)), b.next(cause('INIT_ERROR', 2000))].map((d) => d?.delayMs),
      [2050, 2100, undefined],
    );
    const e = gaveUpError(cause('INIT_ERROR', 2000), 2, 'reconnection', 's');
    assert.deepEqual([e.code, e.fatal, e.retryAfterMs], ['INIT_ERROR', true, 2000], 'the cause is named, and that it was a wait');
  });

  it('counts attempts in a row, gives up after the last, and starts again after a reset', () => {
    const b = new Backoff({ maxAttempts: 3, baseMs: 10, maxMs: 100, random: () => 0 });
    assert.deepEqual(
      [b.next(cause('TIMEOUT')), b.next(cause('TIMEOUT')), b.next(cause('TIMEOUT'))].map((d) => d?.attempt),
      [1, 2, 3],
    );
    assert.equal(b.next(cause('TIMEOUT')), undefined);
    b.reset();
    assert.equal(b.next(cause('TIMEOUT'))?.attempt, 1);
  });

  it('giving up is fatal and keeps the last failure (its code when it tells more than "network")', () => {
    const e = gaveUpError(cause('TIMEOUT'), 2, 'reconnection', 's');
    assert.deepEqual([e.code, e.fatal, e.sessionId], ['NETWORK_ERROR', true, 's']);
    assert.equal(e.message, 'gave up after 2 reconnection attempts; last failure: TIMEOUT happened');
    assert.equal(gaveUpError(cause('RATE_LIMITED'), 8, 'session init', undefined).code, 'RATE_LIMITED');
    assert.equal(gaveUpError(cause('INTERNAL_ERROR'), 8, 'reconnection', undefined).code, 'INTERNAL_ERROR');
  });
});
