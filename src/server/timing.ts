/** The service's timers and bounds: the defaults, overridden from the environment by `main.ts` (tests shorten them). */
import { MAX_UNSENT_BYTES } from '../protocol';

export interface Timing {
  configureTimeoutMs: number;
  pingIntervalMs: number;
  pongTimeoutMs: number;
  /** A socket silent this long may be replaced by a new session of the same key at the concurrency limit. */
  staleSocketMs: number;
  /** How long a stopped session can still be resumed (to get its replay). */
  stoppedTtlMs: number;
  /** How long a dropped (not stopped) session can be resumed. */
  resumeTtlMs: number;
  /** How long an HTTP-initialised session id waits for its WebSocket. */
  initAdoptMs: number;
  /** A session that receives no audio this long (configured and never started, paused, silent) is closed: SESSION_IDLE. */
  idleTimeoutMs: number;
  /** Bytes of messages waiting for a client that does not read, past which it is dropped. */
  maxUnsentBytes: number;
  /** Time allowed for an HTTP request's headers (then 408). */
  headersTimeoutMs: number;
  /**
   * A session ended from outside (key revoked, key expired, an administrator, a dropped session expired)
   * waits this long at most for its decoder to make everything final and proofread (less when the decoder
   * makes no progress for its stop's stall time), before its end is recorded and its client gets the error
   * after its last words (live/endSession.ts).
   */
  endFlushMs: number;
  /**
   * How often the keys of the live sessions are read again from the key store: the longest a session of a
   * key revoked through another instance lives on here when its announcement cannot reach us (Redis down).
   */
  keyRecheckMs: number;
}

export const DEFAULT_TIMING: Timing = {
  configureTimeoutMs: 10_000,
  pingIntervalMs: 15_000,
  pongTimeoutMs: 30_000,
  staleSocketMs: 5_000,
  stoppedTtlMs: 5 * 60_000,
  resumeTtlMs: 30 * 60_000,
  initAdoptMs: 60_000,
  idleTimeoutMs: 10 * 60_000,
  maxUnsentBytes: MAX_UNSENT_BYTES,
  headersTimeoutMs: 15_000,
  endFlushMs: 30_000,
  keyRecheckMs: 10_000,
};
