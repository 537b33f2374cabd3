/**
 * What one key or one connection may hold, against the BUILT service: a session without audio is closed
 * after the idle limit (SESSION_IDLE, close 4008) and stays resumable, a session sending audio is not;
 * `--per-key-limit`; a refused session init consumes no rate slot; control messages are bounded per
 * connection, and state changes are logged at debug.
 */
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { logLines } from '../helpers/hostile';
import { WsProbe, withServer } from '../helpers/server';
import { sleep } from '../helpers/wait';

describe('service: limits on what a key or a connection holds (built service)', function () {
  this.timeout(60_000);

  describe('a session without audio is closed after the idle limit', () => {
    it('a configured session that never sends audio gets SESSION_IDLE and close 4008 after the idle limit, and its slot is free', async () => {
      await withServer(
        { args: ['--concurrency-limit', '1'], env: { DICTEE_IDLE_TIMEOUT_MS: '1500', DICTEE_PING_INTERVAL_MS: '200' } },
        async (server) => {
          const { key } = await server.createKey();
          const p = new WsProbe(server.wsUrl, { header: key });
          const c = await p.configure();
          const t0 = Date.now();
          const err = await p.waitType('error', 6000);
          assert.equal(err.code, 'SESSION_IDLE');
          assert.equal(err.session_id, c.session_id);
          assert.equal((await p.closed).code, 4008);
          assert.ok(Date.now() - t0 >= 1000, 'not before the idle limit');
          const q = new WsProbe(server.wsUrl, { header: key });
          await q.configure();
          q.close();
        },
      );
    });

    it('a paused session is closed the same way, and can still be resumed with its text', async () => {
      await withServer({ env: { DICTEE_IDLE_TIMEOUT_MS: '1500' } }, async (server) => {
        const { key } = await server.createKey();
        const p = new WsProbe(server.wsUrl, { header: key });
        const c = await p.configure();
        p.sendAudio(Buffer.alloc(3200));
        p.send({ type: 'control', action: 'pause' });
        const err = await p.waitType('error', 6000);
        assert.equal(err.code, 'SESSION_IDLE');
        assert.equal((await p.closed).code, 4008);
        const q = new WsProbe(server.wsUrl, { header: key });
        const rc = await q.configure({ resume: { session_id: c.session_id, last_seq: 0 } });
        assert.equal(rc.resumed, true);
        q.close();
      });
    });

    it('a session that sends audio is not idle', async () => {
      await withServer({ env: { DICTEE_IDLE_TIMEOUT_MS: '1000', DICTEE_PING_INTERVAL_MS: '200' } }, async (server) => {
        const { key } = await server.createKey();
        const p = new WsProbe(server.wsUrl, { header: key });
        await p.configure();
        const t0 = Date.now();
        // Audio every 100 ms until a ping comes more than twice the idle limit after configure: the heartbeat
        // checks the idle limit before it pings, and closes a session it finds idle instead of pinging it.
        while (!p.pings.some((t) => t - t0 >= 2000)) {
          assert.equal(p.ws.readyState, WebSocket.OPEN, `closed while sending audio: ${JSON.stringify(p.messages)}`);
          assert.ok(Date.now() - t0 < 10_000, `no ping within 10 s (${p.pings.length} pings)`);
          p.sendAudio(Buffer.alloc(3200));
          await sleep(100);
        }
        assert.equal(p.ofType('error').length, 0);
        assert.equal(p.ws.readyState, WebSocket.OPEN);
        p.close();
      });
    });
  });

  describe('one key holds at most --per-key-limit live sessions', () => {
    it("--per-key-limit 2: a key's third live session gets CONCURRENCY_LIMIT_EXCEEDED naming the per-key limit; another key still gets a slot", async () => {
      await withServer({ args: ['--per-key-limit', '2'] }, async (server) => {
        const a = await server.createKey();
        const b = await server.createKey();
        const p1 = new WsProbe(server.wsUrl, { header: a.key });
        const p2 = new WsProbe(server.wsUrl, { header: a.key });
        await p1.configure();
        await p2.configure();
        const p3 = new WsProbe(server.wsUrl, { header: a.key });
        await p3.opened;
        p3.send({ type: 'configure', config: {} });
        const err = await p3.waitType('error');
        assert.equal(err.code, 'CONCURRENCY_LIMIT_EXCEEDED');
        assert.match(String(err.message), /per key/);
        assert.equal((await p3.closed).code, 4030);
        const q = new WsProbe(server.wsUrl, { header: b.key });
        await q.configure();
        for (const p of [p1, p2, q]) p.close();
      });
    });
  });

  describe('the rate limit counts valid session inits only', () => {
    it('with --rate-limit 2, three inits with bad JSON (400) leave both slots for valid inits', async () => {
      await withServer({ args: ['--rate-limit', '2'] }, async (server) => {
        const { key } = await server.createKey();
        const post = (body: string): Promise<Response> =>
          fetch(`${server.url}/api/v1/live/sessions`, {
            method: 'POST',
            headers: { 'x-svc-key': key, 'content-type': 'application/json' },
            body,
          });
        for (let i = 0; i < 3; i++) assert.equal((await post('{not json')).status, 400);
        assert.equal((await post('[1]')).status, 400);
        assert.equal((await post('{}')).status, 200);
        assert.equal((await post('')).status, 200);
        assert.equal((await post('{}')).status, 429);
      });
    });
  });

  describe('control messages are bounded per connection and state changes are logged at debug', () => {
    it('20,000 pause/resume: PROTOCOL_ERROR past the bound, close 4000, and a few lines of log at info', async () => {
      await withServer({}, async (server) => {
        const { key } = await server.createKey();
        const p = new WsProbe(server.wsUrl, { header: key });
        const c = await p.configure();
        const before = server.logs().length;
        for (let i = 0; i < 20_000; i++) {
          if (p.ws.readyState !== p.ws.OPEN) break;
          p.send({ type: 'control', action: i % 2 ? 'resume' : 'pause' });
        }
        const err = await p.waitType('error');
        assert.equal(err.code, 'PROTOCOL_ERROR');
        assert.match(String(err.message), /too many control messages/);
        assert.equal(err.session_id, c.session_id);
        assert.equal((await p.closed).code, 4000);
        const grown = server.logs().length - before;
        assert.ok(grown < 4000, `${grown} bytes of log for the flood`);
        assert.ok(!logLines(server.logs()).some((l) => l.msg === 'state change' && l.level === 'info'), 'state changes are not at info');
      });
    });

    it('an ordinary rhythm of pause and resume stays under the bound', async () => {
      await withServer({}, async (server) => {
        const { key } = await server.createKey();
        const p = new WsProbe(server.wsUrl, { header: key });
        await p.configure();
        for (let i = 0; i < 20; i++) p.send({ type: 'control', action: i % 2 ? 'resume' : 'pause' });
        p.send({ type: 'control', action: 'stop' });
        await p.waitFor((m) => m.type === 'status' && m.state === 'stopped');
        assert.equal((await p.closed).code, 1000);
        assert.equal(p.ofType('error').length, 0);
      });
    });
  });
});
