/**
 * Several instances of the BUILT service on one PostgreSQL database and one Redis (real servers, started
 * by the test harness in temporary directories): keys, limits and revocation mean the same on every
 * instance; a session whose instance is killed resumes on another with every word once; two instances
 * never both write a session's journal; the start fails clearly on a bad URL, an unreachable server or a
 * failed migration.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { DICTATED, FRAME, LiveDictation, clusterScript, startInstances, tryConfigure, useBackends } from '../helpers/cluster';
import { SERVER_JS, type TestServer, WsProbe } from '../helpers/server';
import { MIGRATIONS } from '../../src/server/storage/pg/migrations';
import { waitFor } from '../helpers/wait';

async function sessionInit(server: TestServer, key: string): Promise<Response> {
  return fetch(`${server.url}/api/v1/live/sessions`, { method: 'POST', headers: { authorization: `Bearer ${key}` } });
}

describe('several instances on PostgreSQL and Redis (built service)', function () {
  this.timeout(120_000);
  const backends = useBackends('scale');
  const database = (): Promise<string> => backends.database();

  async function cluster(
    n: number,
    o: { args?: string[]; env?: Record<string, string>; script?: string; redis?: boolean } = {},
  ): Promise<TestServer[]> {
    return backends.track(
      await startInstances(n, {
        database: await database(),
        redis: o.redis === false ? undefined : backends.redis.url(),
        args: o.args,
        env: o.env,
        script: o.script,
      }),
    );
  }

  it('a key created through one instance works on another; its master key is the same everywhere; no password in any log', async () => {
    const [a, b] = await cluster(2);
    const { key, id } = await a!.createKey({ name: 'dr-martin' });
    const init = await sessionInit(b!, key);
    assert.equal(init.status, 200, await init.clone().text());
    const { answer } = await tryConfigure(b!, key);
    assert.equal(answer.type, 'configured');
    const listed = (await (await fetch(`${b!.url}/v1/api-keys`, { headers: { authorization: `Bearer ${b!.masterKey}` } })).json()) as {
      keys: Array<{ id: string }>;
    };
    assert.ok(
      listed.keys.some((k) => k.id === id),
      'the key is listed by the other instance',
    );
    for (const s of [a!, b!]) {
      assert.ok(!s.logs().includes(backends.pg.password) && !s.logs().includes(backends.redis.password), 'no password in the logs');
      assert.match(s.logs(), /"store":"postgres","limits":"redis"/);
    }
  });

  it('the concurrency limit holds across instances; a slot freed on one is usable on another within 3 s, also when its instance dies', async () => {
    const [a, b] = await cluster(2, { args: ['--concurrency-limit', '2'], env: { DICTEE_SLOT_LEASE_MS: '2000' } });
    const { key } = await a!.createKey();
    const one = await tryConfigure(a!, key);
    const two = await tryConfigure(b!, key);
    assert.equal(one.answer.type, 'configured');
    assert.equal(two.answer.type, 'configured');
    for (const s of [a!, b!]) {
      const refused = await tryConfigure(s, key);
      assert.equal(refused.answer.code, 'CONCURRENCY_LIMIT_EXCEEDED', `a third session on ${s.url} is refused`);
      assert.equal((await refused.probe.closed).code, 4030);
    }
    // Stopped on A: usable on B at once.
    one.probe.send({ type: 'control', action: 'stop' });
    await one.probe.closed;
    const t0 = Date.now();
    const three = await waitFor(
      async () => {
        const r = await tryConfigure(b!, key);
        return r.answer.type === 'configured' ? r : undefined;
      },
      3000,
      'a session on B after a stop on A',
      100,
    );
    assert.ok(Date.now() - t0 < 3000);
    // B dies (SIGKILL) holding two slots: their leases end, and A can use them.
    await b!.kill();
    two.probe.terminate();
    three.probe.terminate();
    const t1 = Date.now();
    await waitFor(async () => (await tryConfigure(a!, key)).answer.type === 'configured', 3000, 'a session on A after B died', 100);
    assert.ok(Date.now() - t1 < 3000, `usable after ${Date.now() - t1} ms`);
  });

  it('the rate limit holds across instances (one window for all)', async () => {
    const [a, b] = await cluster(2, { args: ['--rate-limit', '4', '--rate-window', '60'] });
    const { key } = await a!.createKey();
    for (const s of [a!, b!, a!, b!]) assert.equal((await sessionInit(s, key)).status, 200);
    for (const s of [a!, b!]) {
      const res = await sessionInit(s, key);
      assert.equal(res.status, 429);
      const body = (await res.json()) as { error: { code: string; retry_after_ms: number } };
      assert.equal(body.error.code, 'RATE_LIMITED');
      assert.ok(body.error.retry_after_ms > 50_000 && body.error.retry_after_ms <= 60_000, `retry_after_ms ${body.error.retry_after_ms}`);
      assert.ok(Number(res.headers.get('retry-after')) >= 50);
    }
    const other = await a!.createKey();
    assert.equal((await sessionInit(b!, other.key)).status, 200, 'each key has its own window');
  });

  it('failed master-key attempts from an address are counted across instances (10 per minute)', async () => {
    const [a, c] = await cluster(2);
    const wrong = { authorization: `Bearer master_${randomBytes(24).toString('base64url')}` };
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${(i % 2 ? c : a)!.url}/v1/api-keys`, { headers: wrong });
      assert.equal(res.status, 401, `attempt ${i + 1}`);
    }
    for (const s of [a!, c!]) {
      const res = await fetch(`${s.url}/v1/api-keys`, { headers: { authorization: `Bearer ${s.masterKey}` } });
      assert.equal(res.status, 429, 'even the right key waits once the address failed ten times');
      const body = (await res.json()) as { error: { code: string; retry_after_ms: number } };
      assert.equal(body.error.code, 'RATE_LIMITED');
      assert.ok(body.error.retry_after_ms > 50_000, `retry_after_ms ${body.error.retry_after_ms}`);
    }
    // The window is Redis's, shared by the other tests of this file: this address may manage keys again.
    const redis = new Redis(backends.redis.url());
    try {
      const windows = await redis.keys('dictee:master-failures:*');
      assert.ok(windows.length > 0);
      await redis.del(...windows);
    } finally {
      redis.disconnect();
    }
    assert.equal((await fetch(`${a!.url}/v1/api-keys`, { headers: { authorization: `Bearer ${a!.masterKey}` } })).status, 200);
  });

  it('failed API-key attempts from an address are counted across instances, HTTP and WebSocket alike (10 per minute)', async () => {
    const [a, c] = await cluster(2);
    const { key } = await a!.createKey();
    for (let i = 0; i < 10; i++) {
      const wrong = `svc_live_${randomBytes(32).toString('base64url')}`;
      if (i % 2) assert.equal((await sessionInit(c!, wrong)).status, 401, `attempt ${i + 1}`);
      else {
        const { probe, answer } = await tryConfigure(a!, wrong);
        assert.equal(answer.code, 'AUTH_ERROR', `attempt ${i + 1}: ${JSON.stringify(answer)}`);
        assert.equal((await probe.closed).code, 4001);
      }
    }
    for (const s of [a!, c!]) {
      const res = await sessionInit(s, key);
      assert.equal(res.status, 429, 'even the right key waits once the address failed ten times');
      const body = (await res.json()) as { error: { code: string; retry_after_ms: number } };
      assert.equal(body.error.code, 'RATE_LIMITED');
      assert.ok(body.error.retry_after_ms > 50_000, `retry_after_ms ${body.error.retry_after_ms}`);
    }
    // The window is Redis's, shared by the other tests of this file: this address may present keys again.
    const redis = new Redis(backends.redis.url());
    try {
      const windows = await redis.keys('dictee:key-failures:*');
      assert.ok(windows.length > 0);
      await redis.del(...windows);
    } finally {
      redis.disconnect();
    }
    assert.equal((await sessionInit(c!, key)).status, 200);
  });

  it('a key revoked through one instance ends its live session on another within one second', async () => {
    const [a, b] = await cluster(2);
    const { key, id } = await a!.createKey();
    const { probe, answer } = await tryConfigure(b!, key);
    assert.equal(answer.type, 'configured');
    const t0 = Date.now();
    await a!.revokeKey(id);
    const err = await probe.waitFor((m) => m.type === 'error', 5000, 'the AUTH_ERROR on B');
    const elapsed = Date.now() - t0;
    assert.equal(err.code, 'AUTH_ERROR');
    assert.equal((await probe.closed).code, 4001);
    assert.ok(elapsed < 1000, `ended ${elapsed} ms after the revocation`);
    const again = await new WsProbe(b!.wsUrl, { header: key }).configure().catch((e: unknown) => e);
    assert.ok(again instanceof Error, 'the revoked key is refused by B');
  });

  it('an instance killed mid-dictation: the session resumes on another with the same id, seq continuing, every word once', async () => {
    const [a, c] = await cluster(2, { script: clusterScript() });
    const { key } = await a!.createKey();
    const live = await LiveDictation.start(a!, key);
    // 13.5 s: two sentences final, the third half spoken.
    const cut = 135;
    live.send(0, cut);
    await waitFor(
      () =>
        live.words().length >= 20 &&
        live.probe.messages.some((m) => m.type === 'transcript' && m.status !== 'final' && String(m.text).includes('w21')),
      15_000,
      'two sentences final and the third provisional on A',
    );
    await a!.kill();
    await live.probe.closed;
    const lastSeq = (live.words(), live.model.lastHandledSeq ?? 0);
    const rc = await live.resumeOn(c!, key);
    assert.equal(rc.session_id, live.sessionId, 'the same session');
    assert.equal(rc.resumed, true);
    assert.ok(Number(rc.last_seq) >= lastSeq);
    const offset = Number(rc.resume_audio_offset);
    assert.ok(offset > 0 && offset < cut * FRAME, `resume_audio_offset ${offset} (cut at ${cut * FRAME}): the provisional tail is re-sent`);
    assert.deepEqual(await live.finishFrom(offset), DICTATED);
    const seqs = live.probe.messages.filter((m) => m.seq !== undefined).map((m) => Number(m.seq));
    assert.ok(
      seqs.length > 0 && seqs.every((s, i) => s > lastSeq && (i === 0 || s > seqs[i - 1]!)),
      `seq continues above ${lastSeq}: ${seqs.join(',')}`,
    );
    assert.match(c!.logs(), /session restored from storage.*"previous_owner":"i1"/);
  });

  it('two instances never both write a session: the one that had it is fenced and ends it, the resumed one goes on', async () => {
    const [a, c] = await cluster(2, { script: clusterScript() });
    const { key } = await a!.createKey();
    const live = await LiveDictation.start(a!, key);
    const cut = 75; // 7.5 s: one sentence final, the second under way
    live.send(0, cut);
    await waitFor(() => live.words().length >= 10, 15_000, 'the first sentence final on A');
    // The client believes A's socket dead (it is not) and resumes on B: B claims the session.
    const stale = live.probe;
    const rc = await live.resumeOn(c!, key);
    assert.equal(rc.resumed, true);
    const claimed = await backends.pg.query<{ owner: string; epoch: number }>(
      'SELECT owner, epoch FROM session_checkpoints WHERE session_id = $1',
      [live.sessionId],
      backends.dbName,
    );
    assert.deepEqual(
      claimed.map((r) => [r.owner, Number(r.epoch)]),
      [['i2', 2]],
    );
    // Late audio reaches A's stale session: its next final is refused by the database, never sent, and A ends the session.
    const before = stale.messages.length;
    for (let off = cut * FRAME; off < 120 * FRAME; off += FRAME) stale.sendAudio(live.audio.subarray(off, off + FRAME));
    await stale.closed;
    assert.ok(
      !stale.messages.slice(before).some((m) => (m.type === 'transcript' && m.status === 'final') || m.type === 'batch.replace'),
      'A sent no final after B claimed the session',
    );
    await waitFor(() => /session resumed on another instance: ended here/.test(a!.logs()), 5000, 'A to log the take-over');
    // B goes on from its checkpoint: every word once.
    assert.deepEqual(await live.finishFrom(Number(rc.resume_audio_offset)), DICTATED);
  });

  it('several instances starting at once on a fresh database: migrations applied once, under the lock', async () => {
    const servers = await cluster(3);
    const rows = await backends.pg.query<{ version: number }>(
      'SELECT version FROM schema_migrations ORDER BY version',
      [],
      backends.dbName,
    );
    const versions = MIGRATIONS.map((m) => m.version);
    assert.deepEqual(
      rows.map((r) => r.version),
      versions,
    );
    const applied = servers.filter((s) => s.logs().includes(`"migrations_applied":${JSON.stringify(versions)}`));
    assert.equal(applied.length, 1, 'exactly one instance applied the migration');
    const orgs = await backends.pg.query('SELECT id FROM orgs', [], backends.dbName);
    assert.equal(orgs.length, 1, 'one organisation');
  });

  it('a clean stop (SIGTERM) with PostgreSQL and Redis up logs no error: closing Redis is not losing it', async () => {
    const [a] = await cluster(1);
    assert.equal(await a!.stop(), 0);
    const lines = a!
      .logs()
      .split('\n')
      .filter((l) => l.startsWith('{'));
    assert.ok(
      lines.some((l) => l.includes('"msg":"shutdown complete"')),
      'the instance drained and stopped',
    );
    assert.deepEqual(
      lines.filter((l) => /"level":"error"/.test(l)),
      [],
      'an error line means a bug or a failing backend (docs/server.md)',
    );
  });

  it('PostgreSQL without Redis: the log says the limits are per instance', async () => {
    const [a] = await cluster(1, { redis: false });
    assert.match(a!.logs(), /limits are per instance/);
    assert.match(a!.logs(), /"store":"postgres","limits":"in-process"/);
  });

  describe('start failures: a clear message naming what failed, never the password, exit 1', () => {
    const masterKey = `master_${randomBytes(24).toString('base64url')}`;
    function start(args: string[], env: Record<string, string> = {}): { status: number | null; stderr: string } {
      const r = spawnSync(process.execPath, [SERVER_JS, '--port', '0', ...args], {
        encoding: 'utf8',
        env: { ...process.env, DICTEE_MASTER_KEY: masterKey, ...env },
        timeout: 30_000,
      });
      return { status: r.status, stderr: r.stderr };
    }

    it('a --database that is not a PostgreSQL URL', () => {
      const r = start(['--database', 'mysql://root:hunter2@127.0.0.1/x']);
      assert.equal(r.status, 1);
      assert.match(r.stderr, /--database mysql:\/\/root:\*\*\*@127\.0\.0\.1\/x: the scheme must be postgres:\/\/ or postgresql:\/\//);
      assert.ok(!r.stderr.includes('hunter2'));
      const n = start(['--database', 'not a url']);
      assert.equal(n.status, 1);
      assert.match(n.stderr, /--database is not a URL; expected postgres:\/\/user:password@host:5432\/database/);
    });

    it('an unreachable PostgreSQL, an unreachable Redis (also from the environment)', () => {
      const r = start([], { DICTEE_DATABASE_URL: 'postgres://dictee:s3cret-pw@127.0.0.1:1/dictee' });
      assert.equal(r.status, 1);
      assert.match(r.stderr, /cannot connect to PostgreSQL at postgres:\/\/dictee:\*\*\*@127\.0\.0\.1:1\/dictee: .*ECONNREFUSED/);
      assert.ok(!r.stderr.includes('s3cret-pw'));
      const q = start(['--database', backends.pg.url(), '--redis', 'redis://:r3dis-pw@127.0.0.1:1']);
      assert.equal(q.status, 1);
      assert.match(q.stderr, /cannot connect to Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:1: .*ECONNREFUSED/);
      assert.ok(!q.stderr.includes('r3dis-pw') && !q.stderr.includes(backends.pg.password));
    });

    it('a wrong password; a failed migration (names the migration)', async () => {
      const wrong = start(['--database', backends.pg.url().replace(backends.pg.password, 'wrong-password')]);
      assert.equal(wrong.status, 1);
      assert.match(wrong.stderr, /cannot connect to PostgreSQL at .*: password authentication failed/);
      const url = await database();
      await backends.pg.query('CREATE TABLE api_keys (id INTEGER)', [], backends.dbName);
      const r = start(['--database', url]);
      assert.equal(r.status, 1);
      assert.match(r.stderr, /PostgreSQL migration 1 \(keys, sessions, resume data\) failed: relation "api_keys" already exists/);
      assert.ok(!r.stderr.includes(backends.pg.password));
      const rows = await backends.pg.query('SELECT 1 FROM pg_tables WHERE tablename = $1', ['sessions'], backends.dbName);
      assert.equal(rows.length, 0, 'the failed migration left nothing behind');
    });
  });
});
