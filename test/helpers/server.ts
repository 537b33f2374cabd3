/**
 * Starts the BUILT service (`dist/server.js`) on loopback for integration tests.
 * Each server gets a fresh temp data dir (unless given) and a random master key.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import type { CreateKeyRequest, CreateKeyResponse } from '../../src/protocol';
import { sleep } from './wait';

export const SERVER_JS = path.resolve(__dirname, '..', '..', 'dist', 'server.js');

export interface StartServerOptions {
  /** `--script FILE` for the simulated engine. */
  script?: string;
  /** Extra CLI arguments. */
  args?: string[];
  dataDir?: string;
  env?: Record<string, string>;
  /** Port to listen on (default 0: a free one). */
  port?: number;
  /** How long the start may take before the listening line (default 15 s; models that load slowly need more). */
  startTimeoutMs?: number;
}

/** What picks and sets up the service's engine: the simulated engine's script, or other arguments and their environment. */
export type EngineOptions = Pick<StartServerOptions, 'script' | 'args' | 'env' | 'startTimeoutMs'>;

export interface TestServer {
  /** http://127.0.0.1:PORT */
  url: string;
  /** ws://127.0.0.1:PORT/api/v1/audio/live */
  wsUrl: string;
  port: number;
  masterKey: string;
  dataDir: string;
  createKey(body?: Partial<CreateKeyRequest>): Promise<CreateKeyResponse>;
  revokeKey(keyOrId: string): Promise<void>;
  /** `GET /v1/sessions/{id}` with the master key: the session's record and, while it is live, its metrics. */
  session(id: string): Promise<Record<string, unknown>>;
  /** SIGTERM, waits for exit; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL, waits for exit. */
  kill(): Promise<void>;
  /**
   * Stops (SIGTERM, or SIGKILL if `opts.kill`) if running, then starts again on the same port, data dir and
   * master key; with `opts.engine`, with these engine arguments in place of those it was started with.
   */
  restart(opts?: { kill?: boolean; engine?: EngineOptions }): Promise<void>;
  /** Captured stdout + stderr of every run so far. */
  logs(): string;
  /** The child process of the current run. */
  process(): ChildProcess;
}

const LISTEN_RE = /listening on http:\/\/([^\s:]+):(\d+)/;

function launch(
  args: string[],
  env: Record<string, string>,
  onOutput: (s: string) => void,
  // A bound, not a wait: a start that converts a language model to binary form for the first time on this machine
  // (pocketsphinx/binaryLm.ts) or that follows a restart under load takes longer than a warm one.
  timeoutMs = 45000,
): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SERVER_JS, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let done = false;
    const timer = setTimeout(() => {
      if (done) return;
      done = true;
      child.kill('SIGKILL');
      reject(new Error(`server did not print its listening line within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    child.stdout!.setEncoding('utf8');
    child.stderr!.setEncoding('utf8');
    child.stdout!.on('data', (d: string) => {
      onOutput(d);
      stdout += d;
      const m = LISTEN_RE.exec(stdout);
      if (m && !done) {
        done = true;
        clearTimeout(timer);
        resolve({ child, port: Number(m[2]) });
      }
    });
    child.stderr!.on('data', (d: string) => onOutput(d));
    child.on('exit', (code, signal) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      reject(new Error(`server exited before listening (code ${code}, signal ${signal})`));
    });
  });
}

function waitExit(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

export async function startServer(opts: StartServerOptions = {}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'dictee-test-'));
  const masterKey = opts.env?.DICTEE_MASTER_KEY ?? `master_${randomBytes(24).toString('base64url')}`;
  const envOf = (o: EngineOptions): Record<string, string> => ({ ...o.env, DICTEE_MASTER_KEY: masterKey });
  const argsOf = (o: EngineOptions): string[] => [...(o.script ? ['--script', o.script] : []), ...(o.args ?? []), '--data-dir', dataDir];
  let env = envOf(opts);
  let baseArgs = argsOf(opts);
  let startTimeoutMs = opts.startTimeoutMs;
  let output = '';
  let keysMade = 0;
  const onOutput = (s: string): void => {
    output += s;
  };
  let { child, port } = await launch([...baseArgs, '--port', String(opts.port ?? 0)], env, onOutput, opts.startTimeoutMs);
  const url = (): string => `http://127.0.0.1:${port}`;

  const server: TestServer = {
    get url() {
      return url();
    },
    get wsUrl() {
      return `ws://127.0.0.1:${port}/api/v1/audio/live`;
    },
    get port() {
      return port;
    },
    masterKey,
    dataDir,
    async createKey(body = {}) {
      const res = await fetch(`${url()}/v1/api-keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${masterKey}`, 'content-type': 'application/json' },
        // Two live keys of a scope never share a name: each gets its own unless the test names it.
        body: JSON.stringify({ name: `test ${++keysMade}`, type: 'personal', ...body }),
      });
      const json = (await res.json()) as unknown;
      if (res.status !== 201) throw new Error(`createKey: HTTP ${res.status} ${JSON.stringify(json)}`);
      return json as CreateKeyResponse;
    },
    async revokeKey(keyOrId) {
      const res = await fetch(`${url()}/v1/api-keys/${encodeURIComponent(keyOrId)}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${masterKey}` },
      });
      if (res.status !== 200) throw new Error(`revokeKey: HTTP ${res.status} ${await res.text()}`);
    },
    async session(id) {
      const res = await fetch(`${url()}/v1/sessions/${encodeURIComponent(id)}`, { headers: { authorization: `Bearer ${masterKey}` } });
      const json = (await res.json()) as { session?: Record<string, unknown> };
      if (res.status !== 200 || !json.session) throw new Error(`session ${id}: HTTP ${res.status} ${JSON.stringify(json)}`);
      return json.session;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20000);
      const code = await waitExit(child);
      clearTimeout(timer);
      return code;
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await waitExit(child);
    },
    async restart(o = {}) {
      if (o.kill) await server.kill();
      else await server.stop();
      if (o.engine) {
        env = envOf(o.engine);
        baseArgs = argsOf(o.engine);
        startTimeoutMs = o.engine.startTimeoutMs;
      }
      // The port was just released; retry briefly in case the OS has not freed it yet.
      let lastErr: unknown;
      for (let attempt = 0; attempt < 20; attempt++) {
        try {
          ({ child, port } = await launch([...baseArgs, '--port', String(port)], env, onOutput, startTimeoutMs));
          return;
        } catch (e) {
          lastErr = e;
          await sleep(100);
        }
      }
      throw lastErr;
    },
    logs: () => output,
    process: () => child,
  };
  return server;
}

