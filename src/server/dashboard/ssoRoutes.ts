/**
 * Single sign-on in the dashboard (docs/dashboard-sign-in.md "Single sign-on"): `GET /dashboard/sso/start` sends the
 * browser to the OpenID provider (oidcClient.ts), what it must bring back kept in `__Host-dictee_sso`
 * (HttpOnly, SameSite=Lax: the provider's redirect back is a cross-site navigation, which a Strict cookie
 * would not follow; ten minutes, cleared at the callback); `GET /dashboard/sso/callback` checks the answer,
 * finds or creates the person (ssoPerson.ts) and starts a new session. The callback is a GET by the
 * protocol; its `state`, bound to this browser's cookie, is its CSRF check. It answers with a page that
 * moves on by itself (`Refresh`): a redirect would keep the navigation cross-site, and the SameSite=Strict
 * session cookie would not be sent on it. A refusal is a page that says why, audited and logged (never a
 * token).
 */
import type { DashReq } from './context';
import { html } from './html';
import { personActorId } from './identity';
import { SSO_CALLBACK_PATH, SsoError, type SsoFailure, decodePending, encodePending, whyFailed } from './oidcClient';
import { redirect, sendHtml, sendPage } from './respond';
import { page } from './layout';
import type { Route } from './route';
import { parseCookies } from './sessionRules';
import { safeNext } from './signIn';
import { dashAudit, startSession } from './signInSession';
import { ssoPerson } from './ssoPerson';

const SSO_COOKIE = '__Host-dictee_sso';

function ssoCookie(value: string, maxAgeS: number): string {
  return `${SSO_COOKIE}=${value}; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=${maxAgeS}`;
}

function failureText(r: DashReq, reason: SsoFailure): { status: number; text: string } {
  switch (reason) {
    case 'provider_unreachable':
      return {
        status: 502,
        text: r.l10n.t(
          'The sign-in service of your organisation does not answer. Try again in a few minutes, or sign in with your password.',
        ),
      };
    case 'sign_in_expired':
      return { status: 400, text: r.l10n.t('This sign-in took too long, or was not begun in this browser. Start again.') };
    case 'state_mismatch':
      return {
        status: 400,
        text: r.l10n.t('The answer of the sign-in service does not belong to the sign-in begun in this browser: refused. Start again.'),
      };
    case 'provider_refused':
      return { status: 403, text: r.l10n.t('The sign-in service of your organisation refused the sign-in.') };
    case 'token_rejected':
      return {
        status: 400,
        text: r.l10n.t(
          'The answer of the sign-in service could not be checked: refused. Start again; if it happens again, tell your administrator.',
        ),
      };
    case 'email_missing':
      return {
        status: 403,
        text: r.l10n.t(
          'The sign-in service gave no email address for your account. Ask your administrator to release the email claim to the dashboard.',
        ),
      };
    case 'email_not_verified':
      return { status: 403, text: r.l10n.t('The sign-in service does not say that your email address is verified: refused.') };
    case 'no_role':
      return {
        status: 403,
        text: r.l10n.t('Your account is in no group that gives access to the dashboard. Ask your administrator to add you to one.'),
      };
    case 'no_organisation':
      return {
        status: 500,
        text: r.l10n.t('Single sign-on is not set up correctly (its organisation does not exist). Tell your administrator.'),
      };
  }
}

function refusal(r: DashReq, e: SsoError, orgId: string, target = '-'): void {
  const { status, text } = failureText(r, e.reason);
  dashAudit(r, 'person.sign_in_failed', orgId, target === '-' ? '-' : personActorId(target), target, 'failure');
  r.ctx.api.log.warn('dashboard single sign-on refused', { reason: e.reason, detail: e.message, address: r.ip });
  const body = html`<p role="alert" class="error" id="sso-error" data-reason="${e.reason}">${text}</p>
    <p><a href="/dashboard/sso/start">${r.l10n.t('Try again')}</a></p>
    <p><a href="/dashboard/sign-in">${r.l10n.t('Sign in with a password')}</a></p>`;
  sendPage(r, r.l10n.t('Sign-in refused'), body, status);
}

async function start(r: DashReq): Promise<void> {
  const sso = r.ctx.sso;
  if (!sso)
    return sendPage(
      r,
      r.l10n.t('Error'),
      html`<p role="alert" class="error">${r.l10n.t('Single sign-on is not set up on this service.')}</p>`,
      404,
    );
  try {
    const { url, pending } = await sso.rp.begin(safeNext(r.url.searchParams.get('next')), r.ctx.now());
    r.res.appendHeader('set-cookie', ssoCookie(encodePending(pending), 600));
    r.res.writeHead(303, { location: url, 'cache-control': 'no-store', 'content-length': '0' });
    r.res.end();
  } catch (e) {
    if (!(e instanceof SsoError)) throw e;
    refusal(r, e, sso.orgId);
  }
}

async function callback(r: DashReq): Promise<void> {
  const sso = r.ctx.sso;
  if (!sso) return redirect(r, '/dashboard/sign-in');
  const pending = decodePending(parseCookies(r.req.headers.cookie).get(SSO_COOKIE));
  // Single use: whatever the outcome, this browser's begun sign-in ends here.
  r.res.appendHeader('set-cookie', ssoCookie('', 0));
  let target = '-';
  try {
    const identity = await sso.rp.complete(new URL(r.url.pathname + r.url.search, sso.publicUrl), pending, r.ctx.now());
    const result = await ssoPerson(r.ctx.api.keys.teams, sso.orgId, identity, sso.roleMap);
    const { person } = result;
    target = person.id;
    if (result.created) dashAudit(r, 'person.created', person.org_id, personActorId(person.id), person.id, 'success');
    if (result.previousRole) dashAudit(r, 'person.updated', person.org_id, personActorId(person.id), person.id, 'success');
    if (result.created || result.previousRole) {
      r.ctx.api.log.info('dashboard person from single sign-on', { person_id: person.id, role: person.role, created: result.created });
    }
    await startSession(r, person, 'oidc');
    const next = safeNext(pending?.next);
    const body = html`<p role="status">${r.l10n.t('You are signed in.')} <a href="${next}">${r.l10n.t('Continue')}</a></p>`;
    sendHtml(r, 200, page(r, r.l10n.t('Signed in'), body), { refresh: `0;url=${next}` });
  } catch (e) {
    if (!(e instanceof SsoError)) {
      r.ctx.api.log.error('dashboard single sign-on failed', { error: whyFailed(e), address: r.ip });
      throw e;
    }
    refusal(r, e, sso.orgId, target);
  }
}

export const SSO_ROUTES: readonly Route[] = [
  { method: 'GET', path: '/dashboard/sso/start', auth: false, handler: start },
  { method: 'GET', path: SSO_CALLBACK_PATH, auth: false, handler: callback },
];
