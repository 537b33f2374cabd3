/**
 * The rules of a dashboard sign-in, pure (no I/O, unit-tested): the cookie's name and flags, the idle and
 * absolute timeouts, a fresh sign-in, and the lock after failed sign-ins per account and per address.
 */

/** `__Host-`: Secure, Path=/, no Domain: the browser never sends it to another host, nor over plain HTTP (but loopback). */
export const SESSION_COOKIE = '__Host-dictee_session';
/** The sign-in form's own token (double submit), before any session exists. */
export const SIGNIN_COOKIE = '__Host-dictee_signin';

export interface SessionPolicy {
  /** A session not used for this long ends (ms). */
  idleMs: number;
  /** A session ends this long after the sign-in, used or not (ms). */
  absoluteMs: number;
  /** How recent a password must be for `requireFreshSignIn` (ms). */
  freshMs: number;
}

export const DEFAULT_SESSION_POLICY: SessionPolicy = { idleMs: 30 * 60_000, absoluteMs: 12 * 3_600_000, freshMs: 10 * 60_000 };

type SessionState = 'active' | 'idle' | 'expired';

/** Whether a session still holds at `now`: `idle` past the idle timeout, `expired` past the absolute one. */
export function sessionState(
  s: { created_at: string; seen_at: string },
  now: number,
  p: SessionPolicy = DEFAULT_SESSION_POLICY,
): SessionState {
  if (now - Date.parse(s.created_at) >= p.absoluteMs) return 'expired';
  if (now - Date.parse(s.seen_at) >= p.idleMs) return 'idle';
  return 'active';
}

/** Whether the person typed their password within `freshMs`. */
export function isFresh(s: { auth_at: string }, now: number, p: SessionPolicy = DEFAULT_SESSION_POLICY): boolean {
  return now - Date.parse(s.auth_at) < p.freshMs;
}

/** The seen time is written at most once a minute (a page view is not a write each time). */
export function needsTouch(s: { seen_at: string }, now: number): boolean {
  return now - Date.parse(s.seen_at) >= 60_000;
}

/** The session cookie's Set-Cookie value (an empty value and Max-Age=0 to clear it). */
export function sessionCookie(name: string, value: string, maxAgeS?: number): string {
  const parts = [`${name}=${value}`, 'Path=/', 'Secure', 'HttpOnly', 'SameSite=Strict'];
  if (maxAgeS !== undefined) parts.push(`Max-Age=${Math.max(0, Math.floor(maxAgeS))}`);
  return parts.join('; ');
}

/** The cookies of a request's `Cookie` header, by name (the first of a name wins). */
export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (name && !out.has(name)) out.set(name, part.slice(eq + 1).trim());
  }
  return out;
}

// ---------------------------------------------------------------- failed sign-ins

export interface ThrottlePolicy {
  /** Failures counted within this window (ms)… */
  windowMs: number;
  /** …before the subject is locked… */
  maxFailures: number;
  /** …for this long (ms). */
  lockMs: number;
}

/** Per account: 5 wrong passwords in 15 minutes lock the account for 15 minutes. */
export const ACCOUNT_THROTTLE: ThrottlePolicy = { windowMs: 15 * 60_000, maxFailures: 5, lockMs: 15 * 60_000 };
/** Per client address: 20 failures in 15 minutes (whatever the accounts) lock the address for 15 minutes. */
export const ADDRESS_THROTTLE: ThrottlePolicy = { windowMs: 15 * 60_000, maxFailures: 20, lockMs: 15 * 60_000 };

interface ThrottleState {
  failures: number;
  first_at: string;
  locked_until: string | null;
}

/** How long the subject is still locked at `now` (ms; 0: not locked). */
export function lockedFor(t: ThrottleState | undefined, now: number): number {
  if (!t?.locked_until) return 0;
  return Math.max(0, Date.parse(t.locked_until) - now);
}

/** The state after one more failure at `now`, and whether this failure is the one that locks. */
export function afterFailure(t: ThrottleState | undefined, now: number, p: ThrottlePolicy): { state: ThrottleState; lockedNow: boolean } {
  const fresh = !t || now - Date.parse(t.first_at) >= p.windowMs || (t.locked_until !== null && Date.parse(t.locked_until) <= now);
  const failures = fresh ? 1 : t.failures + 1;
  const first_at = fresh ? new Date(now).toISOString() : t.first_at;
  if (failures >= p.maxFailures) {
    return { state: { failures, first_at, locked_until: new Date(now + p.lockMs).toISOString() }, lockedNow: true };
  }
  return { state: { failures, first_at, locked_until: null }, lockedNow: false };
}
