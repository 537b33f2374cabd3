/**
 * The lock after failed sign-ins, shared by the password step (signIn.ts) and the code step
 * (secondFactorSignIn.ts): a subject per account and one per client address (sessionRules.ts's policies, kept
 * in `dashboard_throttle`), how long they are still locked, one more failure counted on both (the one that
 * locks is audited `person.locked` and logged, with the address, never a password or a code), and the
 * message said in the page.
 */
import type { DashReq } from './context';
import { ACCOUNT_THROTTLE, ADDRESS_THROTTLE, type ThrottlePolicy, afterFailure, lockedFor } from './sessionRules';
import { dashAudit } from './signInSession';

/** The two subjects of a sign-in step: its account's (`person:<id>`, `code:person:<id>`…) and the address's. */
interface ThrottleSubjects {
  account: string;
  address: string;
}

export function throttleSubjects(r: DashReq, account: string): ThrottleSubjects {
  return { account, address: `ip:${r.ip}` };
}

/** How long the account or the address is still locked (ms; 0: neither). */
export async function lockedMs(r: DashReq, t: ThrottleSubjects): Promise<number> {
  const now = r.ctx.now();
  return Math.max(lockedFor(await r.ctx.store.throttle(t.account), now), lockedFor(await r.ctx.store.throttle(t.address), now));
}

/** The page's message for a lock of `ms` more milliseconds (whole minutes, at least one). */
export function lockedText(r: DashReq, ms: number = ACCOUNT_THROTTLE.lockMs): string {
  return r.l10n.t(
    'Too many failed sign-ins: signing in is locked for {0} minutes. Try again later, or ask an administrator.',
    Math.max(1, Math.ceil(ms / 60_000)),
  );
}

async function fail(r: DashReq, subject: string, policy: ThrottlePolicy): Promise<boolean> {
  const { state, lockedNow } = afterFailure(await r.ctx.store.throttle(subject), r.ctx.now(), policy);
  await r.ctx.store.putThrottle({ subject, ...state });
  return lockedNow;
}

/**
 * One more failure of both subjects; true when it locked one of them now (then audited `person.locked`, in
 * `orgId`'s chain, its target `target` for the account or the address, and logged as `what`).
 */
export async function countFailure(r: DashReq, t: ThrottleSubjects, orgId: string, target: string, what: string): Promise<boolean> {
  const accountLocked = await fail(r, t.account, ACCOUNT_THROTTLE);
  const addressLocked = await fail(r, t.address, ADDRESS_THROTTLE);
  if (!accountLocked && !addressLocked) return false;
  dashAudit(r, 'person.locked', orgId, 'system', accountLocked ? target : r.ip, 'success');
  r.ctx.api.log.warn(what, { address: r.ip, account_locked: accountLocked, address_locked: addressLocked });
  return true;
}
