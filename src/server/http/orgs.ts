/**
 * Organisations and people (docs/protocol.md, "Teams: organisations, people, projects"):
 * `POST`/`GET /v1/orgs`, `PATCH /v1/orgs/{id}`, `POST`/`GET /v1/people`, `GET`/`PATCH`/`DELETE /v1/people/{id}`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CreateOrgRequestSchema, CreatePersonRequestSchema, UpdateOrgRequestSchema, UpdatePersonRequestSchema } from '../../protocol';
import type { Person } from '../storage/teams';
import { type Actor, actorOrg, need, outsideScope, record, requireActor, requireMaster } from './actor';
import type { ApiContext } from './context';
import { removePersonAs } from './personRemoval';
import { MASTER, can } from './scope';
import { asConfigError, newId, now, parseBody } from './teamUtil';
import { HttpError, sendJson } from './util';

export async function createOrg(ctx: ApiContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const actor = await requireMaster(ctx, req, 'creating an organisation');
  const body = await parseBody(req, CreateOrgRequestSchema);
  const org = { id: newId('org'), name: body.name, created_at: now(), max_key_lifetime_days: body.max_key_lifetime_days ?? null };
  await ctx.keys.teams.createOrg(org);
  record(ctx, actor, 'org.created', org.id, 'success');
  const owner: Person = {
    id: newId('person'),
    org_id: org.id,
    email: body.owner.email,
    display_name: body.owner.display_name,
    role: 'owner',
    created_at: now(),
  };
  await asConfigError(() => ctx.keys.teams.createPerson(owner));
  record(ctx, actor, 'person.created', owner.id, 'success');
  ctx.log.info('organisation created', { org_id: org.id, owner: owner.id, actor: actor.id, address: actor.ip });
  sendJson(res, 201, { success: true, org, owner });
}

export async function listOrgs(ctx: ApiContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const actor = await requireActor(ctx, req);
  need(ctx, actor, 'manage_org');
  const orgs = await ctx.keys.teams.listOrgs();
  sendJson(res, 200, { success: true, orgs: actor.key ? orgs.filter((o) => o.id === actor.key!.orgId) : orgs });
}

export async function updateOrg(ctx: ApiContext, req: IncomingMessage, id: string, res: ServerResponse): Promise<void> {
  const actor = await requireActor(ctx, req);
  need(ctx, actor, 'own_org', { action: 'org.updated', target: id });
  const body = await parseBody(req, UpdateOrgRequestSchema);
  if (actor.key && actor.key.orgId !== id) throw outsideScope(ctx, actor, 'org.updated', id, `organisation ${JSON.stringify(id)}`);
  const org = await ctx.keys.teams.updateOrg(id, body);
  if (!org) throw new HttpError(404, 'NOT_FOUND', 'no such organisation');
  record(ctx, actor, 'org.updated', id, 'success');
  sendJson(res, 200, { success: true, org });
}

/** The person named, in the actor's organisation (404 when unknown; 403 in another organisation). */
async function personInScope(ctx: ApiContext, actor: Actor, id: string, action: 'person.updated' | 'person.deleted'): Promise<Person> {
  const person = await ctx.keys.teams.getPerson(id);
  if (!person) throw new HttpError(404, 'NOT_FOUND', 'no such person');
  if (actor.key && actor.key.orgId !== person.org_id) throw outsideScope(ctx, actor, action, id, `person ${JSON.stringify(id)}`);
  return person;
}

/** Only the master key and owners make, unmake or change owners (an admin never makes a role wider than theirs). */
function checkOwnerChange(
  ctx: ApiContext,
  actor: Actor,
  action: 'person.created' | 'person.updated' | 'person.deleted',
  target: string,
): void {
  if (can(actor.acting, 'own_org')) return;
  record(ctx, actor, action, target, 'denied');
  throw HttpError.of('AUTH_ERROR', 'only the master key or an owner\'s "admin" key makes, changes or removes an owner', 0, 403);
}

