/**
 * The People and projects page (`/dashboard/people`, owners and admins of the organisation): the people with
 * their roles (changed here with the API's rules: only an owner makes, changes or removes an owner, and the
 * last owner stays one), the invitation of a new person (peopleInvite.ts: a one-time sign-up code), the
 * projects with their members (added, changed, removed) and a new project. Every action is a POST with the
 * CSRF token, audited as the keys API audits it, answered by a redirect (or the page again, with what was
 * typed and what was wrong).
 */
import { actorManages, record } from '../http/actor';
import { newId, now } from '../http/teamUtil';
import { ORG_ROLES, type OrgRole, type Person, TeamRequestError } from '../storage/teams';
import type { AuthedReq, DashReq } from './context';
import { type Html, html } from './html';
import { csrfField } from './layout';
import { DashError, redirect, sendPage } from './respond';
import { type Route, authed } from './route';
import { INVITE_DAYS } from '../storage/invites';
import { personActions, removeDialog } from './peopleActions';

const PEOPLE_ROLES = ['owner', 'admin'] as const;

interface PeopleState {
  invite?: InviteState;
  /** A refusal of another form, shown at the top. */
  error?: string;
  project?: { name?: string; error?: string };
}

function roleText(r: DashReq, role: string): string {
  const { l10n } = r;
  return role === 'owner' ? l10n.t('owner') : role === 'admin' ? l10n.t('admin') : l10n.t('member');
}

/** The roles this person may give: an owner any, an admin admin or member. */
export function givableRoles(r: AuthedReq): OrgRole[] {
  return r.who.person.role === 'owner' ? [...ORG_ROLES] : ['admin', 'member'];
}

export interface InviteState {
  email?: string;
  name?: string;
  role?: string;
  field?: 'email' | 'name' | 'role';
  error?: string;
}

function inviteForm(r: AuthedReq, s: InviteState = {}): Html {
  const { l10n } = r;
  const bad = (f: InviteState['field']): Html | string => (s.field === f ? html` aria-invalid="true" aria-describedby="invite-error"` : '');
  const role = s.role ?? 'member';
  return html`<form method="post" action="/dashboard/people/invite">
    ${csrfField(r)} ${s.error ? html`<p class="error" role="alert" id="invite-error">${s.error}</p>` : ''}
    <p>
      <label for="invite-email">${l10n.t('Email')}</label>
      <input id="invite-email" name="email" type="email" required maxlength="254" value="${s.email ?? ''}" ${bad('email')} />
    </p>
    <p>
      <label for="invite-name">${l10n.t('Name')}</label>
      <input id="invite-name" name="name" maxlength="200" value="${s.name ?? ''}" ${bad('name')} />
    </p>
    <p>
      <label for="invite-role">${l10n.t('Role')}</label>
      <select id="invite-role" name="role" ${bad('role')}>
        ${givableRoles(r).map((x) => html`<option value="${x}" ${x === role ? html` selected` : ''}>${roleText(r, x)}</option>`)}
      </select>
    </p>
    <p><button type="submit">${l10n.t('Invite')}</button></p>
    <p class="hint">
      ${l10n.t('No email is sent: you get a one-time sign-up code, valid {0} days, to pass on. The person opens {1} and chooses a password.', INVITE_DAYS, '/dashboard/join')}
    </p>
  </form>`;
}

const nameOf = (p: Person): string => p.display_name || p.email;