/**
 * Starts a service for the length of `fn`, then stops it, whatever `fn` did; resolves with what `fn`
 * resolves with. `fn` may stop or restart the service itself (`stop()` again gives the same exit code).
 */
export async function withServer<T>(opts: StartServerOptions, fn: (server: TestServer) => Promise<T>): Promise<T> {
  const server = await startServer(opts);
  try {
    return await fn(server);
  } finally {
    await server.stop();
  }
}

/**
 * One service for the enclosing `describe`: started in a `before` hook (registered where `useServer` is
 * called: hooks registered after it see the service), stopped in an `after` hook. The handle it returns
 * stands for that service (`server.url`, `server.createKey()`…) from the start on, its logs after the
 * stop too; touching it before the start throws. `opts` may be a function, called in the hook.
 */
export function useServer(opts: StartServerOptions | (() => StartServerOptions) = {}): TestServer {
  let current: TestServer | undefined;
  before(async () => {
    current = await startServer(typeof opts === 'function' ? opts() : opts);
  });
  after(async () => {
    await current?.stop();
  });
  return new Proxy({} as TestServer, {
    get(_, prop) {
      if (!current) throw new Error(`useServer: the service starts in the suite's before hook (read ${String(prop)} earlier)`);
      return current[prop as keyof TestServer];
    },
  });
}

// ------------------------------------------------------------------ a raw WebSocket probe for tests

/** A raw `ws` client that records every message, every ping and the close, for protocol tests. */
export class WsProbe {
  readonly ws: WebSocket;
  readonly messages: Array<Record<string, unknown>> = [];
  /** When each ping of the service arrived (ms since epoch). */
  readonly pings: number[] = [];
  readonly opened: Promise<void>;
  readonly closed: Promise<{ code: number; reason: string }>;
  private waiters: Array<() => void> = [];

  constructor(url: string, opts: { token?: string; header?: string; autoPong?: boolean } = {}) {
    const u = opts.token !== undefined ? `${url}${url.includes('?') ? '&' : '?'}token=${encodeURIComponent(opts.token)}` : url;
    this.ws = new WebSocket(u, {
      headers: opts.header !== undefined ? { authorization: `Bearer ${opts.header}` } : {},
      autoPong: opts.autoPong ?? true,
    });
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('error', reject);
    });
    this.closed = new Promise((resolve) => {
      this.ws.once('close', (code, reason) => {
        resolve({ code, reason: reason.toString() });
        this.notify();
      });
    });
    this.ws.on('error', () => undefined);
    this.ws.on('ping', () => this.pings.push(Date.now()));
    this.ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      this.messages.push(JSON.parse(String(data)) as Record<string, unknown>);
      this.notify();
    });
  }

  private notify(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** Waits until a message matches (default 5 s); resolves with it. */
  async waitFor(pred: (m: Record<string, unknown>) => boolean, timeoutMs = 5000, what = 'message'): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find(pred);
      if (found) return found;
      if (this.ws.readyState === WebSocket.CLOSED) throw new Error(`socket closed before ${what}; got ${JSON.stringify(this.messages)}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(this.messages)}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  waitType(type: string, timeoutMs?: number): Promise<Record<string, unknown>> {
    return this.waitFor((m) => m.type === type, timeoutMs, `a "${type}" message`);
  }

  /**
   * Two pings, one after the other's pong: the service handles a connection's frames in order, and what a
   * frame makes it send goes out at the latest once the turn of its event loop is over (durable events wait
   * for the journal's group commit at the end of that turn, while the WebSocket library answers a ping at
   * once). The second ping is read in a later turn, so once its pong is back, every frame sent before has
   * been handled and whatever it made the service send has arrived (SQLite; a journal across the network
   * may take longer).
   */
  async roundTrip(timeoutMs = 5000): Promise<void> {
    for (let i = 0; i < 2; i++) {
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no pong within ${timeoutMs} ms`)), timeoutMs);
        this.ws.once('pong', () => {
          clearTimeout(t);
          resolve();
        });
        this.ws.ping();
      });
    }
  }

  send(obj: unknown): void {
    this.ws.send(typeof obj === 'string' ? obj : JSON.stringify(obj));
  }

  sendAudio(buf: Buffer): void {
    this.ws.send(buf);
  }

  /** Opens, sends configure, waits for configured. */
  async configure(config: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    await this.opened;
    this.send({ type: 'configure', config });
    return this.waitType('configured');
  }

  ofType(type: string): Array<Record<string, unknown>> {
    return this.messages.filter((m) => m.type === type);
  }

  close(): void {
    this.ws.close();
  }

  terminate(): void {
    this.ws.terminate();
  }
}
