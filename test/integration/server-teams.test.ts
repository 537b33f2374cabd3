/**
 * Teams on the BUILT service, on SQLite (one instance) and on PostgreSQL (two instances sharing the
 * database and Redis): organisations, people and projects; admin keys that manage the keys of their scope
 * and never more; read keys that read; test keys apart; keys that expire (a live session whose key expires
 * gets every word as `final` before AUTH_ERROR "API key expired") and roll.
 */
import assert from 'node:assert/strict';
import { DICTATED, clusterScript, startInstances, useBackends } from '../helpers/cluster';
import { type TestServer, WsProbe, startServer } from '../helpers/server';
import { framesOf, tone } from '../helpers/speech';

type Body = Record<string, unknown>;
interface Reply {
  status: number;
  body: Body;
}

async function call(server: TestServer, method: string, path: string, token: string, body?: unknown): Promise<Reply> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as Body };
}

function assertError(r: Reply, status: number, code: string, message?: RegExp): void {
  assert.equal(r.status, status, JSON.stringify(r.body));
  const e = r.body.error as { code: string; message: string };
  assert.equal(e.code, code, JSON.stringify(r.body));
  if (message) assert.match(e.message, message);
}

function created(r: Reply): Body {
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body;
}

let n = 0;
const unique = (what: string): string => `${what}-${++n}-${Date.now().toString(36)}`;

/** An organisation with its owner and the owner's personal admin key (made with the master key). */
async function newOrg(s: TestServer): Promise<{ orgId: string; ownerId: string; ownerKey: string }> {
  const org = created(
    await call(s, 'POST', '/v1/orgs', s.masterKey, {
      name: unique('radiology'),
      owner: { email: `${unique('boss')}@example.org`, display_name: 'Dr Boss' },
    }),
  );
  const orgId = String((org.org as Body).id);
  const ownerId = String((org.owner as Body).id);
  const key = created(
    await call(s, 'POST', '/v1/api-keys', s.masterKey, {
      name: 'owner admin',
      type: 'personal',
      person_id: ownerId,
      permissions: ['read', 'write', 'admin'],
    }),
  );
  assert.equal(key.org_id, orgId, "a person's key belongs to the person's organisation");
  assert.equal(key.person_id, ownerId);
  return { orgId, ownerId, ownerKey: String(key.key) };
}

/** Opens a session with `key`, sends 3 s of tone (10 words, still pending: no pause), waits until some text is shown. */
async function dictating(s: TestServer, key: string): Promise<{ probe: WsProbe; sessionId: string }> {
  const probe = new WsProbe(s.wsUrl, { header: key });
  const configured = await probe.configure({ language: 'en' });
  for (const f of framesOf(tone(3000))) probe.sendAudio(f);
  await probe.roundTrip();
  await probe.waitFor((m) => m.type === 'transcript', 10_000, 'some text');
  return { probe, sessionId: String(configured.session_id) };
}

/** Every word dictated arrived as `final` before the AUTH_ERROR (whose message says `reason`), then close 4001; the record counts the finals. */
async function assertEndedWithEveryWord(
  s: TestServer,
  probe: WsProbe,
  sessionId: string,
  reason: RegExp,
  endReason: string,
): Promise<void> {
  const error = await probe.waitType('error', 60_000);
  assert.equal(error.code, 'AUTH_ERROR');
  assert.match(String(error.message), reason);
  assert.equal((await probe.closed).code, 4001);
  const errorAt = probe.messages.indexOf(error);
  const finals = probe.messages.filter((m) => m.type === 'transcript' && m.status === 'final');
  assert.ok(finals.length > 0, 'the pending words were made final');
  assert.ok(
    finals.every((m) => probe.messages.indexOf(m) < errorAt),
    'every final before the error',
  );
  const words = finals
    .map((m) => String(m.text))
    .join(' ')
    .split(/\s+/)
    .filter(Boolean);
  assert.deepEqual(words, DICTATED.slice(0, 10), 'every word dictated, once, in order');
  const record = await s.session(sessionId);
  assert.equal(record.end_reason, endReason);
  assert.equal(record.final_chunks, finals.length, "the record's final_chunks counts the finals sent");
}

