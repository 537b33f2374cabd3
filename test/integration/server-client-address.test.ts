/**
 * The client's address and what is counted against it, against the BUILT service on loopback, with real
 * HTTP and real `ws` clients: failed API keys are throttled per client address (10 in a minute, then
 * RATE_LIMITED with `retry_after_ms` on HTTP and on the WebSocket, close 4029), one count for HTTP and
 * WebSocket; behind `--trust-proxy` the address comes from X-Forwarded-For (another client's failures do
 * not lock a key owner out), without it the header is ignored; a refusal's log line names the address,
 * never the key; every answer carries `X-Content-Type-Options: nosniff` and `Cache-Control: no-store`; a
 * bad `--trust-proxy` stops the service with exit status 2.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { UPGRADE_HEADERS, logLines, rawRequest } from '../helpers/hostile';
import { SERVER_JS, type TestServer, withServer } from '../helpers/server';

const INIT = '/api/v1/live/sessions';

/** A key of the right form that the service has never issued. */
const wrongKey = (): string => `svc_live_${randomBytes(32).toString('base64url')}`;

interface Answer {
  status: number;
  headers: Headers;
  body: { success?: boolean; session_id?: string; error?: { code: string; message: string; retry_after_ms: number } };
}

async function post(server: TestServer, key: string, from?: string): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (from !== undefined) headers['x-forwarded-for'] = from;
  const res = await fetch(`${server.url}${INIT}`, { method: 'POST', headers });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Answer['body'] };
}

/** A WebSocket with `key`, from `from` (X-Forwarded-For): its first message (configure sent once open) and its close code. */
async function wsTry(server: TestServer, key: string, from?: string): Promise<{ first: Record<string, unknown>; close: number }> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (from !== undefined) headers['x-forwarded-for'] = from;
  const ws = new WebSocket(server.wsUrl, { headers });
  ws.on('error', () => undefined);
  const first = new Promise<Record<string, unknown>>((resolve) =>
    ws.once('message', (d) => resolve(JSON.parse(String(d)) as Record<string, unknown>)),
  );
  ws.once('open', () => ws.send(JSON.stringify({ type: 'configure', config: {} })));
  const msg = await first;
  if (msg.type === 'configured') ws.close(1000);
  const close = await new Promise<number>((resolve) =>
    ws.readyState === WebSocket.CLOSED ? resolve(-1) : ws.once('close', (c) => resolve(c)),
  );
  return { first: msg, close };
}

function assertLimited(a: Answer, what: string): void {
  assert.equal(a.status, 429, `${what}: ${JSON.stringify(a.body)}`);
  assert.equal(a.body.error?.code, 'RATE_LIMITED', what);
  const wait = a.body.error!.retry_after_ms;
  assert.ok(wait > 50_000 && wait <= 60_000, `${what}: retry_after_ms ${wait}`);
  assert.ok(Number(a.headers.get('retry-after')) >= 50, `${what}: Retry-After ${a.headers.get('retry-after')}`);
}

/** Log lines written since `from` characters of the service's output. */
const linesSince = (server: TestServer, from: number): ReturnType<typeof logLines> => logLines(server.logs().slice(from));

