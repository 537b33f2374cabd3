/**
 * Runs the BUILT service once with exactly the environment given (no master key added, unlike
 * startServer): resolves when it has exited, or, once it printed its listening line, after it was told to
 * stop (SIGTERM). For tests of what a start refuses, and of what it prints.
 */
import { spawn } from 'node:child_process';
import { SERVER_JS } from './server';

export interface StartOutcome {
  /** Whether it printed `listening on http://…` (then it was stopped). */
  listened: boolean;
  /** Its exit status (null when it was ended by a signal). */
  code: number | null;
  stdout: string;
  stderr: string;
  /** The port it listened on (when it did). */
  port?: number;
}

/** `env` replaces every DICTEE_* variable of this process's environment. */
export function startOnce(
  args: string[],
  env: Record<string, string>,
  onListening?: (port: number) => Promise<void>,
): Promise<StartOutcome> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('DICTEE_')));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SERVER_JS, '--port', '0', ...args], {
      env: { ...base, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out = { listened: false, stdout: '', stderr: '', port: undefined as number | undefined };
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out.stdout += d;
      const m = /listening on http:\/\/[^\s]+:(\d+)/.exec(out.stdout);
      if (m && !out.listened) {
        out.listened = true;
        out.port = Number(m[1]);
        void (onListening?.(out.port) ?? Promise.resolve()).then(
          () => child.kill('SIGTERM'),
          (e: unknown) => {
            child.kill('SIGTERM');
            reject(e instanceof Error ? e : new Error(String(e)));
          },
        );
      }
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out.stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ ...out, code });
    });
  });
}
