/**
 * The shipped deployment files use readiness (GET /readyz): HAProxy's check and nginx's passive one are
 * valid for haproxy -c and nginx -t as the load-balancer tests render them, and the systemd unit's
 * ExecStartPost, run as systemd would run it, waits for a real instance to be ready.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseArgs } from '../../src/server/commandLine';
import { freePort } from '../helpers/backends';
import { missingBalancer, renderHaproxy, renderNginx } from '../helpers/balancer';
import { ROOT } from '../helpers/dictation';
import { useServer } from '../helpers/server';

const run = promisify(execFile);
const deploy = (f: string): string => readFileSync(path.join(ROOT, 'deploy', f), 'utf8');

/** The variables an EnvironmentFile sets (its `NAME=value` lines). */
function environmentFile(text: string): Record<string, string> {
  const lines = text.split('\n').filter((l) => /^[A-Z_][A-Z0-9_]*=/.test(l));
  return Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

/** ExecStart's arguments after `dist/server.js` as systemd passes them: `${VAR}` one word, `$VAR` split at spaces. */
function execStartArgs(env: Record<string, string>): string[] {
  const m = /^ExecStart=\/usr\/bin\/node dist\/server\.js (.+)$/m.exec(deploy('dictee@.service'));
  assert.ok(m, 'ExecStart runs node dist/server.js');
  return m[1]!.split(/\s+/).flatMap((word) => {
    const whole = /^\$([A-Z_][A-Z0-9_]*)$/.exec(word);
    if (whole) return (env[whole[1]!] ?? '').split(/\s+/).filter(Boolean);
    return [
      word
        .replace(/\$\{([A-Z_][A-Z0-9_]*)\}/g, (_, name: string) => env[name] ?? '')
        .replace('%H', 'host')
        .replace('%i', '1'),
    ];
  });
}

describe('deployment files: readiness (GET /readyz)', function () {
  this.timeout(30_000);

  it('HAProxy checks GET /readyz for a 200 and keeps the sessions of an instance it takes out; haproxy -c accepts it', function () {
    const cfg = deploy('haproxy.cfg');
    const backend = cfg.slice(cfg.indexOf('backend dictee'));
    assert.match(backend, /^\s*option httpchk GET \/readyz$/m);
    assert.match(backend, /^\s*http-check expect status 200$/m);
    assert.doesNotMatch(cfg.replace(/#.*$/gm, ''), /shutdown-sessions/, 'a database outage must not cut the sessions');
    const missing = missingBalancer('haproxy');
    if (missing) this.skip();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-haproxy-check-'));
    try {
      writeFileSync(path.join(dir, 'haproxy.cfg'), renderHaproxy(8080, [8787, 8788]));
      const check = spawnSync('/usr/sbin/haproxy', ['-c', '-f', path.join(dir, 'haproxy.cfg')], { encoding: 'utf8' });
      assert.equal(check.status, 0, `${check.stdout}${check.stderr}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('nginx passes a request on when an instance answers 503 (not ready) and names /readyz for an active check; nginx -t accepts it', function () {
    const conf = deploy('nginx.conf');
    assert.match(conf, /^\s*proxy_next_upstream error timeout http_503;$/m);
    assert.match(conf, /health_check uri=\/readyz/);
    if (missingBalancer('nginx')) this.skip();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-nginx-check-'));
    try {
      writeFileSync(path.join(dir, 'nginx.conf'), renderNginx(8080, [8787, 8788], dir));
      const check = spawnSync('/usr/sbin/nginx', ['-t', '-c', path.join(dir, 'nginx.conf'), '-p', dir, '-g', 'daemon off;'], {
        encoding: 'utf8',
      });
      assert.equal(check.status, 0, `${check.stdout}${check.stderr}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the systemd unit runs the engine dictee.env chooses, not the simulated one, as the service reads its command line', () => {
    const env = { ...environmentFile(deploy('dictee.env')), ...environmentFile(deploy('instance-1.env')) };
    const opts = parseArgs(execStartArgs(env), env);
    assert.equal(opts.engine, 'pocketsphinx');
    assert.equal(opts.port, Number(env.DICTEE_PORT));
    assert.equal(opts.instanceId, 'host-1');
    // Without the line, the unit still starts (the simulated engine, which says so in its log).
    const { DICTEE_ENGINE_ARGS: _, ...without } = env;
    assert.equal(parseArgs(execStartArgs(without), without).engine, 'simulated');
  });

  describe('the systemd unit waits for GET /readyz at start', () => {
    const server = useServer();
    /** ExecStartPost's command, with systemd's variables set as the instance files set them. */
    const execStartPost = (host: string, port: number, seconds: number): string[] => {
      const m = /^ExecStartPost=\/usr\/bin\/node -e "([^"]+)" (\S+) (\d+)$/m.exec(deploy('dictee@.service'));
      assert.ok(m, 'an ExecStartPost that runs node -e on a URL');
      assert.equal(m[2], 'http://${DICTEE_HOST}:${DICTEE_PORT}/readyz');
      assert.equal(m[3], '60');
      return ['-e', m[1]!, m[2]!.replace('${DICTEE_HOST}', host).replace('${DICTEE_PORT}', String(port)), String(seconds)];
    };

    it('exits 0 once the instance is ready', async () => {
      const r = await run(process.execPath, execStartPost('127.0.0.1', server.port, 10), { timeout: 15_000 });
      assert.equal(r.stderr, '');
    });

    it('exits 1 when no instance becomes ready in time', async () => {
      const started = Date.now();
      await assert.rejects(
        run(process.execPath, execStartPost('127.0.0.1', await freePort(), 1), { timeout: 15_000 }),
        (e: { code?: number }) => e.code === 1,
      );
      assert.ok(Date.now() - started >= 1000, 'it waited for the time given');
    });
  });
});
