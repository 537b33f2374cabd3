/**
 * The logging interface every layer writes to. Its shape is that of VS Code's `LogOutputChannel`,
 * so the extension passes its channel straight in; the service writes JSON lines.
 */
import { errorMessage } from './errors';

export interface Logger {
  trace(message: string, ...args: unknown[]): void;
  debug(message: string, ...args: unknown[]): void;
  info(message: string, ...args: unknown[]): void;
  warn(message: string, ...args: unknown[]): void;
  error(message: string | Error, ...args: unknown[]): void;
}

/** A logger that discards everything (for callers that do not care). */
export const silentLogger: Logger = {
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error() {},
};

/** A logger that writes every line to `logger` as `line(message)` gives it (a prefix, a redaction…). */
export function rewritingLogger(logger: Logger, line: (message: string) => string): Logger {
  const text = (message: string | Error): string => line(errorMessage(message));
  return {
    trace: (m, ...a) => logger.trace(text(m), ...a),
    debug: (m, ...a) => logger.debug(text(m), ...a),
    info: (m, ...a) => logger.info(text(m), ...a),
    warn: (m, ...a) => logger.warn(text(m), ...a),
    error: (m, ...a) => logger.error(text(m), ...a),
  };
}
