/**
 * The second step of a password sign-in for a person with a second factor (docs/dashboard-sign-in.md "Second
 * factor"): after the right password, no session yet but a waiting sign-in (five minutes, its id in
 * `__Host-dictee_2fa`, only its SHA-256 stored), and the page that asks for the six-digit code of their
 * authenticator app, or one of their recovery codes. Wrong codes are counted as wrong passwords are
 * (sessionRules.ts: per account, apart from the password's count, so that the password does not reset it;
 * and per address), and lock the same way; a code is taken once. The right code starts the session
 * (signInSession.ts). A sign-in through the OpenID provider relies on the provider's own second factor.
 */
import type { Person } from '../storage/teams';
import type { DashReq } from './context';
import { html } from './html';
import { newToken, personActorId, sha256 } from './identity';
import { DashError, readForm, redirect, sendPage } from './respond';
import type { Route } from './route';
import { sameOrigin, tokensMatch } from './security';
import { parseCookies, sessionCookie } from './sessionRules';
import { countFailure, lockedMs, lockedText, throttleSubjects } from './signInThrottle';
import { dashAudit, startSession } from './signInSession';
import { matchRecoveryCode, recoveryCodeOf, totpCodeOf, totpStep } from './totp';
import { mfaOf, openSecret } from './secondFactorAccess';

const CHALLENGE_COOKIE = '__Host-dictee_2fa';
const CHALLENGE_TTL_MS = 5 * 60_000;

/** The form's token: derived from the waiting sign-in's cookie, which a page of another site cannot read. */
function formToken(cookieValue: string): string {
  return sha256(`second-factor-form:${cookieValue}`);
}

/**
 * After the right password (`next`: a path of the dashboard, safeNext's): when the person has a confirmed second factor, begins the second step (answers
 * with a redirect to the code page) and resolves true; false when there is none (the caller signs in).
 */
export async function beginSecondFactor(r: DashReq, person: Person, next: string): Promise<boolean> {
  const mfa = r.ctx.secondFactor;
  if (!mfa) return false;
  const row = await mfa.store.get(person.id);
  if (!row?.confirmed_at) return false;
  const now = r.ctx.now();
  await mfa.store.purgeChallenges(new Date(now - CHALLENGE_TTL_MS).toISOString());
  const token = newToken();
  await mfa.store.createChallenge({ id_hash: sha256(token), person_id: person.id, next, created_at: new Date(now).toISOString() });
  r.res.appendHeader('set-cookie', sessionCookie(CHALLENGE_COOKIE, token, CHALLENGE_TTL_MS / 1000));
  redirect(r, '/dashboard/sign-in/code');
  return true;
}

interface Waiting {
  token: string;
  idHash: string;
  person: Person;
  next: string;
}

/** The waiting sign-in of this browser, or undefined (none, ended, or older than five minutes). */
async function waiting(r: DashReq): Promise<Waiting | undefined> {
  const token = parseCookies(r.req.headers.cookie).get(CHALLENGE_COOKIE);
  if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const idHash = sha256(token);
  const c = await mfaOf(r).store.challenge(idHash);
  if (!c || r.ctx.now() - Date.parse(c.created_at) >= CHALLENGE_TTL_MS) return undefined;
  const person = await r.ctx.api.keys.teams.getPerson(c.person_id);
  return person ? { token, idHash, person, next: c.next } : undefined;
}

function codePage(r: DashReq, w: Waiting, error?: string, status = 200): void {
  const { l10n } = r;
  const body = html`${error ? html`<p class="error" role="alert" id="code-error">${error}</p>` : ''}
    <p>${l10n.t('Type the six-digit code that your authenticator app shows for Dictée, or one of your recovery codes.')}</p>
    <form method="post" action="/dashboard/sign-in/code" class="signin">
      <input type="hidden" name="_code_form" value="${formToken(w.token)}" />
      <p>
        <label for="code">${l10n.t('Code')}</label>
        <input
          id="code"
          name="code"
          type="text"
          inputmode="numeric"
          autocomplete="one-time-code"
          required
          autofocus${error ? html` aria-describedby="code-error"` : ''}
        />
      </p>
      <p><button type="submit">${l10n.t('Verify')}</button></p>
    </form>
    <p><a href="/dashboard/sign-in">${l10n.t('Start again')}</a></p>`;
  sendPage(r, l10n.t('Second factor'), body, status);
}

async function getCode(r: DashReq): Promise<void> {
  const w = await waiting(r);
  if (!w) return redirect(r, '/dashboard/sign-in?expired=1');
  codePage(r, w);
}

async function postCode(r: DashReq): Promise<void> {
  const { l10n, ctx } = r;
  if (!sameOrigin(r.req)) throw new DashError(403, l10n.t('Refused: this form was not sent from this dashboard.'));
  const form = await readForm(r);
  const w = await waiting(r);
  if (!w) return redirect(r, '/dashboard/sign-in?expired=1');
  if (!tokensMatch(form.get('_code_form'), formToken(w.token)))
    throw new DashError(403, l10n.t('Refused: the form has expired or was not sent from this dashboard. Reload the page and try again.'));
  const { person } = w;
  const throttle = throttleSubjects(r, `code:person:${person.id}`);
  const now = ctx.now();
  const locked = await lockedMs(r, throttle);
  if (locked > 0) {
    dashAudit(r, 'person.sign_in_failed', person.org_id, personActorId(person.id), person.id, 'failure');
    return codePage(r, w, lockedText(r, locked), 429);
  }
  const mfa = mfaOf(r);
  const typed = form.get('code') ?? '';
  const row = await mfa.store.get(person.id);
  let method: 'password+totp' | 'password+recovery_code' | undefined;
  const code = totpCodeOf(typed);
  if (row?.confirmed_at && code) {
    const step = await totpStep(openSecret(r, row.secret), code, row.last_step, now);
    if (step !== undefined && (await mfa.store.takeStep(person.id, step))) method = 'password+totp';
  } else if (row?.confirmed_at && recoveryCodeOf(typed)) {
    const n = await matchRecoveryCode(recoveryCodeOf(typed)!, await mfa.store.unusedRecoveryCodes(person.id));
    if (n !== undefined && (await mfa.store.useRecoveryCode(person.id, n, new Date(now).toISOString()))) method = 'password+recovery_code';
  }
  if (!method) {
    dashAudit(r, 'person.sign_in_failed', person.org_id, personActorId(person.id), person.id, 'failure');
    if (await countFailure(r, throttle, person.org_id, person.id, 'dashboard second factor locked after wrong codes'))
      return codePage(r, w, lockedText(r), 429);
    return codePage(r, w, l10n.t('Wrong code. Type the code your app shows now, or a recovery code.'), 401);
  }
  // One sign-in per waiting one, even if the form was sent twice at once.
  if (!(await mfa.store.endChallenge(w.idHash))) return redirect(r, '/dashboard/sign-in?expired=1');
  await ctx.store.clearThrottle(throttle.account);
  r.res.appendHeader('set-cookie', sessionCookie(CHALLENGE_COOKIE, '', 0));
  await startSession(r, person, method);
  if (method === 'password+recovery_code') {
    dashAudit(r, 'person.recovery_code_used', person.org_id, personActorId(person.id), person.id, 'success');
    return redirect(r, '/dashboard/security?recovery_code_used=1');
  }
  redirect(r, w.next);
}

export const SECOND_FACTOR_SIGN_IN_ROUTES: readonly Route[] = [
  { method: 'GET', path: '/dashboard/sign-in/code', auth: false, handler: getCode },
  { method: 'POST', path: '/dashboard/sign-in/code', auth: false, handler: postCode },
];