describe('failed API keys are throttled per client address', function () {
  this.timeout(60_000);

  it('behind --trust-proxy: 10 wrong keys from one address → the 11th request from it is 429 RATE_LIMITED on HTTP and 4029 on the WebSocket; another address is not affected', async () => {
    await withServer({ args: ['--trust-proxy', '127.0.0.1'] }, async (server) => {
      const { key } = await server.createKey();
      const guesser = '198.51.100.7';
      const owner = '198.51.100.8';
      const logFrom = server.logs().length;
      const tried: string[] = [];
      for (let i = 0; i < 10; i++) {
        const k = wrongKey();
        tried.push(k);
        const a = await post(server, k, guesser);
        assert.equal(a.status, 401, `wrong key ${i + 1}`);
        assert.equal(a.body.error?.code, 'AUTH_ERROR');
      }
      assertLimited(await post(server, wrongKey(), guesser), '11th wrong key');
      assertLimited(await post(server, key, guesser), 'the right key from the locked-out address');
      const ws = await wsTry(server, key, guesser);
      assert.equal(ws.first.type, 'error');
      assert.equal(ws.first.code, 'RATE_LIMITED');
      assert.ok(Number(ws.first.retry_after_ms) > 50_000, `retry_after_ms ${String(ws.first.retry_after_ms)}`);
      assert.equal(ws.close, 4029);

      // The key's owner, elsewhere, is not locked out by the guesser.
      const ok = await post(server, key, owner);
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      const wsOk = await wsTry(server, key, owner);
      assert.equal(wsOk.first.type, 'configured', JSON.stringify(wsOk.first));

      // The refusals' log lines name the client address, never a key nor a piece of one.
      const lines = linesSince(server, logFrom);
      const refusals = lines.filter((l) => l.msg === 'http error' && (l.status === 401 || l.status === 429));
      assert.ok(refusals.length >= 12, `refusals logged: ${refusals.length}`);
      for (const l of refusals) assert.equal(l.address, guesser, JSON.stringify(l));
      assert.ok(refusals.some((l) => l.reason === 'unknown') && refusals.some((l) => l.reason === 'locked'));
      const wsRefused = lines.find((l) => l.msg === 'WebSocket refused');
      assert.equal(wsRefused?.address, guesser, JSON.stringify(wsRefused));
      assert.equal(wsRefused?.reason, 'locked');
      const text = server.logs().slice(logFrom);
      for (const k of tried) {
        const secret = k.slice('svc_live_'.length);
        for (const piece of [k, secret.slice(0, 8), secret.slice(-8)]) assert.ok(!text.includes(piece), `the log holds ${piece}`);
      }
      const secret = key.slice('svc_live_'.length);
      for (const piece of [key, secret.slice(0, 8)]) assert.ok(!text.includes(piece), 'the log holds the right key or its beginning');
    });
  });

  it('one count for HTTP and WebSocket: 10 wrong keys on the WebSocket (4001) → the 11th WebSocket is RATE_LIMITED (4029) and a session init 429', async () => {
    await withServer({ args: ['--trust-proxy', 'loopback'] }, async (server) => {
      const { key } = await server.createKey();
      const from = '203.0.113.50';
      for (let i = 0; i < 10; i++) {
        const r = await wsTry(server, wrongKey(), from);
        assert.equal(r.first.code, 'AUTH_ERROR', `wrong key ${i + 1}: ${JSON.stringify(r.first)}`);
        assert.equal(r.close, 4001);
      }
      const r = await wsTry(server, wrongKey(), from);
      assert.equal(r.first.code, 'RATE_LIMITED', JSON.stringify(r.first));
      assert.ok(Number(r.first.retry_after_ms) > 50_000);
      assert.equal(r.close, 4029);
      assertLimited(await post(server, key, from), 'a session init with the right key');
    });
  });

  it('a success does not reset the count, and a locked-out address cannot try the master key on a session read either', async () => {
    await withServer({ args: ['--trust-proxy', '127.0.0.1'] }, async (server) => {
      const { key } = await server.createKey();
      const from = '192.0.2.44';
      for (let i = 0; i < 9; i++) assert.equal((await post(server, wrongKey(), from)).status, 401);
      assert.equal((await post(server, key, from)).status, 200, 'the right key, 9 failures in');
      assert.equal((await post(server, wrongKey(), from)).status, 401, 'the 10th failure');
      assertLimited(await post(server, key, from), 'after 10 failures, a success in between');
      const read = await fetch(`${server.url}/v1/sessions/any`, {
        headers: { authorization: `Bearer ${server.masterKey}`, 'x-forwarded-for': from },
      });
      assert.equal(read.status, 429);
      const other = await fetch(`${server.url}/v1/sessions/any`, {
        headers: { authorization: `Bearer ${server.masterKey}`, 'x-forwarded-for': '192.0.2.45' },
      });
      assert.equal(other.status, 404, 'the master key from another address reads (no such session)');
    });
  });

  it('the master-key lockout counts per client address too (X-Forwarded-For behind --trust-proxy)', async () => {
    await withServer({ args: ['--trust-proxy', '127.0.0.1'] }, async (server) => {
      const get = (auth: string, from: string): Promise<Response> =>
        fetch(`${server.url}/v1/api-keys`, { headers: { authorization: `Bearer ${auth}`, 'x-forwarded-for': from } });
      for (let i = 0; i < 10; i++) assert.equal((await get(`wrong-master-${i}`, '198.51.100.66')).status, 401);
      assert.equal((await get(server.masterKey, '198.51.100.66')).status, 429);
      assert.equal((await get(server.masterKey, '198.51.100.67')).status, 200, 'the administrators elsewhere are not locked out');
    });
  });

  it('without --trust-proxy, X-Forwarded-For is ignored: a forged header does not move the count', async () => {
    await withServer({}, async (server) => {
      const logFrom = server.logs().length;
      for (let i = 0; i < 10; i++) assert.equal((await post(server, wrongKey(), `203.0.113.${i + 1}`)).status, 401);
      assertLimited(await post(server, wrongKey(), '203.0.113.200'), 'a new forged address');
      const addresses = new Set(
        linesSince(server, logFrom)
          .filter((l) => l.msg === 'http error')
          .map((l) => l.address),
      );
      assert.deepEqual([...addresses], ['127.0.0.1']);
    });
  });

  it('--trust-proxy 1 takes the rightmost X-Forwarded-For entry: what a client puts to its left does not move the count', async () => {
    await withServer({ args: ['--trust-proxy', '1'] }, async (server) => {
      for (let i = 0; i < 10; i++) assert.equal((await post(server, wrongKey(), `10.9.9.${i}, 198.51.100.99`)).status, 401);
      assertLimited(await post(server, wrongKey(), '10.9.9.200, 198.51.100.99'), 'the same client, another forged entry');
      const { key } = await server.createKey();
      assert.equal((await post(server, key, '198.51.100.99, 198.51.100.100')).status, 200, 'another client');
    });
  });
});

