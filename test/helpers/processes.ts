/**
 * Processes started through a launcher (`npm run …`, `npm ci`): the real process behind it, whether it is
 * still alive, and whether a port still listens. Linux (`ps`), as the integration suite.
 */
import { type ChildProcess, spawnSync } from 'node:child_process';
import net from 'node:net';

interface Proc {
  pid: number;
  ppid: number;
  args: string;
}

function processTable(): Proc[] {
  const r = spawnSync('ps', ['-A', '-o', 'pid=,ppid=,args='], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ps failed: ${r.stderr}`);
  return r.stdout
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3]! }));
}

/** The processes below `root` (children, their children…) whose command line matches `re`. */
export function descendants(root: number, re: RegExp): Proc[] {
  const table = processTable();
  const below = new Set<number>([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of table) {
      if (below.has(p.ppid) && !below.has(p.pid)) {
        below.add(p.pid);
        grew = true;
      }
    }
  }
  return table.filter((p) => p.pid !== root && below.has(p.pid) && re.test(p.args));
}

/** Whether a process with this id exists (a zombie not yet reaped counts as gone). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const r = spawnSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' });
  return r.status === 0 && !r.stdout.trim().startsWith('Z');
}

/** Whether something accepts connections on 127.0.0.1:port. */
export function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** Resolves with the exit code and signal once the child has exited (at once when it has). */
export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}