function teamsSuite(servers: () => TestServer[]): void {
  const one = (): TestServer => servers()[0]!;
  const other = (): TestServer => servers().at(-1)!;

  it('organisations, people, projects: the master key makes an organisation and its owner; emails are validated and unique per organisation', async () => {
    const s = one();
    const { orgId, ownerKey } = await newOrg(s);
    const ana = created(await call(s, 'POST', '/v1/people', ownerKey, { email: 'Ana@Example.org', display_name: 'Ana', role: 'admin' }));
    assert.equal((ana.person as Body).org_id, orgId);
    assertError(
      await call(s, 'POST', '/v1/people', ownerKey, { email: 'ana@example.org', display_name: 'Ana 2' }),
      400,
      'CONFIG_ERROR',
      /^email: .*already/,
    );
    assertError(await call(s, 'POST', '/v1/people', ownerKey, { email: 'not-an-email', display_name: 'X' }), 400, 'CONFIG_ERROR', /^email/);
    assertError(
      await call(s, 'POST', '/v1/people', ownerKey, { email: 'x@example.org', display_name: 'X', role: 'boss' }),
      400,
      'CONFIG_ERROR',
      /role/,
    );
    // The same email in another organisation is another person.
    const b = await newOrg(s);
    created(await call(s, 'POST', '/v1/people', b.ownerKey, { email: 'ana@example.org', display_name: 'Ana elsewhere' }));
    const people = (await call(s, 'GET', '/v1/people', ownerKey)).body.people as Body[];
    assert.ok(
      people.every((p) => p.org_id === orgId),
      'an owner lists the people of the organisation only',
    );
    assertError(await call(s, 'GET', `/v1/people/${String((ana.person as Body).id)}`, b.ownerKey), 403, 'AUTH_ERROR', /outside the scope/);
    const orgs = (await call(s, 'GET', '/v1/orgs', ownerKey)).body.orgs as Body[];
    assert.deepEqual(
      orgs.map((o) => o.id),
      [orgId],
    );
    assertError(
      await call(s, 'POST', '/v1/orgs', ownerKey, { name: 'x', owner: { email: 'o@example.org', display_name: 'O' } }),
      403,
      'AUTH_ERROR',
      /master key/,
    );
    const proj = created(await call(s, 'POST', '/v1/projects', ownerKey, { id: 'ct', name: 'CT scans' }));
    assert.equal((proj.project as Body).org_id, orgId);
    const member = created(
      await call(s, 'POST', '/v1/projects/ct/members', ownerKey, { person_id: String((ana.person as Body).id), role: 'admin' }),
    );
    assert.equal((member.member as Body).role, 'admin');
    assertError(
      await call(s, 'POST', '/v1/projects/ct/members', ownerKey, { person_id: 'person_nobody' }),
      400,
      'CONFIG_ERROR',
      /^person_id/,
    );
    // The last owner stays an owner.
    const owners = people.filter((p) => p.role === 'owner');
    assertError(
      await call(s, 'PATCH', `/v1/people/${String(owners[0]!.id)}`, ownerKey, { role: 'member' }),
      400,
      'CONFIG_ERROR',
      /^role: .*last owner/,
    );
  });

  it("the master key keeps working as before: an unknown project_id makes the project; a personal key without a person is the organisation's", async () => {
    const s = one();
    const p = created(
      await call(s, 'POST', '/v1/api-keys', s.masterKey, { name: unique('team'), type: 'project', project_id: unique('cardio') }),
    );
    const projects = (await call(s, 'GET', '/v1/projects', s.masterKey)).body.projects as Body[];
    assert.ok(
      projects.some((x) => x.id === p.project_id),
      'the project exists now',
    );
    const k = created(await call(s, 'POST', '/v1/api-keys', s.masterKey, { name: unique('legacy'), type: 'personal' }));
    assert.equal(k.person_id, null);
    assert.equal(k.expires_at, null, 'no expiry unless asked');
    assertError(
      await call(s, 'POST', '/v1/api-keys', s.masterKey, { name: 'x', type: 'personal', person_id: 'person_unknown' }),
      400,
      'CONFIG_ERROR',
      /^person_id: no person/,
    );
  });

  it('expires_at and expires_in_days: carried by the creation and the listing; past or not RFC 3339 → CONFIG_ERROR naming the field', async () => {
    const s = one();
    const at = new Date(Date.now() + 3 * 86_400_000).toISOString().replace(/\.\d+Z$/, '+00:00');
    const k = created(await call(s, 'POST', '/v1/api-keys', s.masterKey, { name: unique('expiring'), type: 'personal', expires_at: at }));
    assert.equal(Date.parse(String(k.expires_at)), Date.parse(at));
    const d = created(await call(s, 'POST', '/v1/api-keys', s.masterKey, { name: unique('days'), type: 'personal', expires_in_days: 90 }));
    assert.ok(Math.abs(Date.parse(String(d.expires_at)) - (Date.now() + 90 * 86_400_000)) < 60_000);
    const listed = ((await call(s, 'GET', '/v1/api-keys', s.masterKey)).body.keys as Body[]).find((x) => x.id === k.id)!;
    assert.equal(listed.expires_at, k.expires_at);
    for (const bad of ['2020-01-01T00:00:00Z', new Date(Date.now() - 1000).toISOString()]) {
      assertError(
        await call(s, 'POST', '/v1/api-keys', s.masterKey, { name: 'x', type: 'personal', expires_at: bad }),
        400,
        'CONFIG_ERROR',
        /^expires_at must be in the future/,
      );
    }
    for (const bad of ['2027-01-31', 'tomorrow', '2027-02-30T00:00:00Z', '2027-01-31T25:00:00Z', 1900000000]) {
      assertError(
        await call(s, 'POST', '/v1/api-keys', s.masterKey, { name: 'x', type: 'personal', expires_at: bad }),
        400,
        'CONFIG_ERROR',
        /^expires_at/,
      );
    }
    assertError(
      await call(s, 'POST', '/v1/api-keys', s.masterKey, { name: 'x', type: 'personal', expires_in_days: 0 }),
      400,
      'CONFIG_ERROR',
      /^expires_in_days/,
    );
  });

  it("an organisation's maximum lifetime: set by the master key or an owner (not an admin); keys get it by default and never more", async () => {
    const s = one();
    const { orgId, ownerKey } = await newOrg(s);
    const adminP = created(
      await call(s, 'POST', '/v1/people', ownerKey, { email: `${unique('adm')}@example.org`, display_name: 'Adm', role: 'admin' }),
    );
    const adminKey = String(
      created(
        await call(s, 'POST', '/v1/api-keys', ownerKey, {
          name: 'adm',
          type: 'personal',
          person_id: (adminP.person as Body).id,
          permissions: ['read', 'admin'],
        }),
      ).key,
    );
    assertError(await call(s, 'PATCH', `/v1/orgs/${orgId}`, adminKey, { max_key_lifetime_days: 30 }), 403, 'AUTH_ERROR', /owner/);
    const patched = await call(s, 'PATCH', `/v1/orgs/${orgId}`, ownerKey, { max_key_lifetime_days: 30 });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal((patched.body.org as Body).max_key_lifetime_days, 30);
    const k = created(await call(s, 'POST', '/v1/api-keys', s.masterKey, { name: unique('capped'), type: 'personal', org_id: orgId }));
    assert.ok(Math.abs(Date.parse(String(k.expires_at)) - (Date.now() + 30 * 86_400_000)) < 60_000, 'the maximum by default');
    assertError(
      await call(s, 'POST', '/v1/api-keys', s.masterKey, { name: 'x', type: 'personal', org_id: orgId, expires_in_days: 31 }),
      400,
      'CONFIG_ERROR',
      /^expires_in_days: .*at most 30 days/,
    );
  });

  it("an admin key manages the keys of its scope, never wider; another project's key is 403; a read key manages nothing", async () => {
    const s = one();
    const { ownerKey } = await newOrg(s);
    for (const id of ['mri', 'xray']) created(await call(s, 'POST', '/v1/projects', ownerKey, { id, name: id }));
    const mriAdmin = created(
      await call(s, 'POST', '/v1/api-keys', ownerKey, {
        name: 'mri admin',
        type: 'project',
        project_id: 'mri',
        permissions: ['read', 'write', 'admin'],
      }),
    );
    const xray = created(await call(s, 'POST', '/v1/api-keys', ownerKey, { name: 'xray app', type: 'project', project_id: 'xray' }));
    const admin = String(mriAdmin.key);
    // Its project's keys: create (the project is its own by default), list, roll, revoke.
    const app = created(await call(s, 'POST', '/v1/api-keys', admin, { name: 'mri app', type: 'project', permissions: ['write'] }));
    assert.equal(app.project_id, 'mri');
    const listed = ((await call(s, 'GET', '/v1/api-keys', admin)).body.keys as Body[]).map((k) => k.id);
    assert.ok(listed.includes(app.id) && !listed.includes(xray.id), "lists only its project's keys");
    const rolled = created(await call(s, 'POST', `/v1/api-keys/${String(app.id)}/roll`, admin, {}));
    assert.equal((await call(s, 'DELETE', `/v1/api-keys/${String(rolled.id)}`, admin)).status, 200);
    // Outside its scope: 403.
    assertError(
      await call(s, 'POST', '/v1/api-keys', admin, { name: 'x', type: 'project', project_id: 'xray' }),
      403,
      'AUTH_ERROR',
      /outside the scope/,
    );
    assertError(await call(s, 'DELETE', `/v1/api-keys/${String(xray.id)}`, admin), 403, 'AUTH_ERROR', /outside the scope/);
    assertError(await call(s, 'POST', `/v1/api-keys/${String(xray.id)}/roll`, admin, {}), 403, 'AUTH_ERROR');
    assertError(await call(s, 'POST', '/v1/api-keys', admin, { name: 'x', type: 'personal' }), 403, 'AUTH_ERROR');
    assertError(await call(s, 'POST', '/v1/people', admin, { email: 'p@example.org', display_name: 'P' }), 403, 'AUTH_ERROR');
    // Never wider than itself: a write-only admin cannot give read.
    const narrow = created(
      await call(s, 'POST', '/v1/api-keys', admin, { name: 'narrow admin', type: 'project', permissions: ['write', 'admin'] }),
    );
    assertError(
      await call(s, 'POST', '/v1/api-keys', String(narrow.key), { name: 'x', type: 'project', permissions: ['read'] }),
      400,
      'CONFIG_ERROR',
      /^permissions: "read" is wider/,
    );
    // A key that expires makes keys that expire with it at the latest.
    const soon = created(
      await call(s, 'POST', '/v1/api-keys', admin, { name: 'soon admin', type: 'project', permissions: ['admin'], expires_in_days: 2 }),
    );
    const child = created(
      await call(s, 'POST', '/v1/api-keys', String(soon.key), { name: 'child', type: 'project', permissions: ['admin'] }),
    );
    assert.equal(child.expires_at, soon.expires_at);
    assertError(
      await call(s, 'POST', '/v1/api-keys', String(soon.key), { name: 'y', type: 'project', permissions: ['admin'], expires_in_days: 5 }),
      400,
      'CONFIG_ERROR',
      /^expires_in_days/,
    );
    // A read/write key manages nothing.
    const rw = created(await call(s, 'POST', '/v1/api-keys', admin, { name: 'rw', type: 'project', permissions: ['write'] }));
    assertError(await call(s, 'GET', '/v1/api-keys', String(rw.key)), 403, 'AUTH_ERROR', /master key or an "admin" key/);
    // A project admin member's personal admin key manages that project's keys.
    const people = (await call(s, 'GET', '/v1/people', ownerKey)).body.people as Body[];
    const bea = created(await call(s, 'POST', '/v1/people', ownerKey, { email: `${unique('bea')}@example.org`, display_name: 'Bea' }));
    const beaId = String((bea.person as Body).id);
    assert.ok(people.length >= 1);
    created(await call(s, 'POST', '/v1/projects/mri/members', admin, { person_id: beaId, role: 'admin' }));
    const beaKey = String(
      created(
        await call(s, 'POST', '/v1/api-keys', ownerKey, {
          name: 'bea',
          type: 'personal',
          person_id: beaId,
          permissions: ['read', 'write', 'admin'],
        }),
      ).key,
    );
    created(
      await call(s, 'POST', '/v1/api-keys', beaKey, { name: 'bea made', type: 'project', project_id: 'mri', permissions: ['write'] }),
    );
    assertError(
      await call(s, 'POST', '/v1/api-keys', beaKey, { name: 'bea made', type: 'project', project_id: 'xray' }),
      403,
      'AUTH_ERROR',
    );
  });

  it("an owner's or admin's key makes personal keys of that person (unless it names another); removing the person revokes them, their sessions ending with every word", async () => {
    const s = one();
    const { ownerId, ownerKey } = await newOrg(s);
    const personWithKey = async (role: 'owner' | 'admin', name: string): Promise<{ id: string; key: string }> => {
      const p = created(await call(s, 'POST', '/v1/people', ownerKey, { email: `${unique(name)}@example.org`, display_name: name, role }));
      const id = String((p.person as Body).id);
      const k = created(
        await call(s, 'POST', '/v1/api-keys', ownerKey, {
          name: unique(name),
          type: 'personal',
          person_id: id,
          permissions: ['read', 'write', 'admin'],
        }),
      );
      assert.equal(k.person_id, id, 'an owner still names another person of the organisation');
      return { id, key: String(k.key) };
    };
    const ada = await personWithKey('admin', 'ada');
    const otto = await personWithKey('owner', 'otto');
    // Made without person_id, with admin and no expiry (the trial's "backdoor" key): the maker's.
    const made = async (key: string): Promise<Body> =>
      created(
        await call(s, 'POST', '/v1/api-keys', key, { name: unique('made'), type: 'personal', permissions: ['read', 'write', 'admin'] }),
      );
    const byOwner = await made(ownerKey);
    const byAdmin = await made(ada.key);
    assert.equal(byOwner.person_id, ownerId, "an owner's key makes the owner's keys");
    assert.equal(byAdmin.person_id, ada.id, "an admin's key makes the admin's keys");
    assert.equal(byOwner.expires_at, null);
    assert.equal(created(await call(s, 'POST', '/v1/api-keys', s.masterKey, { name: unique('org'), type: 'personal' })).person_id, null);
    // Each works until its person is removed (by another owner, through another instance where there are two).
    assert.equal((await call(s, 'GET', '/v1/api-keys', String(byOwner.key))).status, 200);
    const { probe, sessionId } = await dictating(s, String(byOwner.key));
    const removed = await call(other(), 'DELETE', `/v1/people/${ownerId}`, otto.key);
    assert.equal(removed.status, 200, JSON.stringify(removed.body));
    assert.ok((removed.body.revoked_keys as string[]).includes(String(byOwner.id)));
    await assertEndedWithEveryWord(s, probe, sessionId, /API key revoked/, 'key revoked');
    assert.equal((await call(other(), 'DELETE', `/v1/people/${ada.id}`, otto.key)).status, 200);
    for (const k of [byOwner, byAdmin]) {
      assertError(await call(s, 'GET', '/v1/api-keys', String(k.key)), 401, 'AUTH_ERROR', /API key revoked/);
      assertError(
        await call(s, 'POST', '/v1/api-keys', String(k.key), { name: unique('x'), type: 'personal', permissions: ['admin'] }),
        401,
        'AUTH_ERROR',
      );
    }
  });

  it('two live keys of a scope never share a name (CONFIG_ERROR naming name); another scope, or a rolled pair, may', async () => {
    const s = one();
    const project = unique('p');
    const name = unique('app');
    const a = created(await call(s, 'POST', '/v1/api-keys', s.masterKey, { name, type: 'project', project_id: project }));
    assertError(
      await call(s, 'POST', '/v1/api-keys', s.masterKey, { name: name.toUpperCase(), type: 'project', project_id: project }),
      400,
      'CONFIG_ERROR',
      /^name: a live key named/,
    );
    created(await call(s, 'POST', '/v1/api-keys', s.masterKey, { name, type: 'project', project_id: unique('p') }));
    const rolled = created(await call(s, 'POST', `/v1/api-keys/${String(a.id)}/roll`, s.masterKey, { overlap_hours: 1 }));
    assert.equal(rolled.name, name);
  });

  it('read keys read the sessions of their scope (an admin key too); test keys cannot be admin and see only test sessions', async () => {
    const s = one();
    const project = unique('ward');
    const writer = created(
      await call(s, 'POST', '/v1/api-keys', s.masterKey, {
        name: unique('w'),
        type: 'project',
        project_id: project,
        permissions: ['write'],
      }),
    );
    const reader = created(
      await call(s, 'POST', '/v1/api-keys', s.masterKey, {
        name: unique('r'),
        type: 'project',
        project_id: project,
        permissions: ['read'],
      }),
    );
    const stranger = created(
      await call(s, 'POST', '/v1/api-keys', s.masterKey, {
        name: unique('s'),
        type: 'project',
        project_id: unique('other'),
        permissions: ['read'],
      }),
    );
    const init = await fetch(`${s.url}/v1/live/sessions`, { method: 'POST', headers: { authorization: `Bearer ${String(writer.key)}` } });
    const id = String(((await init.json()) as Body).session_id);
    const read = await call(s, 'GET', `/v1/sessions/${id}`, String(reader.key));
    assert.equal(read.status, 200, `a read key reads its project's sessions: ${JSON.stringify(read.body)}`);
    assertError(await call(s, 'GET', `/v1/sessions/${id}`, String(stranger.key)), 404, 'NOT_FOUND');
    assertError(await call(s, 'GET', `/v1/sessions/${id}`, String(writer.key)), 403, 'AUTH_ERROR', /read/);
    // Test keys.
    assertError(
      await call(s, 'POST', '/v1/api-keys', s.masterKey, { name: 'x', type: 'personal', environment: 'test', permissions: ['admin'] }),
      400,
      'CONFIG_ERROR',
      /^permissions: a test key/,
    );
    const live = created(await call(s, 'POST', '/v1/api-keys', s.masterKey, { name: unique('live'), type: 'personal' }));
    const test = created(
      await call(s, 'POST', '/v1/api-keys', s.masterKey, { name: unique('test'), type: 'personal', environment: 'test' }),
    );
    const sessionOf = async (key: unknown): Promise<string> => {
      const r = await fetch(`${s.url}/v1/live/sessions`, { method: 'POST', headers: { authorization: `Bearer ${String(key)}` } });
      return String(((await r.json()) as Body).session_id);
    };
    const liveSession = await sessionOf(live.key);
    const testSession = await sessionOf(test.key);
    assert.equal((await call(s, 'GET', `/v1/sessions/${testSession}`, String(test.key))).status, 200);
    assertError(await call(s, 'GET', `/v1/sessions/${liveSession}`, String(test.key)), 404, 'NOT_FOUND');
    assert.equal((await call(s, 'GET', `/v1/sessions/${liveSession}`, String(live.key))).status, 200);
  });

  it('roll: 201 with a new key like the old; the old expires at the end of the overlap (0: at once, then 401 "expired"); a revoked key is not rolled', async () => {
    const s = one();
    const old = created(
      await call(s, 'POST', '/v1/api-keys', s.masterKey, {
        name: unique('svc'),
        type: 'project',
        project_id: unique('roll'),
        permissions: ['read', 'write'],
      }),
    );
    const r = created(await call(s, 'POST', `/v1/api-keys/${String(old.id)}/roll`, s.masterKey, {}));
    assert.notEqual(r.key, old.key);
    for (const f of ['name', 'type', 'project_id', 'permissions', 'environment', 'org_id']) assert.deepEqual(r[f], old[f], f);
    const overlapEnd = Date.parse(String((r.rolled_from as Body).expires_at));
    assert.ok(Math.abs(overlapEnd - (Date.now() + 24 * 3_600_000)) < 60_000, 'the old key lives 24 h more by default');
    const init = (key: unknown) =>
      fetch(`${s.url}/v1/live/sessions`, { method: 'POST', headers: { authorization: `Bearer ${String(key)}` } });
    assert.equal((await init(old.key)).status, 200, 'the old key works during the overlap');
    const r2 = created(await call(s, 'POST', `/v1/api-keys/${String(r.id)}/roll`, s.masterKey, { overlap_hours: 0 }));
    const refused = await init(r.key);
    assert.equal(refused.status, 401);
    assert.match(((await refused.json()) as { error: { message: string } }).error.message, /expired/);
    assert.equal((await init(r2.key)).status, 200);
    const probe = new WsProbe(s.wsUrl, { header: String(r.key) });
    const error = await probe.waitType('error');
    assert.equal(error.code, 'AUTH_ERROR');
    assert.match(String(error.message), /expired/);
    assertError(await call(s, 'POST', `/v1/api-keys/${String(r.id)}/roll`, s.masterKey, {}), 400, 'CONFIG_ERROR', /^id: .*expired/);
    await s.revokeKey(String(r2.id));
    assertError(await call(s, 'POST', `/v1/api-keys/${String(r2.id)}/roll`, s.masterKey, {}), 400, 'CONFIG_ERROR', /^id: .*revoked/);
    assertError(
      await call(s, 'POST', `/v1/api-keys/${String(r2.id)}/roll`, s.masterKey, { overlap_hours: -1 }),
      400,
      'CONFIG_ERROR',
      /overlap_hours/,
    );
  });

  it('a live session whose key expires: every pending word arrives as final before AUTH_ERROR "API key expired"; the record counts them', async function () {
    this.timeout(90_000);
    const s = other();
    const k = created(
      await call(s, 'POST', '/v1/api-keys', s.masterKey, {
        name: unique('short'),
        type: 'personal',
        expires_at: new Date(Date.now() + 4000).toISOString(),
      }),
    );
    const { probe, sessionId } = await dictating(s, String(k.key));
    await assertEndedWithEveryWord(s, probe, sessionId, /API key expired/, 'key expired');
  });

  it("a roll with no overlap through one instance ends the old key's session on the instance that holds it, every word first", async function () {
    this.timeout(90_000);
    const [a, b] = [one(), other()];
    const k = created(await call(a, 'POST', '/v1/api-keys', a.masterKey, { name: unique('moving'), type: 'personal' }));
    const { probe, sessionId } = await dictating(b, String(k.key));
    created(await call(a, 'POST', `/v1/api-keys/${String(k.id)}/roll`, a.masterKey, { overlap_hours: 0 }));
    await assertEndedWithEveryWord(b, probe, sessionId, /API key expired/, 'key expired');
  });
}

describe('teams: organisations, people, projects, key expiry and roll (built service, SQLite)', function () {
  this.timeout(60_000);
  let server: TestServer | undefined;
  before(async () => {
    server = await startServer({ script: clusterScript() });
  });
  after(async () => {
    await server?.stop();
  });
  teamsSuite(() => [server!]);
});

describe('teams: organisations, people, projects, key expiry and roll (built service, PostgreSQL, two instances)', function () {
  this.timeout(120_000);
  const backends = useBackends('teams');
  let servers: TestServer[] = [];
  before(async () => {
    const database = await backends.database();
    servers = await startInstances(2, {
      database,
      redis: backends.redis.url(),
      script: clusterScript(),
      env: { DICTEE_KEY_RECHECK_MS: '500' },
    });
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });
  teamsSuite(() => servers);
});
