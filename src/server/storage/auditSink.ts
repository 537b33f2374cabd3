/**
 * Where the actions on keys, people, projects and organisations are told, for the audit log
 * (docs/protocol.md, "Teams"): one entry per action, with who acted (`actor`: a key id, or `master`, or
 * `system` for an expiry), what (`action`), on what (`target`: the key's, person's, project's or
 * organisation's id), from where (`ip`: the client's address, as clientAddress.ts gives it) and how it
 * went (`outcome`). An entry never holds a key value, a password or dictated text.
 *
 * The default sink records nothing; the service gives the audit log (audit.ts) in its place (`auditSinkOf`).
 */

export const AUDIT_ACTIONS = [
  'key.created',
  'key.rolled',
  'key.expired',
  'key.revoked',
  'person.created',
  'person.updated',
  'person.deleted',
  'project.created',
  'project.member_added',
  'project.member_removed',
  'org.created',
  'org.updated',
  // The dashboard's sign-in (dashboard/signIn.ts): never the password.
  'person.signed_in',
  'person.sign_in_failed',
  'person.signed_out',
  'person.locked',
  // The dashboard's invitations (dashboard/peopleInvite.ts): never the code.
  'person.invited',
  'person.joined',
  // The dashboard's second factor (dashboard/securityPage.ts, dashboard/secondFactorSignIn.ts): never a secret or a code.
  'person.second_factor_on',
  'person.second_factor_off',
  'person.recovery_codes_renewed',
  'person.recovery_code_used',
  // An owner resets another person's second factor (dashboard/peopleActions.ts).
  'person.second_factor_reset',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditEntry {
  /**
   * A key id (`key_…`), `master`, `system` (an expiry seen by the service), `person:<id>` (the dashboard), or
   * `cli:<user>` / `cli` (`users add` on the host, dashboard/usersCommand.ts; appended by the command itself).
   */
  actor: string;
  action: AuditAction;
  target: string;
  /** The client's address; `-` when the service acted by itself. */
  ip: string;
  /** `success`, or `denied` (outside the actor's scope or permissions), or `failure` (refused as invalid). */
  outcome: 'success' | 'denied' | 'failure';
  /** The organisation whose chain gets the entry (default: the store's first). */
  org_id?: string;
}

export interface AuditSink {
  /** Takes one entry (must not throw nor wait: the action it tells of is done already). */
  record(entry: AuditEntry): void;
}

/** Records nothing. */
export const NO_AUDIT: AuditSink = { record: () => undefined };

/** What audit.ts's AuditLog takes (its entries: a refusal is a `failure`, the service's own act has no address). */
interface DurableLog {
  record(entry: {
    actor: string;
    action: string;
    target: string | null;
    ip: string | null;
    outcome: 'success' | 'failure';
    org_id?: string;
  }): void;
}

/** The audit log as the sink of the actions on keys, people, projects and organisations. */
export function auditSinkOf(log: DurableLog): AuditSink {
  return {
    record: (e) =>
      log.record({
        actor: e.actor,
        action: e.action,
        target: e.target === '-' ? null : e.target,
        ip: e.ip === '-' ? null : e.ip,
        outcome: e.outcome === 'success' ? 'success' : 'failure',
        ...(e.org_id !== undefined ? { org_id: e.org_id } : {}),
      }),
  };
}
