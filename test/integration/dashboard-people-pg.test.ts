/**
 * Removing a person from the People page on a service whose store is a real PostgreSQL (started by the test
 * harness): the owner and the person added with `users add --database`, the person given a key and a second
 * factor; the owner removes them through the dialog in Chromium; in PostgreSQL nothing of theirs is left
 * (sign-ins, second factor, recovery codes), their key is revoked, and the removal is audited. Skipped where
 * Chromium is not installed.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import type pg from 'pg';
import type { Browser } from 'playwright-core';
import { type TestPostgres, startPostgres } from '../helpers/backends';
import { startInstances } from '../helpers/cluster';
import { CHROMIUM, launch, newPage, signIn, type Seeded } from '../helpers/dashboardPages';
import { SERVER_JS, type TestServer } from '../helpers/server';
import { call } from '../helpers/team';
import { testPool } from '../helpers/pgPool';

/** `users add` on the service's database, without the master key (the operator's command needs none). */
function usersAdd(database: string, email: string, role: string, password: string): Promise<number | null> {
  return new Promise((resolve) => {
    const p = spawn(
      process.execPath,
      [SERVER_JS, 'users', 'add', '--email', email, '--role', role, '--password-stdin', '--database', database],
      {
        stdio: ['pipe', 'ignore', 'inherit'],
      },
    );
    p.on('close', resolve);
    p.stdin.end(`${password}\n`);
  });
}

describe('dashboard: removing a person on PostgreSQL (Chromium)', function () {
  this.timeout(120_000);
  let postgres: TestPostgres;
  let server: TestServer;
  let browser: Browser;
  let db: pg.Pool;
  let database = '';

  before(async function () {
    if (!existsSync(CHROMIUM)) this.skip();
    postgres = await startPostgres();
    database = await postgres.createDatabase('dashboard_people');
    [server] = (await startInstances(1, { database })) as [TestServer];
    db = testPool(database);
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await db?.end();
    await postgres?.destroy();
  });

  const count = async (table: string, column: string, id: string): Promise<number> =>
    Number((await db.query(`SELECT count(*) AS n FROM ${table} WHERE ${column} = $1`, [id])).rows[0].n);

  it('removes the person through the dialog: their rows gone from PostgreSQL, their key revoked, audited', async () => {
    const owner: Seeded = { id: '', email: 'olga@example.org', password: 'a long password for Olga', key: '', keyId: '' };
    assert.equal(await usersAdd(database, owner.email, 'owner', owner.password), 0);
    assert.equal(await usersAdd(database, 'bruno@example.org', 'member', 'a long password for Bruno'), 0);
    const people = (await call(server.url, 'GET', '/v1/people', server.masterKey)).json.people as Array<{ id: string; email: string }>;
    const bruno = people.find((p) => p.email === 'bruno@example.org')!;
    const key = await server.createKey({ name: 'Bruno laptop', type: 'personal', person_id: bruno.id, permissions: ['read', 'write'] });
    const at = new Date().toISOString();
    await db.query(
      "INSERT INTO second_factors (person_id, secret, confirmed_at, last_step, created_at) VALUES ($1, 'plain:JBSWY3DPEHPK3PXP', $2, 0, $2)",
      [bruno.id, at],
    );
    await db.query("INSERT INTO recovery_codes (person_id, n, hash, used_at) VALUES ($1, 0, 'h', NULL)", [bruno.id]);

    const { context, page, csp } = await newPage(browser);
    await signIn(page, server, owner, '/dashboard/people');
    await page.getByRole('link', { name: 'Remove bruno@example.org' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove person' });
    await dialog.getByRole('textbox').fill('bruno@example.org');
    await Promise.all([page.waitForURL(/removed=1/), dialog.getByRole('button', { name: 'Remove' }).click()]);
    assert.equal(await page.getByRole('status').innerText(), 'Removed: their keys are revoked and their sign-ins ended.');

    for (const [table, column] of [
      ['people', 'id'],
      ['second_factors', 'person_id'],
      ['recovery_codes', 'person_id'],
      ['dashboard_sessions', 'person_id'],
    ] as const) {
      assert.equal(await count(table, column, bruno.id), 0, table);
    }
    assert.equal((await call(server.url, 'GET', '/v1/usage', key.key)).status, 401, 'the key is revoked');
    const audit = (await call(server.url, 'GET', '/v1/audit', server.masterKey)).json.entries as Array<Record<string, string>>;
    assert.equal(audit.filter((e) => e.action === 'person.deleted' && e.target === bruno.id).length, 1);
    assert.deepEqual(csp, []);
    await context.close();
  });
});
