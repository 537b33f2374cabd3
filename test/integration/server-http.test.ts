/**
 * HTTP endpoints of the BUILT service: session init (both paths, both key headers), key management,
 * the error body and statuses, rate and concurrency limits (HTTP and WebSocket).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KEY_PATTERN } from '../../src/protocol';
import { SERVER_JS, WsProbe, withServer, useServer } from '../helpers/server';
import { waitFor } from '../helpers/wait';

interface Reply {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

async function call(url: string, init: RequestInit = {}): Promise<Reply> {
  const res = await fetch(url, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

function assertError(r: Reply, status: number, code: string, re?: RegExp): void {
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.equal(r.body.success, false);
  const e = r.body.error as { code: string; message: string; retry_after_ms: number };
  assert.equal(e.code, code);
  assert.equal(typeof e.message, 'string');
  assert.equal(typeof e.retry_after_ms, 'number');
  if (re) assert.match(e.message, re);
}

describe('server HTTP (built service)', function () {
  this.timeout(20000);
  const server = useServer();
  let key: string;
  const master = (): Record<string, string> => ({ authorization: `Bearer ${server.masterKey}`, 'content-type': 'application/json' });

  before(async () => {
    key = (await server.createKey({ name: 'http tests' })).key;
  });

  it('GET /healthz', async () => {
    const r = await call(`${server.url}/healthz`);
    assert.equal(r.status, 200);
    assert.equal(r.body.ok, true);
    assert.equal(r.body.engine, 'simulated');
    assert.deepEqual(r.body.languages, ['fr', 'en', 'es', 'de']);
    assert.equal(r.body.busy, false);
    // The event-loop delay since the previous /healthz: the monitor runs from the start.
    await new Promise((res) => setTimeout(res, 50));
    const again = await call(`${server.url}/healthz`);
    const d = again.body.event_loop_delay_ms as { p50: number; p99: number; max: number };
    assert.ok(d.p50 >= 0 && d.p99 >= d.p50 && d.max >= d.p99, JSON.stringify(d));
  });

  describe('session init', () => {
    for (const p of ['/api/v1/live/sessions', '/v1/live/sessions']) {
      for (const h of ['x-svc-key', 'authorization']) {
        it(`POST ${p} with ${h} → 200 {success, session_id, org_id}`, async () => {
          const headers: Record<string, string> = h === 'x-svc-key' ? { 'x-svc-key': key } : { authorization: `Bearer ${key}` };
          const r = await call(`${server.url}${p}`, { method: 'POST', headers });
          assert.equal(r.status, 200, JSON.stringify(r.body));
          assert.equal(r.body.success, true);
          assert.match(String(r.body.session_id), /^[0-9a-f-]{36}$/);
          assert.match(String(r.body.org_id), /^org_/);
        });
      }
    }

    it('accepts an optional JSON body; rejects malformed JSON with 400', async () => {
      const ok = await call(`${server.url}/api/v1/live/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ note: 'x' }),
      });
      assert.equal(ok.status, 200);
      const bad = await call(`${server.url}/api/v1/live/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: '{nope',
      });
      assertError(bad, 400, 'PROTOCOL_ERROR', /not valid JSON/);
    });

    it('the WebSocket session adopts the latest unused HTTP-initialised session_id of the same key', async () => {
      const r = await call(`${server.url}/api/v1/live/sessions`, { method: 'POST', headers: { authorization: `Bearer ${key}` } });
      const p = new WsProbe(server.wsUrl, { header: key });
      const c = await p.configure();
      assert.equal(c.session_id, r.body.session_id);
      const q = new WsProbe(server.wsUrl, { header: key });
      const c2 = await q.configure();
      assert.notEqual(c2.session_id, r.body.session_id, 'an id is adopted once');
      p.close();
      q.close();
      // Tracking endpoint (master key).
      const t = await call(`${server.url}/v1/sessions/${String(c.session_id)}`, { headers: master() });
      assert.equal(t.status, 200);
      assert.equal((t.body.session as Record<string, unknown>).session_id, c.session_id);
    });

    it('401 AUTH_ERROR for a missing, malformed, unknown or revoked key; 403 without write', async () => {
      const u = `${server.url}/api/v1/live/sessions`;
      assertError(await call(u, { method: 'POST' }), 401, 'AUTH_ERROR', /missing/);
      assertError(await call(u, { method: 'POST', headers: { 'x-svc-key': 'abc' } }), 401, 'AUTH_ERROR', /not of the form/);
      assertError(await call(u, { method: 'POST', headers: { 'x-svc-key': `svc_live_${'a'.repeat(43)}` } }), 401, 'AUTH_ERROR', /unknown/);
      const k = await server.createKey({ name: 'r' });
      await server.revokeKey(k.key);
      assertError(await call(u, { method: 'POST', headers: { authorization: `Bearer ${k.key}` } }), 401, 'AUTH_ERROR', /revoked/);
      const ro = await server.createKey({ name: 'ro', permissions: ['read'] });
      assertError(await call(u, { method: 'POST', headers: { authorization: `Bearer ${ro.key}` } }), 403, 'AUTH_ERROR', /"write"/);
    });

    it('404, 405 and 413', async () => {
      assertError(await call(`${server.url}/v2/nothing`), 404, 'NOT_FOUND');
      const m = await call(`${server.url}/api/v1/live/sessions`, { headers: { authorization: `Bearer ${key}` } });
      assertError(m, 405, 'METHOD_NOT_ALLOWED');
      assert.equal(m.headers.get('allow'), 'POST');
      const big = await call(`${server.url}/api/v1/live/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: 'x'.repeat(65 * 1024),
      });
      assertError(big, 413, 'PAYLOAD_TOO_LARGE');
    });
  });

  describe('API keys', () => {
    it('creates personal live/test and project keys (201, shown once), lists them without secrets', async () => {
      const a = await call(`${server.url}/v1/api-keys`, {
        method: 'POST',
        headers: master(),
        body: JSON.stringify({ name: 'Dr Martin', type: 'personal' }),
      });
      assert.equal(a.status, 201);
      assert.equal(a.body.success, true, 'a created key answers "success": true, as every other answer');
      assert.match(String(a.body.key), KEY_PATTERN);
      assert.ok(String(a.body.key).startsWith('svc_live_'));
      assert.deepEqual(a.body.permissions, ['read', 'write']);
      for (const f of ['id', 'key', 'name', 'type', 'project_id', 'permissions', 'created_at']) assert.ok(f in a.body, f);
      const t = await call(`${server.url}/v1/api-keys`, {
        method: 'POST',
        headers: master(),
        body: JSON.stringify({ name: 't', type: 'personal', environment: 'test' }),
      });
      assert.ok(String(t.body.key).startsWith('svc_test_'));
      const p = await call(`${server.url}/v1/api-keys`, {
        method: 'POST',
        headers: master(),
        body: JSON.stringify({ name: 'team', type: 'project', project_id: 'cardio', permissions: ['read', 'write', 'admin'] }),
      });
      assert.equal(p.status, 201);
      assert.ok(String(p.body.key).startsWith('svc_proj_'));
      assert.equal(p.body.project_id, 'cardio');
      const list = await call(`${server.url}/v1/api-keys`, { headers: master() });
      assert.equal(list.status, 200);
      const text = JSON.stringify(list.body);
      for (const k of [a, t, p]) {
        assert.ok(!text.includes(String(k.body.key)), 'no secret in the listing');
        assert.ok(text.includes(String(k.body.id)));
      }
      // Only the hash is on disk.
      const db = readFileSync(path.join(server.dataDir, 'dictee.sqlite')).toString('latin1');
      assert.ok(!db.includes(String(a.body.key)));
    });

    it('rejects bad bodies with 400 CONFIG_ERROR naming the field', async () => {
      const bad: Array<[unknown, RegExp]> = [
        [{ type: 'personal' }, /name/],
        [{ name: 'x', type: 'team' }, /type/],
        [{ name: 'x', type: 'project' }, /project_id/],
        [{ name: 'x', type: 'personal', project_id: 'p' }, /project_id/],
        [{ name: 'x', type: 'personal', permissions: ['root'] }, /permissions/],
        [{ name: 'x', type: 'personal', environment: 'prod' }, /environment/],
        [{ name: 'x', type: 'personal', colour: 'red' }, /colour/],
      ];
      for (const [body, re] of bad) {
        assertError(
          await call(`${server.url}/v1/api-keys`, { method: 'POST', headers: master(), body: JSON.stringify(body) }),
          400,
          'CONFIG_ERROR',
          re,
        );
      }
      assertError(await call(`${server.url}/v1/api-keys`, { method: 'POST', headers: master(), body: '{' }), 400, 'PROTOCOL_ERROR');
    });

    it('key management needs the master key: 401 without or wrong, 403 with an API key', async () => {
      assertError(await call(`${server.url}/v1/api-keys`), 401, 'AUTH_ERROR');
      assertError(await call(`${server.url}/v1/api-keys`, { headers: { authorization: 'Bearer wrong' } }), 401, 'AUTH_ERROR');
      assertError(
        await call(`${server.url}/v1/api-keys`, { headers: { authorization: `Bearer ${key}` } }),
        403,
        'AUTH_ERROR',
        /master key/,
      );
      assertError(
        await call(`${server.url}/v1/api-keys/x`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } }),
        403,
        'AUTH_ERROR',
      );
    });

    it('revokes by key or by id (200 {success, id, revoked_at}); 404 when unknown', async () => {
      const a = await server.createKey({ name: 'a' });
      const r = await call(`${server.url}/v1/api-keys/${a.key}`, { method: 'DELETE', headers: master() });
      assert.equal(r.status, 200);
      assert.equal(r.body.success, true);
      assert.equal(r.body.id, a.id);
      assert.ok(!Number.isNaN(Date.parse(String(r.body.revoked_at))));
      const b = await server.createKey({ name: 'b' });
      assert.equal((await call(`${server.url}/v1/api-keys/${b.id}`, { method: 'DELETE', headers: master() })).status, 200);
      assertError(await call(`${server.url}/v1/api-keys/key_nope`, { method: 'DELETE', headers: master() }), 404, 'NOT_FOUND');
      assertError(
        await call(`${server.url}/v1/api-keys/svc_live_${'Q'.repeat(43)}`, { method: 'DELETE', headers: master() }),
        404,
        'NOT_FOUND',
      );
      const list = await call(`${server.url}/v1/api-keys`, { headers: master() });
      const listed = (list.body.keys as Array<{ id: string; revoked_at: string | null }>).filter((k) => k.id === a.id || k.id === b.id);
      assert.ok(listed.length === 2 && listed.every((k) => k.revoked_at));
    });
  });
});

describe('server HTTP logs', () => {
  it('never contain a key, even at debug level and for keys in paths', async () => {
    await withServer({ env: { DICTEE_LOG_LEVEL: 'debug' } }, async (server) => {
      const k = await server.createKey();
      const unknown = `svc_proj_${'Z'.repeat(43)}`;
      await call(`${server.url}/api/v1/live/sessions`, { method: 'POST', headers: { 'x-svc-key': k.key } });
      await call(`${server.url}/v1/api-keys/${unknown}`, { method: 'DELETE', headers: { authorization: `Bearer ${server.masterKey}` } });
      await call(`${server.url}/nothing/${unknown}?token=${k.key}`);
      await call(`${server.url}/v1/api-keys/${k.key}`, { method: 'DELETE', headers: { authorization: `Bearer ${server.masterKey}` } });
      const body = await call(`${server.url}/nothing/${unknown}`);
      assert.ok(!JSON.stringify(body.body).includes(unknown), 'nor in error messages');
      const logs = server.logs();
      assert.match(logs, /"level":"debug"/);
      for (const secret of [k.key, unknown, server.masterKey]) assert.ok(!logs.includes(secret), 'secret in logs');
      assert.ok(!/svc_(live|test|proj)_[A-Za-z0-9_-]{20,}/.test(logs));
    });
  });
});

describe('server limits (built service)', function () {
  this.timeout(20000);

  it('rate limit: session inits + WebSocket connections per key per window → 429 with Retry-After / RATE_LIMITED 4029', async () => {
    await withServer({ args: ['--rate-limit', '3', '--rate-window', '2'] }, async (server) => {
      const k = await server.createKey();
      const other = await server.createKey();
      const init = (key: string): Promise<Reply> =>
        call(`${server.url}/v1/live/sessions`, { method: 'POST', headers: { authorization: `Bearer ${key}` } });
      assert.equal((await init(k.key)).status, 200);
      assert.equal((await init(k.key)).status, 200);
      const ws = new WsProbe(server.wsUrl, { header: k.key });
      await ws.configure(); // the third request
      const r = await init(k.key);
      assertError(r, 429, 'RATE_LIMITED', /rate limit/);
      const wait = (r.body.error as { retry_after_ms: number }).retry_after_ms;
      assert.ok(wait > 0 && wait <= 2000, `retry_after_ms ${wait}`);
      assert.equal(r.headers.get('retry-after'), String(Math.ceil(wait / 1000)));
      const w = new WsProbe(server.wsUrl, { header: k.key });
      const err = await w.waitType('error');
      assert.equal(err.code, 'RATE_LIMITED');
      assert.ok(Number(err.retry_after_ms) > 0 && Number(err.retry_after_ms) <= 2000);
      assert.equal((await w.closed).code, 4029);
      assert.equal((await init(other.key)).status, 200, 'another key is not limited');
      // Allowed again once retry_after_ms has passed, not before (refused requests are not counted).
      const refusedAt = Date.now();
      const waitMs = Number(err.retry_after_ms);
      await waitFor(async () => (await init(k.key)).status === 200, waitMs + 2000, 'the key to be allowed again', 50);
      const waited = Date.now() - refusedAt;
      assert.ok(waited >= waitMs - 100, `allowed after ${waited} ms, retry_after_ms was ${waitMs}`);
      ws.close();
    });
  });

  it('concurrency: at the limit → CONCURRENCY_LIMIT_EXCEEDED 4030; a freed slot is reusable at once; a silent socket of the same key is replaced', async () => {
    await withServer(
      {
        args: ['--concurrency-limit', '2'],
        env: { DICTEE_STALE_SOCKET_MS: '1500', DICTEE_PING_INTERVAL_MS: '60000', DICTEE_PONG_TIMEOUT_MS: '60000' },
      },
      async (server) => {
        const k1 = await server.createKey();
        const k2 = await server.createKey();
        const a = new WsProbe(server.wsUrl, { header: k1.key });
        await a.configure();
        const b = new WsProbe(server.wsUrl, { header: k2.key });
        await b.configure();
        // Connected but not configured sockets do not count; the third configure does.
        const c = new WsProbe(server.wsUrl, { header: k2.key });
        await c.opened;
        c.send({ type: 'configure', config: {} });
        const err = await c.waitType('error');
        assert.equal(err.code, 'CONCURRENCY_LIMIT_EXCEEDED');
        assert.equal((await c.closed).code, 4030);
        // Free a slot: it is reusable at once.
        b.send({ type: 'control', action: 'stop' });
        await b.closed;
        const d = new WsProbe(server.wsUrl, { header: k2.key });
        await d.configure();
        // At the limit again: a new session of k1 is refused while k1's socket `a` has spoken within 1500 ms,
        // and replaces `a` once `a` has been silent that long. (`a` answers the one ping it gets, about 1 s in.)
        let e: WsProbe | undefined;
        const replaced = await waitFor(
          async () => {
            e = new WsProbe(server.wsUrl, { header: k1.key });
            await e.opened;
            e.send({ type: 'configure', config: {} });
            const first = await e.waitFor((m) => m.type === 'configured' || m.type === 'error');
            if (first.type === 'error') assert.equal(first.code, 'CONCURRENCY_LIMIT_EXCEEDED');
            return first.type === 'configured';
          },
          6000,
          "a's silent socket to be replaced",
          100,
        );
        assert.ok(replaced);
        await a.closed;
        // A socket that has spoken recently is not replaced: k2's `d` sends a control first.
        d.send({ type: 'control', action: 'pause' });
        await d.roundTrip(); // the service has handled it
        const f = new WsProbe(server.wsUrl, { header: k2.key });
        await f.opened;
        f.send({ type: 'configure', config: {} });
        const err2 = await f.waitType('error');
        assert.equal(err2.code, 'CONCURRENCY_LIMIT_EXCEEDED');
        d.close();
        e?.close();
      },
    );
  });
});

describe('server process (built service)', function () {
  this.timeout(20000);

  it('--help, and clear errors for bad flags (exit 2)', () => {
    const help = spawnSync(process.execPath, [SERVER_JS, '--help'], { encoding: 'utf8' });
    assert.equal(help.status, 0);
    assert.match(help.stdout, /--concurrency-limit N/);
    const bad = spawnSync(process.execPath, [SERVER_JS, '--port', 'x'], { encoding: 'utf8' });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--port needs a whole number/);
    const unknown = spawnSync(process.execPath, [SERVER_JS, '--colour'], { encoding: 'utf8' });
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /unknown option "--colour"/);
    const script = spawnSync(process.execPath, [SERVER_JS, '--script', '/nonexistent/script.txt', '--port', '0'], { encoding: 'utf8' });
    assert.equal(script.status, 2);
    assert.match(script.stderr, /cannot read --script/);
  });

  it('without DICTEE_MASTER_KEY: generates one, prints it once on stdout, keeps only its hash (0600)', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'dictee-master-'));
    const run = (): Promise<string> =>
      new Promise((resolve, reject) => {
        const env = { ...process.env };
        delete env.DICTEE_MASTER_KEY;
        const child = spawnSync(
          process.execPath,
          [
            '-e',
            `
          const { spawn } = require('node:child_process');
          const c = spawn(process.execPath, [${JSON.stringify(SERVER_JS)}, '--port', '0', '--data-dir', ${JSON.stringify(dataDir)}], { stdio: ['ignore', 'pipe', 'pipe'] });
          let out = '';
          c.stdout.on('data', (d) => { out += d; if (/listening on/.test(out)) c.kill('SIGTERM'); });
          c.on('exit', (code) => { process.stdout.write(JSON.stringify({ out, code })); });
        `,
          ],
          { encoding: 'utf8', env, timeout: 15000 },
        );
        if (child.status !== 0) reject(new Error(child.stderr));
        else resolve(child.stdout);
      });
    const first = JSON.parse(await run()) as { out: string; code: number };
    assert.equal(first.code, 0);
    const m = /master key \(shown once\): (\S+)/.exec(first.out);
    assert.ok(m, first.out);
    const lines = first.out.trim().split('\n');
    assert.equal(lines.length, 2, 'stdout: the master key notice and the listening line only');
    assert.match(lines[1]!, /^listening on http:\/\/127\.0\.0\.1:\d+$/);
    // Its hash is in the database (mode 0600), never the key itself.
    const file = path.join(dataDir, 'dictee.sqlite');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.ok(!readFileSync(file).includes(m[1]!));
    const second = JSON.parse(await run()) as { out: string; code: number };
    assert.ok(!/master key/.test(second.out), 'not shown again');
    // The generated key works for key management.
    await withServer({ dataDir, env: { DICTEE_MASTER_KEY: m[1]! } }, async (server) => {
      assert.ok((await server.createKey()).key);
    });
  });

  it('a port already in use: exit 1 before a master key is made or a store is touched; the next start shows the key', async () => {
    await withServer({}, async (busy) => {
      const dataDir = mkdtempSync(path.join(os.tmpdir(), 'dictee-busy-'));
      const env = { ...process.env };
      delete env.DICTEE_MASTER_KEY;
      const r = spawnSync(process.execPath, [SERVER_JS, '--port', String(busy.port), '--data-dir', dataDir], {
        encoding: 'utf8',
        env,
        timeout: 15000,
      });
      assert.equal(r.status, 1, r.stderr);
      assert.equal(r.stdout, '', 'no master key, no listening line');
      assert.match(r.stderr, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${busy.port}: .*EADDRINUSE`));
      assert.deepEqual(readdirSync(dataDir), [], 'no store, no master key hash');
      // The same data dir on a free port: the master key is made now, and shown.
      const ok = spawnSync(
        process.execPath,
        [
          '-e',
          `
        const { spawn } = require('node:child_process');
        const c = spawn(process.execPath, [${JSON.stringify(SERVER_JS)}, '--port', '0', '--data-dir', ${JSON.stringify(dataDir)}], { stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        c.stdout.on('data', (d) => { out += d; if (/listening on/.test(out)) c.kill('SIGTERM'); });
        c.on('exit', () => process.stdout.write(out));
      `,
        ],
        { encoding: 'utf8', env, timeout: 15000 },
      );
      assert.match(ok.stdout, /^master key \(shown once\): msk_\S+\nlistening on /);
    });
  });
});