function peopleTable(r: AuthedReq, people: Person[], pending: Map<string, string>, withPassword: Set<string>, withMfa: Set<string>): Html {
  const { l10n } = r;
  const roles = givableRoles(r);
  return html`<div class="table-wrap">
    <table>
      <caption>
        ${l10n.one(people.length) ? l10n.t('{0} person', l10n.number(people.length)) : l10n.t('{0} people', l10n.number(people.length))}
      </caption>
      <thead>
        <tr>
          <th scope="col">${l10n.t('Name')}</th>
          <th scope="col">${l10n.t('Email')}</th>
          <th scope="col">${l10n.t('Role')}</th>
          <th scope="col">${l10n.t('Sign-in')}</th>
          <th scope="col">${l10n.t('Change role')}</th>
          <th scope="col">${l10n.t('Actions')}</th>
        </tr>
      </thead>
      <tbody>
        ${people.map((p) => {
          const status = withPassword.has(p.id)
            ? l10n.t('password set')
            : pending.has(p.id)
              ? l10n.t('invited, until {0}', l10n.dateTime(pending.get(p.id)!))
              : l10n.t('no sign-in yet');
          const mayChange = p.role !== 'owner' || r.who.person.role === 'owner';
          const form = mayChange
            ? html`<form method="post" action="/dashboard/people/role" class="inline">
                ${csrfField(r)}<input type="hidden" name="person_id" value="${p.id}" />
                <label for="role-${p.id}" class="sr-only">${l10n.t('New role of {0}', nameOf(p))}</label>
                <select id="role-${p.id}" name="role">
                  ${roles.map((x) => html`<option value="${x}" ${x === p.role ? html` selected` : ''}>${roleText(r, x)}</option>`)}
                </select>
                <button type="submit">${l10n.t('Change role')}<span class="sr-only"> ${nameOf(p)}</span></button>
              </form>`
            : html`<span>${l10n.t('only an owner changes an owner')}</span>`;
          return html`<tr>
            <th scope="row">${p.display_name || '—'}</th>
            <td>${p.email}</td>
            <td>${roleText(r, p.role)}</td>
            <td>${status}</td>
            <td>${form}</td>
            <td>${personActions(r, p, withMfa.has(p.id))}</td>
          </tr>`;
        })}
      </tbody>
    </table>
  </div>`;
}

async function projectsSection(r: AuthedReq, people: Person[], state: PeopleState): Promise<Html> {
  const { l10n, ctx } = r;
  const teams = ctx.api.keys.teams;
  const orgId = r.who.person.org_id;
  const projects = await teams.listProjects(orgId);
  const byId = new Map(people.map((p) => [p.id, p]));
  const sections = await Promise.all(
    projects.map(async (pr) => {
      const members = await teams.listMembers(orgId, pr.id);
      const rows = members.map((m) => {
        const who = byId.get(m.person_id);
        const name = who ? nameOf(who) : m.person_id;
        return html`<tr>
          <th scope="row">${name}</th>
          <td>${m.role === 'admin' ? l10n.t('project admin') : l10n.t('member')}</td>
          <td>
            <form method="post" action="/dashboard/people/members/remove" class="inline">
              ${csrfField(r)}<input type="hidden" name="project_id" value="${pr.id}" /><input
                type="hidden"
                name="person_id"
                value="${m.person_id}"
              />
              <button type="submit">${l10n.t('Remove')}<span class="sr-only"> ${name} (${pr.name})</span></button>
            </form>
          </td>
        </tr>`;
      });
      const others = people.filter((p) => !members.some((m) => m.person_id === p.id));
      return html`<section class="project" aria-labelledby="project-${pr.id}">
        <h3 id="project-${pr.id}">${pr.name} <code>${pr.id}</code></h3>
        ${
          rows.length
            ? html`<table>
                <caption>
                  ${l10n.t('Members of {0}', pr.name)}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">${l10n.t('Person')}</th>
                    <th scope="col">${l10n.t('Role in the project')}</th>
                    <th scope="col">${l10n.t('Actions')}</th>
                  </tr>
                </thead>
                <tbody>
                  ${rows}
                </tbody>
              </table>`
            : html`<p>${l10n.t('No members yet.')}</p>`
        }
        ${
          others.length
            ? html`<form method="post" action="/dashboard/people/members" class="inline">
                ${csrfField(r)}<input type="hidden" name="project_id" value="${pr.id}" />
                <label for="add-${pr.id}">${l10n.t('Add a member to {0}', pr.name)}</label>
                <select id="add-${pr.id}" name="person_id">
                  ${others.map((p) => html`<option value="${p.id}">${nameOf(p)}</option>`)}
                </select>
                <label for="add-role-${pr.id}">${l10n.t('Role in the project')}</label>
                <select id="add-role-${pr.id}" name="role">
                  <option value="member">${l10n.t('member')}</option>
                  <option value="admin">${l10n.t('project admin')}</option>
                </select>
                <button type="submit">${l10n.t('Add member')}</button>
              </form>`
            : ''
        }
      </section>`;
    }),
  );
  const err = state.project?.error;
  return html`<h2>${l10n.t('Projects')}</h2>
    ${projects.length ? sections : html`<p>${l10n.t('No projects yet.')}</p>`}
    <h3>${l10n.t('New project')}</h3>
    <form method="post" action="/dashboard/people/projects">
      ${csrfField(r)}
      <p>
        <label for="project-name">${l10n.t('Project name')}</label>
        <input
          id="project-name"
          name="name"
          required
          maxlength="100"
          value="${state.project?.name ?? ''}"
          ${err ? html` aria-invalid="true" aria-describedby="project-error"` : ''}
        />
        ${err ? html`<span class="error" role="alert" id="project-error">${err}</span>` : ''}
        <button type="submit">${l10n.t('Create project')}</button>
      </p>
    </form>`;
}

