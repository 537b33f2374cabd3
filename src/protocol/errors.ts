/**
 * Error codes (spec part 7) and WebSocket close codes (our decision, see docs/protocol.md).
 * Imports nothing: shared by the service, the client library and the extension.
 */

export const ERROR_CODES = [
  'PROTOCOL_ERROR',
  'AUTH_ERROR',
  'CONFIG_ERROR',
  'INIT_ERROR',
  'RATE_LIMITED',
  'CONCURRENCY_LIMIT_EXCEEDED',
  'INTERNAL_ERROR',
  'SESSION_IDLE',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** WebSocket close codes the service uses. 1000 is the clean close after `status: stopped`. */
export const CLOSE_CODES = {
  NORMAL: 1000,
  /** Server shutting down before a session could finish; the session stays resumable. */
  GOING_AWAY: 1001,
  INTERNAL_ERROR: 1011,
  PROTOCOL_ERROR: 4000,
  AUTH_ERROR: 4001,
  CONFIG_ERROR: 4002,
  INIT_ERROR: 4003,
  RATE_LIMITED: 4029,
  CONCURRENCY_LIMIT_EXCEEDED: 4030,
  /** The session received no audio for the idle limit (10 min); it stays resumable. */
  SESSION_IDLE: 4008,
} as const;

/** The close code that follows an `error` message of the given code. */
export function closeCodeFor(code: ErrorCode): number {
  return CLOSE_CODES[code];
}

/** The error code a close code stands for, if any (used by clients when a close arrives without an `error`). */
export function errorCodeForClose(closeCode: number): ErrorCode | undefined {
  for (const code of ERROR_CODES) {
    if (closeCodeFor(code) === closeCode) return code;
  }
  return undefined;
}

/** HTTP status the service answers with for each error code on its HTTP endpoints. */
export const HTTP_STATUS_FOR: Record<ErrorCode, number> = {
  PROTOCOL_ERROR: 400,
  AUTH_ERROR: 401,
  CONFIG_ERROR: 400,
  INIT_ERROR: 400,
  RATE_LIMITED: 429,
  CONCURRENCY_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  SESSION_IDLE: 408,
};

/**
 * Whether a client may retry the same request unchanged (after `retry_after_ms`).
 * AUTH/CONFIG/INIT need the user to change something first.
 */
export function isRetryable(code: ErrorCode): boolean {
  return code === 'RATE_LIMITED' || code === 'PROTOCOL_ERROR' || code === 'INTERNAL_ERROR' || code === 'CONCURRENCY_LIMIT_EXCEEDED';
}

/** The spec's fallback wait for RATE_LIMITED when `retry_after_ms` is absent or zero. */
export const DEFAULT_RATE_LIMIT_RETRY_MS = 5000;
