/**
 * `users add` is audited: a new person (the first owner included) as `person.created`, an existing person
 * given a password and a role as `person.updated`, each with the command line as the actor (`cli:<user>`),
 * the person's id as the target, no address, on the organisation's chain; never the email or the password.
 * The chain still verifies (`audit verify`) when `users add` runs while the service appends its own entries:
 * on SQLite (another process on the same database file) and on a real PostgreSQL started by the harness.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cliActor } from '../../src/server/dashboard/usersCommand';
import { usersAdd } from '../helpers/dashboard';
import { type TestPostgres, startPostgres } from '../helpers/backends';
import { startInstances } from '../helpers/cluster';
import { SERVER_JS, type TestServer, useServer } from '../helpers/server';

type Entry = Record<string, string | number | null>;

const OWNER = { email: 'olga@example.org', role: 'owner', password: 'a long password for Olga' };

async function auditEntries(server: TestServer): Promise<Entry[]> {
  const res = await fetch(`${server.url}/v1/audit?format=jsonl`, { headers: { authorization: `Bearer ${server.masterKey}` } });
  assert.equal(res.status, 200);
  return (await res.text())
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Entry);
}

/** `node dist/server.js audit verify …`: its exit code and output. */
function auditVerify(where: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [SERVER_JS, 'audit', 'verify', ...where], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (out += d.toString()));
    p.on('close', (code) => resolve({ code, out }));
  });
}

function personIdOf(out: string): string {
  const m = /: (person_\S+) \(/.exec(out);
  assert.ok(m, `a person id in ${JSON.stringify(out)}`);
  return m[1]!;
}

async function assertVerifies(where: string[], entries: number): Promise<void> {
  const v = await auditVerify(where);
  assert.equal(v.code, 0, v.out);
  assert.match(v.out, new RegExp(`^audit log intact: ${entries} entries in \\d+ chain\\(s\\)`));
}

/** The first owner, then the same person again (new password, role owner), each one entry; the chain verifies. */
async function auditsAddAndUpdate(server: TestServer, where: string[]): Promise<void> {
  const before = await auditEntries(server);
  const added = await usersAdd(where, OWNER);
  assert.equal(added.code, 0, added.err);
  assert.match(added.out, /^person added: /);
  const id = personIdOf(added.out);
  const afterAdd = await auditEntries(server);
  assert.equal(afterAdd.length, before.length + 1, 'one entry for the new owner');
  const created = afterAdd.find((e) => e.action === 'person.created' && e.target === id);
  assert.ok(created, `a person.created entry for ${id}`);
  assert.equal(created.actor, cliActor());
  assert.match(String(created.actor), /^cli(:[A-Za-z0-9_.-]+)?$/);
  assert.equal(created.ip, null);
  assert.equal(created.outcome, 'success');

  const again = await usersAdd(where, { ...OWNER, password: 'another long password for Olga' });
  assert.equal(again.code, 0, again.err);
  assert.match(again.out, /^password and role set: /);
  const afterUpdate = await auditEntries(server);
  assert.equal(afterUpdate.length, before.length + 2, 'one entry for the owner made again');
  const updated = afterUpdate.find((e) => e.action === 'person.updated' && e.target === id);
  assert.ok(updated, `a person.updated entry for ${id}`);
  assert.equal(updated.actor, cliActor());
  assert.equal(updated.org_id, created.org_id);
  assert.ok(Number(updated.seq) > Number(created.seq));

  const text = JSON.stringify(afterUpdate);
  for (const secret of [OWNER.email, OWNER.password, 'another long password for Olga'])
    assert.ok(!text.includes(secret), `no entry holds ${secret}`);
  await assertVerifies(where, afterUpdate.length);
}

/** Several `users add` at once while the service records key creations: every entry there, the chain intact. */
async function auditsWhileTheServiceWrites(server: TestServer, where: string[]): Promise<void> {
  const before = await auditEntries(server);
  let adding = true;
  let keys = 0;
  const serviceWrites = (async () => {
    while (adding) {
      await server.createKey({ name: `busy ${keys}` });
      keys++;
    }
  })();
  const people = Array.from({ length: 4 }, (_, i) => ({
    email: `p${i}@example.org`,
    role: 'owner',
    password: `a long password number ${i}`,
  }));
  const results = await Promise.all(people.map((p) => usersAdd(where, p))).finally(() => (adding = false));
  await serviceWrites;
  for (const r of results) assert.equal(r.code, 0, r.out + r.err);
  assert.ok(keys > 0, 'the service wrote entries meanwhile');
  const after = await auditEntries(server);
  const ids = results.map((r) => personIdOf(r.out));
  for (const id of ids)
    assert.equal(after.filter((e) => e.action === 'person.created' && e.target === id && e.actor === cliActor()).length, 1, id);
  assert.equal(after.length, before.length + ids.length + keys, 'every entry of the service and of users add');
  await assertVerifies(where, after.length);
}

describe('users add is audited (SQLite)', function () {
  this.timeout(90_000);
  const server = useServer();

  it('records the first owner (person.created) and an owner made again (person.updated), actor the command line', async () => {
    await auditsAddAndUpdate(server, ['--data-dir', server.dataDir]);
  });

  it('keeps the chain valid when users add runs while the service appends', async () => {
    await auditsWhileTheServiceWrites(server, ['--data-dir', server.dataDir]);
  });
});

describe('users add is audited (PostgreSQL)', function () {
  this.timeout(120_000);
  let postgres: TestPostgres;
  let server: TestServer;
  let where: string[];

  before(async () => {
    postgres = await startPostgres();
    const database = await postgres.createDatabase('users_add_audit');
    [server] = (await startInstances(1, { database })) as [TestServer];
    where = ['--database', database];
  });
  after(async () => {
    await server?.stop();
    await postgres?.destroy();
  });

  it('records the first owner (person.created) and an owner made again (person.updated), actor the command line', async () => {
    await auditsAddAndUpdate(server, where);
  });

  it('keeps the chain valid when users add runs while the service appends', async () => {
    await auditsWhileTheServiceWrites(server, where);
  });
});