/** The page, with the state of a refused form. */
export async function peoplePage(r: AuthedReq, state: PeopleState = {}, status = 200, extra?: Html): Promise<void> {
  const { l10n, ctx } = r;
  const orgId = r.who.person.org_id;
  const people = await ctx.api.keys.teams.listPeople(orgId);
  const [pending, accounts] = await Promise.all([
    ctx.api.team ? ctx.api.team.invites.pending(orgId, new Date(ctx.now()).toISOString()) : Promise.resolve(new Map<string, string>()),
    Promise.all(people.map((p) => ctx.store.account(p.id))),
  ]);
  const withPassword = new Set(accounts.filter((a) => a?.password_hash).map((a) => a!.person.id));
  const withMfa = ctx.secondFactor ? await ctx.secondFactor.store.confirmedIn(orgId) : new Set<string>();
  const q = r.url.searchParams;
  const done =
    q.get('removed') === '1'
      ? l10n.t('Removed: their keys are revoked and their sign-ins ended.')
      : q.get('reset') === '1'
        ? l10n.t('Second factor reset: they sign in with their password alone, then may set up a new one.')
        : q.get('done') === '1'
          ? l10n.t('Saved.')
          : undefined;
  sendPage(
    r,
    l10n.t('People and projects'),
    html`${extra ?? ''}${done ? html`<p class="notice" role="status">${done}</p>` : ''}
      ${state.error ? html`<p class="error" role="alert">${state.error}</p>` : ''}
      <h2>${l10n.t('People')}</h2>
      ${peopleTable(r, people, pending, withPassword, withMfa)} ${removeDialog(r)}
      <h3>${l10n.t('Invite a person')}</h3>
      ${inviteForm(r, state.invite)} ${await projectsSection(r, people, state)}`,
    status,
  );
}

/** The person named by the form, in the organisation; else the page again with the refusal. */
async function personOf(r: AuthedReq, id: string): Promise<Person> {
  const p = id ? await r.ctx.api.keys.teams.getPerson(id) : undefined;
  if (!p || p.org_id !== r.who.person.org_id) throw new DashError(404, r.l10n.t('No such person in this organisation.'));
  return p;
}

async function changeRole(r: AuthedReq): Promise<void> {
  const { l10n, ctx } = r;
  const teams = ctx.api.keys.teams;
  const person = await personOf(r, r.form!.get('person_id') ?? '');
  const role = r.form!.get('role') ?? '';
  if (!(ORG_ROLES as readonly string[]).includes(role))
    return peoplePage(r, { error: l10n.t('Choose a role: owner, admin or member.') }, 400);
  if (role === person.role) return redirect(r, '/dashboard/people?done=1');
  if ((role === 'owner' || person.role === 'owner') && r.who.person.role !== 'owner') {
    record(ctx.api, r.who.actor, 'person.updated', person.id, 'denied');
    return peoplePage(r, { error: l10n.t('Only an owner makes, changes or removes an owner.') }, 403);
  }
  if (person.role === 'owner' && (await teams.countOwners(person.org_id)) <= 1) {
    record(ctx.api, r.who.actor, 'person.updated', person.id, 'failure');
    return peoplePage(r, { error: l10n.t("{0} is the organisation's last owner; make another person owner first.", nameOf(person)) }, 409);
  }
  try {
    await teams.updatePerson(person.id, { role: role as OrgRole });
  } catch (e) {
    // Another owner removed or demoted at the same moment (the store checks again under its lock).
    if (!(e instanceof TeamRequestError && e.field === 'role')) throw e;
    record(ctx.api, r.who.actor, 'person.updated', person.id, 'failure');
    return peoplePage(r, { error: l10n.t("{0} is the organisation's last owner; make another person owner first.", nameOf(person)) }, 409);
  }
  record(ctx.api, r.who.actor, 'person.updated', person.id, 'success');
  redirect(r, '/dashboard/people?done=1');
}

