/**
 * A session ended from outside: not by its client (`stop`), nor by a fault of its own, but by the key's
 * revocation (here or announced by another instance), the key's expiry, an administrator, the expiry of a
 * dropped session never resumed, or the shutdown drain. One path for all of them:
 *
 * 1. its connection takes nothing more from the client (what it sends meanwhile is ignored);
 * 2. the decoder makes everything it has final and proofread (the proofreading under way included); every
 *    `transcript` and `batch.replace` is persisted and sent to the client, if it is connected, in order;
 * 3. this waits for that at most `Timing.endFlushMs`; past it, the pending text is made final as it stands
 *    and what the decoder sends later is dropped (never persisted without being sent);
 * 4. the end is recorded (`final_chunks` counts every final), then the client gets the `error` of the
 *    reason, after everything before it, and the close of that error code.
 *
 * A dropped session (no connection) goes through 2–4 all the same: its text is persisted for a replay.
 */
import type { ErrorCode, SentMetrics } from '../../protocol';
import { Connection } from './connection';
import type { LiveSession } from './session';

/** Why a session is ended from outside: the `end_reason` of its record. */
export type OutsideEndReason = 'key revoked' | 'key expired' | 'ended by an administrator' | 'dropped and not resumed' | 'service shutdown';

export interface OutsideEnd {
  reason: OutsideEndReason;
  /** What the client gets once its text was sent (none for a session without a connection, nor for the drain). */
  error?: { code: ErrorCode; message: string };
  /** The session stays resumable (the drain: resumed after the restart); otherwise it is stopped for good. */
  resumable?: boolean;
}

/** The ends whose error the protocol fixes (docs/protocol.md, "A session ended by the service"). */
export const OUTSIDE_ENDS = {
  revoked: { reason: 'key revoked', error: { code: 'AUTH_ERROR', message: 'API key revoked' } },
  expired: { reason: 'key expired', error: { code: 'AUTH_ERROR', message: 'API key expired' } },
  admin: { reason: 'ended by an administrator', error: { code: 'AUTH_ERROR', message: 'session ended by an administrator' } },
  dropped: { reason: 'dropped and not resumed' },
  shutdown: { reason: 'service shutdown', resumable: true },
} as const satisfies Record<string, OutsideEnd>;

/**
 * Ends `session` as {@link OutsideEnd} says, waiting for its decoder at most `boundMs`. Resolves once the
 * end is recorded and the error queued behind the session's last events (the socket closes after them).
 */
export async function endFromOutside(session: LiveSession, end: OutsideEnd, boundMs: number): Promise<SentMetrics | undefined> {
  const conn = session.peer instanceof Connection ? session.peer : undefined;
  conn?.hold();
  const metrics = await session.end({ reason: end.reason, boundMs, resumable: end.resumable });
  // The connection may have gone meanwhile (the session is then detached; its text persisted all the same).
  if (conn && end.error) conn.fail(end.error.code, end.error.message, { flush: false });
  return metrics;
}
