/**
 * Child processes of the end-to-end harness: each runs in its own process group so that stopping it stops
 * everything it started (code-server's extension host, the recorder it spawned, …). Every group still
 * alive when this process exits — a failed test, Ctrl+C, an uncaught error — is killed.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { once } from 'node:events';

export interface Proc {
  readonly name: string;
  readonly child: ChildProcess;
  /** Everything the process printed so far (stdout and stderr interleaved), capped at 2 MB. */
  output(): string;
  /** Resolves with the first match of `re` in the output (checked as output arrives). */
  waitFor(re: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  /** SIGTERM to the group, SIGKILL after `graceMs`; resolves when the process has exited. */
  stop(graceMs?: number): Promise<void>;
  /** SIGKILL to the group at once. */
  kill(): Promise<void>;
  readonly exited: Promise<number | null>;
}

const live = new Set<Proc>();
/** Extra synchronous kills for processes started elsewhere (e.g. test/helpers/server.ts). */
const exitKills = new Set<() => void>();

/** Registers a synchronous kill to run if this process exits before the returned function is called. */
export function killOnExit(kill: () => void): () => void {
  installExitHandlers();
  exitKills.add(kill);
  return () => exitKills.delete(kill);
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      /* already gone */
    }
  }
}

let handlersInstalled = false;
function installExitHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  const killAll = (): void => {
    for (const p of live) killGroup(p.child.pid, 'SIGKILL');
    for (const k of exitKills) {
      try {
        k();
      } catch {
        /* already gone */
      }
    }
  };
  process.on('exit', killAll);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => {
      killAll();
      process.exit(130);
    });
  }
}

export function start(name: string, cmd: string, args: string[], opts: SpawnOptions = {}): Proc {
  installExitHandlers();
  const child = spawn(cmd, args, { ...opts, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const waiters: { re: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  const onData = (d: Buffer): void => {
    out += d.toString('utf8');
    if (out.length > 2_000_000) out = out.slice(-1_000_000);
    for (const w of [...waiters]) {
      const m = w.re.exec(out);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
    if (process.env.DICTEE_E2E_VERBOSE) process.stderr.write(`[${name}] ${d.toString('utf8')}`);
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  let errored: Error | undefined;
  const exited = new Promise<number | null>((resolve) => {
    child.once('error', (e) => {
      errored = e;
      resolve(null);
    });
    child.once('exit', (code) => resolve(code));
  });
  const proc: Proc = {
    name,
    child,
    exited,
    output: () => out,
    waitFor(re, timeoutMs) {
      const m = re.exec(out);
      if (m) return Promise.resolve(m);
      return new Promise((resolve, reject) => {
        const w = { re, resolve: (x: RegExpMatchArray) => (clearTimeout(timer), resolve(x)) };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(w), 1);
          reject(new Error(`${name}: no ${re} within ${timeoutMs} ms. Output:\n${out.slice(-4000)}`));
        }, timeoutMs);
        waiters.push(w);
        void exited.then((code) => {
          if (waiters.includes(w)) {
            clearTimeout(timer);
            waiters.splice(waiters.indexOf(w), 1);
            reject(new Error(`${name} exited (${errored?.message ?? `code ${code}`}) before printing ${re}. Output:\n${out.slice(-4000)}`));
          }
        });
      });
    },
    async stop(graceMs = 5000) {
      if (child.exitCode !== null || child.signalCode !== null) {
        live.delete(proc);
        killGroup(child.pid, 'SIGKILL'); // whatever it left behind in its group
        return;
      }
      killGroup(child.pid, 'SIGTERM');
      const t = setTimeout(() => killGroup(child.pid, 'SIGKILL'), graceMs);
      await exited;
      clearTimeout(t);
      killGroup(child.pid, 'SIGKILL');
      live.delete(proc);
    },
    async kill() {
      killGroup(child.pid, 'SIGKILL');
      if (child.exitCode === null && child.signalCode === null) await once(child, 'exit').catch(() => undefined);
      live.delete(proc);
    },
  };
  live.add(proc);
  return proc;
}

/** Stops every process still running, last started first. */
export async function stopAll(): Promise<void> {
  for (const p of [...live].reverse()) await p.stop(3000);
}
