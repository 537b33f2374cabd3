/**
 * HTTP contract: paths, key formats, request and response bodies.
 */
import { z } from 'zod';
import { ErrorCode } from './errors';

/** Where the service listens unless told otherwise, and so where clients look for it by default. */
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8787;
export const DEFAULT_SERVER_URL = `http://${DEFAULT_HOST}:${DEFAULT_PORT}`;

export const PATHS = {
  sessionInit: '/api/v1/live/sessions',
  sessionInitAlt: '/v1/live/sessions',
  audioLive: '/api/v1/audio/live',
  apiKeys: '/v1/api-keys',
  /** `GET /v1/sessions/{id}`: a session's record and live state. */
  sessions: '/v1/sessions',
  health: '/healthz',
  /** Readiness: 200 while the instance takes new sessions, 503 while it drains or a backend does not answer. */
  ready: '/readyz',
  /** Operational figures (master key): live sessions, connections, memory, event-loop delay. */
  status: '/v1/status',
  /** `GET /v1/usage`: sessions, audio seconds and errors summed by key, project, person or day. */
  usage: '/v1/usage',
  /** `GET /v1/audit`: the audit log (master key, or an organisation's admin key). */
  audit: '/v1/audit',
} as const;

const KEY_PREFIXES = ['svc_live_', 'svc_test_', 'svc_proj_'] as const;
const KEY_TYPES = ['personal', 'project'] as const;
export const PERMISSIONS = ['read', 'write', 'admin'] as const;
const ENVIRONMENTS = ['live', 'test'] as const;
type KeyType = (typeof KEY_TYPES)[number];
export type Permission = (typeof PERMISSIONS)[number];

/** A key: a known prefix and 32 to 128 characters of base62/base64url secret. */
export const KEY_PATTERN = /^svc_(live|test|proj)_[A-Za-z0-9_-]{32,128}$/;

/** Whether a string has the shape of an API key (says nothing of whether the service knows it). */
export function looksLikeApiKey(value: string): boolean {
  return KEY_PATTERN.test(value);
}

/**
 * A form of the key safe for logs and messages: its prefix and last four characters.
 * Never log a key any other way.
 */
export function redactKey(key: string): string {
  const prefix = KEY_PREFIXES.find((p) => key.startsWith(p)) ?? '';
  return `${prefix}…${key.length > prefix.length + 8 ? key.slice(-4) : ''}`;
}

/** Something shaped like an API key or a generated master key, in any case (redaction errs on the safe side). */
const SECRET_SHAPED = /(?:svc_(?:live|test|proj)_|msk_)[A-Za-z0-9_-]{4,}/i;

/**
 * `decodeURIComponent` applied until the text stops changing (at most 3 times), never throwing: a
 * malformed escape is left as it is. `+` counts as a space, as in a query.
 */
function decodeLoosely(text: string, plusIsSpace: boolean): string {
  let out = plusIsSpace ? text.replace(/\+/g, ' ') : text;
  for (let i = 0; i < 3; i++) {
    let next: string;
    try {
      next = decodeURIComponent(out);
    } catch {
      next = out.replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
    }
    if (next === out) break;
    out = next;
  }
  return out;
}

/**
 * A URL or path safe to log: decided on what the service would decode, not on the raw text.
 * - every query parameter whose decoded name is `token` (any case) has its value replaced by `[redacted]`;
 * - every query parameter whose decoded name or value holds something shaped like a key is replaced
 *   whole (`[redacted]`);
 * - a path segment that decodes to something shaped like a key is replaced by that key's hint.
 * The fragment is dropped.
 */
export function redactUrl(url: string): string {
  const hash = url.indexOf('#');
  const noFragment = hash >= 0 ? url.slice(0, hash) : url;
  const q = noFragment.indexOf('?');
  const pathPart = q >= 0 ? noFragment.slice(0, q) : noFragment;
  const path = pathPart
    .split('/')
    .map((seg) => {
      const decoded = decodeLoosely(seg, false);
      const m = SECRET_SHAPED.exec(decoded);
      return m ? decoded.replace(SECRET_SHAPED, (k) => (/^msk_/i.test(k) ? 'msk_…' : redactKey(k))) : seg;
    })
    .join('/');
  if (q < 0) return path;
  const query = noFragment
    .slice(q + 1)
    .split('&')
    .map((param) => {
      const eq = param.indexOf('=');
      const name = eq >= 0 ? param.slice(0, eq) : param;
      const value = eq >= 0 ? param.slice(eq + 1) : '';
      const dName = decodeLoosely(name, true);
      const dValue = decodeLoosely(value, true);
      if (dName.trim().toLowerCase() === 'token') return `${name}=[redacted]`;
      if (SECRET_SHAPED.test(dName) || SECRET_SHAPED.test(dValue)) return '[redacted]';
      return param;
    })
    .join('&');
  return `${path}?${query}`;
}

