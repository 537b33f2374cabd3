/**
 * Usage, session listings and the audit log under the teams' scoping (scope.ts), against the BUILT service
 * on SQLite: a person's personal key reads that person's usage and sessions only; a project admin key never
 * another project's sessions; rolled and expired keys in the audit log (`key.expired` once per key).
 */
import assert from 'node:assert/strict';
import { type TestServer, useServer } from '../helpers/server';
import { scriptFile } from '../helpers/speech';
import { call, dictateFast } from '../helpers/team';
import { waitFor } from '../helpers/wait';

type Body = Record<string, unknown>;

async function send(s: TestServer, method: string, path: string, token: string, body: unknown): Promise<Body> {
  const res = await fetch(`${s.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Body;
  assert.ok(res.status === 201 || res.status === 200, `${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

let n = 0;
const unique = (what: string): string => `${what}-${++n}-${Date.now().toString(36)}`;

/** An organisation, its owner and the owner's personal admin key. */
async function newOrg(s: TestServer): Promise<{ orgId: string; ownerKey: string }> {
  const org = await send(s, 'POST', '/v1/orgs', s.masterKey, {
    name: unique('radiology'),
    owner: { email: `${unique('boss')}@example.org`, display_name: 'Dr Boss' },
  });
  const ownerId = String((org.owner as Body).id);
  const key = await send(s, 'POST', '/v1/api-keys', s.masterKey, {
    name: 'owner admin',
    type: 'personal',
    person_id: ownerId,
    permissions: ['read', 'write', 'admin'],
  });
  return { orgId: String((org.org as Body).id), ownerKey: String(key.key) };
}

/** A person of the organisation and a personal read/write key of theirs. */
async function personWithKey(s: TestServer, ownerKey: string, name: string): Promise<{ personId: string; key: string }> {
  const p = await send(s, 'POST', '/v1/people', ownerKey, { email: `${unique(name)}@example.org`, display_name: name });
  const personId = String((p.person as Body).id);
  const k = await send(s, 'POST', '/v1/api-keys', ownerKey, {
    name: unique(name),
    type: 'personal',
    person_id: personId,
    permissions: ['read', 'write'],
  });
  return { personId, key: String(k.key) };
}

describe('usage, sessions and audit under the teams scoping (built service, SQLite)', function () {
  this.timeout(60_000);
  const server: TestServer = useServer(() => ({ script: scriptFile('one two three four'), env: { DICTEE_KEY_RECHECK_MS: '200' } }));

  it("a person's personal read key sees only that person's usage and sessions; the owner's admin key sees both, grouped by person", async () => {
    const { ownerKey } = await newOrg(server);
    const ana = await personWithKey(server, ownerKey, 'ana');
    const bo = await personWithKey(server, ownerKey, 'bo');
    const anaSession = await dictateFast(server, ana.key, 1.5);
    const boSession = await dictateFast(server, bo.key, 2.5);

    const anaUsage = await call(server.url, 'GET', '/v1/usage?group_by=person', ana.key);
    assert.equal(anaUsage.status, 200, anaUsage.text);
    assert.deepEqual(
      (anaUsage.json.usage as Body[]).map((l) => [l.person_id, l.sessions, l.audio_seconds]),
      [[ana.personId, 1, 1.5]],
    );
    const anaSessions = await call(server.url, 'GET', '/v1/sessions', ana.key);
    assert.deepEqual(
      (anaSessions.json.sessions as Body[]).map((x) => x.session_id),
      [anaSession.id],
    );

    const all = await call(server.url, 'GET', '/v1/usage?group_by=person', ownerKey);
    const byPerson = new Map((all.json.usage as Body[]).map((l) => [l.person_id, l.audio_seconds]));
    assert.equal(byPerson.get(ana.personId), 1.5);
    assert.equal(byPerson.get(bo.personId), 2.5);
    const listed = ((await call(server.url, 'GET', '/v1/sessions', ownerKey)).json.sessions as Body[]).map((x) => x.session_id);
    assert.ok(listed.includes(anaSession.id) && listed.includes(boSession.id), JSON.stringify(listed));
    // A person's key reads no audit log; the owner's admin key does.
    assert.equal((await call(server.url, 'GET', '/v1/audit', ana.key)).status, 403);
    assert.equal((await call(server.url, 'GET', '/v1/audit', ownerKey)).status, 200);
  });

  it("a project admin key cannot read another project's sessions (403), nor the audit log", async () => {
    const ct = await server.createKey({
      name: unique('ct admin'),
      type: 'project',
      project_id: 'ct',
      permissions: ['read', 'write', 'admin'],
    });
    await server.createKey({ name: unique('mri'), type: 'project', project_id: 'mri' });
    const other = await call(server.url, 'GET', '/v1/sessions?project_id=mri', ct.key);
    assert.equal(other.status, 403, other.text);
    assert.equal((await call(server.url, 'GET', '/v1/sessions?project_id=ct', ct.key)).status, 200);
    assert.equal((await call(server.url, 'GET', '/v1/audit', ct.key)).status, 403);
  });

  it('key.rolled and key.expired appear in the audit log, key.expired once per key', async () => {
    const { ownerKey } = await newOrg(server);
    const first = await send(server, 'POST', '/v1/api-keys', ownerKey, { name: unique('first'), type: 'personal' });
    const second = await send(server, 'POST', '/v1/api-keys', ownerKey, { name: unique('second'), type: 'personal' });
    await send(server, 'POST', `/v1/api-keys/${String(first.id)}/roll`, ownerKey, { overlap_hours: 0 });
    const entries = async (action: string, target: string): Promise<Body[]> => {
      const r = await call(server.url, 'GET', `/v1/audit?action=${action}`, ownerKey);
      assert.equal(r.status, 200, r.text);
      return (r.json.entries as Body[]).filter((e) => e.target === target);
    };
    assert.equal((await entries('key.rolled', String(first.id))).length, 1);
    await waitFor(
      async () => ((await entries('key.expired', String(first.id))).length ? true : undefined),
      10_000,
      'key.expired of the rolled key',
    );
    // A later expiry is recorded by a later re-check; by then the first key's is still recorded once.
    await send(server, 'POST', `/v1/api-keys/${String(second.id)}/roll`, ownerKey, { overlap_hours: 0 });
    await waitFor(
      async () => ((await entries('key.expired', String(second.id))).length ? true : undefined),
      10_000,
      'key.expired of the second key',
    );
    const once = await entries('key.expired', String(first.id));
    assert.equal(once.length, 1, JSON.stringify(once));
    assert.equal(once[0]!.actor, 'system');
  });
});
