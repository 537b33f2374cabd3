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
 * The failures a client meets without a word from the service: it cannot be reached (NETWORK_ERROR), or
 * it did not answer in time (TIMEOUT).
 */
type TransportFailure = 'NETWORK_ERROR' | 'TIMEOUT';

/** The spec's fallback wait for RATE_LIMITED when `retry_after_ms` is absent or zero. */
export const DEFAULT_RATE_LIMIT_RETRY_MS = 5000;

/** Where a client meets a failure: the session init (HTTP), or a connection of a run (WebSocket). */
type RetryStage = 'init' | 'connection';

/**
 * Whether a client tries again: always, never, or `'when-told'`: only when the service named a wait
 * (`retry_after_ms > 0`), and then after at least that wait.
 */
type Retry = boolean | 'when-told';

/**
 * The one retry table: for each failure, whether a client tries again (with its backoff) when the session
 * init fails with it, and when a connection of a run ends with it (the run reconnects and resumes its
 * session). A `false` under `connection` ends the run: the user must change something first (the key, a
 * setting, the language) or stop another session. At the session init only what the service will get
 * over by itself is retried: a service that is not there, or answers as no Live Transcription Service
 * does, fails the start at once. INIT_ERROR is final, as the spec says, unless the service adds a
 * `retry_after_ms` (our additive field, docs/protocol.md): its speech recogniser is not available right
 * now (a remote engine that is down), which it will get over by itself. CONCURRENCY_LIMIT_EXCEEDED the
 * same: final at a limit of sessions (no wait named: the user must stop one), retried when the service
 * names a wait (its decoders are behind real time: a new session waits for them to catch up).
 */
export const RETRY: Readonly<Record<ErrorCode | TransportFailure, Readonly<Record<RetryStage, Retry>>>> = {
  AUTH_ERROR: { init: false, connection: false },
  CONFIG_ERROR: { init: false, connection: false },
  INIT_ERROR: { init: 'when-told', connection: 'when-told' },
  CONCURRENCY_LIMIT_EXCEEDED: { init: 'when-told', connection: 'when-told' },
  RATE_LIMITED: { init: true, connection: true },
  INTERNAL_ERROR: { init: true, connection: true },
  TIMEOUT: { init: true, connection: true },
  PROTOCOL_ERROR: { init: false, connection: true },
  NETWORK_ERROR: { init: false, connection: true },
  SESSION_IDLE: { init: false, connection: true },
};

/** Whether a client tries again after `code` at `stage`, the service having named a wait of `retryAfterMs` (the {@link RETRY} table). */
export function isRetried(code: ErrorCode | TransportFailure, stage: RetryStage, retryAfterMs = 0): boolean {
  const r = RETRY[code][stage];
  return r === 'when-told' ? retryAfterMs > 0 : r;
}

/**
 * The least wait before trying again after `code` with the service's `retryAfterMs`: RATE_LIMITED waits it
 * (or the spec's fallback), a `'when-told'` code waits it, anything else only its backoff.
 */
export function leastRetryWaitMs(code: ErrorCode | TransportFailure, retryAfterMs: number): number {
  if (code === 'RATE_LIMITED') return retryAfterMs || DEFAULT_RATE_LIMIT_RETRY_MS;
  return RETRY[code].connection === 'when-told' || RETRY[code].init === 'when-told' ? Math.max(0, retryAfterMs) : 0;
}
