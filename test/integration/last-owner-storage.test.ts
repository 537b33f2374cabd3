/**
 * "Never remove the last owner", in the stores (`TeamStore.deletePerson`, `updatePerson`), on SQLite and on a
 * real PostgreSQL started by the harness: the last owner is neither removed nor demoted (nothing of theirs
 * touched, their keys live); a removal revokes the person's live keys in the same transaction and marks them
 * for announcement; a person removed already is `gone`. On PostgreSQL, two stores on two pools (as two
 * instances) remove the only two owners of an organisation from each other at once, and remove one while
 * demoting the other, round after round: exactly one succeeds each time and one owner remains.
 */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { type SqliteStore } from '../../src/server/storage/db';
import { openPool } from '../../src/server/storage/pg/connect';
import { prepareDatabase } from '../../src/server/storage/pg/migrations';
import { PgTeams } from '../../src/server/storage/pg/teams';
import { poolTransaction } from '../../src/server/storage/pg/transaction';
import { migrateSqlite } from '../../src/server/storage/sqliteMigrations';
import { type TeamStore, LAST_OWNER, TeamRequestError } from '../../src/server/storage/teams';
import { SqliteTeams } from '../../src/server/storage/teamsSqlite';
import { type TestPostgres, startPostgres } from '../helpers/backends';

type Run = (sql: string, params: unknown[]) => Promise<Array<Record<string, unknown>>>;

const AT = '2026-11-28T08:00:00.000Z';
const LATER = '2026-11-28T09:00:00.000Z';

async function addOwner(teams: TeamStore, run: Run, id: string, orgId: string, role: 'owner' | 'admin' = 'owner'): Promise<void> {
  await teams.createPerson({ id, org_id: orgId, email: `${id}@example.org`, display_name: id, role, created_at: AT });
  await run(
    `INSERT INTO api_keys (id, hash, hint, name, type, project_id, permissions, environment, org_id, created_at, revoked_at, person_id)
     VALUES (?, ?, 'h', ?, 'personal', NULL, '["read"]', 'live', ?, ?, NULL, ?)`,
    [`key-${id}`, `hash-${id}`, `laptop ${id}`, orgId, AT, id],
  );
}

async function checkRules(teams: TeamStore, run: Run, orgId: string): Promise<void> {
  await addOwner(teams, run, 'alice', orgId);
  assert.deepEqual(await teams.deletePerson('alice', LATER), { outcome: 'last_owner' });
  await assert.rejects(teams.updatePerson('alice', { role: 'admin' }), (e) => e instanceof TeamRequestError && e.message === LAST_OWNER);
  assert.equal((await teams.getPerson('alice'))?.role, 'owner', 'the last owner is kept, an owner');
  assert.deepEqual(await teams.personKeys('alice'), ['key-alice'], "the last owner's key is live");

  await addOwner(teams, run, 'bob', orgId);
  assert.deepEqual(await teams.deletePerson('alice', LATER), { outcome: 'removed', revokedKeys: ['key-alice'] });
  const key = (await run('SELECT revoked_at FROM api_keys WHERE id = ?', ['key-alice']))[0];
  assert.equal(key?.revoked_at, LATER, 'the key is kept, revoked');
  assert.deepEqual(await run('SELECT key_id FROM pending_revocations', []), [{ key_id: 'key-alice' }], 'announced to other instances');
  assert.deepEqual(await teams.deletePerson('alice', LATER), { outcome: 'gone' });
  assert.deepEqual(await teams.deletePerson('bob', LATER), { outcome: 'last_owner' });
  // An owner demoted while another remains; the last one is not.
  await addOwner(teams, run, 'carol', orgId);
  assert.equal((await teams.updatePerson('carol', { role: 'admin' }))?.role, 'admin');
  await assert.rejects(teams.updatePerson('bob', { role: 'member' }), TeamRequestError);
  assert.equal((await teams.updatePerson('bob', { display_name: 'Bob' }))?.display_name, 'Bob', 'other changes of the last owner are made');
  assert.deepEqual(await teams.deletePerson('carol', LATER), { outcome: 'removed', revokedKeys: ['key-carol'] });
}

describe('the last owner of an organisation, in the stores', function () {
  this.timeout(60_000);

  it('on SQLite', async () => {
    const db = new Database(':memory:');
    migrateSqlite(db);
    db.prepare("INSERT INTO orgs (id, name, created_at) VALUES ('org1', 'Org', ?)").run(AT);
    const run: Run = async (sql, params) => {
      const st = db.prepare(sql);
      return st.reader ? (st.all(...params) as Array<Record<string, unknown>>) : (st.run(...params), []);
    };
    await checkRules(new SqliteTeams({ db, orgId: 'org1' } as SqliteStore), run, 'org1');
    db.close();
  });

  describe('on PostgreSQL', () => {
    let server: TestPostgres;
    const pools: pg.Pool[] = [];
    let orgId = '';
    let stores: PgTeams[] = [];
    let run: Run;
    before(async () => {
      server = await startPostgres();
      const url = await server.createDatabase('last_owner');
      for (let i = 0; i < 2; i++) pools.push(await openPool(url));
      orgId = (await prepareDatabase(pools[0]!, `master_${'x1y2z3'.repeat(6)}`, () => undefined)).orgId;
      stores = pools.map((p) => new PgTeams((text, params) => p.query(text, params), orgId, poolTransaction(p)));
      run = async (sql, params) => {
        let n = 0;
        return (
          await pools[0]!.query(
            sql.replace(/\?/g, () => `$${++n}`),
            params,
          )
        ).rows as Array<Record<string, unknown>>;
      };
    });
    after(async () => {
      for (const p of pools) await p.end();
      await server?.destroy();
    });

    it('the same rules', async () => {
      await checkRules(stores[0]!, run, orgId);
    });

    it('two owners removed from each other at once, or one removed while the other is demoted: one succeeds, one owner remains', async () => {
      const owners = async (): Promise<string[]> =>
        (await run("SELECT id FROM people WHERE org_id = ? AND role = 'owner' ORDER BY id", [orgId])).map((r) => String(r.id));
      let survivor = (await owners())[0]!; // bob, from the rules
      for (let round = 1; round <= 20; round++) {
        const other = `owner-${round}`;
        await addOwner(stores[0]!, run, other, orgId);
        const pair = [survivor, other];
        const demote = round % 2 === 0;
        const outcomes = await Promise.all([
          stores[0]!.deletePerson(pair[1]!, LATER).then((d) => d.outcome),
          demote
            ? stores[1]!.updatePerson(pair[0]!, { role: 'admin' }).then(
                () => 'demoted',
                (e: unknown) => (e instanceof TeamRequestError ? 'last_owner' : Promise.reject(e)),
              )
            : stores[1]!.deletePerson(pair[0]!, LATER).then((d) => d.outcome),
        ]);
        const allowed = demote
          ? [
              ['last_owner', 'removed'],
              ['demoted', 'last_owner'],
            ]
          : [['last_owner', 'removed']];
        assert.ok(
          allowed.some((a) => JSON.stringify(a) === JSON.stringify([...outcomes].sort())),
          `round ${round}: exactly one succeeds (${outcomes})`,
        );
        const left = await owners();
        assert.equal(left.length, 1, `round ${round}: one owner remains (${outcomes})`);
        survivor = left[0]!;
        const keys = await run('SELECT revoked_at FROM api_keys WHERE person_id = ?', [survivor]);
        assert.deepEqual(keys, [{ revoked_at: null }], `round ${round}: the remaining owner's key is live`);
      }
    });
  });
});
