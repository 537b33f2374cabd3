/**
 * Who may read usage, sessions and the audit log, and end a session: the acting key's scope as scope.ts
 * gives it (`scopeOf`, `can`). The master key reads everything; a project key its project's; a person's
 * personal key that person's; an owner's or admin's `admin` key the organisation; a test key only test
 * keys' sessions. The audit log: the master key, or an `admin` key of an owner or admin (`manage_org`).
 */
import type { IncomingMessage } from 'node:http';
import type { ApiKey } from '../storage/stores';
import type { UsageScope } from '../storage/usage';
import { httpRefusal, lockedOut } from './auth';
import type { ApiContext } from './context';
import { type Owned, can, scopeOf } from './scope';
import { HttpError, bearer } from './util';

interface Reader {
  /** `master`, or the key's id: the audit log's actor. */
  actor: string;
  /** The key, when it is not the master key. */
  key?: ApiKey;
  scope: UsageScope;
}

/** `read`: reading sessions and usage; `admin`: ending a session; `audit`: reading the audit log. */
type Need = 'read' | 'admin' | 'audit';

const LACKING: Record<Need, string> = {
  read: 'reading sessions and usage needs the master key or a key with the "read" or "admin" permission',
  admin: 'ending a session needs the master key or a key with the "admin" permission',
  audit: 'reading the audit log needs the master key or an organisation owner\'s or admin\'s "admin" key',
};

function allowed(key: ApiKey, need: Need): boolean {
  if (need === 'read') return can(key, 'read');
  if (need === 'admin') return can(key, 'manage_keys');
  return can(key, 'manage_org');
}

/** Whether a record (its organisation, its key's project, person and environment) is in the scope. */
export function sees(scope: UsageScope, o: Partial<Owned>): boolean {
  if (scope.orgId !== undefined && o.org_id !== scope.orgId) return false;
  if (scope.projectId !== undefined && o.project_id !== scope.projectId) return false;
  if (scope.personId !== undefined && o.person_id !== scope.personId) return false;
  if (scope.testOnly && o.environment !== 'test') return false;
  return true;
}

/** Lets the request in with the master key or a key that has what `need` asks; throws the refusal (401, 403, 429). */
export async function reader(ctx: ApiContext, req: IncomingMessage, need: Need): Promise<Reader> {
  const address = ctx.clientAddress(req);
  const locked = await lockedOut(ctx.limits, address);
  if (locked) throw httpRefusal(locked);
  const token = bearer(req);
  if (ctx.keys.isMaster(token)) return { actor: 'master', scope: {} };
  const auth = await ctx.keys.authenticate(token);
  if (!auth.ok) {
    if (auth.reason === 'unknown' || auth.reason === 'malformed') await ctx.limits.keyFailed(address);
    const why = {
      missing: 'missing API key: send Authorization: Bearer <KEY>',
      malformed: 'invalid API key',
      unknown: 'invalid API key',
      revoked: 'API key revoked',
      expired: 'API key expired',
    };
    throw HttpError.of('AUTH_ERROR', why[auth.reason]);
  }
  const key = auth.key;
  if (!allowed(key, need)) throw HttpError.of('AUTH_ERROR', LACKING[need], 0, 403);
  return { actor: key.id, key, scope: scopeOf(key) };
}
