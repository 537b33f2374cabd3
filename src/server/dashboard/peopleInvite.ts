/**
 * Inviting a person (no email is sent: docs/dashboard.md, "People and projects"): an owner or admin gives
 * the email, name and role; the person is created (as `POST /v1/people` creates one: only an owner makes an
 * owner; an email already there is refused) with a one-time sign-up code, shown once on the answer to that
 * POST, to pass on by hand. The invitee opens `/dashboard/join` and types their email, the code and a
 * password: the code is taken once (storage/invites.ts), the password hashed as at sign-in (passwords.ts).
 */
import { record } from '../http/actor';
import { newId, now } from '../http/teamUtil';
import { INVITE_DAYS } from '../storage/invites';
import { ORG_ROLES, type OrgRole, type Person, TeamRequestError } from '../storage/teams';
import type { AuthedReq, DashReq } from './context';
import type { InviteState } from './peoplePage';
import { html } from './html';
import { newToken, personActorId, sha256 } from './identity';
import { MIN_PASSWORD_LENGTH, hashPassword } from './passwords';
import { givableRoles, peoplePage } from './peoplePage';
import { DashError, readForm, redirect, sendPage } from './respond';
import { type Route, authed } from './route';
import { sameOrigin } from './security';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

async function postInvite(r: AuthedReq): Promise<void> {
  const { l10n, ctx } = r;
  const f = r.form!;
  const s: InviteState = { email: (f.get('email') ?? '').trim(), name: (f.get('name') ?? '').trim(), role: f.get('role') ?? 'member' };
  const refuse = (field: InviteState['field'], error: string, status = 400): Promise<void> =>
    peoplePage(r, { invite: { ...s, field, error } }, status);
  if (!EMAIL.test(s.email!) || s.email!.length > 254) return refuse('email', l10n.t('Give a valid email address.'));
  if (s.name!.length > 200) return refuse('name', l10n.t('A name is at most 200 characters.'));
  if (!(ORG_ROLES as readonly string[]).includes(s.role!) || !givableRoles(r).includes(s.role as OrgRole)) {
    record(ctx.api, r.who.actor, 'person.created', '-', 'denied');
    return refuse('role', l10n.t('Only an owner makes, changes or removes an owner.'), 403);
  }
  const team = ctx.api.team;
  if (!team) throw new DashError(404, l10n.t('Usage, sessions and the audit log are not available on this service.'));
  const person: Person = {
    id: newId('person'),
    org_id: r.who.person.org_id,
    email: s.email!,
    display_name: s.name!,
    role: s.role as OrgRole,
    created_at: now(),
  };
  try {
    await ctx.api.keys.teams.createPerson(person);
  } catch (e) {
    if (e instanceof TeamRequestError) return refuse('email', l10n.t('This organisation already has a person with this email.'), 409);
    throw e;
  }
  record(ctx.api, r.who.actor, 'person.created', person.id, 'success');
  const code = newToken();
  const at = ctx.now();
  await team.invites.create({
    code_hash: sha256(code),
    person_id: person.id,
    org_id: person.org_id,
    created_by: r.who.actor.id,
    created_at: new Date(at).toISOString(),
    expires_at: new Date(at + INVITE_DAYS * 86_400_000).toISOString(),
  });
  record(ctx.api, r.who.actor, 'person.invited', person.id, 'success');
  ctx.api.log.info('person invited to the dashboard', { person_id: person.id, actor: r.who.actor.id, address: r.ip });
  // Shown once, on this answer only (no-store): it is kept nowhere but as its hash.
  const shown = html`<section class="notice" role="status" aria-labelledby="invite-code-title">
    <h2 id="invite-code-title">${l10n.t('{0} is invited', person.email)}</h2>
    <p>
      ${l10n.t('Pass this one-time sign-up code on to them; it is shown only now. It works once, until {0}, at {1}.', l10n.dateTime(new Date(at + INVITE_DAYS * 86_400_000).toISOString()), '/dashboard/join')}
    </p>
    <p>
      <label for="invite-code">${l10n.t('Sign-up code')}</label>
      <input id="invite-code" readonly value="${code}" size="48" spellcheck="false" autocomplete="off" />
    </p>
  </section>`;
  await peoplePage(r, {}, 200, shown);
}

