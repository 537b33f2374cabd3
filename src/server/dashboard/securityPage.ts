/**
 * The **Security** page (docs/dashboard-sign-in.md "Second factor"): each person turns their own second factor on
 * or off. Setting it up shows a new TOTP secret (as text, grouped, and as an `otpauth://` URI to paste in an
 * authenticator app) until the first code from the app confirms it; then ten recovery codes are shown once
 * (never again: only their argon2id hashes are kept). New recovery codes and turning the second factor off
 * need a fresh sign-in. Every change is audited.
 */
import type { AuthedReq, DashReq } from './context';
import { html } from './html';
import { personActorId, requireFreshSignIn } from './identity';
import { csrfField } from './layout';
import { redirect, sendPage } from './respond';
import type { Route } from './route';
import { mfaOf, openSecret } from './secondFactorAccess';
import { dashAudit } from './signInSession';
import { groupedSecret, hashRecoveryCode, newRecoveryCodes, newTotpSecret, otpauthUri, totpCodeOf, totpStep } from './totp';

const PATH = '/dashboard/security';

async function securityPage(r: AuthedReq, error?: string, status = 200): Promise<void> {
  const { l10n, who } = r;
  const mfa = mfaOf(r);
  const row = await mfa.store.get(who.person.id);
  const notes = [];
  if (r.url.searchParams.get('recovery_code_used') === '1') {
    notes.push(html`<p class="notice" role="status">${l10n.t('You signed in with a recovery code: it cannot be used again.')}</p>`);
  }
  if (error) notes.push(html`<p class="error" role="alert" id="security-error">${error}</p>`);
  let body;
  if (row?.confirmed_at) {
    const left = (await mfa.store.unusedRecoveryCodes(who.person.id)).length;
    body = html`<p id="second-factor-state">${l10n.t('Second factor: on since {0}.', l10n.dateTime(row.confirmed_at))}</p>
      <p>${l10n.t('Recovery codes left: {0}', l10n.number(left))}</p>
      <form method="post" action="${PATH}/recovery-codes">
        ${csrfField(r)}<button type="submit">${l10n.t('New recovery codes')}</button>
      </form>
      <form method="post" action="${PATH}/second-factor/off">
        ${csrfField(r)}<button type="submit">${l10n.t('Turn off the second factor')}</button>
      </form>`;
  } else if (row) {
    const secret = openSecret(r, row.secret);
    body = html`<p id="second-factor-state">${l10n.t('Second factor: being set up.')}</p>
      <ol>
        <li>
          ${l10n.t('In your authenticator app, add an account with this key (or paste the link below):')}
          <p><code id="totp-secret">${groupedSecret(secret)}</code></p>
          <p><code id="totp-uri" class="wrap">${otpauthUri(secret, who.person.email)}</code></p>
        </li>
        <li>
          <form method="post" action="${PATH}/second-factor/confirm">
            ${csrfField(r)}
            <p>
              <label for="code">${l10n.t('Code')}</label>
              <input
                id="code"
                name="code"
                type="text"
                inputmode="numeric"
                autocomplete="one-time-code"
                required${error ? html` aria-describedby="security-error"` : ''}
              />
            </p>
            <p><button type="submit">${l10n.t('Confirm')}</button></p>
          </form>
        </li>
      </ol>
      <form method="post" action="${PATH}/second-factor/off">${csrfField(r)}<button type="submit">${l10n.t('Cancel')}</button></form>`;
  } else {
    body = html`<p id="second-factor-state">${l10n.t('Second factor: off.')}</p>
      <p>${l10n.t('With a second factor, signing in with your password also asks for a code from an authenticator app on your phone.')}</p>
      <form method="post" action="${PATH}/second-factor/begin">
        ${csrfField(r)}<button type="submit">${l10n.t('Set up a second factor')}</button>
      </form>`;
  }
  sendPage(r, l10n.t('Security'), html`${notes}${body}`, status);
}

