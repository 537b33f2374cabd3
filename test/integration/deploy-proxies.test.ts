/**
 * The shipped proxy configurations (deploy/nginx.conf, deploy/haproxy.cfg), run as they are by Debian's
 * nginx and HAProxy with only their addresses, certificate and log paths replaced (a certificate made with
 * openssl for the test), in front of the BUILT service started with `--trust-proxy 1`:
 *
 * - the configurations pass `nginx -t` and `haproxy -c`;
 * - plain HTTP is refused with an error, never redirected, on every path (a session init, a WebSocket
 *   upgrade): the extension's client library configured with http:// fails at once, nothing reaches the
 *   service;
 * - over TLS: HSTS, the service's nosniff and no-store, and the client's address as the proxy saw it
 *   (an X-Forwarded-For the client forged does not become its address).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { initSession } from '../../src/client/http';
import { DictationError } from '../../src/client/errors';
import { freePort } from '../helpers/backends';
import { missingBalancer } from '../helpers/balancer';
import { logLines } from '../helpers/hostile';
import { type TestServer, useServer } from '../helpers/server';
import { waitFor } from '../helpers/wait';

const DEPLOY = path.resolve(__dirname, '..', '..', 'deploy');

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTPS request, the test's certificate as the only trusted CA. */
function tlsRequest(url: string, ca: Buffer, o: { method?: string; headers?: Record<string, string> } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method: o.method ?? 'GET', headers: o.headers, ca, servername: 'dictation.example.org' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A self-signed certificate for dictation.example.org and 127.0.0.1: key, certificate, and both in one PEM (HAProxy). */
function makeCertificate(dir: string): { key: string; crt: string; pem: string; ca: Buffer } {
  const key = path.join(dir, 'dictee.key');
  const crt = path.join(dir, 'dictee.crt');
  const r = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=dictation.example.org',
      '-keyout',
      key,
      '-out',
      crt,
      '-addext',
      'subjectAltName=DNS:dictation.example.org,IP:127.0.0.1',
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`openssl: ${r.stderr}`);
  const pem = path.join(dir, 'dictee.pem');
  writeFileSync(pem, readFileSync(crt, 'utf8') + readFileSync(key, 'utf8'));
  return { key, crt, pem, ca: readFileSync(crt) };
}

/** deploy/nginx.conf, its listen, certificate, log and server lines pointed at the test's, inside a minimal main configuration. */
function renderNginx(dir: string, plain: number, tls: number, backend: number, cert: { key: string; crt: string }): string {
  let conf = readFileSync(path.join(DEPLOY, 'nginx.conf'), 'utf8');
  const swaps: Array<[RegExp, string]> = [
    [/^\s*server\s+10\.0\.0\.11:\d+ (.*);$/m, `    server 127.0.0.1:${backend} $1;`],
    [/^\s*server\s+10\.0\.0\.\d+:\d+ .*;\n/gm, ''],
    [/listen 80;/, `listen 127.0.0.1:${plain};`],
    [/listen 443 ssl;/, `listen 127.0.0.1:${tls} ssl;`],
    [/ssl_certificate\s+\S+;/, `ssl_certificate ${cert.crt};`],
    [/ssl_certificate_key\s+\S+;/, `ssl_certificate_key ${cert.key};`],
    [/access_log \S+ dictee;/g, `access_log ${path.join(dir, 'access.log')} dictee;`],
  ];
  for (const [re, to] of swaps) {
    const before = conf;
    conf = conf.replace(re, to);
    if (conf === before && !re.global) throw new Error(`deploy/nginx.conf has no line matching ${re}`);
  }
  return [
    'worker_processes 1;',
    `pid ${path.join(dir, 'nginx.pid')};`,
    `error_log ${path.join(dir, 'error.log')} info;`,
    'events { worker_connections 64; }',
    'http {',
    `  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi; uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;`,
    conf,
    '}',
  ].join('\n');
}

/** deploy/haproxy.cfg, its bind and server lines pointed at the test's. */
function renderHaproxy(plain: number, tls: number, backend: number, pem: string): string {
  let cfg = readFileSync(path.join(DEPLOY, 'haproxy.cfg'), 'utf8');
  const swaps: Array<[RegExp, string]> = [
    [/bind :443 ssl crt \S+/, `bind 127.0.0.1:${tls} ssl crt ${pem}`],
    [/bind :80$/m, `bind 127.0.0.1:${plain}`],
    [/^\s*server dictee1 .*$/m, `    server dictee1 127.0.0.1:${backend} check`],
    [/^\s*server dictee2 .*\n/m, ''],
  ];
  for (const [re, to] of swaps) {
    const before = cfg;
    cfg = cfg.replace(re, to);
    if (cfg === before) throw new Error(`deploy/haproxy.cfg has no line matching ${re}`);
  }
  return cfg;
}

type Kind = 'nginx' | 'haproxy';

