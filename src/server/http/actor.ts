/**
 * Who acts on a management request (keys, people, projects, organisations): the master key, or an API key
 * (its scope and permissions, scope.ts). Failed attempts count as failed master-key attempts of the
 * address (10 a minute, then 429), as before API keys could manage anything. Each action is told to the
 * audit sink (storage/auditSink.ts) with the actor, the target, the address and the outcome.
 */
import type { IncomingMessage } from 'node:http';
import type { AuditAction } from '../storage/auditSink';
import type { ApiKey } from '../storage/stores';
import type { ApiContext } from './context';
import { type Acting, type Action, MASTER, can, managesKey } from './scope';
import { HttpError, bearer } from './util';

export interface Actor {
  acting: Acting;
  /** `master` or the key's id (the audit's actor). */
  id: string;
  /** The key, when an API key acts. */
  key?: ApiKey;
  /** The projects where the acting key's person is a project admin (their keys are managed by that person's admin key). */
  adminProjects: ReadonlySet<string>;
  ip: string;
}

export async function requireActor(ctx: ApiContext, req: IncomingMessage): Promise<Actor> {
  const ip = ctx.clientAddress(req);
  const wait = await ctx.limits.masterKeyWait(ip);
  if (wait > 0) {
    ctx.log.info('master key attempts rate limited', { address: ip, retry_after_ms: Math.ceil(wait) });
    throw HttpError.of('RATE_LIMITED', 'too many failed master-key attempts from this address; wait before trying again', Math.ceil(wait));
  }
  const token = bearer(req);
  if (!token)
    throw HttpError.of('AUTH_ERROR', 'missing key: send Authorization: Bearer <MASTER_KEY> (or an API key with the "admin" permission)');
  if (ctx.keys.isMaster(token)) return { acting: MASTER, id: MASTER, adminProjects: new Set(), ip };
  const auth = await ctx.keys.authenticate(token);
  if (!auth.ok) {
    if (auth.reason === 'revoked') throw HttpError.of('AUTH_ERROR', 'API key revoked');
    if (auth.reason === 'expired') throw HttpError.of('AUTH_ERROR', 'API key expired');
    await ctx.limits.masterKeyFailed(ip);
    throw HttpError.of('AUTH_ERROR', 'invalid master key');
  }
  const key = auth.key;
  let adminProjects = new Set<string>();
  if (key.personId !== null && key.type === 'personal' && key.permissions.includes('admin')) {
    adminProjects = new Set((await ctx.keys.teams.memberships(key.personId)).filter((m) => m.role === 'admin').map((m) => m.project_id));
  }
  return { acting: key, id: key.id, key, adminProjects, ip };
}

const LACKING: Record<Action, string> = {
  dictate: 'this API key lacks the "write" permission',
  read: 'this API key lacks the "read" permission',
  manage_keys: 'managing API keys needs the master key or an "admin" key (a live key: test keys manage nothing)',
  manage_org:
    'managing the organisation\'s people and projects needs the master key or an "admin" key of an owner or admin of the organisation',
  own_org: 'changing the organisation\'s settings needs the master key or an "admin" key of an owner of the organisation',
};

/** 403 unless the actor may do `action`; a refusal is told to the audit sink when `audit` names the action and target. */
export function need(ctx: ApiContext, actor: Actor, action: Action, audit?: { action: AuditAction; target: string }): void {
  if (can(actor.acting, action)) return;
  if (audit) record(ctx, actor, audit.action, audit.target, 'denied');
  throw HttpError.of('AUTH_ERROR', LACKING[action], 0, 403);
}

/** 403: outside the actor's scope (told to the audit sink). */
export function outsideScope(ctx: ApiContext, actor: Actor, action: AuditAction, target: string, what: string): HttpError {
  record(ctx, actor, action, target, 'denied');
  return HttpError.of('AUTH_ERROR', `${what} is outside the scope of this API key`, 0, 403);
}

/** Whether the actor manages a key of this owner. */
export function actorManages(actor: Actor, target: { orgId: string; projectId: string | null; personId: string | null }): boolean {
  return managesKey(actor.acting, target, actor.adminProjects);
}

/** The organisation the actor works in: the key's; for the master key, the one named or the first. */
export function actorOrg(ctx: ApiContext, actor: Actor, named?: string): string {
  return actor.key ? actor.key.orgId : (named ?? ctx.keys.teams.defaultOrgId);
}

export function record(
  ctx: ApiContext,
  actor: Actor,
  action: AuditAction,
  target: string,
  outcome: 'success' | 'denied' | 'failure',
): void {
  try {
    ctx.audit.record({ actor: actor.id, action, target, ip: actor.ip, outcome, ...(actor.key ? { org_id: actor.key.orgId } : {}) });
  } catch (e) {
    ctx.log.error('the audit sink failed', { action, error: e });
  }
}

/** Only the master key (`GET /v1/status`, the organisations): 403 for an API key. */
export async function requireMaster(ctx: ApiContext, req: IncomingMessage, what = 'this endpoint'): Promise<Actor> {
  const actor = await requireActor(ctx, req);
  if (actor.key) throw HttpError.of('AUTH_ERROR', `${what} needs the master key; an API key is not enough`, 0, 403);
  return actor;
}
