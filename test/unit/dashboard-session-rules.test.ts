/**
 * sessionRules.ts, the dashboard's sign-in rules, at their boundaries: the idle and absolute timeouts (a
 * session ends at exactly the limit, not a millisecond later; the absolute one wins over activity), the
 * fresh sign-in window, the once-a-minute touch, the cookie's flags and its clearing, the Cookie header's
 * parsing, and the lock after failed sign-ins (the failure that locks, the window that restarts, a lock that
 * has ended).
 */
import assert from 'node:assert/strict';
import {
  ACCOUNT_THROTTLE,
  DEFAULT_SESSION_POLICY as P,
  afterFailure,
  isFresh,
  lockedFor,
  needsTouch,
  parseCookies,
  sessionCookie,
  sessionState,
} from '../../src/server/dashboard/sessionRules';

const T0 = Date.parse('2026-11-28T08:00:00.000Z');
const iso = (ms: number): string => new Date(ms).toISOString();

describe('dashboard session rules', () => {
  it('idle timeout: active a millisecond before it, idle exactly at it', () => {
    const s = { created_at: iso(T0), seen_at: iso(T0) };
    assert.equal(sessionState(s, T0, P), 'active');
    assert.equal(sessionState(s, T0 + P.idleMs - 1, P), 'active');
    assert.equal(sessionState(s, T0 + P.idleMs, P), 'idle');
  });

  it('absolute timeout: expired exactly at it even if seen a moment ago, and it wins over idle', () => {
    const created = T0;
    const seen = { created_at: iso(created), seen_at: iso(created + P.absoluteMs - 1000) };
    assert.equal(sessionState(seen, created + P.absoluteMs - 1, P), 'active');
    assert.equal(sessionState(seen, created + P.absoluteMs, P), 'expired');
    const both = { created_at: iso(created), seen_at: iso(created) };
    assert.equal(sessionState(both, created + P.absoluteMs + P.idleMs, P), 'expired');
  });

  it('follows the policy given (a short idle timeout)', () => {
    const p = { idleMs: 1000, absoluteMs: 5000, freshMs: 500 };
    const s = { created_at: iso(T0), seen_at: iso(T0 + 3000) };
    assert.equal(sessionState(s, T0 + 3999, p), 'active');
    assert.equal(sessionState(s, T0 + 4000, p), 'idle');
    assert.equal(isFresh({ auth_at: iso(T0) }, T0 + 499, p), true);
    assert.equal(isFresh({ auth_at: iso(T0) }, T0 + 500, p), false);
  });

  it('a fresh sign-in lasts strictly less than freshMs', () => {
    assert.equal(isFresh({ auth_at: iso(T0) }, T0 + P.freshMs - 1), true);
    assert.equal(isFresh({ auth_at: iso(T0) }, T0 + P.freshMs), false);
  });

  it('touches the seen time once a minute at most', () => {
    assert.equal(needsTouch({ seen_at: iso(T0) }, T0 + 59_999), false);
    assert.equal(needsTouch({ seen_at: iso(T0) }, T0 + 60_000), true);
  });

  it('the cookie: Secure, HttpOnly, SameSite=Strict, Path=/; cleared with an empty value and Max-Age=0', () => {
    assert.equal(sessionCookie('__Host-x', 'abc'), '__Host-x=abc; Path=/; Secure; HttpOnly; SameSite=Strict');
    assert.equal(sessionCookie('__Host-x', '', 0), '__Host-x=; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=0');
    assert.match(sessionCookie('__Host-x', 'v', 299.9), /; Max-Age=299$/);
    assert.match(sessionCookie('__Host-x', 'v', -5), /; Max-Age=0$/);
    assert.ok(!/Domain/i.test(sessionCookie('__Host-x', 'v')), 'a __Host- cookie has no Domain');
  });

  it('parses the Cookie header: the first of a name wins, values keep their "=", junk is skipped', () => {
    const c = parseCookies(' a=1; b=x=y ;a=2; =nameless; novalue; c=');
    assert.equal(c.get('a'), '1');
    assert.equal(c.get('b'), 'x=y');
    assert.equal(c.get('c'), '');
    assert.equal(c.has('novalue'), false);
    assert.equal(c.has(''), false);
    assert.equal(parseCookies(undefined).size, 0);
  });

  it('locks at exactly the fifth failure within the window, for lockMs', () => {
    let t: ReturnType<typeof afterFailure>['state'] | undefined;
    const locks: boolean[] = [];
    for (let i = 0; i < ACCOUNT_THROTTLE.maxFailures; i++) {
      const r = afterFailure(t, T0 + i * 1000, ACCOUNT_THROTTLE);
      t = r.state;
      locks.push(r.lockedNow);
    }
    assert.deepEqual(locks, [false, false, false, false, true]);
    const lockedAt = T0 + 4000;
    assert.equal(t!.locked_until, iso(lockedAt + ACCOUNT_THROTTLE.lockMs));
    assert.equal(lockedFor(t, lockedAt), ACCOUNT_THROTTLE.lockMs);
    assert.equal(lockedFor(t, lockedAt + ACCOUNT_THROTTLE.lockMs - 1), 1);
    assert.equal(lockedFor(t, lockedAt + ACCOUNT_THROTTLE.lockMs), 0);
    assert.equal(lockedFor(undefined, T0), 0);
  });

  it('a failure after the window, or after a lock has ended, counts from one again', () => {
    const first = afterFailure(undefined, T0, ACCOUNT_THROTTLE).state;
    const four = { ...first, failures: 4 };
    assert.equal(afterFailure(four, T0 + ACCOUNT_THROTTLE.windowMs - 1, ACCOUNT_THROTTLE).lockedNow, true);
    const late = afterFailure(four, T0 + ACCOUNT_THROTTLE.windowMs, ACCOUNT_THROTTLE);
    assert.deepEqual(late, { state: { failures: 1, first_at: iso(T0 + ACCOUNT_THROTTLE.windowMs), locked_until: null }, lockedNow: false });
    const ended = { failures: 5, first_at: iso(T0), locked_until: iso(T0 + 1000) };
    assert.equal(afterFailure(ended, T0 + 1000, ACCOUNT_THROTTLE).state.failures, 1);
  });
});
