/**
 * A load balancer in front of test instances: HAProxy or nginx (Debian's), running the configuration
 * files of `deploy/` with only their listening and server lines replaced by test addresses (and TLS left
 * out), in a temporary directory, in its own process group, stopped after.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './backends';
import { waitFor } from './wait';

const DEPLOY = path.resolve(__dirname, '..', '..', 'deploy');

export type BalancerKind = 'haproxy' | 'nginx';

export interface TestBalancer {
  kind: BalancerKind;
  url: string;
  logs(): string;
  stop(): Promise<void>;
}

export function missingBalancer(kind: BalancerKind): string | undefined {
  const bin = kind === 'haproxy' ? '/usr/sbin/haproxy' : '/usr/sbin/nginx';
  return spawnSync(bin, ['-v']).status === 0 ? undefined : `${kind} (Debian package ${kind}; npm run e2e:setup installs it)`;
}

/** deploy/haproxy.cfg with the frontend on 127.0.0.1:`port` (plain HTTP) and `backends` as its servers. */
export function renderHaproxy(port: number, backends: number[]): string {
  const cfg = readFileSync(path.join(DEPLOY, 'haproxy.cfg'), 'utf8');
  const lines = cfg.split('\n');
  const out: string[] = [];
  let serversWritten = false;
  let bindWritten = false;
  for (const line of lines) {
    if (/^\s*bind\s/.test(line)) {
      if (!bindWritten) out.push(`    bind 127.0.0.1:${port}`);
      bindWritten = true;
    } else if (/^\s*http-request (redirect scheme https|return .* unless \{ ssl_fc \})/.test(line)) {
      continue;
    } else if (/^\s*server\s/.test(line)) {
      if (!serversWritten) backends.forEach((p, i) => out.push(`    server dictee${i + 1} 127.0.0.1:${p} check`));
      serversWritten = true;
    } else {
      out.push(line);
    }
  }
  if (!bindWritten || !serversWritten) throw new Error('deploy/haproxy.cfg has no bind or no server line');
  return out.join('\n');
}

/** deploy/nginx.conf inside a minimal main configuration: its HTTPS server on 127.0.0.1:`port` without TLS, `backends` upstream. */
export function renderNginx(port: number, backends: number[], dir: string): string {
  let conf = readFileSync(path.join(DEPLOY, 'nginx.conf'), 'utf8');
  conf = conf.replace(/^\s*server\s+10\.0\.0\.\d+:\d+ (.*);\n/gm, '');
  conf = conf.replace(
    /(upstream dictee \{[^]*?least_conn;\n)/,
    (m) => m + backends.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=5s;\n`).join(''),
  );
  // The port-80 server goes; the TLS server listens on the test port without TLS.
  conf = conf.replace(/server \{\n\s*listen 80;[^]*?\n\}\n/, '');
  conf = conf.replace(/listen 443 ssl;/, `listen 127.0.0.1:${port};`);
  conf = conf.replace(/^\s*ssl_\w+ .*;\n/gm, '');
  conf = conf.replace(/access_log \S+ dictee;/, `access_log ${path.join(dir, 'access.log')} dictee;`);
  if (!conf.includes(`127.0.0.1:${port}`) || !conf.includes(`127.0.0.1:${backends[0]}`))
    throw new Error('deploy/nginx.conf does not have the expected listen or server lines');
  return [
    'worker_processes 1;',
    `pid ${path.join(dir, 'nginx.pid')};`,
    `error_log ${path.join(dir, 'error.log')} info;`,
    'events { worker_connections 1024; }',
    'http {',
    `  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi; uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;`,
    conf,
    '}',
  ].join('\n');
}

export async function startBalancer(kind: BalancerKind, backends: number[]): Promise<TestBalancer> {
  const missing = missingBalancer(kind);
  if (missing) throw new Error(`missing for the load-balancer test: ${missing}`);
  const dir = mkdtempSync(path.join(os.tmpdir(), `dictee-${kind}-`));
  const port = await freePort();
  let child: ChildProcess;
  if (kind === 'haproxy') {
    const cfg = path.join(dir, 'haproxy.cfg');
    writeFileSync(cfg, renderHaproxy(port, backends));
    const check = spawnSync('/usr/sbin/haproxy', ['-c', '-f', cfg], { encoding: 'utf8' });
    if (check.status !== 0) throw new Error(`haproxy -c: ${check.stdout}${check.stderr}`);
    child = spawn('/usr/sbin/haproxy', ['-db', '-f', cfg], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  } else {
    const cfg = path.join(dir, 'nginx.conf');
    writeFileSync(cfg, renderNginx(port, backends, dir));
    const check = spawnSync('/usr/sbin/nginx', ['-t', '-c', cfg, '-p', dir, '-g', 'daemon off;'], { encoding: 'utf8' });
    if (check.status !== 0) throw new Error(`nginx -t: ${check.stdout}${check.stderr}`);
    child = spawn('/usr/sbin/nginx', ['-c', cfg, '-p', dir, '-g', 'daemon off;'], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  }
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d));
  const killGroup = (): void => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
  };
  process.once('exit', killGroup);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${url}/healthz`).catch(() => undefined))?.status === 200, 15_000, `${kind} to answer`, 100);
  return {
    kind,
    url,
    logs: () => output + (kind === 'nginx' ? readFileSync(path.join(dir, 'error.log'), 'utf8') : ''),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        killGroup();
        await exited;
      }
      process.off('exit', killGroup);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
