/**
 * Keys across instances when things go wrong (real PostgreSQL and Redis, built service): a third instance
 * without the master key on a database whose key was given is refused, never making a second master key;
 * a key revoked while Redis is down is refused on every instance at once, and its live sessions on the other
 * instances end once the revocation can be announced, even if the instance that revoked it stopped meanwhile.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { DICTATED, LiveDictation, clusterScript, startInstances, useBackends } from '../helpers/cluster';
import { type TestServer, WsProbe, startServer } from '../helpers/server';
import { startOnce } from '../helpers/startOnce';
import { waitFor } from '../helpers/wait';

const newKey = (): string => randomBytes(32).toString('base64url');

/** `DELETE /v1/api-keys/{key}` with the master key: status and body. */
async function revoke(server: TestServer, key: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${server.url}/v1/api-keys/${encodeURIComponent(key)}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${server.masterKey}` },
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The answers to a session init and to a WebSocket upgrade with `key`: both must be 401 `API key revoked`. */
async function assertRefused(server: TestServer, key: string): Promise<void> {
  const init = await fetch(`${server.url}/api/v1/live/sessions`, { method: 'POST', headers: { authorization: `Bearer ${key}` } });
  const body = (await init.json()) as { error: { code: string; message: string } };
  assert.equal(init.status, 401, JSON.stringify(body));
  assert.equal(body.error.code, 'AUTH_ERROR');
  assert.equal(body.error.message, 'API key revoked');
  // An upgrade with a valid HTTP request is taken, then refused with the error and close 4001 (protocol.md).
  const probe = new WsProbe(server.wsUrl, { header: key });
  const error = await probe.waitType('error');
  assert.equal(error.code, 'AUTH_ERROR');
  assert.equal(error.message, 'API key revoked');
  assert.equal((await probe.closed).code, 4001);
}

/** A TCP relay on loopback to `targetPort` that can be cut (open connections destroyed, new ones refused) and restored. */
async function cuttableRelay(targetPort: number): Promise<{ port: number; cut(): void; restore(): void; close(): Promise<void> }> {
  let cut = false;
  const open = new Set<net.Socket>();
  const server = net.createServer((a) => {
    if (cut) return void a.destroy();
    const b = net.connect(targetPort, '127.0.0.1');
    for (const s of [a, b]) {
      open.add(s);
      s.on('error', () => undefined);
      s.on('close', () => {
        open.delete(s);
        a.destroy();
        b.destroy();
      });
    }
    a.pipe(b);
    b.pipe(a);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    cut() {
      cut = true;
      for (const s of open) s.destroy();
    },
    restore() {
      cut = false;
    },
    close: () => {
      for (const s of open) s.destroy();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

describe('keys across instances, in an outage (built service)', function () {
  this.timeout(120_000);
  const backends = useBackends('keys');

  it('a third instance without the master key, or with another, on the same PostgreSQL database is refused (exit 2); no second master key', async () => {
    const database = await backends.database();
    const master = newKey();
    const [one] = backends.track(await startInstances(2, { database, masterKey: master })) as [TestServer, TestServer];
    const without = await startOnce(['--database', database, '--instance-id', 'i3'], {});
    assert.equal(without.code, 2, without.stderr);
    assert.equal(without.listened, false);
    assert.doesNotMatch(without.stdout, /master key/, 'no master key generated or shown');
    assert.match(
      without.stderr,
      /^error: the PostgreSQL database has a master key that was given to the service, and this instance has none/m,
    );
    const other = newKey();
    const wrong = await startOnce(['--database', database, '--instance-id', 'i3'], { DICTEE_MASTER_KEY: other });
    assert.equal(wrong.code, 2, wrong.stderr);
    assert.match(
      wrong.stderr,
      /^error: the master key in DICTEE_MASTER_KEY does not match the master key the PostgreSQL database already has/m,
    );
    for (const r of [without, wrong]) {
      const all = r.stdout + r.stderr;
      assert.ok(!all.includes(master) && !all.includes(other) && !all.includes(backends.pg.password), 'no key, no password');
    }
    // The instances that run still agree on their master key.
    assert.ok((await one.createKey()).key);
  });

  /**
   * Two instances on PostgreSQL and Redis, a key made through the first dictating on the second (its first
   * sentence final), then Redis stopped and its loss seen by the first. The caller starts Redis again.
   */
  async function dictatingWhenRedisStops(recheckMs: string) {
    const [one, two] = backends.track(
      await startInstances(2, {
        database: await backends.database(),
        redis: backends.redis.url(),
        script: clusterScript(),
        env: { DICTEE_KEY_RECHECK_MS: recheckMs },
      }),
    ) as [TestServer, TestServer];
    const { key } = await one.createKey();
    const live = await LiveDictation.start(two, key);
    live.send(0, 60);
    await waitFor(() => live.words().length === 10, 15_000, 'the first sentence final');
    const mark = one.logs().length;
    await backends.redis.stop();
    try {
      await waitFor(() => /Redis connection lost/.test(one.logs().slice(mark)), 5000, 'the loss seen by the instance that revokes');
    } catch (e) {
      await backends.redis.start();
      throw e;
    }
    return { one, two, key, live, mark };
  }

  it('revoked while Redis is stopped: 200, refused on both instances at once; its live session on the other instance ends once Redis is back', async () => {
    // No periodic re-check within the test: what ends the session is Redis coming back.
    const { one, two, key, live, mark } = await dictatingWhenRedisStops('600000');
    try {
      const r = await revoke(one, key);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.ok(r.body.revoked_at);
      await assertRefused(one, key);
      await assertRefused(two, key);
    } finally {
      await backends.redis.start();
    }
    const error = await live.probe.waitFor((m) => m.type === 'error', 30_000, 'the live session on the other instance to end');
    assert.equal(error.code, 'AUTH_ERROR');
    assert.equal((await live.probe.closed).code, 4001);
    await waitFor(() => /revocation announced to every instance/.test(one.logs().slice(mark)), 20_000, 'the pending announcement sent');
  });

  it('Redis staying down: a live session of the revoked key on the other instance ends within DICTEE_KEY_RECHECK_MS all the same', async () => {
    const { one, key, live } = await dictatingWhenRedisStops('1000');
    try {
      const r = await revoke(one, key);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const error = await live.probe.waitFor((m) => m.type === 'error', 10_000, 'the session ended by the re-check, Redis still down');
      assert.equal(error.code, 'AUTH_ERROR');
      assert.equal((await live.probe.closed).code, 4001);
      assert.deepEqual(live.words(), DICTATED.slice(0, 10), 'its final text kept');
    } finally {
      await backends.redis.start();
    }
  });

  it('the announcement is durable: the revoking instance cut from Redis and stopped, it is sent when it starts again, and the live session elsewhere ends', async () => {
    const relay = await cuttableRelay(backends.redis.port);
    try {
      const database = await backends.database();
      const master = newKey();
      const viaRelay = backends.redis.url().replace(`:${backends.redis.port}`, `:${relay.port}`);
      const one = backends.track([
        await startServer({
          script: clusterScript(),
          args: ['--database', database, '--redis', viaRelay, '--instance-id', 'i1'],
          env: { DICTEE_MASTER_KEY: master },
        }),
      ])[0]!;
      const two = backends.track([
        await startServer({
          script: clusterScript(),
          args: ['--database', database, '--redis', backends.redis.url(), '--instance-id', 'i2'],
          // No periodic re-check within the test: only the announcement can end the session.
          env: { DICTEE_MASTER_KEY: master, DICTEE_KEY_RECHECK_MS: '600000' },
        }),
      ])[0]!;
      const { key } = await one.createKey();
      const live = await LiveDictation.start(two, key);
      live.send(0, 60);
      await waitFor(() => live.words().length === 10, 15_000, 'the first sentence final');
      const mark = one.logs().length;
      relay.cut();
      await waitFor(() => /Redis connection lost/.test(one.logs().slice(mark)), 5000, 'the instance that revokes cut from Redis');
      const r = await revoke(one, key);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      await assertRefused(two, key);
      assert.match(one.logs().slice(mark), /revocation not yet announced to the other instances/);
      await one.kill();
      // Still live on the second instance (its Redis never went): nothing told it yet. A round trip shows the connection open.
      await live.probe.roundTrip();
      assert.equal(live.probe.ofType('error').length, 0);
      relay.restore();
      await one.restart();
      const error = await live.probe.waitFor((m) => m.type === 'error', 20_000, 'the live session on the other instance to end');
      assert.equal(error.code, 'AUTH_ERROR');
      assert.equal((await live.probe.closed).code, 4001);
    } finally {
      await relay.close();
    }
  });
});
