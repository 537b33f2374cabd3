/**
 * Structured logs: one JSON object per line on stderr, `{time, level, msg, ...fields}`.
 * Never pass a key, a header or an unredacted URL to these functions (use `redactUrl`/`redactKey`).
 */
import type { Logger } from '../shared/logger';
import { errorMessage } from '../shared/errors';

export const LEVELS = ['trace', 'debug', 'info', 'warn', 'error'] as const;
export type Level = (typeof LEVELS)[number];

export type Fields = Record<string, unknown>;

export interface ServerLogger extends Logger {
  /** A logger whose lines all carry these fields (e.g. `session_id`). */
  child(fields: Fields): ServerLogger;
  log(level: Level, msg: string, fields?: Fields): void;
}

function render(v: unknown): unknown {
  if (v instanceof Error) return { name: v.name, message: v.message, stack: v.stack };
  return v;
}

/**
 * Writes lines to a stream (stderr) until the stream fails: once its reader is gone (EPIPE: a closed
 * terminal, `| head`, a supervisor that died), every later line is dropped, once said in `onBroken`.
 * An error of the log stream is never logged to it (that would fail again, forever) and never
 * reaches the process's uncaught-exception handler; the service goes on serving, and SIGTERM still
 * drains and exits.
 */
export function streamWriter(stream: NodeJS.WritableStream, onBroken?: (e: Error) => void): (line: string) => void {
  let broken = false;
  stream.on('error', (e: Error) => {
    if (broken) return;
    broken = true;
    onBroken?.(e);
  });
  return (line) => {
    if (broken) return;
    try {
      stream.write(line);
    } catch (e) {
      broken = true;
      onBroken?.(e instanceof Error ? e : new Error(String(e)));
    }
  };
}

let stderrLines: ((line: string) => void) | undefined;

export function createLogger(opts: { level?: Level; write?: (line: string) => void; fields?: Fields } = {}): ServerLogger {
  const min = LEVELS.indexOf(opts.level ?? 'info');
  const write = opts.write ?? (stderrLines ??= streamWriter(process.stderr));
  const base = opts.fields ?? {};
  const log = (level: Level, msg: string, fields?: Fields): void => {
    if (LEVELS.indexOf(level) < min) return;
    const entry: Fields = { time: new Date().toISOString(), level, msg, ...base };
    if (fields) for (const [k, v] of Object.entries(fields)) entry[k] = render(v);
    write(JSON.stringify(entry) + '\n');
  };
  const withArgs =
    (level: Level) =>
    (message: string | Error, ...args: unknown[]) => {
      const msg = errorMessage(message);
      const fields: Fields = {};
      if (message instanceof Error) fields.error = render(message);
      args.forEach((a, i) => {
        if (a && typeof a === 'object' && !(a instanceof Error) && !Array.isArray(a)) Object.assign(fields, a);
        else fields[`arg${i}`] = render(a);
      });
      log(level, msg, fields);
    };
  return {
    log,
    trace: withArgs('trace'),
    debug: withArgs('debug'),
    info: withArgs('info'),
    warn: withArgs('warn'),
    error: withArgs('error'),
    child: (fields) => createLogger({ level: LEVELS[min], write, fields: { ...base, ...fields } }),
  };
}