async function addMember(r: AuthedReq): Promise<void> {
  const { l10n, ctx } = r;
  const teams = ctx.api.keys.teams;
  const orgId = r.who.person.org_id;
  const projectId = r.form!.get('project_id') ?? '';
  const project = projectId ? await teams.getProject(orgId, projectId) : undefined;
  if (!project) return peoplePage(r, { error: l10n.t('No such project.') }, 404);
  if (!actorManages(r.who.actor, { orgId, projectId, personId: null }))
    throw new DashError(403, l10n.t('Your role does not give access to this page.'));
  const person = await personOf(r, r.form!.get('person_id') ?? '');
  const role = r.form!.get('role') === 'admin' ? 'admin' : 'member';
  await teams.setMember(orgId, { project_id: projectId, person_id: person.id, role, created_at: now() });
  record(ctx.api, r.who.actor, 'project.member_added', `${projectId}/${person.id}`, 'success');
  redirect(r, '/dashboard/people?done=1');
}

async function removeMember(r: AuthedReq): Promise<void> {
  const { l10n, ctx } = r;
  const teams = ctx.api.keys.teams;
  const orgId = r.who.person.org_id;
  const projectId = r.form!.get('project_id') ?? '';
  const personId = r.form!.get('person_id') ?? '';
  if (!projectId || !(await teams.getProject(orgId, projectId))) return peoplePage(r, { error: l10n.t('No such project.') }, 404);
  if (!actorManages(r.who.actor, { orgId, projectId, personId: null }))
    throw new DashError(403, l10n.t('Your role does not give access to this page.'));
  if (!(await teams.removeMember(orgId, projectId, personId)))
    return peoplePage(r, { error: l10n.t('This person is no longer a member of this project.') }, 404);
  record(ctx.api, r.who.actor, 'project.member_removed', `${projectId}/${personId}`, 'success');
  redirect(r, '/dashboard/people?done=1');
}

async function createProject(r: AuthedReq): Promise<void> {
  const { l10n, ctx } = r;
  const name = (r.form!.get('name') ?? '').trim();
  if (!name || name.length > 100)
    return peoplePage(r, { project: { name, error: l10n.t('Give the project a name (at most 100 characters).') } }, 400);
  const project = { id: newId('proj'), org_id: r.who.person.org_id, name, created_at: now() };
  try {
    await ctx.api.keys.teams.createProject(project);
  } catch (e) {
    if (e instanceof TeamRequestError) return peoplePage(r, { project: { name, error: e.message } }, 409);
    throw e;
  }
  record(ctx.api, r.who.actor, 'project.created', project.id, 'success');
  redirect(r, '/dashboard/people?done=1');
}

export const PEOPLE_ROUTES: readonly Route[] = [
  { method: 'GET', path: '/dashboard/people', roles: PEOPLE_ROLES, handler: authed((r) => peoplePage(r)) },
  { method: 'POST', path: '/dashboard/people/role', roles: PEOPLE_ROLES, handler: authed(changeRole) },
  { method: 'POST', path: '/dashboard/people/members', roles: PEOPLE_ROLES, handler: authed(addMember) },
  { method: 'POST', path: '/dashboard/people/members/remove', roles: PEOPLE_ROLES, handler: authed(removeMember) },
  { method: 'POST', path: '/dashboard/people/projects', roles: PEOPLE_ROLES, handler: authed(createProject) },
];
