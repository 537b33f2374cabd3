/**
 * Regression tests for the defects of the hostile review (issue 12: numbers in the titles) whose fixes
 * live in the HTTP layer and the session registry, against the BUILT service: malformed request lines and
 * URLs over raw `net` sockets (descriptors counted in /proc), header timeouts, aborted bodies, the idle
 * limit, the per-key limit, master-key guessing, retention, project scoping, invalid UTF-8 and
 * `resume.last_seq` above what the session issued.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import Database from 'better-sqlite3';
import path from 'node:path';
import WebSocket from 'ws';
import { DB_FILE } from '../../src/server/storage/db';
import { UPGRADE_HEADERS, logLines, openFds, rawRequest, rawSocket } from '../helpers/hostile';
import { WsProbe, withServer, useServer } from '../helpers/server';
import { sleep, waitFor } from '../helpers/wait';

async function get(url: string, token?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

describe('server hardening: HTTP layer and session registry (built service)', function () {
  this.timeout(60_000);

  describe('1: an upgrade request whose URL cannot be parsed', () => {
    it('is answered 400 and its socket destroyed: 200 of them leave no descriptor behind', async () => {
      await withServer({}, async (server) => {
        const pid = server.process().pid!;
        const before = openFds(pid);
        const replies = await Promise.all(
          Array.from({ length: 200 }, () => rawRequest(server.port, `GET //[ HTTP/1.1\r\n${UPGRADE_HEADERS}\r\n`, { waitMs: 5000 })),
        );
        for (const r of replies) {
          assert.equal(r.status, 400, r.text || 'no answer');
          assert.ok(r.closedByServer, 'the service closed the connection');
        }
        await waitFor(() => openFds(pid) <= before + 5, 5000, `descriptors back to ${before} (now ${openFds(pid)})`);
        assert.ok(!logLines(server.logs()).some((l) => l.level === 'error'), 'nothing at error level');
      });
    });

    it('with 256 descriptors allowed, 300 such requests leave /healthz reachable', async () => {
      await withServer({}, async (server) => {
        const pid = server.process().pid!;
        execFileSync('prlimit', ['--pid', String(pid), '--nofile=256:256']);
        for (let batch = 0; batch < 3; batch++) {
          await Promise.all(Array.from({ length: 100 }, () => rawRequest(server.port, `GET //[ HTTP/1.1\r\n${UPGRADE_HEADERS}\r\n`, { waitMs: 1500 })));
        }
        const h = await get(`${server.url}/healthz`);
        assert.equal(h.status, 200);
      });
    });
  });

  describe('campaign finding: CONNECT and upgrades with another method than GET', () => {
    it('CONNECT is answered 405 with the error body and its socket closed; a POST upgrade is answered 405 too', async () => {
      await withServer({}, async (server) => {
        const pid = server.process().pid!;
        const before = openFds(pid);
        const replies = await Promise.all(Array.from({ length: 50 }, () => rawRequest(server.port, 'CONNECT /healthz HTTP/1.1\r\nHost: x\r\n\r\n', { waitMs: 5000 })));
        for (const r of replies) {
          assert.equal(r.status, 405, r.text || 'no answer');
          assert.match(r.text, /"code":"METHOD_NOT_ALLOWED"/);
          assert.ok(r.closedByServer);
        }
        const post = await rawRequest(server.port, `POST /api/v1/audio/live HTTP/1.1\r\n${UPGRADE_HEADERS}\r\n`);
        assert.equal(post.status, 405, post.text);
        assert.match(post.text, /"code":"METHOD_NOT_ALLOWED"/);
        await waitFor(() => openFds(pid) <= before + 5, 5000, 'descriptors given back');
      });
    });
  });

  describe('campaign finding: a refused WebSocket that sends a frame over the size limit', () => {
    it('is closed (1009) without an uncaught exception', async () => {
      await withServer({}, async (server) => {
        const p = new WsProbe(server.wsUrl, { header: `svc_live_${'A'.repeat(43)}` });
        await p.opened;
        p.sendAudio(Buffer.alloc(300 * 1024));
        await p.closed;
        // A marker in the service's log (one stream, written in order): a request made after the close is
        // logged after whatever the frame caused.
        const marker = `/after-the-oversized-frame-${process.pid}`;
        assert.equal((await get(`${server.url}${marker}`)).status, 404);
        await waitFor(() => logLines(server.logs()).some((l) => l.msg === 'http error' && l.path === marker), 5000, 'the marker request in the log');
        assert.ok(!logLines(server.logs()).some((l) => l.level === 'error'), server.logs());
      });
    });
  });

  describe('2: malformed percent-encoding and URLs', () => {
    const server = useServer({ env: { DICTEE_LOG_LEVEL: 'debug' } });
    const cases: Array<[string, string, (m: string) => string]> = [
      ['GET /v1/sessions/%E0%A4%A before authentication', 'GET /v1/sessions/%E0%A4%A', () => ''],
      ['DELETE /v1/api-keys/%zz with the master key', 'DELETE /v1/api-keys/%zz', (m) => `Authorization: Bearer ${m}\r\n`],
      ['GET //[', 'GET //[', () => ''],
      ['GET /v1/sessions/%', 'GET /v1/sessions/%', () => ''],
      ['GET /%00/%ff?%zz=%', 'GET /%00/%ff?%zz=%', () => ''],
    ];
    for (const [name, line, headers] of cases) {
      it(`${name} → 400 or 404 with the error body, nothing at error level`, async () => {
        const before = server.logs().length;
        const r = await rawRequest(server.port, `${line} HTTP/1.1\r\nHost: x\r\n${headers(server.masterKey)}Connection: close\r\n\r\n`);
        assert.ok(r.status === 400 || r.status === 404, r.text || 'no answer');
        const body = JSON.parse(r.text.slice(r.text.indexOf('\r\n\r\n') + 4)) as { success: boolean; error: { code: string } };
        assert.equal(body.success, false);
        assert.ok(['PROTOCOL_ERROR', 'NOT_FOUND'].includes(body.error.code), body.error.code);
        const lines = logLines(server.logs().slice(before));
        assert.ok(!lines.some((l) => l.level === 'error'), JSON.stringify(lines));
        assert.ok(!server.logs().slice(before).includes('"stack"'), 'no stack trace');
      });
    }
  });

  describe('4: idle sessions and the per-key limit', () => {
    it('a configured session that never sends audio gets SESSION_IDLE and close 4008 after the idle limit, and its slot is free', async () => {
      await withServer({ args: ['--concurrency-limit', '1'], env: { DICTEE_IDLE_TIMEOUT_MS: '1500', DICTEE_PING_INTERVAL_MS: '200' } }, async (server) => {
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
      });
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

    it('--per-key-limit 2: a key\'s third live session gets CONCURRENCY_LIMIT_EXCEEDED naming the per-key limit; another key still gets a slot', async () => {
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

  describe('5: failed master-key attempts are rate-limited per address', () => {
    it('after 10 failures in a minute: 429 RATE_LIMITED with retry_after_ms, even for the right key', async () => {
      await withServer({}, async (server) => {
        for (let i = 0; i < 10; i++) assert.equal((await get(`${server.url}/v1/api-keys`, `wrong-master-key-${i}`)).status, 401);
        const r = await get(`${server.url}/v1/api-keys`, 'wrong-master-key-x');
        assert.equal(r.status, 429);
        const e = r.body.error as { code: string; retry_after_ms: number };
        assert.equal(e.code, 'RATE_LIMITED');
        assert.ok(e.retry_after_ms > 50_000 && e.retry_after_ms <= 60_000, String(e.retry_after_ms));
        assert.equal((await get(`${server.url}/v1/api-keys`, server.masterKey)).status, 429);
        assert.equal((await get(`${server.url}/healthz`)).status, 200, 'other endpoints unaffected');
      });
    });
  });

  describe('8: aborted bodies and header limits', () => {
    it('a client that aborts its body is logged at debug, not as an internal error', async () => {
      await withServer({ env: { DICTEE_LOG_LEVEL: 'debug' } }, async (server) => {
        const { key } = await server.createKey();
        const s = await rawSocket(server.port);
        s.write(`POST /api/v1/live/sessions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":`);
        await new Promise((r) => setTimeout(r, 200));
        s.destroy();
        await waitFor(() => /request body aborted/.test(server.logs()), 5000, 'the aborted body in the log');
        const lines = logLines(server.logs());
        assert.ok(!lines.some((l) => l.level === 'error'), JSON.stringify(lines.filter((l) => l.level === 'error')));
        assert.equal(lines.find((l) => /request body aborted/.test(l.msg))?.level, 'debug');
      });
    });

    it('headers that never end → 408; headers over 16 KiB → 431', async () => {
      await withServer({ env: { DICTEE_HEADERS_TIMEOUT_MS: '1000' } }, async (server) => {
        const slow = await rawRequest(server.port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n', { waitMs: 8000 });
        assert.equal(slow.status, 408, slow.text || 'no answer');
        const big = await rawRequest(server.port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
        assert.equal(big.status, 431, big.text || 'no answer');
      });
    });
  });

  describe('9: retention of session records and transcript events', () => {
    it('--retention-days 30 (default): records and events older than 30 days are deleted, newer ones kept', async () => {
      await withServer({}, async (server) => {
        const { key } = await server.createKey();
        const ids: string[] = [];
        for (let i = 0; i < 2; i++) {
          const p = new WsProbe(server.wsUrl, { header: key });
          ids.push(String((await p.configure()).session_id));
          p.send({ type: 'control', action: 'stop' });
          await p.closed;
        }
        await server.stop();
        const db = new Database(path.join(server.dataDir, DB_FILE));
        const old = new Date(Date.now() - 31 * 86_400_000).toISOString();
        db.prepare('UPDATE sessions SET created_at = ?, started_at = ?, ended_at = ? WHERE id = ?').run(old, old, old, ids[0]);
        db.prepare('INSERT INTO session_events (session_id, seq, json) VALUES (?, 1, ?)').run(ids[0], '{"type":"transcript","text":"old words"}');
        db.prepare('UPDATE session_checkpoints SET created_at = ?, stopped_at = ?, updated_at = ? WHERE session_id = ?').run(old, old, old, ids[0]);
        db.close();
        await server.restart();
        assert.equal((await get(`${server.url}/v1/sessions/${ids[0]}`, server.masterKey)).status, 404, 'the old record is gone');
        assert.equal((await get(`${server.url}/v1/sessions/${ids[1]}`, server.masterKey)).status, 200, 'the recent one stays');
        await server.stop();
        const db2 = new Database(path.join(server.dataDir, DB_FILE), { readonly: true });
        assert.equal((db2.prepare('SELECT COUNT(*) AS n FROM session_events WHERE session_id = ?').get(ids[0]) as { n: number }).n, 0);
        db2.close();
      });
    });
  });

  describe('10: project scoping on session reads', () => {
    it('an admin key of project A cannot read a session of project B (404); project B\'s admin key and the master key can', async () => {
      await withServer({}, async (server) => {
        const adminA = await server.createKey({ type: 'project', project_id: 'A', permissions: ['read', 'write', 'admin'] });
        const adminB = await server.createKey({ type: 'project', project_id: 'B', permissions: ['read', 'write', 'admin'] });
        const writerB = await server.createKey({ type: 'project', project_id: 'B' });
        const p = new WsProbe(server.wsUrl, { header: writerB.key });
        const id = String((await p.configure()).session_id);
        const init = await fetch(`${server.url}/api/v1/live/sessions`, { method: 'POST', headers: { 'x-svc-key': writerB.key } });
        const initId = String(((await init.json()) as { session_id: string }).session_id);
        for (const sid of [id, initId]) {
          assert.equal((await get(`${server.url}/v1/sessions/${sid}`, adminA.key)).status, 404, 'live or recorded, another project\'s session is not found');
          assert.equal((await get(`${server.url}/v1/sessions/${sid}`, adminB.key)).status, 200);
          assert.equal((await get(`${server.url}/v1/sessions/${sid}`, server.masterKey)).status, 200);
        }
        p.close();
      });
    });
  });

  describe('11: a refused session init does not consume a rate slot', () => {
    it('with --rate-limit 2, three inits with bad JSON (400) leave both slots for valid inits', async () => {
      await withServer({ args: ['--rate-limit', '2'] }, async (server) => {
        const { key } = await server.createKey();
        const post = (body: string): Promise<Response> =>
          fetch(`${server.url}/api/v1/live/sessions`, { method: 'POST', headers: { 'x-svc-key': key, 'content-type': 'application/json' }, body });
        for (let i = 0; i < 3; i++) assert.equal((await post('{not json')).status, 400);
        assert.equal((await post('[1]')).status, 400);
        assert.equal((await post('{}')).status, 200);
        assert.equal((await post('')).status, 200);
        assert.equal((await post('{}')).status, 429);
      });
    });
  });

  describe('12: invalid UTF-8 in a text frame', () => {
    const server = useServer();
    let key: string;
    before(async () => {
      key = (await server.createKey()).key;
    });
    for (const configured of [false, true]) {
      it(`${configured ? 'after' : 'before'} configure: error PROTOCOL_ERROR first, then close 1007`, async () => {
        const p = new WsProbe(server.wsUrl, { header: key });
        await p.opened;
        if (configured) await p.configure();
        p.ws.send(Buffer.from([0x7b, 0x22, 0x74, 0xff, 0xfe, 0x22, 0x7d]), { binary: false });
        const err = await p.waitType('error');
        assert.equal(err.code, 'PROTOCOL_ERROR');
        assert.match(String(err.message), /UTF-8/);
        assert.equal((await p.closed).code, 1007);
      });
    }
  });

  describe('14: resume.last_seq above what the session issued', () => {
    it('in memory: CONFIG_ERROR naming resume.last_seq and the highest issued seq; a correct resume still works', async () => {
      await withServer({}, async (server) => {
        const { key } = await server.createKey();
        const p = new WsProbe(server.wsUrl, { header: key });
        const c = await p.configure();
        p.terminate();
        await p.closed;
        const q = new WsProbe(server.wsUrl, { header: key });
        await q.opened;
        q.send({ type: 'configure', config: { resume: { session_id: c.session_id, last_seq: 5 } } });
        const err = await q.waitType('error');
        assert.equal(err.code, 'CONFIG_ERROR');
        assert.match(String(err.message), /resume\.last_seq 5 is above the highest seq this session issued \(0\)/);
        assert.equal((await q.closed).code, 4002);
        const r = new WsProbe(server.wsUrl, { header: key });
        const rc = await r.configure({ resume: { session_id: c.session_id, last_seq: 0 } });
        assert.equal(rc.resumed, true);
        r.close();
      });
    });
  });
});
