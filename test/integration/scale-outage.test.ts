/**
 * PostgreSQL or Redis lost while the service runs (real servers stopped and started again by the test):
 * live sessions keep streaming where they can, nothing is sent as durable before it is, new sessions are
 * refused with INTERNAL_ERROR and `retry_after_ms` until the backend is back, and the service reconnects by
 * itself.
 */
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { DICTATED, LiveDictation, clusterScript, startInstances, tryConfigure, useBackends } from '../helpers/cluster';
import type { TestServer } from '../helpers/server';
import { waitFor } from '../helpers/wait';

/** The answer to a WebSocket upgrade: its HTTP status and body when refused, or 101. */
function upgradeAnswer(server: TestServer, key: string): Promise<{ status: number; body: string; retryAfter: string | null }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(server.wsUrl, { headers: { authorization: `Bearer ${key}` } });
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, retryAfter: res.headers['retry-after'] ?? null }));
    });
    ws.once('open', () => {
      ws.terminate();
      resolve({ status: 101, body: '', retryAfter: null });
    });
    ws.once('error', (e) => {
      if (!/Unexpected server response/.test(e.message)) reject(e);
    });
  });
}

async function assertRefusedUntilBack(server: TestServer, key: string): Promise<void> {
  const init = await fetch(`${server.url}/api/v1/live/sessions`, { method: 'POST', headers: { authorization: `Bearer ${key}` } });
  const text = await init.text();
  assert.equal(init.status, 503, text);
  const body = JSON.parse(text) as { error: { code: string; message: string; retry_after_ms: number } };
  assert.equal(body.error.code, 'INTERNAL_ERROR');
  assert.ok(body.error.retry_after_ms >= 1000, `retry_after_ms ${body.error.retry_after_ms}`);
  assert.match(body.error.message, /temporarily unavailable; retry in \d+ s/);
  assert.ok(Number(init.headers.get('retry-after')) >= 1);
  const up = await upgradeAnswer(server, key);
  assert.equal(up.status, 503, up.body);
  assert.equal((JSON.parse(up.body) as { error: { code: string } }).error.code, 'INTERNAL_ERROR');
  assert.ok(Number(up.retryAfter) >= 1);
}

describe('a backend lost while the service runs (built service)', function () {
  this.timeout(120_000);
  const backends = useBackends('outage');

  it('PostgreSQL lost: finals wait until they are durable, new sessions get INTERNAL_ERROR with retry_after_ms, all resumes once it is back', async () => {
    const [one, two] = backends.track(
      await startInstances(2, { database: await backends.database(), redis: backends.redis.url(), script: clusterScript() }),
    ) as [TestServer, TestServer];
    const { key } = await one.createKey();
    const live = await LiveDictation.start(one, key);
    live.send(0, 120);
    await waitFor(() => live.words().length === 20, 15_000, 'two sentences final');
    const mark = one.logs().length;
    await backends.pg.stop();
    // The third sentence and its pause: its final is made while the database is down.
    live.send(120, 180);
    await live.probe.roundTrip(); // every frame handled: the final exists, waiting for the database
    assert.ok(
      live.probe.messages.some((m) => m.type === 'transcript' && m.status !== 'final' && String(m.text).includes('w30')),
      'provisional text still streams',
    );
    assert.equal(live.words().length, 20, 'the final is not sent before it is durable');
    await assertRefusedUntilBack(two, key);
    assert.match(one.logs().slice(mark), /PostgreSQL connection lost/);
    await backends.pg.start();
    await waitFor(() => live.words().length === 30, 20_000, 'the held final, once the database is back');
    await waitFor(async () => (await tryConfigure(two, key)).answer.type === 'configured', 20_000, 'new sessions accepted again', 250);
    assert.match(one.logs().slice(mark), /PostgreSQL connection restored/);
    live.send(180);
    assert.deepEqual(await live.stop(), DICTATED);
    assert.ok(!one.logs().includes(backends.pg.password) && !two.logs().includes(backends.pg.password));
  });

  it('Redis lost: live sessions go on, new sessions get INTERNAL_ERROR with retry_after_ms; once back, the live session holds its slot again', async () => {
    const [one, two] = backends.track(
      await startInstances(2, {
        database: await backends.database(),
        redis: backends.redis.url(),
        script: clusterScript(),
        args: ['--concurrency-limit', '2'],
        env: { DICTEE_SLOT_LEASE_MS: '1500' },
      }),
    ) as [TestServer, TestServer];
    const { key } = await one.createKey();
    const live = await LiveDictation.start(one, key);
    live.send(0, 60);
    await waitFor(() => live.words().length === 10, 15_000, 'the first sentence final');
    const mark = one.logs().length;
    await backends.redis.stop();
    live.send(60, 120);
    await waitFor(() => live.words().length === 20, 15_000, 'the second sentence final while Redis is down');
    await assertRefusedUntilBack(two, key);
    await waitFor(() => /Redis connection lost/.test(one.logs().slice(mark)), 5000, 'the loss logged');
    await backends.redis.start(); // empty: every lease is gone
    const second = await waitFor(
      async () => {
        const r = await tryConfigure(two, key);
        return r.answer.type === 'configured' ? r : undefined;
      },
      20_000,
      'new sessions accepted again',
      250,
    );
    // The live session on the first instance took its slot again (renewal): with the limit at 2, a third is refused.
    await waitFor(
      async () => {
        const r = await tryConfigure(two, key);
        r.probe.terminate();
        return r.answer.code === 'CONCURRENCY_LIMIT_EXCEEDED';
      },
      10_000,
      'the live session to count again',
      250,
    );
    second.probe.terminate();
    assert.match(one.logs().slice(mark), /Redis connection restored/);
    live.send(120);
    assert.deepEqual(await live.stop(), DICTATED);
    assert.ok(!one.logs().includes(backends.redis.password) && !two.logs().includes(backends.redis.password));
  });
});
