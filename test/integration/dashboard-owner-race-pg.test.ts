/**
 * Two dashboard requests at the same moment on two instances of the service sharing a real PostgreSQL (the
 * test harness's): the organisation's only two owners remove each other, round after round (a new second
 * owner each round); and two people revoke the same key. "Never remove the last owner": in each round
 * exactly one removal succeeds, the other is refused in its page (409, "last owner") or finds its sender
 * signed out (removed already), one owner remains, with their key still working, and the audit log has one
 * `person.deleted` success. A revocation: one answer "revoked", the other "already revoked", audited once,
 * nothing else touched. Plain HTTP (no browser): `DashboardClient`, as curl with a cookie jar.
 * `DICTEE_RACE_ROUNDS` sets the number of rounds (default 8).
 */
import assert from 'node:assert/strict';
import type pg from 'pg';
import { hashPassword } from '../../src/server/dashboard/passwords';
import { type TestPostgres, startPostgres } from '../helpers/backends';
import { startInstances, stopAll } from '../helpers/cluster';
import { DashboardClient, type PageAnswer } from '../helpers/dashboardHttp';
import type { TestServer } from '../helpers/server';
import { call } from '../helpers/team';
import { waitFor } from '../helpers/wait';
import { testPool } from '../helpers/pgPool';

const ROUNDS = Number(process.env.DICTEE_RACE_ROUNDS ?? 8);

interface Owner {
  id: string;
  email: string;
  password: string;
  key: string;
}

interface AuditEntry {
  seq: number;
  action: string;
  target: string;
  outcome: string;
}

