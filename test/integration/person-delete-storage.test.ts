/**
 * A person deleted (`TeamStore.deletePerson`, whatever asks for it: `DELETE /v1/people/{id}` or the People
 * page) takes with them all that is theirs but their keys, on SQLite and on a real PostgreSQL started by the
 * harness alike: project memberships, dashboard sessions and their flashes, second factor, recovery codes,
 * waiting sign-ins, open invitations, sign-in throttle rows. Another person's rows are left as they were.
 * Also the People page's one query of who has a second factor (`confirmedIn`), on both.
 */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { openPool } from '../../src/server/storage/pg/connect';
import { prepareDatabase } from '../../src/server/storage/pg/migrations';
import { PgTeams } from '../../src/server/storage/pg/teams';
import { poolTransaction } from '../../src/server/storage/pg/transaction';
import { type SqliteStore } from '../../src/server/storage/db';
import { DashboardStore, pgQuery, sqliteQuery } from '../../src/server/storage/dashboard';
import { SecondFactorStore } from '../../src/server/storage/secondFactor';
import { migrateSqlite } from '../../src/server/storage/sqliteMigrations';
import { SqliteTeams } from '../../src/server/storage/teamsSqlite';
import type { TeamStore } from '../../src/server/storage/teams';
import { type TestPostgres, startPostgres } from '../helpers/backends';

type Query = (sql: string, params: unknown[]) => Promise<{ rows: Array<Record<string, unknown>>; changes: number }>;

const AT = '2026-11-28T08:00:00.000Z';
const TABLES: Array<[table: string, where: string]> = [
  ['people', 'id = ?'],
  ['project_members', 'person_id = ?'],
  ['dashboard_sessions', 'person_id = ?'],
  ['dashboard_flashes', "session_hash = 'session-of-' || ?"],
  ['second_factors', 'person_id = ?'],
  ['recovery_codes', 'person_id = ?'],
  ['second_factor_challenges', 'person_id = ?'],
  ['dashboard_invites', 'person_id = ?'],
  ['dashboard_throttle', "subject IN ('person:' || ?, 'code:person:' || ?)"],
];

/** Everything a person can have but keys, through the stores that write it. */
async function seed(teams: TeamStore, q: Query, id: string, orgId: string): Promise<void> {
  await teams.createPerson({ id, org_id: orgId, email: `${id}@example.org`, display_name: id, role: 'member', created_at: AT });
  await teams.createProject({ id: `proj-${id}`, org_id: orgId, name: `Project ${id}`, created_at: AT });
  await teams.setMember(orgId, { project_id: `proj-${id}`, person_id: id, role: 'admin', created_at: AT });
  const dash = new DashboardStore(q);
  await dash.createSession({
    id_hash: `session-of-${id}`,
    person_id: id,
    org_id: orgId,
    csrf: 'c',
    created_at: AT,
    seen_at: AT,
    auth_at: AT,
  });
  assert.equal(await dash.claimFlash(`flash-${id}`, `session-of-${id}`, AT), true);
  await dash.putThrottle({ subject: `person:${id}`, failures: 2, first_at: AT, locked_until: null });
  await dash.putThrottle({ subject: `code:person:${id}`, failures: 1, first_at: AT, locked_until: null });
  const mfa = new SecondFactorStore(q);
  assert.equal(await mfa.begin(id, 'plain:SECRET', AT), true);
  assert.equal(await mfa.confirm(id, 1, AT, ['h0', 'h1']), true);
  await mfa.createChallenge({ id_hash: `challenge-${id}`, person_id: id, next: '/dashboard/keys', created_at: AT });
  await q('INSERT INTO dashboard_invites (code_hash, person_id, org_id, created_by, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)', [
    `invite-${id}`,
    id,
    orgId,
    'person:someone',
    AT,
    '2026-12-05T08:00:00.000Z',
  ]);
}

/** Rows per table that hold something of the person. */
async function counts(q: Query, id: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [table, where] of TABLES) {
    const params = where
      .split('?')
      .slice(1)
      .map(() => id);
    const { rows } = await q(`SELECT count(*) AS n FROM ${table} WHERE ${where.replace(/'\s*\|\|\s*\?/g, "' || CAST(? AS TEXT)")}`, params);
    out[table] = Number(rows[0]!.n);
  }
  return out;
}

async function checkDelete(teams: TeamStore, q: Query, orgId: string): Promise<void> {
  await seed(teams, q, 'gone', orgId);
  await seed(teams, q, 'kept', orgId);
  const full = {
    people: 1,
    project_members: 1,
    dashboard_sessions: 1,
    dashboard_flashes: 1,
    second_factors: 1,
    recovery_codes: 2,
    second_factor_challenges: 1,
    dashboard_invites: 1,
    dashboard_throttle: 2,
  };
  assert.deepEqual(await counts(q, 'gone'), full);
  const mfa = new SecondFactorStore(q);
  assert.deepEqual([...(await mfa.confirmedIn(orgId))].sort(), ['gone', 'kept']);
  assert.deepEqual([...(await mfa.confirmedIn('another-org'))], []);
  assert.deepEqual(await teams.deletePerson('gone', AT), { outcome: 'removed', revokedKeys: [] });
  assert.deepEqual([...(await mfa.confirmedIn(orgId))], ['kept']);
  assert.deepEqual(
    await counts(q, 'gone'),
    Object.fromEntries(Object.keys(full).map((k) => [k, 0])),
    'nothing of the deleted person is left',
  );
  assert.deepEqual(await counts(q, 'kept'), full, "another person's rows are untouched");
  assert.equal(await teams.getPerson('gone'), undefined);
}

describe('a deleted person takes their dashboard rows with them', function () {
  this.timeout(60_000);

  it('on SQLite', async () => {
    const db = new Database(':memory:');
    migrateSqlite(db);
    db.prepare("INSERT INTO orgs (id, name, created_at) VALUES ('org1', 'Org', ?)").run(AT);
    await checkDelete(new SqliteTeams({ db, orgId: 'org1' } as SqliteStore), sqliteQuery(db), 'org1');
    db.close();
  });

  describe('on PostgreSQL', () => {
    let server: TestPostgres;
    let pool: pg.Pool | undefined;
    before(async () => {
      server = await startPostgres();
    });
    after(async () => {
      await pool?.end();
      await server?.destroy();
    });

    it('the same, in one transaction', async () => {
      pool = await openPool(await server.createDatabase('person_delete'));
      const prepared = await prepareDatabase(pool, `master_${'x1y2z3'.repeat(6)}`, () => undefined);
      const p = pool;
      const teams = new PgTeams((text, params) => p.query(text, params), prepared.orgId, poolTransaction(p));
      await checkDelete(
        teams,
        pgQuery((text, params) => p.query(text, params)),
        prepared.orgId,
      );
    });
  });
});
