/** What a key request must be by itself (keys.ts): its type's fields, and its expiry. */
import { type CreateKeyRequest, parseRfc3339 } from '../../protocol';
import { KeyRequestError } from './stores';

const DAY_MS = 86_400_000;

/** A project key has a project and no person; a personal key no project; only a personal key may be a test key. */
export function checkShape(req: CreateKeyRequest): void {
  if (req.type === 'project' && !req.project_id) throw new KeyRequestError('project_id', 'project_id is required for a project key');
  if (req.type === 'personal' && req.project_id !== undefined) {
    throw new KeyRequestError('project_id', 'project_id is only for project keys; remove it or use type "project"');
  }
  if (req.type === 'project' && req.person_id !== undefined) {
    throw new KeyRequestError('person_id', 'person_id is only for personal keys; a project key belongs to its project');
  }
  if (req.type === 'project' && req.environment === 'test')
    throw new KeyRequestError('environment', 'environment "test" is only for personal keys');
  if (req.environment === 'test' && req.permissions?.includes('admin')) {
    throw new KeyRequestError(
      'permissions',
      'permissions: a test key cannot have "admin" (test keys touch no live data; docs/protocol.md)',
    );
  }
  if (req.expires_at !== undefined && req.expires_in_days !== undefined) {
    throw new KeyRequestError('expires_at', 'expires_at and expires_in_days are exclusive; give one of them');
  }
}

/**
 * The key's expiry (ISO time) or null: `expires_at` (a future instant) or `expires_in_days`; with an
 * organisation's maximum lifetime, a key without either gets that maximum, and one beyond it is refused.
 */
export function resolveExpiry(req: CreateKeyRequest, maxDays: number | null, now: number): string | null {
  let at: number | undefined;
  let field = 'expires_at';
  if (req.expires_at !== undefined) {
    at = parseRfc3339(req.expires_at);
    if (at === undefined) throw new KeyRequestError('expires_at', 'expires_at must be an RFC 3339 date-time, e.g. 2027-01-31T18:00:00Z');
    if (at <= now)
      throw new KeyRequestError(
        'expires_at',
        `expires_at must be in the future (it is ${new Date(at).toISOString()}, now is ${new Date(now).toISOString()})`,
      );
  } else if (req.expires_in_days !== undefined) {
    at = now + req.expires_in_days * DAY_MS;
    field = 'expires_in_days';
  }
  if (maxDays !== null) {
    const latest = now + maxDays * DAY_MS;
    if (at === undefined) at = latest;
    else if (at > latest) {
      throw new KeyRequestError(
        field,
        `${field}: this organisation's keys live at most ${maxDays} days (max_key_lifetime_days); choose an earlier expiry`,
      );
    }
  }
  return at === undefined ? null : new Date(at).toISOString();
}
