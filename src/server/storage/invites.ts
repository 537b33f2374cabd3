/**
 * Invitations to the dashboard (docs/dashboard.md, "People and projects"): no email is sent; an owner or
 * admin creates the person with a role and gets a one-time sign-up code, shown once, to pass on. The
 * invitee opens `/dashboard/join`, types their email, the code and a password. Only the SHA-256 of the code
 * is kept; a code works once (taken in one conditional UPDATE, so two tabs cannot both use it), for the
 * person it was made for, until its expiry (7 days). A newer code for the same person replaces the older.
 * The same SQL on SQLite and PostgreSQL (migration 6).
 */

/** Migration 6 (SQLite and PostgreSQL alike): only adds. */
export const INVITES_SQL = `
CREATE TABLE dashboard_invites (
  code_hash TEXT PRIMARY KEY, person_id TEXT NOT NULL, org_id TEXT NOT NULL, created_by TEXT NOT NULL,
  created_at TEXT NOT NULL, expires_at TEXT NOT NULL, used_at TEXT);
CREATE INDEX dashboard_invites_person ON dashboard_invites (person_id);
`;

/** How long a sign-up code works. */
export const INVITE_DAYS = 7;

interface Invite {
  code_hash: string;
  person_id: string;
  org_id: string;
  created_by: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** A store's statements: rows read, or rows changed. */
interface InviteSql {
  all<T>(sql: string, params: unknown[]): Promise<T[]>;
  run(sql: string, params: unknown[]): Promise<number>;
  placeholder(n: number): string;
}

export class Invites {
  constructor(private readonly sql: InviteSql) {}

  private p(sql: string): string {
    let n = 0;
    return sql.replace(/\?/g, () => this.sql.placeholder(++n));
  }

  /** Records a new code for the person; any older code of theirs stops working. */
  async create(i: Omit<Invite, 'used_at'>): Promise<void> {
    await this.sql.run(this.p('DELETE FROM dashboard_invites WHERE person_id = ? AND used_at IS NULL'), [i.person_id]);
    await this.sql.run(
      this.p('INSERT INTO dashboard_invites (code_hash, person_id, org_id, created_by, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)'),
      [i.code_hash, i.person_id, i.org_id, i.created_by, i.created_at, i.expires_at],
    );
  }

  /** The unused, unexpired invitation of this code, if any. */
  async find(codeHash: string, now: string): Promise<Invite | undefined> {
    const [row] = await this.sql.all<Invite>(
      this.p('SELECT * FROM dashboard_invites WHERE code_hash = ? AND used_at IS NULL AND expires_at > ?'),
      [codeHash, now],
    );
    return row;
  }

  /** Takes the code (once): whether this call took it. */
  async take(codeHash: string, now: string): Promise<boolean> {
    return (
      (await this.sql.run(this.p('UPDATE dashboard_invites SET used_at = ? WHERE code_hash = ? AND used_at IS NULL AND expires_at > ?'), [
        now,
        codeHash,
        now,
      ])) === 1
    );
  }

  /** The people of the organisation with an invitation still open, and its expiry. */
  async pending(orgId: string, now: string): Promise<Map<string, string>> {
    const rows = await this.sql.all<{ person_id: string; expires_at: string }>(
      this.p('SELECT person_id, expires_at FROM dashboard_invites WHERE org_id = ? AND used_at IS NULL AND expires_at > ?'),
      [orgId, now],
    );
    return new Map(rows.map((r) => [r.person_id, r.expires_at]));
  }
}