export async function createPerson(ctx: ApiContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const actor = await requireActor(ctx, req);
  need(ctx, actor, 'manage_org', { action: 'person.created', target: '-' });
  const body = await parseBody(req, CreatePersonRequestSchema);
  if (actor.key && body.org_id !== undefined && body.org_id !== actor.key.orgId) {
    throw outsideScope(ctx, actor, 'person.created', '-', `organisation ${JSON.stringify(body.org_id)}`);
  }
  const orgId = actorOrg(ctx, actor, body.org_id);
  if (!(await ctx.keys.teams.getOrg(orgId))) throw HttpError.of('CONFIG_ERROR', `org_id: no organisation ${JSON.stringify(orgId)}`);
  const role = body.role ?? 'member';
  if (role === 'owner') checkOwnerChange(ctx, actor, 'person.created', '-');
  const person: Person = {
    id: newId('person'),
    org_id: orgId,
    email: body.email,
    display_name: body.display_name,
    role,
    created_at: now(),
  };
  await asConfigError(() => ctx.keys.teams.createPerson(person));
  record(ctx, actor, 'person.created', person.id, 'success');
  ctx.log.info('person created', { person_id: person.id, role, actor: actor.id, address: actor.ip });
  sendJson(res, 201, { success: true, person });
}

export async function listPeople(ctx: ApiContext, req: IncomingMessage, url: URL, res: ServerResponse): Promise<void> {
  const actor = await requireActor(ctx, req);
  need(ctx, actor, 'manage_org');
  const orgId = actorOrg(ctx, actor, actor.acting === MASTER ? (url.searchParams.get('org_id') ?? undefined) : undefined);
  sendJson(res, 200, { success: true, people: await ctx.keys.teams.listPeople(orgId) });
}

export async function getPerson(ctx: ApiContext, req: IncomingMessage, id: string, res: ServerResponse): Promise<void> {
  const actor = await requireActor(ctx, req);
  need(ctx, actor, 'manage_org');
  const person = await personInScope(ctx, actor, id, 'person.updated');
  sendJson(res, 200, { success: true, person, projects: await ctx.keys.teams.memberships(id) });
}

export async function updatePerson(ctx: ApiContext, req: IncomingMessage, id: string, res: ServerResponse): Promise<void> {
  const actor = await requireActor(ctx, req);
  need(ctx, actor, 'manage_org', { action: 'person.updated', target: id });
  const body = await parseBody(req, UpdatePersonRequestSchema);
  const person = await personInScope(ctx, actor, id, 'person.updated');
  if (body.role !== undefined && body.role !== person.role && (body.role === 'owner' || person.role === 'owner')) {
    checkOwnerChange(ctx, actor, 'person.updated', id);
    if (person.role === 'owner') await keepAnOwner(ctx, person.org_id, 'role');
  }
  const updated = await asConfigError(() => ctx.keys.teams.updatePerson(id, body));
  record(ctx, actor, 'person.updated', id, 'success');
  sendJson(res, 200, { success: true, person: updated });
}

/** An organisation keeps at least one owner: the last one is neither demoted nor removed (checked again by the store, under its lock). */
async function keepAnOwner(ctx: ApiContext, orgId: string, field: string): Promise<void> {
  if ((await ctx.keys.teams.countOwners(orgId)) <= 1) throw lastOwner(field);
}

const lastOwner = (field: string): HttpError =>
  HttpError.of('CONFIG_ERROR', `${field}: this person is the organisation's last owner; make another person owner first`);

/** Removes a person (personRemoval.ts): their keys revoked (their sessions ended as for any revocation), all that is theirs gone. */
export async function deletePerson(ctx: ApiContext, req: IncomingMessage, id: string, res: ServerResponse): Promise<void> {
  const actor = await requireActor(ctx, req);
  need(ctx, actor, 'manage_org', { action: 'person.deleted', target: id });
  const person = await personInScope(ctx, actor, id, 'person.deleted');
  if (person.role === 'owner') {
    checkOwnerChange(ctx, actor, 'person.deleted', id);
    await keepAnOwner(ctx, person.org_id, 'id');
  }
  const done = await removePersonAs(ctx, actor, person);
  if (done.outcome === 'gone') throw new HttpError(404, 'NOT_FOUND', 'no such person');
  if (done.outcome === 'last_owner') {
    // Another owner was removed or demoted at the same moment: this one is the last now.
    record(ctx, actor, 'person.deleted', id, 'failure');
    throw lastOwner('id');
  }
  sendJson(res, 200, { success: true, id, revoked_keys: done.revokedKeys });
}
