/**
 * The logging interface every layer writes to. Its shape is that of VS Code's `LogOutputChannel`,
 * so the extension passes its channel straight in; the service writes JSON lines.
 */
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
