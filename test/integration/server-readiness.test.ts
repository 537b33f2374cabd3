/**
 * Readiness with PostgreSQL and Redis (real servers, stopped and started again by the test): GET /readyz
 * and dictee_backend_up say when a backend does not answer, even on an idle instance (before, /healthz said
 * `ok` while every new session got 503), and come back by themselves; /healthz stays the liveness answer.
 * HAProxy, running deploy/haproxy.cfg, takes the instance out while it is not ready and back after, and the
 * session it carries is not cut meanwhile.
 */
import assert from 'node:assert/strict';
import { freePort } from '../helpers/backends';
import { startBalancer } from '../helpers/balancer';
import { clusterScript, useBackends } from '../helpers/cluster';
import { sample, scrape } from '../helpers/metrics';
import { type TestServer, WsProbe, startServer } from '../helpers/server';
import { framesOf, tone } from '../helpers/speech';
import { waitFor } from '../helpers/wait';

async function readyz(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}/readyz`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function status(url: string): Promise<number> {
  return (await fetch(url).catch(() => undefined))?.status ?? 0;
}

describe('readiness while PostgreSQL or Redis is stopped (built service)', function () {
  this.timeout(120_000);
  const backends = useBackends('ready');
  let metricsPort = 0;

  async function start(): Promise<TestServer> {
    metricsPort = await freePort();
    const [server] = backends.track([
      await startServer({
        script: clusterScript(),
        args: ['--database', await backends.database(), '--redis', backends.redis.url(), '--metrics-port', String(metricsPort)],
      }),
    ]);
    return server!;
  }

  it('PostgreSQL: /readyz 503 while it is stopped (an idle instance too), 200 once it is back; HAProxy takes the instance out and back; a live session goes on', async () => {
    const server = await start();
    assert.deepEqual(await readyz(server.url), {
      status: 200,
      body: { ready: true, draining: false, backends: { postgresql: true, redis: true } },
    });
    const { key } = await server.createKey();
    const lb = await startBalancer('haproxy', [server.port]);
    try {
      await waitFor(async () => (await status(`${lb.url}/readyz`)) === 200, 10_000, 'HAProxy to see the instance ready');
      // Idle: nobody else asks the database, the instance learns it from the check itself.
      await backends.pg.stop();
      const down = await waitFor(
        async () => {
          const r = await readyz(server.url);
          return r.status === 503 ? r : undefined;
        },
        10_000,
        '/readyz 503',
        100,
      );
      assert.deepEqual(down.body, { ready: false, draining: false, backends: { postgresql: false, redis: true } });
      const health = await fetch(`${server.url}/healthz`);
      assert.equal(health.status, 200, 'liveness unchanged');
      assert.equal(((await health.json()) as { ok: boolean }).ok, true);
      const samples = await scrape(metricsPort);
      assert.equal(sample(samples, 'dictee_backend_up{backend="postgresql"}'), 0);
      assert.equal(sample(samples, 'dictee_backend_up{backend="redis"}'), 1);
      assert.equal(sample(samples, 'dictee_ready'), 0);
      // HAProxy's own 503 (no server available), not the instance's answer.
      await waitFor(async () => (await status(`${lb.url}/healthz`)) === 503, 10_000, 'HAProxy to take the instance out');
      await backends.pg.start();
      await waitFor(async () => (await readyz(server.url)).status === 200, 20_000, '/readyz 200 again', 250);
      assert.equal(sample(await scrape(metricsPort), 'dictee_backend_up{backend="postgresql"}'), 1);
      await waitFor(async () => (await status(`${lb.url}/healthz`)) === 200, 10_000, 'HAProxy to take the instance back');

      // A session through HAProxy while the instance is taken out again: its tunnel is not cut.
      const probe = new WsProbe(`${lb.url.replace('http', 'ws')}/api/v1/audio/live`, { header: key });
      await probe.configure({ language: 'en' });
      for (const f of framesOf(tone(1000))) probe.sendAudio(f);
      await probe.roundTrip();
      await backends.pg.stop();
      await waitFor(async () => (await status(`${lb.url}/healthz`)) === 503, 10_000, 'HAProxy to take the instance out');
      for (const f of framesOf(tone(1000))) probe.sendAudio(f);
      await probe.roundTrip();
      await backends.pg.start();
      await waitFor(async () => (await status(`${lb.url}/healthz`)) === 200, 20_000, 'HAProxy to take the instance back', 250);
      probe.send({ type: 'control', action: 'stop' });
      assert.equal((await probe.closed).code, 1000);
      assert.ok(probe.messages.some((m) => m.state === 'stopped'));
    } finally {
      await lb.stop();
    }
  });

  it('Redis: /readyz 503 and dictee_backend_up{backend="redis"} 0 while it is stopped, ready again once it is back', async () => {
    const server = await start();
    assert.equal((await readyz(server.url)).status, 200);
    await backends.redis.stop();
    const down = await waitFor(
      async () => {
        const r = await readyz(server.url);
        return r.status === 503 ? r : undefined;
      },
      10_000,
      '/readyz 503',
      100,
    );
    assert.deepEqual(down.body, { ready: false, draining: false, backends: { postgresql: true, redis: false } });
    assert.equal(sample(await scrape(metricsPort), 'dictee_backend_up{backend="redis"}'), 0);
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
    await backends.redis.start();
    await waitFor(async () => (await readyz(server.url)).status === 200, 20_000, '/readyz 200 again', 250);
    assert.equal(sample(await scrape(metricsPort), 'dictee_ready'), 1);
  });
});
