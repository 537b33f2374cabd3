/**
 * Key management (docs/protocol.md, "API keys", "Key expiry and roll"): `GET`/`POST /v1/api-keys`,
 * `DELETE /v1/api-keys/{id or key}`, `POST /v1/api-keys/{id}/roll`. The master key manages every key; an
 * `admin` API key the keys in its scope (scope.ts), never giving more than it has itself.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type CreateKeyRequest,
  type CreateKeyResponse,
  type CreatedKey,
  CreateKeyRequestSchema,
  RollKeyRequestSchema,
  describeZodError,
  redactKey,
} from '../../protocol';
import { resolveExpiry } from '../storage/keyRules';
import { type ApiKey, KeyRequestError } from '../storage/stores';
import { TeamRequestError } from '../storage/teams';
import { type Actor, actorManages, actorOrg, need, outsideScope, record, requireActor } from './actor';
import type { ApiContext } from './context';
import { scopeOf } from './scope';
import { HttpError, parseJsonBody, readBody, sendJson } from './util';

const HOUR_MS = 3_600_000;

/** A request's field-named CONFIG_ERROR (400). */
function configError(e: unknown): never {
  if (e instanceof KeyRequestError || e instanceof TeamRequestError) throw HttpError.of('CONFIG_ERROR', e.message);
  throw e;
}

export async function listKeys(ctx: ApiContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const actor = await requireActor(ctx, req);
  need(ctx, actor, 'manage_keys');
  const keys = (await ctx.keys.list()).filter((k) =>
    actorManages(actor, { orgId: k.org_id, projectId: k.project_id, personId: k.person_id }),
  );
  sendJson(res, 200, { success: true, keys });
}

export async function createKey(ctx: ApiContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const actor = await requireActor(ctx, req);
  need(ctx, actor, 'manage_keys', { action: 'key.created', target: '-' });
  const body = parseJsonBody(await readBody(req));
  const parsed = CreateKeyRequestSchema.safeParse(body ?? {});
  if (!parsed.success) throw HttpError.of('CONFIG_ERROR', describeZodError(parsed.error).message);
  let created;
  try {
    created = await createKeyAs(ctx, actor, { ...parsed.data });
  } catch (e) {
    configError(e);
  }
  const answer: CreateKeyResponse = { success: true, ...created };
  sendJson(res, 201, answer);
}

/**
 * Creates a key for an actor (the keys API's and the dashboard's): in the actor's organisation and scope,
 * never wider than the actor. Throws KeyRequestError or TeamRequestError (a field's problem), or an
 * HttpError 403 outside the actor's scope (audited).
 */
export async function createKeyAs(ctx: ApiContext, actor: Actor, data: CreateKeyRequest): Promise<CreatedKey> {
  need(ctx, actor, 'manage_keys', { action: 'key.created', target: '-' });
  const orgId = await creationOrg(ctx, actor, data);
  const target = {
    orgId,
    projectId: data.type === 'project' ? (data.project_id ?? null) : null,
    personId: data.type === 'personal' ? (data.person_id ?? null) : null,
  };
  if (!actorManages(actor, target)) {
    const what =
      target.projectId !== null
        ? `project ${JSON.stringify(target.projectId)}`
        : target.personId !== null
          ? 'that person'
          : "the organisation's own keys";
    throw outsideScope(ctx, actor, 'key.created', '-', `a key of ${what}`);
  }
  if (actor.key) narrowToActor(actor.key, data);
  if (data.type === 'project' && data.project_id !== undefined) await ensureProject(ctx, actor, orgId, data.project_id);
  const created = await ctx.keys.create(data, { orgId });
  record(ctx, actor, 'key.created', created.id, 'success');
  ctx.log.info('API key created', {
    key_id: created.id,
    key: redactKey(created.key),
    type: created.type,
    actor: actor.id,
    address: actor.ip,
  });
  return created;
}

/**
 * The organisation of a new key: the acting key's (another is 403); for the master key, `org_id`, or the
 * person's, or the first organisation. Fills in the acting key's own project or person when the request
 * names none (a project key makes keys of its project; a person's key, keys of that person, whatever their
 * role: an owner's or admin's reaches the whole organisation, but the keys it makes are still theirs, and are
 * revoked with them).
 */
async function creationOrg(ctx: ApiContext, actor: Actor, data: CreateKeyRequest): Promise<string> {
  if (actor.key) {
    if (data.org_id !== undefined && data.org_id !== actor.key.orgId)
      throw outsideScope(ctx, actor, 'key.created', '-', `organisation ${JSON.stringify(data.org_id)}`);
    const s = scopeOf(actor.key);
    if (data.type === 'project' && data.project_id === undefined && s.projectId !== undefined) data.project_id = s.projectId;
    if (data.type === 'personal' && data.person_id === undefined && actor.key.personId !== null) data.person_id = actor.key.personId;
    delete data.org_id;
    return actor.key.orgId;
  }
  if (data.org_id !== undefined) {
    if (!(await ctx.keys.teams.getOrg(data.org_id)))
      throw new KeyRequestError('org_id', `org_id: no organisation ${JSON.stringify(data.org_id)}`);
    return data.org_id;
  }
  if (data.person_id !== undefined) {
    const person = await ctx.keys.teams.getPerson(data.person_id);
    if (person) return person.org_id;
  }
  return actorOrg(ctx, actor);
}

