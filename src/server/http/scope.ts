/**
 * Who may read usage, sessions and the audit log, and what of it: the one place that decides (so that a
 * richer model of people and projects replaces this function alone). Today:
 *
 * | acting key | may read (`read` or `admin`) | may end a session (`admin`) |
 * |---|---|---|
 * | master key | everything, every organisation | any session |
 * | personal key | its organisation's sessions and usage | its organisation's |
 * | project key | its project's sessions and usage | its project's |
 *
 * The audit log: the master key (every organisation) or a personal `admin` key (its organisation).
 */
import type { IncomingMessage } from 'node:http';
import type { Permission } from '../../protocol';
import type { ApiKey } from '../storage/stores';
import type { UsageScope } from '../storage/usage';
import { httpRefusal, lockedOut } from './auth';
import type { ApiContext } from './context';
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

const NEEDS: Record<Need, { permissions: Permission[]; lacking: string }> = {
  read: {
    permissions: ['read', 'admin'],
    lacking: 'reading sessions and usage needs the master key or a key with the "read" or "admin" permission',
  },
  admin: { permissions: ['admin'], lacking: 'ending a session needs the master key or a key with the "admin" permission' },
  audit: { permissions: ['admin'], lacking: 'reading the audit log needs the master key or an organisation-wide "admin" key' },
};

/** The scope of a key (the master key's is everything). */
function scopeOf(key: ApiKey | undefined): UsageScope {
  if (!key) return {};
  return key.type === 'project' && key.projectId ? { orgId: key.orgId, projectId: key.projectId } : { orgId: key.orgId };
}

/** Whether a record (its organisation and its key's project) is in the scope. */
export function inScope(scope: UsageScope, orgId: string | undefined, projectId: string | null | undefined): boolean {
  if (scope.orgId !== undefined && orgId !== scope.orgId) return false;
  return scope.projectId === undefined || projectId === scope.projectId;
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
    };
    throw HttpError.of('AUTH_ERROR', why[auth.reason]);
  }
  const key = auth.key;
  const n = NEEDS[need];
  const allowed = n.permissions.some((p) => key.permissions.includes(p)) && (need !== 'audit' || key.type !== 'project');
  if (!allowed) throw HttpError.of('AUTH_ERROR', n.lacking, 0, 403);
  return { actor: key.id, key, scope: scopeOf(key) };
}
