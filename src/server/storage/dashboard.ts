/**
 * What the dashboard keeps (docs/dashboard.md): a person's password hash and language (columns of `people`),
 * the sign-in sessions (by the SHA-256 of their cookie's value, never the value), the failed sign-ins per
 * account and per address (the lock), and the one-time flashes that carry a new key's value from its
 * creation to the one page that shows it. One class on SQLite and PostgreSQL alike (migration 5), through a
 * small query function, so that several instances behind a balancer share the sessions and the locks.
 */
import type Database from 'better-sqlite3';
import type { Person } from './teams';

/** Migration 5 (SQLite and PostgreSQL alike): only adds. */
export const DASHBOARD_SQL = `
ALTER TABLE people ADD COLUMN password_hash TEXT;
ALTER TABLE people ADD COLUMN locale TEXT;
CREATE TABLE dashboard_sessions (
  id_hash TEXT PRIMARY KEY, person_id TEXT NOT NULL, org_id TEXT NOT NULL, csrf TEXT NOT NULL,
  created_at TEXT NOT NULL, seen_at TEXT NOT NULL, auth_at TEXT NOT NULL);
CREATE INDEX dashboard_sessions_person ON dashboard_sessions (person_id);
CREATE TABLE dashboard_flashes (
  id TEXT PRIMARY KEY, session_hash TEXT NOT NULL, body TEXT, taken INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL);
CREATE TABLE dashboard_throttle (
  subject TEXT PRIMARY KEY, failures INTEGER NOT NULL, first_at TEXT NOT NULL, locked_until TEXT);
`;

export interface Account {
  person: Person;
  password_hash: string | null;
  locale: string | null;
}

export interface DashboardSession {
  id_hash: string;
  person_id: string;
  org_id: string;
  csrf: string;
  created_at: string;
  seen_at: string;
  /** When the person last typed their password (a fresh sign-in: `requireFreshSignIn`). */
  auth_at: string;
}

interface ThrottleRow {
  subject: string;
  failures: number;
  first_at: string;
  locked_until: string | null;
}

type FlashTake = { state: 'ready'; body: string } | { state: 'pending' | 'taken' | 'absent' };

/** A query: its rows (a statement that returns some) and how many rows it changed. */
type Query = (sql: string, params: unknown[]) => Promise<{ rows: Array<Record<string, unknown>>; changes: number }>;

/** The query function on SQLite (`?` placeholders as written). */
export function sqliteQuery(db: Database.Database): Query {
  return async (sql, params) => {
    const st = db.prepare(sql);
    if (st.reader) return { rows: st.all(...params) as Array<Record<string, unknown>>, changes: 0 };
    return { rows: [], changes: st.run(...params).changes };
  };
}

/** The query function on PostgreSQL: `?` placeholders become `$1`, `$2`… */
export function pgQuery(query: (text: string, params: unknown[]) => Promise<{ rows: unknown[]; rowCount: number | null }>): Query {
  return async (sql, params) => {
    let n = 0;
    const r = await query(
      sql.replace(/\?/g, () => `$${++n}`),
      params,
    );
    return { rows: r.rows as Array<Record<string, unknown>>, changes: r.rowCount ?? 0 };
  };
}

const PERSON_COLUMNS = 'id, org_id, email, display_name, role, created_at';

export class DashboardStore {
  constructor(private readonly q: Query) {}

  /** The people with this email (in any organisation), with their password hash and language. */
  async accountsByEmail(email: string): Promise<Account[]> {
    const { rows } = await this.q(
      `SELECT ${PERSON_COLUMNS}, password_hash, locale FROM people WHERE email_lower = ? ORDER BY created_at, id`,
      [email.trim().toLowerCase()],
    );
    return rows.map(toAccount);
  }

  async account(personId: string): Promise<Account | undefined> {
    const { rows } = await this.q(`SELECT ${PERSON_COLUMNS}, password_hash, locale FROM people WHERE id = ?`, [personId]);
    return rows[0] ? toAccount(rows[0]) : undefined;
  }

  async setPassword(personId: string, hash: string): Promise<void> {
    await this.q('UPDATE people SET password_hash = ? WHERE id = ?', [hash, personId]);
  }

  async setLocale(personId: string, locale: string | null): Promise<void> {
    await this.q('UPDATE people SET locale = ? WHERE id = ?', [locale, personId]);
  }

  async createSession(s: DashboardSession): Promise<void> {
    await this.q(
      'INSERT INTO dashboard_sessions (id_hash, person_id, org_id, csrf, created_at, seen_at, auth_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [s.id_hash, s.person_id, s.org_id, s.csrf, s.created_at, s.seen_at, s.auth_at],
    );
  }

  async session(idHash: string): Promise<DashboardSession | undefined> {
    const { rows } = await this.q('SELECT * FROM dashboard_sessions WHERE id_hash = ?', [idHash]);
    return rows[0] as DashboardSession | undefined;
  }

  async touchSession(idHash: string, seenAt: string): Promise<void> {
    await this.q('UPDATE dashboard_sessions SET seen_at = ? WHERE id_hash = ?', [seenAt, idHash]);
  }