/** Never wider than the acting key: its permissions, and its expiry (a key made by an expiring key expires with it, at the latest). */
function narrowToActor(acting: NonNullable<Actor['key']>, data: CreateKeyRequest): void {
  const wanted = data.permissions ?? ['read', 'write'];
  const wider = wanted.filter((p) => !acting.permissions.includes(p));
  if (wider.length) {
    throw new KeyRequestError(
      'permissions',
      `permissions: ${wider.map((p) => JSON.stringify(p)).join(', ')} is wider than the acting key's permissions (${acting.permissions.join(', ')})`,
    );
  }
  if (acting.expiresAt === null) return;
  const asked = resolveExpiry(data, null, Date.now());
  if (asked === null) {
    delete data.expires_in_days;
    data.expires_at = acting.expiresAt;
  } else if (Date.parse(asked) > Date.parse(acting.expiresAt)) {
    const field = data.expires_at !== undefined ? 'expires_at' : 'expires_in_days';
    throw new KeyRequestError(field, `${field}: later than the acting key's own expiry (${acting.expiresAt})`);
  }
}

/** A project key's project: made when the master key names one not yet known (as before projects existed); else it must exist. */
async function ensureProject(ctx: ApiContext, actor: Actor, orgId: string, projectId: string): Promise<void> {
  if (await ctx.keys.teams.getProject(orgId, projectId)) return;
  if (actor.key)
    throw new KeyRequestError(
      'project_id',
      `project_id: no project ${JSON.stringify(projectId)} in this organisation; create it with POST /v1/projects`,
    );
  await ctx.keys.teams.createProject({ id: projectId, org_id: orgId, name: projectId, created_at: new Date().toISOString() });
  record(ctx, actor, 'project.created', projectId, 'success');
}

/** The key to act on (404 when unknown; 403 outside the actor's scope). */
async function managedKey(ctx: ApiContext, actor: Actor, keyOrId: string, action: 'key.revoked' | 'key.rolled') {
  const key = await ctx.keys.find(keyOrId);
  if (!key) throw new HttpError(404, 'NOT_FOUND', 'no such API key');
  if (!actorManages(actor, { orgId: key.orgId, projectId: key.projectId, personId: key.personId })) {
    throw outsideScope(ctx, actor, action, key.id, `key ${key.id}`);
  }
  return key;
}

/** Revokes a key and ends its live sessions (their pending text flushed first). */
export async function revokeKey(ctx: ApiContext, req: IncomingMessage, keyOrId: string, res: ServerResponse): Promise<void> {
  const actor = await requireActor(ctx, req);
  const { key } = await revokeKeyAs(ctx, actor, keyOrId);
  sendJson(res, 200, { success: true, id: key.id, revoked_at: key.revokedAt });
}

/**
 * Revokes a key for an actor (the keys API's and the dashboard's): 404 unknown, 403 outside the scope; the
 * revocation is audited and announced once, by the call that made it (`revokedHere`; a concurrent or
 * earlier revocation of the same key is answered with the key as it was revoked).
 */
export async function revokeKeyAs(ctx: ApiContext, actor: Actor, keyOrId: string): Promise<{ key: ApiKey; revokedHere: boolean }> {
  need(ctx, actor, 'manage_keys', { action: 'key.revoked', target: '-' });
  const found = await managedKey(ctx, actor, keyOrId, 'key.revoked');
  const done = (await ctx.keys.revokeOnce(found.id)) ?? { key: found, revokedHere: false };
  const { key } = done;
  if (done.revokedHere) {
    record(ctx, actor, 'key.revoked', key.id, 'success');
    ctx.log.info('API key revoked', { key_id: key.id, key: key.hint, actor: actor.id, address: actor.ip });
  }
  await ctx.registry.revokeKey(key.id);
  return done;
}

/** `POST /v1/api-keys/{id}/roll`: a new key like the old, which expires at the end of the overlap. */
export async function rollKey(ctx: ApiContext, req: IncomingMessage, keyOrId: string, res: ServerResponse): Promise<void> {
  const actor = await requireActor(ctx, req);
  need(ctx, actor, 'manage_keys', { action: 'key.rolled', target: '-' });
  const body = parseJsonBody(await readBody(req));
  const parsed = RollKeyRequestSchema.safeParse(body ?? {});
  if (!parsed.success) throw HttpError.of('CONFIG_ERROR', describeZodError(parsed.error).message);
  let rolled;
  try {
    rolled = await rollKeyAs(ctx, actor, keyOrId, parsed.data.overlap_hours ?? 24);
  } catch (e) {
    configError(e);
  }
  const answer: CreateKeyResponse & { rolled_from: { id: string; expires_at: string | null } } = {
    success: true,
    ...rolled.created,
    rolled_from: { id: rolled.old.id, expires_at: rolled.old.expiresAt },
  };
  sendJson(res, 201, answer);
}

/** Rolls a key for an actor (the keys API's and the dashboard's): a new key like the old, which expires at the end of the overlap. */
export async function rollKeyAs(
  ctx: ApiContext,
  actor: Actor,
  keyOrId: string,
  overlapHours: number,
): Promise<{ created: CreatedKey; old: ApiKey }> {
  need(ctx, actor, 'manage_keys', { action: 'key.rolled', target: '-' });
  const old = await managedKey(ctx, actor, keyOrId, 'key.rolled');
  let rolled;
  try {
    rolled = await ctx.keys.roll(old, Math.round(overlapHours * HOUR_MS));
  } catch (e) {
    record(ctx, actor, 'key.rolled', old.id, 'failure');
    throw e;
  }
  const { created } = rolled;
  record(ctx, actor, 'key.rolled', old.id, 'success');
  record(ctx, actor, 'key.created', created.id, 'success');
  ctx.log.info('API key rolled', {
    key_id: old.id,
    new_key_id: created.id,
    key: redactKey(created.key),
    old_expires_at: rolled.old.expiresAt,
    actor: actor.id,
    address: actor.ip,
  });
  // The old key's sessions here end at the end of the overlap (at once for 0); the other instances see it at their next key re-check.
  ctx.expiry.watch(old.id, rolled.old.expiresAt);
  return rolled;
}