describe('the shipped proxy configurations (deploy/): TLS, HSTS, no plain HTTP, the client address', function () {
  this.timeout(60_000);
  const server = useServer({ args: ['--trust-proxy', '1'] });

  for (const kind of ['nginx', 'haproxy'] as const) {
    describe(kind, () => {
      let dir = '';
      let child: ChildProcess | undefined;
      let plainUrl = '';
      let tlsUrl = '';
      let ca: Buffer = Buffer.alloc(0);

      before(async function () {
        const missing = missingBalancer(kind);
        if (missing) throw new Error(`missing for this test: ${missing}`);
        dir = mkdtempSync(path.join(os.tmpdir(), `dictee-${kind}-tls-`));
        const cert = makeCertificate(dir);
        ca = cert.ca;
        const [plain, tls] = [await freePort(), await freePort()];
        plainUrl = `http://127.0.0.1:${plain}`;
        tlsUrl = `https://127.0.0.1:${tls}`;
        child = start(kind, dir, plain, tls, server, cert);
        await waitFor(
          async () => (await tlsRequest(`${tlsUrl}/healthz`, ca).catch(() => undefined))?.status === 200,
          15_000,
          `${kind} over TLS`,
          100,
        );
      });

      after(() => {
        if (child?.pid && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
        if (dir) rmSync(dir, { recursive: true, force: true });
      });

      it('plain HTTP: every path answered 400 with a JSON error, no redirect, nothing reaches the service', async () => {
        const logFrom = server.logs().length;
        const { key } = await server.createKey();
        for (const [method, p] of [
          ['POST', '/api/v1/live/sessions'],
          ['POST', '/v1/live/sessions'],
          ['GET', '/v1/api-keys'],
          ['GET', '/healthz'],
          ['GET', '/'],
        ] as const) {
          const res = await fetch(`${plainUrl}${p}`, { method, headers: { authorization: `Bearer ${key}` }, redirect: 'manual' });
          assert.equal(res.status, 400, `${method} ${p}`);
          assert.equal(res.headers.get('location'), null, `${method} ${p}: no redirect`);
          assert.equal(res.headers.get('strict-transport-security'), null, 'no HSTS over plain HTTP');
          assert.equal(res.headers.get('cache-control'), 'no-store');
          assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
          const body = (await res.json()) as { success: boolean; error: { code: string; message: string; retry_after_ms: number } };
          assert.equal(body.success, false);
          assert.equal(body.error.code, 'PROTOCOL_ERROR');
          assert.match(body.error.message, /plain HTTP is refused: use https:\/\//);
        }
        const ws = new WebSocket(`${plainUrl.replace('http:', 'ws:')}/api/v1/audio/live`, { headers: { authorization: `Bearer ${key}` } });
        const upgrade = await new Promise<number>((resolve) => {
          ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
          ws.once('open', () => resolve(101));
          ws.once('error', () => resolve(-1));
        });
        ws.terminate();
        assert.equal(upgrade, 400, 'the WebSocket upgrade over ws:// is refused');
        // The extension's client library, configured with http://, fails at once and does not retry.
        await assert.rejects(initSession(plainUrl, key), (e: DictationError) => {
          assert.equal(e.code, 'PROTOCOL_ERROR');
          assert.equal(e.fatal, true);
          assert.match(e.message, /plain HTTP is refused/);
          return true;
        });
        // Over TLS the same key works; the service saw none of the plain requests.
        const ok = await tlsRequest(`${tlsUrl}/api/v1/live/sessions`, ca, { method: 'POST', headers: { authorization: `Bearer ${key}` } });
        assert.equal(ok.status, 200, ok.body);
        const lines = logLines(server.logs().slice(logFrom));
        assert.equal(lines.filter((l) => l.msg === 'session initialised').length, 1, 'only the TLS session init reached the service');
      });

      it('over TLS: HSTS from the proxy, nosniff and no-store from the service, on success and on errors', async () => {
        for (const [p, status] of [
          ['/healthz', 200],
          ['/nothing/here', 404],
          ['/v1/api-keys', 401],
        ] as const) {
          const r = await tlsRequest(`${tlsUrl}${p}`, ca);
          assert.equal(r.status, status, `${p}: ${r.body}`);
          assert.equal(r.headers['strict-transport-security'], 'max-age=63072000', p);
          assert.equal(r.headers['x-content-type-options'], 'nosniff', p);
          assert.equal(r.headers['cache-control'], 'no-store', p);
        }
      });

      it('the client address is the one the proxy saw: a forged X-Forwarded-For is not taken (--trust-proxy 1)', async () => {
        const logFrom = server.logs().length;
        const r = await tlsRequest(`${tlsUrl}/api/v1/live/sessions`, ca, {
          method: 'POST',
          headers: { authorization: `Bearer svc_live_${'Z'.repeat(43)}`, 'x-forwarded-for': '203.0.113.9' },
        });
        assert.equal(r.status, 401, r.body);
        const line = await waitFor(
          () => logLines(server.logs().slice(logFrom)).find((l) => l.msg === 'http error' && l.status === 401),
          5000,
          'the refusal in the log',
        );
        assert.equal(line.address, '127.0.0.1', JSON.stringify(line));
      });
    });
  }
});

function start(
  kind: Kind,
  dir: string,
  plain: number,
  tls: number,
  server: TestServer,
  cert: ReturnType<typeof makeCertificate>,
): ChildProcess {
  let child: ChildProcess;
  if (kind === 'nginx') {
    const cfg = path.join(dir, 'nginx.conf');
    writeFileSync(cfg, renderNginx(dir, plain, tls, server.port, cert));
    const check = spawnSync('/usr/sbin/nginx', ['-t', '-c', cfg, '-p', dir, '-g', 'daemon off;'], { encoding: 'utf8' });
    assert.equal(check.status, 0, `nginx -t: ${check.stdout}${check.stderr}`);
    child = spawn('/usr/sbin/nginx', ['-c', cfg, '-p', dir, '-g', 'daemon off;'], { detached: true, stdio: 'ignore' });
  } else {
    const cfg = path.join(dir, 'haproxy.cfg');
    writeFileSync(cfg, renderHaproxy(plain, tls, server.port, cert.pem));
    const check = spawnSync('/usr/sbin/haproxy', ['-c', '-f', cfg], { encoding: 'utf8' });
    assert.equal(check.status, 0, `haproxy -c: ${check.stdout}${check.stderr}`);
    child = spawn('/usr/sbin/haproxy', ['-db', '-f', cfg], { detached: true, stdio: 'ignore' });
  }
  return child;
}
