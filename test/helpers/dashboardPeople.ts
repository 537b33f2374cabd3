/**
 * What the People page's browser tests read and write beside the pages: the rows that hold something of a
 * person in the service's SQLite database, a confirmed second factor as the Security page leaves it, and a
 * dashboard form POSTed from a page with its CSRF token (a forged request, as a script of the page could send).
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { sql } from './dashboardPages';
import type { TestServer } from './server';

export const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

/** How many rows of each table hold something of this person. */
export function rowsOf(s: TestServer, personId: string) {
  const db = new Database(path.join(s.dataDir, 'dictee.sqlite'), { readonly: true });
  const count = (table: string, column = 'person_id'): number =>
    (db.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${column} = ?`).get(personId) as { n: number }).n;
  const out = {
    people: count('people', 'id'),
    dashboard_sessions: count('dashboard_sessions'),
    second_factors: count('second_factors'),
    recovery_codes: count('recovery_codes'),
    dashboard_invites: count('dashboard_invites'),
    live_keys: (db.prepare('SELECT count(*) AS n FROM api_keys WHERE person_id = ? AND revoked_at IS NULL').get(personId) as { n: number })
      .n,
  };
  db.close();
  return out;
}

/** A confirmed second factor (the secret kept `plain:`: no --mfa-key-file) with two recovery codes, as the Security page leaves it. */
export function seedSecondFactor(s: TestServer, personId: string): void {
  const at = new Date().toISOString();
  sql(
    s,
    'INSERT INTO second_factors (person_id, secret, confirmed_at, last_step, created_at) VALUES (?, ?, ?, 0, ?)',
    personId,
    `plain:${SECRET}`,
    at,
    at,
  );
  for (const n of [0, 1])
    sql(s, 'INSERT INTO recovery_codes (person_id, n, hash, used_at) VALUES (?, ?, ?, NULL)', personId, n, `hash-${n}`);
}

/** A POST of a dashboard form from the page, with its CSRF token: the answer's status. */
export function postFrom(page: Page, action: string, fields: Record<string, string>): Promise<number> {
  return page.evaluate(
    async ({ action, fields }) => {
      const doc = (globalThis as unknown as { document: { querySelector(s: string): { getAttribute(n: string): string | null } | null } })
        .document;
      const body = new URLSearchParams({ ...fields, _csrf: doc.querySelector('input[name=_csrf]')?.getAttribute('value') ?? '' });
      const res = await fetch(action, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: String(body),
      });
      return res.status;
    },
    { action, fields },
  );
}