describe('dashboard on PostgreSQL: two owners removing each other at once, two revocations of one key', function () {
  this.timeout(60_000 + ROUNDS * 20_000);
  let postgres: TestPostgres;
  let servers: TestServer[] = [];
  let db: pg.Pool;
  /** The owner left by the first test. */
  let lastOwner: Owner | undefined;

  before(async () => {
    postgres = await startPostgres();
    const database = await postgres.createDatabase('owner_race');
    servers = await startInstances(2, { database });
    db = testPool(database);
  });
  after(async () => {
    await stopAll(servers);
    await db?.end();
    await postgres?.destroy();
  });

  const master = (): string => servers[0]!.masterKey;

  async function api(method: string, path: string, body: unknown): Promise<Record<string, unknown>> {
    const res = await fetch(`${servers[0]!.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${master()}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    assert.ok(res.ok, `${method} ${path}: ${JSON.stringify(json)}`);
    return json;
  }

  /** A person with a password (set as the dashboard sets it) and a personal key. */
  async function newPerson(name: string, role: 'owner' | 'admin'): Promise<Owner> {
    const email = `${name}@example.org`;
    const person = (await api('POST', '/v1/people', { email, display_name: name, role })).person as { id: string };
    const password = `a long password for ${name}`;
    await db.query('UPDATE people SET password_hash = $1 WHERE id = $2', [await hashPassword(password), person.id]);
    const key = await api('POST', '/v1/api-keys', {
      name: `${name} laptop`,
      type: 'personal',
      person_id: person.id,
      permissions: ['read', 'write'],
    });
    return { id: person.id, email, password, key: String(key.key) };
  }

  async function owners(): Promise<string[]> {
    return (await db.query<{ id: string }>("SELECT id FROM people WHERE role = 'owner' ORDER BY id")).rows.map((r) => r.id);
  }

  async function audit(action: string): Promise<AuditEntry[]> {
    const answer = await call(servers[0]!.url, 'GET', `/v1/audit?action=${action}`, master());
    assert.equal(answer.status, 200, answer.text);
    return answer.json.entries as AuditEntry[];
  }

  /** Signs both in, each on their own instance, opens both confirmations, then sends both POSTs together. */
  async function atOnce(
    who: [Owner, Owner],
    page: (i: number) => string,
    fields: (i: number) => Record<string, string>,
  ): Promise<PageAnswer[]> {
    const clients = who.map((o, i) => new DashboardClient(servers[i]!.url));
    await Promise.all(clients.map((c, i) => c.signIn(who[i]!.email, who[i]!.password)));
    const tokens = await Promise.all(clients.map((c, i) => c.csrf(page(i))));
    return Promise.all(clients.map((c, i) => c.post(page(i), { _csrf: tokens[i]!, ...fields(i) })));
  }

  it(`two owners removing each other at once (${ROUNDS} rounds): one succeeds, the other is refused, one owner remains`, async () => {
    let survivor = await newPerson('owner0', 'owner');
    const refusals = { lastOwner: 0, signedOut: 0 };
    for (let round = 1; round <= ROUNDS; round++) {
      const other = await newPerson(`owner${round}`, 'owner');
      const pair: [Owner, Owner] = [survivor, other];
      assert.deepEqual(await owners(), pair.map((o) => o.id).sort(), 'two owners before the round');
      // The entries of earlier rounds (all written: each round waits for its own) are left out.
      const before = Math.max(0, ...(await audit('person.deleted')).map((e) => Number(e.seq)));
      const answers = await atOnce(
        pair,
        (i) => `/dashboard/people/${pair[1 - i]!.id}/remove`,
        (i) => ({ confirm_email: pair[1 - i]!.email }),
      );
      const won = answers.map((a) => a.status === 303 && a.location === '/dashboard/people?removed=1');
      assert.equal(won.filter(Boolean).length, 1, `round ${round}: exactly one removal succeeds (answers ${answers.map((a) => a.status)})`);
      const w = won.indexOf(true);
      const lost = answers[1 - w]!;
      if (lost.status === 409) {
        assert.match(lost.text, /last owner; make another person owner first/, `round ${round}: the refusal says why`);
        refusals.lastOwner++;
      } else {
        // Its sender was removed (and signed out) before its request was read: sent to the sign-in.
        assert.equal(lost.status, 303, `round ${round}: ${lost.status} ${lost.text.slice(0, 300)}`);
        assert.match(lost.location ?? '', /^\/dashboard\/sign-in/);
        refusals.signedOut++;
      }
      const kept = pair[w]!;
      const removed = pair[1 - w]!;
      assert.deepEqual(await owners(), [kept.id], `round ${round}: one owner remains`);
      assert.notEqual(
        (await call(servers[1]!.url, 'GET', '/v1/usage', kept.key)).status,
        401,
        `round ${round}: the owner's key still works`,
      );
      assert.equal(
        (await call(servers[1]!.url, 'GET', '/v1/usage', removed.key)).status,
        401,
        `round ${round}: the removed one's key is revoked`,
      );
      const mine = (e: AuditEntry): boolean => Number(e.seq) > before && (e.target === kept.id || e.target === removed.id);
      const expected = lost.status === 409 ? 2 : 1;
      const entries = await waitFor(
        async () => {
          const found = (await audit('person.deleted')).filter(mine);
          return found.length >= expected ? found : undefined;
        },
        10_000,
        `round ${round}: the audit entries of both requests`,
      );
      assert.deepEqual(
        entries.filter((e) => e.outcome === 'success').map((e) => e.target),
        [removed.id],
        `round ${round}: one person.deleted`,
      );
      survivor = kept;
    }
    lastOwner = survivor;
    console.log(`      ${ROUNDS} rounds: ${refusals.lastOwner} refused as the last owner, ${refusals.signedOut} found signed out`);
  });

  it('two people revoking the same key at once: one revokes it, the other is told it was already revoked; audited once', async () => {
    const first = lastOwner ?? (await newPerson('owner-keys', 'owner'));
    const admin = await newPerson('admin1', 'admin');
    const bystander = await newPerson('member1', 'admin');
    const target = await api('POST', '/v1/api-keys', {
      name: 'Ward 3 dictation',
      type: 'personal',
      person_id: admin.id,
      permissions: ['read', 'write'],
    });
    const id = String(target.id);
    const answers = await atOnce(
      [first, admin],
      () => `/dashboard/keys/${id}/revoke`,
      () => ({ confirm_name: 'Ward 3 dictation' }),
    );
    const revoked = answers.filter((a) => a.status === 303 && a.location === `/dashboard/keys/${id}/revoked`);
    const already = answers.filter((a) => a.status === 409 && /was already revoked, on .*: nothing more to do/.test(a.text));
    assert.deepEqual([revoked.length, already.length], [1, 1], `answers ${answers.map((a) => `${a.status} ${a.location}`)}`);
    assert.equal((await call(servers[0]!.url, 'GET', '/v1/usage', String(target.key))).status, 401);
    assert.notEqual((await call(servers[0]!.url, 'GET', '/v1/usage', admin.key)).status, 401, "the admin's own key is untouched");
    assert.notEqual((await call(servers[0]!.url, 'GET', '/v1/usage', bystander.key)).status, 401, 'another key is untouched');
    const entries = await waitFor(
      async () => {
        const found = (await audit('key.revoked')).filter((e) => e.target === id);
        return found.length >= 1 ? found : undefined;
      },
      10_000,
      'the revocation audited',
    );
    assert.equal(entries.length, 1, 'audited once');

    // The keys API, on both instances at once: both answer with the one revocation time; the key stays listed.
    const again = await api('POST', '/v1/api-keys', {
      name: 'Ward 4 dictation',
      type: 'personal',
      person_id: admin.id,
      permissions: ['read'],
    });
    const both = await Promise.all(servers.map((s) => call(s.url, 'DELETE', `/v1/api-keys/${String(again.id)}`, master())));
    assert.deepEqual(
      both.map((b) => b.status),
      [200, 200],
    );
    assert.equal(both[0]!.json.revoked_at, both[1]!.json.revoked_at, 'one revocation time');
    const listed = (await call(servers[1]!.url, 'GET', '/v1/api-keys', master())).json.keys as Array<{
      id: string;
      revoked_at: string | null;
    }>;
    assert.equal(listed.find((k) => k.id === String(again.id))?.revoked_at, both[0]!.json.revoked_at, 'the revoked key is kept, revoked');
    const twice = await waitFor(
      async () => {
        const found = (await audit('key.revoked')).filter((e) => e.target === String(again.id));
        return found.length >= 1 ? found : undefined;
      },
      10_000,
      'the API revocation audited',
    );
    assert.equal(twice.length, 1, 'audited once');
  });
});
