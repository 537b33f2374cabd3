/**
 * `users add` never demotes the organisation's last owner: an owner given again with `--role admin` or
 * `--role member` (and a new name and password) is refused with a clear error (exit 2) and nothing of theirs
 * changes (still owner, same name, same password); with a second owner the same command demotes them. On
 * SQLite (a running service's data dir) and on a real PostgreSQL started by the harness, where the demotion
 * takes the organisation's row lock as the dashboard's removals and role changes do: a demotion of the other
 * owner, made under that lock and not yet committed, makes `users add` wait, then refuse.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { usersAdd } from '../helpers/dashboard';
import { type TestPostgres, startPostgres } from '../helpers/backends';
import { startInstances } from '../helpers/cluster';
import { type TestServer, useServer } from '../helpers/server';
import { waitFor } from '../helpers/wait';
import { testPool } from '../helpers/pgPool';

const OWNER = { email: 'olga@example.org', password: 'a long password for Olga', name: 'Olga' };
const REFUSAL = /^error: --role: this person is the organisation's last owner; make another person owner first\n$/;

type Row = { role: string; display_name: string; password_hash: string };
type Where = string | string[];

/** Olga, the only owner, is refused a demotion to each lower role; `read` gives her row as stored. */
async function refusesLastOwner(where: Where, read: () => Promise<Row>): Promise<void> {
  const added = await usersAdd(where, { ...OWNER, role: 'owner' });
  assert.equal(added.code, 0, added.err);
  const before = await read();
  assert.equal(before.role, 'owner');
  for (const role of ['admin', 'member']) {
    const r = await usersAdd(where, { email: OWNER.email, role, password: 'another long password', name: 'Someone else' });
    assert.equal(r.code, 2, `--role ${role}: ${r.out}${r.err}`);
    assert.match(r.err, REFUSAL, `--role ${role}: the refusal says why`);
    assert.equal(r.out, '', `--role ${role}: nothing said done`);
    assert.deepEqual(await read(), before, `--role ${role}: still owner, same name and password`);
  }
}

/** With a second owner, Olga is demoted by the same command. */
async function demotesAnOwnerOfTwo(where: Where, read: () => Promise<Row>): Promise<void> {
  assert.equal((await usersAdd(where, { email: 'pia@example.org', role: 'owner', password: 'a long password for Pia' })).code, 0);
  const r = await usersAdd(where, { email: OWNER.email, role: 'admin', password: OWNER.password });
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^password and role set: person_\S+ \(olga@example\.org, admin\)/);
  assert.equal((await read()).role, 'admin');
}

describe('users add: the last owner is not demoted (SQLite)', function () {
  this.timeout(60_000);
  const server = useServer();

  it('refuses the demotion, changing nothing; demotes an owner of two', async () => {
    const read = async (): Promise<Row> => {
      const db = new Database(path.join(server.dataDir, 'dictee.sqlite'), { readonly: true });
      try {
        return db.prepare('SELECT role, display_name, password_hash FROM people WHERE email = ?').get(OWNER.email) as Row;
      } finally {
        db.close();
      }
    };
    await refusesLastOwner(server.dataDir, read);
    await demotesAnOwnerOfTwo(server.dataDir, read);
  });
});

describe('users add: the last owner is not demoted (PostgreSQL)', function () {
  this.timeout(120_000);
  let postgres: TestPostgres;
  let server: TestServer;
  let db: pg.Pool;
  let where: string[];

  before(async () => {
    postgres = await startPostgres();
    const database = await postgres.createDatabase('users_add_owner');
    [server] = (await startInstances(1, { database })) as [TestServer];
    db = testPool(database);
    where = ['--database', database];
  });
  after(async () => {
    await server?.stop();
    await db?.end();
    await postgres?.destroy();
  });

  const read = async (email = OWNER.email): Promise<Row> =>
    (await db.query<Row>('SELECT role, display_name, password_hash FROM people WHERE email = $1', [email])).rows[0]!;

  it('refuses the demotion, changing nothing; demotes an owner of two', async () => {
    await refusesLastOwner(where, () => read());
    await demotesAnOwnerOfTwo(where, () => read());
  });

  it("waits for the organisation's lock: an owner demoted meanwhile leaves the other the last one, refused", async () => {
    for (const [email, password] of [
      ['quinn@example.org', 'a long password for Quinn'],
      ['rosa@example.org', 'a long password for Rosa'],
    ] as const)
      assert.equal((await usersAdd(where, { email, role: 'owner', password })).code, 0);
    // Only Quinn and Rosa are owners now.
    await db.query("UPDATE people SET role = 'member' WHERE email NOT IN ('quinn@example.org', 'rosa@example.org')");
    const quinn = await read('quinn@example.org');
    const c = await db.connect();
    try {
      // As the dashboard demotes Rosa: under the organisation's row lock, not yet committed.
      await c.query('BEGIN');
      await c.query("SELECT id FROM orgs WHERE id = (SELECT org_id FROM people WHERE email = 'rosa@example.org') FOR UPDATE");
      await c.query("UPDATE people SET role = 'member' WHERE email = 'rosa@example.org'");
      let finished = false;
      const demoting = usersAdd(where, { email: 'quinn@example.org', role: 'member', password: 'another long password' }).finally(
        () => (finished = true),
      );
      const lockWaits = async (): Promise<boolean> =>
        (
          await db.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
          )
        ).rows[0]!.n > 0;
      const seen = await waitFor(
        async () => ((await lockWaits()) ? 'waiting' : finished ? 'finished' : undefined),
        30_000,
        "users add waiting for the organisation's lock",
      );
      assert.equal(seen, 'waiting', "users add waits for the organisation's lock (it finished without)");
      await c.query('COMMIT');
      const r = await demoting;
      assert.equal(r.code, 2, r.out + r.err);
      assert.match(r.err, REFUSAL);
    } finally {
      await c.query('ROLLBACK').catch(() => undefined);
      c.release();
    }
    assert.deepEqual(await read('quinn@example.org'), quinn, 'Quinn stays owner, unchanged');
    const owners = await db.query("SELECT email FROM people WHERE role = 'owner'");
    assert.deepEqual(owners.rows, [{ email: 'quinn@example.org' }], 'the organisation keeps one owner');
  });
});
