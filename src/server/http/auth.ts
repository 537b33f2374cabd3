/**
 * The one path by which an API key is let in, for the HTTP session init, the session read and the
 * WebSocket alike: refuse a client address that presented too many wrong keys, authenticate the key
 * (counting a wrong one against its address), check its permission, count it against the rate limit. A
 * refusal says what HTTP status and error code it is, and why (for the log, never with the key).
 */
import type { ErrorCode, Permission } from '../../protocol';
import type { ApiKey, AuthFailure, KeyStore, Limits } from '../storage/stores';
import { HttpError } from './util';

type Authorization = { ok: true; key: ApiKey } | Refusal;

type Refusal = {
  ok: false;
  status: 401 | 403 | 429;
  code: Extract<ErrorCode, 'AUTH_ERROR' | 'RATE_LIMITED'>;
  message: string;
  retryAfterMs: number;
  /**
   * For the log: `missing`, `malformed`, `unknown`, `revoked`, `permission`, `rate`, or `locked` (the
   * address presented too many wrong keys).
   */
  why: AuthFailure | 'permission' | 'rate' | 'locked';
  /** The key's hint when the key itself was valid. */
  keyHint?: string;
};

export interface AuthorizeOptions {
  permission: Permission;
  /** The refusal's message when the key lacks the permission. */
  lacking: string;
  /** Count this request against the key's rate limit (session init, WebSocket). */
  rate: boolean;
  /** The caller already checked {@link lockedOut} for this address. */
  lockChecked?: boolean;
}

export const WRITE_NEEDED = 'this API key lacks the "write" permission needed to open a live session';

/** The refusal of an address that presented too many wrong keys (every key refused until its minute is over). */
const LOCKED_OUT = 'too many failed API-key attempts from this address; wait retry_after_ms before trying again';

/**
 * Lets a key in from the client `address` (clientAddress.ts). An address that presented an unknown or
 * malformed key 10 times within a minute (`Limits.keyFailed`) is refused with RATE_LIMITED and the wait,
 * whatever key it presents, until the oldest failure leaves the minute: a guesser learns nothing more
 * there. A success does not reset the count (one valid key must not buy unlimited guesses of others),
 * and another address's failures never count against this one. A missing key, a revoked key, a lacking
 * permission are not guesses and are not counted.
 */
/** The refusal of a locked-out address, or undefined when it may try (for a check before the master key's). */
export async function lockedOut(limits: Limits, address: string): Promise<Refusal | undefined> {
  const wait = Math.ceil(await limits.keyFailureWait(address));
  return wait > 0 ? { ok: false, status: 429, code: 'RATE_LIMITED', message: LOCKED_OUT, retryAfterMs: wait, why: 'locked' } : undefined;
}

/** A refusal as the HttpError of an HTTP request, with why (and the key's hint when it was valid) for the log line. */
export function httpRefusal(a: Refusal): HttpError {
  const err = new HttpError(a.status, a.code, a.message, a.retryAfterMs);
  err.logFields = { reason: a.why, key: a.keyHint };
  return err;
}

export async function authorize(
  keys: KeyStore,
  limits: Limits,
  token: string | undefined,
  o: AuthorizeOptions,
  address: string,
): Promise<Authorization> {
  if (o.lockChecked !== true) {
    const locked = await lockedOut(limits, address);
    if (locked) return locked;
  }
  const auth = await keys.authenticate(token);
  if (!auth.ok) {
    if (auth.reason === 'unknown' || auth.reason === 'malformed') await limits.keyFailed(address);
    return { ok: false, status: 401, code: 'AUTH_ERROR', message: authMessage(auth.reason), retryAfterMs: 0, why: auth.reason };
  }
  const key = auth.key;
  // `admin` also reads (scope.ts, `can`).
  if (!key.permissions.includes(o.permission) && !(o.permission === 'read' && key.permissions.includes('admin'))) {
    return { ok: false, status: 403, code: 'AUTH_ERROR', message: o.lacking, retryAfterMs: 0, why: 'permission', keyHint: key.hint };
  }
  return o.rate ? takeRate(limits, key) : { ok: true, key };
}

/** Counts one request of an authorised key against its rate limit. */
export async function takeRate(limits: Limits, key: ApiKey): Promise<Authorization> {
  const decision = await limits.takeRate(key.id);
  if (decision.allowed) return { ok: true, key };
  return {
    ok: false,
    status: 429,
    code: 'RATE_LIMITED',
    message: rateMessage(limits),
    retryAfterMs: decision.retryAfterMs,
    why: 'rate',
    keyHint: key.hint,
  };
}

function authMessage(reason: AuthFailure): string {
  switch (reason) {
    case 'missing':
      return 'missing API key: send it as Authorization: Bearer <API_KEY> (or ?token= on the WebSocket, x-svc-key on session init)';
    case 'malformed':
      return 'invalid API key: not of the form svc_live_…, svc_test_… or svc_proj_…';
    case 'unknown':
      return 'invalid API key: unknown to this service';
    case 'revoked':
      return 'API key revoked';
    case 'expired':
      return 'API key expired';
  }
}

function rateMessage(limits: Limits): string {
  return `rate limit exceeded: at most ${limits.rateLimit} session inits and WebSocket connections per key per ${limits.rateWindowMs / 1000} s`;
}