interface JoinState {
  email?: string;
  error?: string;
}

function joinPage(r: DashReq, s: JoinState = {}, status = 200): void {
  const { l10n } = r;
  sendPage(
    r,
    l10n.t('Join the dashboard'),
    html`<form method="post" action="/dashboard/join">
      ${s.error ? html`<p class="error" role="alert" id="join-error">${s.error}</p>` : ''}
      <p>
        ${l10n.t('Type the email you were invited with, the sign-up code you were given, and choose a password (at least {0} characters).', MIN_PASSWORD_LENGTH)}
      </p>
      <p>
        <label for="join-email">${l10n.t('Email')}</label>
        <input id="join-email" name="email" type="email" required autocomplete="username" value="${s.email ?? ''}" />
      </p>
      <p>
        <label for="join-code">${l10n.t('Sign-up code')}</label>
        <input id="join-code" name="code" required autocomplete="off" spellcheck="false" />
      </p>
      <p>
        <label for="join-password">${l10n.t('Password')}</label>
        <input id="join-password" name="password" type="password" required minlength="${MIN_PASSWORD_LENGTH}" autocomplete="new-password" />
      </p>
      <p>
        <label for="join-password2">${l10n.t('Password again')}</label>
        <input
          id="join-password2"
          name="password2"
          type="password"
          required
          minlength="${MIN_PASSWORD_LENGTH}"
          autocomplete="new-password"
        />
      </p>
      <p><button type="submit">${l10n.t('Join')}</button></p>
    </form>`,
    status,
  );
}

async function postJoin(r: DashReq): Promise<void> {
  const { l10n, ctx } = r;
  if (!sameOrigin(r.req)) throw new DashError(403, l10n.t('Refused: this form was not sent from this dashboard.'));
  const f = await readForm(r);
  const email = (f.get('email') ?? '').trim();
  const code = (f.get('code') ?? '').trim();
  const password = f.get('password') ?? '';
  const team = ctx.api.team;
  if (!team) throw new DashError(404, l10n.t('No such page.'));
  if (password.length < MIN_PASSWORD_LENGTH)
    return joinPage(r, { email, error: l10n.t('The password must have at least {0} characters.', MIN_PASSWORD_LENGTH) }, 400);
  if (password !== f.get('password2')) return joinPage(r, { email, error: l10n.t('The two passwords differ.') }, 400);
  const nowIso = new Date(ctx.now()).toISOString();
  const hash = sha256(code);
  const invite = /^[A-Za-z0-9_-]{43}$/.test(code) ? await team.invites.find(hash, nowIso) : undefined;
  const person = invite ? await ctx.api.keys.teams.getPerson(invite.person_id) : undefined;
  // One answer for every mismatch: a wrong code tells nothing of which part was wrong.
  if (!invite || !person || person.email.toLowerCase() !== email.toLowerCase() || !(await team.invites.take(hash, nowIso))) {
    ctx.api.log.info('dashboard sign-up refused', { address: r.ip });
    return joinPage(r, { email, error: l10n.t('This email and code do not match an open invitation. Ask for a new code.') }, 400);
  }
  await ctx.store.setPassword(person.id, await hashPassword(password));
  ctx.api.audit.record({
    actor: personActorId(person.id),
    action: 'person.joined',
    target: person.id,
    ip: r.ip,
    outcome: 'success',
    org_id: person.org_id,
  });
  redirect(r, '/dashboard/sign-in?joined=1');
}

export const INVITE_ROUTES: readonly Route[] = [
  { method: 'POST', path: '/dashboard/people/invite', roles: ['owner', 'admin'], handler: authed(postInvite) },
  { method: 'GET', path: '/dashboard/join', auth: false, handler: async (r) => joinPage(r) },
  { method: 'POST', path: '/dashboard/join', auth: false, handler: postJoin },
];
