/**
 * A new dashboard session for a person who has proved who they are (a password, a password and a code, or
 * the OpenID provider): always a new id (the session the browser had, if any, is deleted), the session
 * cookie set and the sign-in form's cleared; audited (`person.signed_in`) and logged with how, never with
 * a password, a code or a token.
 */
import { randomBytes } from 'node:crypto';
import type { AuditAction } from '../storage/auditSink';
import type { Person } from '../storage/teams';
import type { DashReq } from './context';
import { newToken, personActorId, sha256, signedIn } from './identity';
import { SESSION_COOKIE, SIGNIN_COOKIE, sessionCookie } from './sessionRules';

type SignInMethod = 'password' | 'password+totp' | 'password+recovery_code' | 'oidc';

/** Records an audit entry of the dashboard (the sink never throws on purpose; a failure is logged). */
export function dashAudit(
  r: DashReq,
  action: AuditAction,
  orgId: string,
  actor: string,
  target: string,
  outcome: 'success' | 'failure',
): void {
  try {
    r.ctx.api.audit.record({ actor, action, target, ip: r.ip, outcome, org_id: orgId });
  } catch (e) {
    r.ctx.api.log.error('the audit sink failed', { action, error: e });
  }
}

export async function startSession(r: DashReq, person: Person, method: SignInMethod): Promise<void> {
  const { ctx } = r;
  const before = await signedIn(r);
  if (typeof before !== 'string') await ctx.store.deleteSession(before.idHash);
  const token = newToken();
  const at = new Date(ctx.now()).toISOString();
  await ctx.store.createSession({
    id_hash: sha256(token),
    person_id: person.id,
    org_id: person.org_id,
    csrf: randomBytes(32).toString('base64url'),
    created_at: at,
    seen_at: at,
    auth_at: at,
  });
  r.res.appendHeader('set-cookie', sessionCookie(SESSION_COOKIE, token));
  r.res.appendHeader('set-cookie', sessionCookie(SIGNIN_COOKIE, '', 0));
  dashAudit(r, 'person.signed_in', person.org_id, personActorId(person.id), person.id, 'success');
  ctx.api.log.info('dashboard sign-in', { person_id: person.id, address: r.ip, method });
}
