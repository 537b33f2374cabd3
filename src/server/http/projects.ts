/**
 * Projects and their members (docs/protocol.md, "Teams: organisations, people, projects"):
 * `POST`/`GET /v1/projects`, `GET /v1/projects/{id}`, `POST /v1/projects/{id}/members`,
 * `DELETE /v1/projects/{id}/members/{person_id}`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AddMemberRequestSchema, CreateProjectRequestSchema } from '../../protocol';
import type { Project } from '../storage/teams';
import { type Actor, actorManages, actorOrg, need, outsideScope, record, requireActor } from './actor';
import type { ApiContext } from './context';
import { MASTER, can } from './scope';
import { asConfigError, newId, now, parseBody } from './teamUtil';
import { HttpError, sendJson } from './util';

export async function createProject(ctx: ApiContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const actor = await requireActor(ctx, req);
  need(ctx, actor, 'manage_org', { action: 'project.created', target: '-' });
  const body = await parseBody(req, CreateProjectRequestSchema);
  if (actor.key && body.org_id !== undefined && body.org_id !== actor.key.orgId) {
    throw outsideScope(ctx, actor, 'project.created', '-', `organisation ${JSON.stringify(body.org_id)}`);
  }
  const orgId = actorOrg(ctx, actor, body.org_id);
  if (!(await ctx.keys.teams.getOrg(orgId))) throw HttpError.of('CONFIG_ERROR', `org_id: no organisation ${JSON.stringify(orgId)}`);
  const project: Project = { id: body.id ?? newId('proj'), org_id: orgId, name: body.name, created_at: now() };
  await asConfigError(() => ctx.keys.teams.createProject(project));
  record(ctx, actor, 'project.created', project.id, 'success');
  ctx.log.info('project created', { project_id: project.id, actor: actor.id, address: actor.ip });
  sendJson(res, 201, { success: true, project });
}

/** The projects an actor sees: all of its organisation for the master key and the organisation's admins; else its project, or its person's. */
async function visibleProjects(ctx: ApiContext, actor: Actor, orgId: string): Promise<Project[]> {
  const all = await ctx.keys.teams.listProjects(orgId);
  if (can(actor.acting, 'manage_org')) return all;
  const key = actor.key!;
  if (key.projectId !== null) return all.filter((p) => p.id === key.projectId);
  if (key.personId !== null) {
    const mine = new Set((await ctx.keys.teams.memberships(key.personId)).map((m) => m.project_id));
    return all.filter((p) => mine.has(p.id));
  }
  return [];
}

export async function listProjects(ctx: ApiContext, req: IncomingMessage, url: URL, res: ServerResponse): Promise<void> {
  const actor = await requireActor(ctx, req);
  const orgId = actorOrg(ctx, actor, actor.acting === MASTER ? (url.searchParams.get('org_id') ?? undefined) : undefined);
  sendJson(res, 200, { success: true, projects: await visibleProjects(ctx, actor, orgId) });
}

export async function getProject(ctx: ApiContext, req: IncomingMessage, id: string, url: URL, res: ServerResponse): Promise<void> {
  const actor = await requireActor(ctx, req);
  const orgId = actorOrg(ctx, actor, actor.acting === MASTER ? (url.searchParams.get('org_id') ?? undefined) : undefined);
  const project = (await visibleProjects(ctx, actor, orgId)).find((p) => p.id === id);
  if (!project) throw new HttpError(404, 'NOT_FOUND', 'no such project');
  sendJson(res, 200, { success: true, project, members: await ctx.keys.teams.listMembers(orgId, id) });
}

/** The project whose members the actor manages: the master key, the organisation's admins, the project's admin keys. */
async function managedProject(
  ctx: ApiContext,
  actor: Actor,
  id: string,
  url: URL,
  action: 'project.member_added' | 'project.member_removed',
): Promise<Project> {
  const orgId = actorOrg(ctx, actor, actor.acting === MASTER ? (url.searchParams.get('org_id') ?? undefined) : undefined);
  const project = await ctx.keys.teams.getProject(orgId, id);
  if (!project) throw new HttpError(404, 'NOT_FOUND', 'no such project');
  if (!actorManages(actor, { orgId, projectId: id, personId: null }))
    throw outsideScope(ctx, actor, action, id, `project ${JSON.stringify(id)}`);
  return project;
}

export async function addMember(ctx: ApiContext, req: IncomingMessage, id: string, url: URL, res: ServerResponse): Promise<void> {
  const actor = await requireActor(ctx, req);
  need(ctx, actor, 'manage_keys', { action: 'project.member_added', target: id });
  const body = await parseBody(req, AddMemberRequestSchema);
  const project = await managedProject(ctx, actor, id, url, 'project.member_added');
  const person = await ctx.keys.teams.getPerson(body.person_id);
  if (!person || person.org_id !== project.org_id) {
    throw HttpError.of('CONFIG_ERROR', `person_id: no person ${JSON.stringify(body.person_id)} in this organisation`);
  }
  const member = { project_id: id, person_id: person.id, role: body.role ?? 'member', created_at: now() };
  await ctx.keys.teams.setMember(project.org_id, member);
  record(ctx, actor, 'project.member_added', `${id}/${person.id}`, 'success');
  sendJson(res, 201, { success: true, member });
}

export async function removeMember(
  ctx: ApiContext,
  req: IncomingMessage,
  id: string,
  personId: string,
  url: URL,
  res: ServerResponse,
): Promise<void> {
  const actor = await requireActor(ctx, req);
  need(ctx, actor, 'manage_keys', { action: 'project.member_removed', target: id });
  const project = await managedProject(ctx, actor, id, url, 'project.member_removed');
  if (!(await ctx.keys.teams.removeMember(project.org_id, id, personId)))
    throw new HttpError(404, 'NOT_FOUND', 'no such member of this project');
  record(ctx, actor, 'project.member_removed', `${id}/${personId}`, 'success');
  sendJson(res, 200, { success: true, project_id: id, person_id: personId });
}