  async reauthenticated(idHash: string, at: string): Promise<void> {
    await this.q('UPDATE dashboard_sessions SET auth_at = ?, seen_at = ? WHERE id_hash = ?', [at, at, idHash]);
  }

  async deleteSession(idHash: string): Promise<void> {
    await this.q('DELETE FROM dashboard_flashes WHERE session_hash = ?', [idHash]);
    await this.q('DELETE FROM dashboard_sessions WHERE id_hash = ?', [idHash]);
  }

  /** Ends every session of a person (a password changed, the person removed). */
  async deletePersonSessions(personId: string): Promise<void> {
    await this.q('DELETE FROM dashboard_sessions WHERE person_id = ?', [personId]);
  }

  /** Forgets the sessions last seen before `seenBefore` or begun before `createdBefore`, and their flashes. */
  async purge(seenBefore: string, createdBefore: string): Promise<void> {
    await this.q('DELETE FROM dashboard_sessions WHERE seen_at < ? OR created_at < ?', [seenBefore, createdBefore]);
    await this.q('DELETE FROM dashboard_flashes WHERE created_at < ?', [createdBefore]);
  }

  async throttle(subject: string): Promise<ThrottleRow | undefined> {
    const { rows } = await this.q('SELECT subject, failures, first_at, locked_until FROM dashboard_throttle WHERE subject = ?', [subject]);
    const r = rows[0];
    return r
      ? {
          subject: String(r.subject),
          failures: Number(r.failures),
          first_at: String(r.first_at),
          locked_until: (r.locked_until as string | null) ?? null,
        }
      : undefined;
  }

  async putThrottle(t: ThrottleRow): Promise<void> {
    await this.q(
      `INSERT INTO dashboard_throttle (subject, failures, first_at, locked_until) VALUES (?, ?, ?, ?)
       ON CONFLICT (subject) DO UPDATE SET failures = excluded.failures, first_at = excluded.first_at, locked_until = excluded.locked_until`,
      [t.subject, t.failures, t.first_at, t.locked_until],
    );
  }

  async clearThrottle(subject: string): Promise<void> {
    await this.q('DELETE FROM dashboard_throttle WHERE subject = ?', [subject]);
  }

  /** Claims a flash id for a session: false when it was claimed already (a second submission of the same form). */
  async claimFlash(id: string, sessionHash: string, at: string): Promise<boolean> {
    const { changes } = await this.q(
      'INSERT INTO dashboard_flashes (id, session_hash, body, taken, created_at) VALUES (?, ?, NULL, 0, ?) ON CONFLICT (id) DO NOTHING',
      [id, sessionHash, at],
    );
    return changes > 0;
  }

  async fillFlash(id: string, body: string): Promise<void> {
    await this.q('UPDATE dashboard_flashes SET body = ? WHERE id = ? AND taken = 0', [body, id]);
  }

  /** A claimed flash given up (the creation failed): the form may be sent again. */
  async dropFlash(id: string): Promise<void> {
    await this.q('DELETE FROM dashboard_flashes WHERE id = ?', [id]);
  }

  /** Reads a flash of this session once (one reader wins): its body is deleted as it is read. */
  async takeFlash(id: string, sessionHash: string): Promise<FlashTake> {
    // RETURNING gives the row as updated: `taken` is set by this statement (one reader only), the body cleared by the next.
    const { rows } = await this.q(
      'UPDATE dashboard_flashes SET taken = 1 WHERE id = ? AND session_hash = ? AND taken = 0 AND body IS NOT NULL RETURNING body',
      [id, sessionHash],
    );
    if (rows[0]) {
      await this.q('UPDATE dashboard_flashes SET body = NULL WHERE id = ?', [id]);
      return { state: 'ready', body: String(rows[0].body) };
    }
    const left = await this.q('SELECT taken FROM dashboard_flashes WHERE id = ? AND session_hash = ?', [id, sessionHash]);
    if (!left.rows[0]) return { state: 'absent' };
    return { state: Number(left.rows[0].taken) ? 'taken' : 'pending' };
  }

  /** Sessions and audio seconds per key and UTC day from `fromDay` on, for one organisation (the daily rollup: one query). */
  async dailyUsage(orgId: string, fromDay: string): Promise<Array<{ key_id: string; day: string; sessions: number }>> {
    const { rows } = await this.q(
      'SELECT key_id, day, SUM(sessions) AS sessions FROM usage_daily WHERE org_id = ? AND day >= ? GROUP BY key_id, day',
      [orgId, fromDay],
    );
    return rows.map((r) => ({ key_id: String(r.key_id), day: String(r.day), sessions: Number(r.sessions) }));
  }
}

function toAccount(r: Record<string, unknown>): Account {
  return {
    person: {
      id: String(r.id),
      org_id: String(r.org_id),
      email: String(r.email),
      display_name: String(r.display_name),
      role: r.role as Person['role'],
      created_at: String(r.created_at),
    },
    password_hash: (r.password_hash as string | null) ?? null,
    locale: (r.locale as string | null) ?? null,
  };
}