/** The recovery codes, shown this once (the answer is not stored by the browser: no-store). */
function recoveryCodesPage(r: DashReq, codes: string[]): void {
  const { l10n } = r;
  const body = html`<p role="status">
      ${l10n.t('Keep these recovery codes somewhere safe: each signs you in once without your phone. They are shown only now.')}
    </p>
    <ol id="recovery-codes">
      ${codes.map((c) => html`<li><code>${c}</code></li>`)}
    </ol>
    <p><a href="${PATH}">${l10n.t('Done')}</a></p>`;
  sendPage(r, l10n.t('Recovery codes'), body);
}

async function recoveryHashes(codes: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const c of codes) out.push(await hashRecoveryCode(c));
  return out;
}

async function begin(r: AuthedReq): Promise<void> {
  const mfa = mfaOf(r);
  await mfa.store.begin(r.who.person.id, mfa.box.seal(newTotpSecret()), new Date(r.ctx.now()).toISOString());
  redirect(r, PATH);
}

async function confirm(r: AuthedReq): Promise<void> {
  const { who, l10n } = r;
  const mfa = mfaOf(r);
  const row = await mfa.store.get(who.person.id);
  if (!row || row.confirmed_at) return redirect(r, PATH);
  const code = totpCodeOf(r.form?.get('code') ?? '');
  const step = code === undefined ? undefined : await totpStep(openSecret(r, row.secret), code, 0, r.ctx.now());
  if (step === undefined) return securityPage(r, l10n.t('Wrong code. Type the six digits your app shows now for Dictée.'), 400);
  const codes = newRecoveryCodes();
  if (!(await mfa.store.confirm(who.person.id, step, new Date(r.ctx.now()).toISOString(), await recoveryHashes(codes))))
    return redirect(r, PATH);
  dashAudit(r, 'person.second_factor_on', who.person.org_id, personActorId(who.person.id), who.person.id, 'success');
  r.ctx.api.log.info('dashboard second factor turned on', { person_id: who.person.id });
  recoveryCodesPage(r, codes);
}

async function renewCodes(r: AuthedReq): Promise<void> {
  const { who } = r;
  const mfa = mfaOf(r);
  if (!(await mfa.store.get(who.person.id))?.confirmed_at) return redirect(r, PATH);
  if (!requireFreshSignIn(r, PATH)) return;
  const codes = newRecoveryCodes();
  await mfa.store.setRecoveryCodes(who.person.id, await recoveryHashes(codes));
  dashAudit(r, 'person.recovery_codes_renewed', who.person.org_id, personActorId(who.person.id), who.person.id, 'success');
  recoveryCodesPage(r, codes);
}

async function off(r: AuthedReq): Promise<void> {
  const { who } = r;
  const mfa = mfaOf(r);
  const row = await mfa.store.get(who.person.id);
  if (!row) return redirect(r, PATH);
  if (row.confirmed_at && !requireFreshSignIn(r, PATH)) return;
  await mfa.store.remove(who.person.id);
  if (row.confirmed_at) {
    dashAudit(r, 'person.second_factor_off', who.person.org_id, personActorId(who.person.id), who.person.id, 'success');
    r.ctx.api.log.info('dashboard second factor turned off', { person_id: who.person.id });
  }
  redirect(r, PATH);
}

export const SECURITY_ROUTES: readonly Route[] = [
  { method: 'GET', path: PATH, handler: (r) => securityPage(r as AuthedReq) },
  { method: 'POST', path: `${PATH}/second-factor/begin`, handler: (r) => begin(r as AuthedReq) },
  { method: 'POST', path: `${PATH}/second-factor/confirm`, handler: (r) => confirm(r as AuthedReq) },
  { method: 'POST', path: `${PATH}/second-factor/off`, handler: (r) => off(r as AuthedReq) },
  { method: 'POST', path: `${PATH}/recovery-codes`, handler: (r) => renewCodes(r as AuthedReq) },
];