export const CreateKeyRequestSchema = z.strictObject(
  {
    name: z.string({ error: 'name must be a string' }).trim().min(1, { message: 'name must not be empty' }).max(200),
    type: z.enum(KEY_TYPES, { error: `type must be one of ${KEY_TYPES.join(', ')}` }),
    project_id: z.string({ error: 'project_id must be a string' }).min(1).max(200).optional(),
    permissions: z
      .array(z.enum(PERMISSIONS, { error: `permissions must be drawn from ${PERMISSIONS.join(', ')}` }), {
        error: 'permissions must be an array',
      })
      .min(1, { message: 'permissions must not be empty' })
      .optional(),
    environment: z.enum(ENVIRONMENTS, { error: `environment must be one of ${ENVIRONMENTS.join(', ')}` }).optional(),
    /** The person a personal key belongs to (ours; none: the organisation's own key). */
    person_id: z.string({ error: 'person_id must be a string' }).min(1, { message: 'person_id must not be empty' }).max(200).optional(),
    /** When the key stops working (ours): an RFC 3339 instant in the future. */
    expires_at: z
      .string({ error: 'expires_at must be a string' })
      .refine((v) => parseRfc3339(v) !== undefined, { message: 'expires_at must be an RFC 3339 date-time, e.g. 2027-01-31T18:00:00Z' })
      .optional(),
    /** Or its lifetime in whole days from now (ours). */
    expires_in_days: z
      .number({ error: 'expires_in_days must be a number' })
      .int({ message: 'expires_in_days must be a whole number of days' })
      .min(1, { message: 'expires_in_days must be at least 1' })
      .max(36500, { message: 'expires_in_days must be at most 36500' })
      .optional(),
    /** The organisation of the key (ours; master key only; default: the acting key's, or the first organisation). */
    org_id: z.string({ error: 'org_id must be a string' }).min(1, { message: 'org_id must not be empty' }).max(200).optional(),
  },
  { error: (iss) => (iss.code === 'unrecognized_keys' ? `unknown field ${iss.keys.join(', ')}` : 'body must be a JSON object') },
);
export type CreateKeyRequest = z.infer<typeof CreateKeyRequestSchema>;

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-](\d{2}):(\d{2}))$/;

/** The instant (ms since the epoch) of an RFC 3339 date-time with its offset, or undefined when it is not one (a 30 February included). */
export function parseRfc3339(text: string): number | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const day = new Date(Date.UTC(y, mo - 1, d));
  if (day.getUTCFullYear() !== y || day.getUTCMonth() !== mo - 1 || day.getUTCDate() !== d) return undefined;
  if (h > 23 || mi > 59 || s > 60) return undefined;
  if (m[9] !== undefined && (Number(m[9]) > 23 || Number(m[10]) > 59)) return undefined;
  const at = Date.parse(text.replace(' ', 'T').replace(/z$/, 'Z').replace(/t/, 'T'));
  return Number.isFinite(at) ? at : undefined;
}

/** `POST /v1/api-keys/<id>/roll` (ours). */
export const RollKeyRequestSchema = z.strictObject(
  {
    overlap_hours: z
      .number({ error: 'overlap_hours must be a number' })
      .min(0, { message: 'overlap_hours must be at least 0' })
      .max(8760, { message: 'overlap_hours must be at most 8760 (a year)' })
      .optional(),
  },
  { error: (iss) => (iss.code === 'unrecognized_keys' ? `unknown field ${iss.keys.join(', ')}` : 'body must be a JSON object') },
);

/** What the service says of a key (never its value but at creation). */
interface KeyFields {
  id: string;
  name: string;
  type: KeyType;
  project_id: string | null;
  permissions: Permission[];
  environment: 'live' | 'test';
  org_id: string;
  created_at: string;
  /** The person of a personal key (ours; null: the organisation's own key, or a project key). */
  person_id: string | null;
  /** When the key stops working (ours; null: never). */
  expires_at: string | null;
}

/** A key just created: the only time the key itself is shown. */
export interface CreatedKey extends KeyFields {
  key: string;
}

/** The answer to a key creation. */
export interface CreateKeyResponse extends CreatedKey {
  success: true;
}

export interface KeyListing extends KeyFields {
  revoked_at: string | null;
  /** The key this one replaced by a roll (ours). */
  rolled_from: string | null;
  /** Prefix and last four characters only. */
  hint: string;
  /** When the key was last let in (HTTP or WebSocket), to the minute; null until its first use. */
  last_used_at: string | null;
}

export interface SessionInitResponse {
  success: true;
  session_id: string;
  org_id: string;
}

export interface HttpErrorBody {
  success: false;
  error: { code: ErrorCode | 'NOT_FOUND' | 'PAYLOAD_TOO_LARGE' | 'METHOD_NOT_ALLOWED'; message: string; retry_after_ms: number };
}
