/**
 * The People page's actions on one person, Remove and Reset second factor (docs/dashboard.md, "People and
 * projects"): **Remove** (owners and admins; the person's email typed in a dialog, as Revoke asks for a key's name; never oneself, nor an owner
 * by an admin, nor the last owner) removes them as `DELETE /v1/people/{id}` does (http/personRemoval.ts:
 * their keys revoked, their live sessions ended with every pending word delivered first, their sign-ins,
 * second factor and invitations gone; audited `person.deleted`); **Reset second factor** (owners only, after
 * a fresh sign-in) removes another person's second factor and ends their sign-ins (audited
 * `person.second_factor_reset`): they sign in with their password alone, then may set up a new one.
 */
import { record } from '../http/actor';
import { removePersonAs } from '../http/personRemoval';
import type { Person } from '../storage/teams';
import type { AuthedReq, DashReq } from './context';
import { type Html, html } from './html';
import { requireFreshSignIn } from './identity';
import { csrfField } from './layout';
import { type TypedConfirm, confirmDialog, confirmPage } from './confirmTyped';
import { DashError, redirect, sendPage } from './respond';
import { type Route, authed } from './route';

const ID = '([A-Za-z0-9_-]{1,100})';
const nameOf = (p: Person): string => p.display_name || p.email;

const lastOwnerText = (r: AuthedReq, p: Person): string =>
  r.l10n.t("{0} is the organisation's last owner; make another person owner first.", nameOf(p));

/** Why this person may not remove that one (a message for the page), or undefined when they may. */
async function removalRefused(r: AuthedReq, p: Person): Promise<{ status: number; text: string } | undefined> {
  const { l10n, who, ctx } = r;
  if (p.id === who.person.id) return { status: 409, text: l10n.t('You cannot remove yourself: ask another owner or admin.') };
  if (p.role === 'owner' && who.person.role !== 'owner')
    return { status: 403, text: l10n.t('Only an owner makes, changes or removes an owner.') };
  if (p.role === 'owner' && (await ctx.api.keys.teams.countOwners(p.org_id)) <= 1) return { status: 409, text: lastOwnerText(r, p) };
  return undefined;
}

/** The person of the path, in the organisation; else a 404 page (the same for a person of another organisation). */
async function personOfPath(r: AuthedReq): Promise<Person> {
  const p = await r.ctx.api.keys.teams.getPerson(r.params[0]!);
  if (!p || p.org_id !== r.who.person.org_id) throw new DashError(404, r.l10n.t('No such person in this organisation.'));
  return p;
}

/** The actions of a person's row on the People page: Remove (the dialog, or without script its page), Reset second factor. */
export function personActions(r: AuthedReq, p: Person, hasSecondFactor: boolean): Html {
  const { l10n, who } = r;
  if (p.id === who.person.id) return html`<span>${l10n.t('you')}</span>`;
  const remove =
    p.role !== 'owner' || who.person.role === 'owner'
      ? html`<a href="/dashboard/people/${p.id}/remove" class="remove-person" data-confirm-label="${p.email}"
          >${l10n.t('Remove')}<span class="sr-only"> ${nameOf(p)}</span></a
        >`
      : '';
  const reset =
    hasSecondFactor && who.person.role === 'owner'
      ? html` <a href="/dashboard/people/${p.id}/second-factor"
          >${l10n.t('Reset second factor')}<span class="sr-only"> ${nameOf(p)}</span></a
        >`
      : '';
  return html`${remove}${reset}`;
}

/** Remove person's confirmation (confirmTyped.ts): the person's email typed. */
function removeConfirm(r: DashReq): TypedConfirm {
  const { l10n } = r;
  return {
    prefix: 'remove-person',
    title: l10n.t('Remove person'),
    text: l10n.t(
      'Their API keys are revoked at once (their live sessions end, every pending word delivered first), their sign-ins end, and their second factor and invitation are deleted. This cannot be undone.',
    ),
    label: (email) => l10n.t('Type the email of the person to confirm: {0}', email),
    field: 'confirm_email',
    type: 'email',
    button: l10n.t('Remove'),
  };
}

/** The dialog of the People page (opened by the script from a Remove link; without script, the link opens `removePage`). */
export function removeDialog(r: AuthedReq): Html {
  return confirmDialog(r, removeConfirm(r), '/dashboard/people');
}

function removePage(r: AuthedReq, p: Person, error?: string, typed = '', status = 200): void {
  confirmPage(
    r,
    removeConfirm(r),
    { action: `/dashboard/people/${p.id}/remove`, expected: p.email, back: '/dashboard/people' },
    error,
    typed,
    status,
  );
}

