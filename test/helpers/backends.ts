/**
 * Real PostgreSQL and Redis for tests: Debian's `postgresql` (15) and `redis-server`, started in temporary
 * directories on free loopback ports, each in its own process group, stopped and removed after. Never a
 * system service. As root, PostgreSQL runs as the `postgres` user (`runuser`), in a directory it owns.
 *
 * Both have passwords, so that tests can check that no message or log ever shows one.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { waitFor } from './wait';

const PG_BIN = process.env.DICTEE_PG_BIN ?? findPgBin();

function findPgBin(): string {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return '';
  const versions = readdirSync(root)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(root, versions[0]!, 'bin') : '';
}

/** What is missing for these tests (empty when nothing is): the message says how to install it. */
export function missingBackends(): string[] {
  const missing: string[] = [];
  if (!PG_BIN || !existsSync(path.join(PG_BIN, 'postgres')))
    missing.push('postgresql (PostgreSQL server binaries under /usr/lib/postgresql/*/bin)');
  if (spawnSync('sh', ['-c', 'command -v redis-server']).status !== 0) missing.push('redis-server');
  return missing;
}

export function assertBackendsInstalled(): void {
  const missing = missingBackends();
  if (missing.length)
    throw new Error(
      `missing for the PostgreSQL/Redis tests: ${missing.join(', ')}; run npm run e2e:setup (as root it installs them with apt-get)`,
    );
}

/** A free TCP port on loopback (the OS picks it; another process could take it before we bind, so starters retry). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

function asPostgres(cmd: string, args: string[]): { cmd: string; args: string[] } {
  return isRoot ? { cmd: 'runuser', args: ['-u', 'postgres', '--', cmd, ...args] } : { cmd, args };
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of running)
    if (c.pid)
      try {
        process.kill(-c.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
});

function startDetached(cmd: string, args: string[], onOutput: (s: string) => void): ChildProcess {
  const child = spawn(cmd, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.setEncoding('utf8').on('data', onOutput);
  child.stderr!.setEncoding('utf8').on('data', onOutput);
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

async function stopGroup(child: ChildProcess | undefined, signal: NodeJS.Signals, timeoutMs = 10_000): Promise<void> {
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    process.kill(-child.pid, signal);
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
  }, timeoutMs);
  await exited;
  clearTimeout(timer);
}

// ====================================================================== PostgreSQL

export interface TestPostgres {
  port: number;
  password: string;
  /** postgres://dictee:<password>@127.0.0.1:<port>/<db> */
  url(db?: string): string;
  /** Creates a database (fresh for a test), returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Runs SQL with psql-like simplicity through the `pg` client. */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[], db?: string): Promise<T[]>;
  /** Stops the server (fast shutdown: connections are cut), keeping its data. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  /** Stops it and removes its directory. */
  destroy(): Promise<void>;
  logs(): string;
}

export async function startPostgres(): Promise<TestPostgres> {
  assertBackendsInstalled();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-pg-'));
  const dataDir = path.join(dir, 'data');
  const password = `pw_${randomBytes(12).toString('hex')}`;
  const pwFile = path.join(dir, 'pw');
  writeFileSync(pwFile, password + '\n', { mode: 0o600 });
  if (isRoot) {
    const pw = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    if (pw.status !== 0) throw new Error('running as root but there is no "postgres" user (install the postgresql package)');
    chownSync(dir, Number(pw.stdout.trim()), Number(gid.stdout.trim()));
    chownSync(pwFile, Number(pw.stdout.trim()), Number(gid.stdout.trim()));
  }
  const init = asPostgres(path.join(PG_BIN, 'initdb'), [
    '-D',
    dataDir,
    '-U',
    'dictee',
    `--pwfile=${pwFile}`,
    '--auth=scram-sha-256',
    '-E',
    'UTF8',
    '--locale=C.UTF-8',
  ]);
  const r = spawnSync(init.cmd, init.args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`initdb failed: ${r.stderr || r.stdout}`);
  let output = '';
  let child: ChildProcess | undefined;
  let port = 0;
  const launch = async (): Promise<void> => {
    for (let attempt = 0; ; attempt++) {
      port = port || (await freePort());
      const cmd = asPostgres(path.join(PG_BIN, 'postgres'), [
        '-D',
        dataDir,
        '-p',
        String(port),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        `unix_socket_directories=${dir}`,
        '-c',
        'max_connections=200',
        '-c',
        'shared_buffers=32MB',
      ]);
      const from = output.length;
      child = startDetached(cmd.cmd, cmd.args, (s) => (output += s));
      try {
        await waitFor(
          () => output.slice(from).includes('ready to accept connections') || child!.exitCode !== null,
          30_000,
          'PostgreSQL to accept connections',
        );
      } catch (e) {
        await stopGroup(child, 'SIGKILL');
        throw e;
      }
      if (child.exitCode === null) return;
      if (attempt >= 3 || !/could not bind|address already in use/i.test(output.slice(from)))
        throw new Error(`PostgreSQL did not start: ${output.slice(from)}`);
      port = 0;
    }
  };
  await launch();
  const url = (db = 'postgres'): string => `postgres://dictee:${password}@127.0.0.1:${port}/${db}`;
  const pg = await import('pg');
  const query = async <T>(sql: string, params: unknown[] = [], db = 'postgres'): Promise<T[]> => {
    const client = new pg.default.Client({ connectionString: url(db) });
    await client.connect();
    try {
      return (await client.query(sql, params)).rows as T[];
    } finally {
      await client.end();
    }
  };
  return {
    get port() {
      return port;
    },
    password,
    url,
    async createDatabase(name) {
      await query(`CREATE DATABASE ${name}`);
      return url(name);
    },
    query,
    stop: () => stopGroup(child, 'SIGINT'),
    start: launch,
    async destroy() {
      await stopGroup(child, 'SIGINT');
      rmSync(dir, { recursive: true, force: true });
    },
    logs: () => output,
  };
}

// ====================================================================== Redis

export interface TestRedis {
  port: number;
  password: string;
  url(): string;
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

export async function startRedis(): Promise<TestRedis> {
  assertBackendsInstalled();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-redis-'));
  const password = `pw_${randomBytes(12).toString('hex')}`;
  const conf = path.join(dir, 'redis.conf');
  let child: ChildProcess | undefined;
  let output = '';
  let port = 0;
  const launch = async (): Promise<void> => {
    for (let attempt = 0; ; attempt++) {
      port = port || (await freePort());
      writeFileSync(
        conf,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          'save ""',
          'appendonly no',
          `requirepass ${password}`,
          'daemonize no',
          'protected-mode yes',
        ].join('\n') + '\n',
        { mode: 0o600 },
      );
      const from = output.length;
      child = startDetached('redis-server', [conf], (s) => (output += s));
      await waitFor(
        () => /Ready to accept connections/i.test(output.slice(from)) || child!.exitCode !== null,
        15_000,
        'Redis to accept connections',
      );
      if (child.exitCode === null) return;
      if (attempt >= 3 || !/Address already in use|bind/i.test(output.slice(from)))
        throw new Error(`redis-server did not start: ${output.slice(from)}`);
      port = 0;
    }
  };
  await launch();
  return {
    get port() {
      return port;
    },
    password,
    url: () => `redis://:${password}@127.0.0.1:${port}`,
    stop: () => stopGroup(child, 'SIGKILL'),
    start: launch,
    async destroy() {
      await stopGroup(child, 'SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
