/**
 * The one path by which an API key is let in, for the HTTP session init, the session read and the
 * WebSocket alike: authenticate the key, check its permission, count it against the rate limit. A
 * refusal says what HTTP status and error code it is, and why (for the log, never with the key).
 */
import type { ErrorCode, Permission } from '../../protocol';
import type { ApiKey, AuthFailure, KeyStore, Limits } from '../storage/stores';

type Authorization =
  | { ok: true; key: ApiKey }
  | {
      ok: false;
      status: 401 | 403 | 429;
      code: Extract<ErrorCode, 'AUTH_ERROR' | 'RATE_LIMITED'>;
      message: string;
      retryAfterMs: number;
      /** For the log: `missing`, `malformed`, `unknown`, `revoked`, `permission` or `rate`. */
      why: AuthFailure | 'permission' | 'rate';
      /** The key's hint when the key itself was valid. */
      keyHint?: string;
    };

export interface AuthorizeOptions {
  permission: Permission;
  /** The refusal's message when the key lacks the permission. */
  lacking: string;
  /** Count this request against the key's rate limit (session init, WebSocket). */
  rate: boolean;
}

export const WRITE_NEEDED = 'this API key lacks the "write" permission needed to open a live session';

export async function authorize(keys: KeyStore, limits: Limits, token: string | undefined, o: AuthorizeOptions): Promise<Authorization> {
  const auth = await keys.authenticate(token);
  if (!auth.ok) return { ok: false, status: 401, code: 'AUTH_ERROR', message: authMessage(auth.reason), retryAfterMs: 0, why: auth.reason };
  const key = auth.key;
  if (!key.permissions.includes(o.permission)) {
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
  }
}

function rateMessage(limits: Limits): string {
  return `rate limit exceeded: at most ${limits.rateLimit} session inits and WebSocket connections per key per ${limits.rateWindowMs / 1000} s`;
}