/** A refusal as a page with the way back (nothing was changed). */
function refusedPage(r: AuthedReq, title: string, text: string, status: number): void {
  sendPage(
    r,
    title,
    html`<p class="error" role="alert">${text}</p>
      <p><a href="/dashboard/people">${r.l10n.t('Back to People and projects')}</a></p>`,
    status,
  );
}

async function getRemove(r: AuthedReq): Promise<void> {
  const p = await personOfPath(r);
  const refused = await removalRefused(r, p);
  if (refused) return refusedPage(r, r.l10n.t('Remove person'), refused.text, refused.status);
  removePage(r, p);
}

async function postRemove(r: AuthedReq): Promise<void> {
  const { l10n, ctx } = r;
  const p = await r.ctx.api.keys.teams.getPerson(r.params[0]!);
  if (!p || p.org_id !== r.who.person.org_id)
    return refusedPage(r, l10n.t('Remove person'), l10n.t('This person is no longer in the organisation: nothing more to do.'), 404);
  const refused = await removalRefused(r, p);
  if (refused) {
    record(ctx.api, r.who.actor, 'person.deleted', p.id, refused.status === 403 ? 'denied' : 'failure');
    return refusedPage(r, l10n.t('Remove person'), refused.text, refused.status);
  }
  const typed = r.form!.get('confirm_email') ?? '';
  if (typed.trim().toLowerCase() !== p.email.toLowerCase())
    return removePage(r, p, l10n.t("The email typed is not the person's email: nobody was removed."), typed, 400);
  const done = await removePersonAs(ctx.api, r.who.actor, p);
  if (done.outcome === 'removed') return redirect(r, '/dashboard/people?removed=1');
  // Removed, or another owner removed or demoted, at the same moment (the store checked under its lock): nothing changed.
  record(ctx.api, r.who.actor, 'person.deleted', p.id, 'failure');
  if (done.outcome === 'gone')
    return refusedPage(r, l10n.t('Remove person'), l10n.t('This person is no longer in the organisation: nothing more to do.'), 404);
  refusedPage(r, l10n.t('Remove person'), lastOwnerText(r, p), 409);
}

const resetPath = (p: Person): string => `/dashboard/people/${p.id}/second-factor`;

/** The person whose second factor an owner may reset: another person, with one. */
async function resettable(r: AuthedReq): Promise<Person> {
  const p = await personOfPath(r);
  const { l10n } = r;
  if (p.id === r.who.person.id) throw new DashError(409, l10n.t('Your own second factor is changed on the Security page.'));
  const mfa = r.ctx.secondFactor;
  if (!mfa || !(await mfa.store.get(p.id))) throw new DashError(404, l10n.t('{0} has no second factor: nothing to reset.', nameOf(p)));
  return p;
}

async function getReset(r: AuthedReq): Promise<void> {
  const { l10n } = r;
  const p = await resettable(r);
  if (!requireFreshSignIn(r, resetPath(p))) return;
  sendPage(
    r,
    l10n.t('Reset second factor'),
    html`<p>
        ${l10n.t('For a person who lost their phone and their recovery codes: {0} then signs in with their password alone, and may set up a new second factor on their Security page. Their sign-ins end now.', `${nameOf(p)} (${p.email})`)}
      </p>
      <form method="post" action="${resetPath(p)}">
        ${csrfField(r)}
        <p>
          <button type="submit" class="danger">${l10n.t('Reset second factor')}</button>
          <a href="/dashboard/people">${l10n.t('Cancel')}</a>
        </p>
      </form>`,
  );
}

async function postReset(r: AuthedReq): Promise<void> {
  const { ctx } = r;
  const p = await resettable(r);
  if (!requireFreshSignIn(r, resetPath(p))) return;
  await ctx.secondFactor!.store.remove(p.id);
  await ctx.store.deletePersonSessions(p.id);
  record(ctx.api, r.who.actor, 'person.second_factor_reset', p.id, 'success');
  ctx.api.log.info('dashboard second factor reset by an owner', { person_id: p.id, actor: r.who.actor.id, address: r.ip });
  redirect(r, '/dashboard/people?reset=1');
}

export const PERSON_ACTION_ROUTES: readonly Route[] = [
  { method: 'GET', path: new RegExp(`^/dashboard/people/${ID}/remove$`), roles: ['owner', 'admin'], handler: authed(getRemove) },
  { method: 'POST', path: new RegExp(`^/dashboard/people/${ID}/remove$`), roles: ['owner', 'admin'], handler: authed(postRemove) },
  { method: 'GET', path: new RegExp(`^/dashboard/people/${ID}/second-factor$`), roles: ['owner'], handler: authed(getReset) },
  { method: 'POST', path: new RegExp(`^/dashboard/people/${ID}/second-factor$`), roles: ['owner'], handler: authed(postReset) },
];
