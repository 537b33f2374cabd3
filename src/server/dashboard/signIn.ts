/**
 * Sign-in with a local account (email and password), sign-out, and the choice of language. The sign-in
 * form carries its own token (double submit of the `__Host-dictee_signin` cookie) and must come from this
 * origin; failed sign-ins are counted per account and per client address (sessionRules.ts: a lock after
 * too many, said in the page); a success makes a new session (a new id: the one before is deleted), and
 * is audited, as are failures, locks and sign-outs (never the password).
 */
import { record } from '../http/actor';
import type { Account } from '../storage/dashboard';
import type { AuthedReq, DashReq } from './context';
import { html } from './html';
import { isLocale, l10nFor } from './i18n';
import { clearSessionCookie, newToken, personActorId, sha256 } from './identity';
import { verifyPassword } from './passwords';
import { beginSecondFactor } from './secondFactorSignIn';
import { dashAudit, startSession } from './signInSession';
import { countFailure, lockedMs, lockedText, throttleSubjects } from './signInThrottle';
import { ssoSignInLink } from './ssoLink';
import { DashError, readForm, redirect, sendPage } from './respond';
import type { Route } from './route';
import { sameOrigin, tokensMatch } from './security';
import { SIGNIN_COOKIE, parseCookies, sessionCookie } from './sessionRules';

/** Where to go after signing in: a path of the dashboard only (never another site). */
export function safeNext(next: string | null | undefined): string {
  if (!next || !next.startsWith('/dashboard') || next.startsWith('//') || /[\\\r\n]/.test(next)) return '/dashboard/keys';
  return next;
}

interface FormState {
  email?: string;
  error?: string;
  status?: number;
}

async function signInPage(r: DashReq, state: FormState = {}): Promise<void> {
  const { l10n } = r;
  const token = newToken();
  r.res.appendHeader('set-cookie', sessionCookie(SIGNIN_COOKIE, token));
  const next = safeNext(r.url.searchParams.get('next') ?? r.form?.get('next'));
  const reauth = (r.url.searchParams.get('reauth') ?? r.form?.get('reauth')) === '1';
  const notes = [];
  if (r.url.searchParams.get('expired') === '1')
    notes.push(html`<p class="notice" role="status">${l10n.t('Your sign-in has expired: sign in again.')}</p>`);
  if (r.url.searchParams.get('signed_out') === '1') notes.push(html`<p class="notice" role="status">${l10n.t('You are signed out.')}</p>`);
  if (reauth) notes.push(html`<p class="notice" role="status">${l10n.t('For this action, type your password again.')}</p>`);
  const body = html`${notes} ${state.error ? html`<p class="error" role="alert" id="signin-error">${state.error}</p>` : ''}
    <form method="post" action="/dashboard/sign-in" class="signin">
      <input type="hidden" name="_signin" value="${token}" />
      <input type="hidden" name="next" value="${next}" />
      ${reauth ? html`<input type="hidden" name="reauth" value="1" />` : ''}
      <p>
        <label for="email">${l10n.t('Email')}</label>
        <input
          id="email"
          name="email"
          type="email"
          autocomplete="username"
          required
          value="${state.email ?? ''}"
          ${state.error ? html` aria-describedby="signin-error"` : ''}
        />
      </p>
      <p>
        <label for="password">${l10n.t('Password')}</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
      </p>
      <p><button type="submit">${l10n.t('Sign in')}</button></p>
    </form>
    ${ssoSignInLink(r, next)}`;
  sendPage(r, l10n.t('Sign in'), body, state.status ?? 200);
}

async function postSignIn(r: DashReq): Promise<void> {
  const { l10n, ctx } = r;
  if (!sameOrigin(r.req)) throw new DashError(403, l10n.t('Refused: this form was not sent from this dashboard.'));
  r.form = await readForm(r);
  const form = r.form;
  const cookieToken = parseCookies(r.req.headers.cookie).get(SIGNIN_COOKIE);
  if (!cookieToken || !tokensMatch(form.get('_signin'), cookieToken))
    throw new DashError(403, l10n.t('Refused: the form has expired or was not sent from this dashboard. Reload the page and try again.'));
  const email = (form.get('email') ?? '').trim();
  const password = form.get('password') ?? '';
  if (!email || !password) return signInPage(r, { email, error: l10n.t('Type your email and your password.'), status: 400 });
  const accounts = await ctx.store.accountsByEmail(email);
  const throttle = throttleSubjects(r, accounts[0] ? `person:${accounts[0].person.id}` : `email:${sha256(email.toLowerCase())}`);
  const orgId = accounts[0]?.person.org_id ?? ctx.api.keys.teams.defaultOrgId;
  const target = accounts[0]?.person.id ?? '-';
  const actor = target === '-' ? '-' : personActorId(target);
  const locked = await lockedMs(r, throttle);
  if (locked > 0) {
    dashAudit(r, 'person.sign_in_failed', orgId, actor, target, 'failure');
    return signInPage(r, { email, error: lockedText(r, locked), status: 429 });
  }
  let found: Account | undefined;
  if (accounts.length === 0) await verifyPassword(null, password);
  for (const a of accounts) {
    if (await verifyPassword(a.password_hash, password)) {
      found = a;
      break;
    }
  }
  if (!found) {
    dashAudit(r, 'person.sign_in_failed', orgId, actor, target, 'failure');
    if (await countFailure(r, throttle, orgId, target, 'dashboard sign-in locked after failed attempts'))
      return signInPage(r, { email, error: lockedText(r), status: 429 });
    return signInPage(r, { email, error: l10n.t('Wrong email or password.'), status: 401 });
  }
  await ctx.store.clearThrottle(throttle.account);
  // With a second factor, the session begins only after the code (secondFactorSignIn.ts).
  if (await beginSecondFactor(r, found.person, safeNext(form.get('next')))) return;
  // A new session id at every sign-in: the one the browser had (if any) is ended.
  await startSession(r, found.person, 'password');
  redirect(r, safeNext(form.get('next')));
}

async function postSignOut(r: AuthedReq): Promise<void> {
  await r.ctx.store.deleteSession(r.who.idHash);
  clearSessionCookie(r);
  record(r.ctx.api, r.who.actor, 'person.signed_out', r.who.person.id, 'success');
  redirect(r, '/dashboard/sign-in?signed_out=1');
}

async function postLocale(r: AuthedReq): Promise<void> {
  const locale = r.form?.get('locale');
  if (!isLocale(locale)) throw new DashError(400, r.l10n.t('Unknown language.'));
  await r.ctx.store.setLocale(r.who.person.id, locale);
  r.l10n = l10nFor(locale);
  redirect(r, safeNext(r.form?.get('back')));
}

export const SIGN_IN_ROUTES: readonly Route[] = [
  { method: 'GET', path: '/dashboard/sign-in', auth: false, handler: (r) => signInPage(r) },
  { method: 'POST', path: '/dashboard/sign-in', auth: false, handler: postSignIn },
  { method: 'POST', path: '/dashboard/sign-out', handler: (r) => postSignOut(r as AuthedReq) },
  { method: 'POST', path: '/dashboard/locale', handler: (r) => postLocale(r as AuthedReq) },
];