describe('every answer: X-Content-Type-Options: nosniff and Cache-Control: no-store', function () {
  this.timeout(30_000);

  const assertHeaders = (h: Headers | string, what: string): void => {
    if (typeof h === 'string') {
      assert.match(h, /^x-content-type-options: nosniff\r$/im, what);
      assert.match(h, /^cache-control: no-store\r$/im, what);
      return;
    }
    assert.equal(h.get('x-content-type-options'), 'nosniff', what);
    assert.equal(h.get('cache-control'), 'no-store', what);
  };

  it('on success, on errors (401, 404, 405, 429), on refused upgrades and on a malformed request', async () => {
    await withServer({}, async (server) => {
      const { key } = await server.createKey();
      assertHeaders((await fetch(`${server.url}/healthz`)).headers, 'GET /healthz 200');
      assertHeaders((await post(server, key)).headers, 'session init 200');
      assertHeaders(
        (await fetch(`${server.url}/v1/api-keys`, { headers: { authorization: `Bearer ${server.masterKey}` } })).headers,
        'key list 200',
      );
      assertHeaders((await post(server, wrongKey())).headers, 'session init 401');
      assertHeaders((await fetch(`${server.url}/nothing/here`)).headers, '404');
      assertHeaders((await fetch(`${server.url}${INIT}`, { method: 'PUT' })).headers, '405');
      for (let i = 0; i < 10; i++) await post(server, wrongKey());
      const limited = await post(server, key);
      assert.equal(limited.status, 429);
      assertHeaders(limited.headers, '429');
      const upgrade404 = await rawRequest(server.port, `GET /nowhere HTTP/1.1\r\nHost: x\r\n${UPGRADE_HEADERS}\r\n`);
      assert.equal(upgrade404.status, 404, upgrade404.text);
      assertHeaders(upgrade404.text, 'upgrade refused 404');
      const upgrade405 = await rawRequest(server.port, `POST /api/v1/audio/live HTTP/1.1\r\nHost: x\r\n${UPGRADE_HEADERS}\r\n`);
      assert.equal(upgrade405.status, 405, upgrade405.text);
      assertHeaders(upgrade405.text, 'upgrade refused 405');
      const malformed = await rawRequest(server.port, 'GET / HTTP/1.1\r\nHost x\r\n\r\n');
      assert.equal(malformed.status, 400, malformed.text);
      assertHeaders(malformed.text, 'malformed request 400');
    });
  });
});

describe('--trust-proxy with a bad value', () => {
  /** The service with these arguments and environment: its exit status and stderr (killed after 10 s). */
  function run(args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stderr: string }> {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'dictee-trust-'));
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [SERVER_JS, '--port', '0', '--data-dir', dataDir, ...args], {
        env: { ...process.env, DICTEE_TRUST_PROXY: '', ...env },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.on('close', (status) => {
        clearTimeout(timer);
        resolve({ status, stderr });
      });
    });
  }

  for (const [value, re] of [
    ['0', /--trust-proxy 0: a hop count is 1 to 32/],
    ['true', /trusting every hop lets any client choose its own address/],
    ['proxy.internal', /--trust-proxy "proxy.internal": invalid IP address/],
    ['10.0.0.0/33', /invalid range/],
    ['10.0.0.1,,10.0.0.2', /an empty entry/],
  ] as const) {
    it(`--trust-proxy ${value} → exit 2 with a message saying what is accepted`, async () => {
      const r = await run(['--trust-proxy', value]);
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, re);
      assert.match(r.stderr, /a hop count|1 to 32/);
    });
  }

  it('DICTEE_TRUST_PROXY with a bad value → exit 2 too', async () => {
    const r = await run([], { DICTEE_TRUST_PROXY: 'nonsense' });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /--trust-proxy "nonsense": invalid IP address/);
  });
});
