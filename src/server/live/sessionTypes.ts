/** The types around a {@link LiveSession}: its states, its peer, what it is made from. */
import type { EffectiveConfig, ErrorCode, OutgoingMessage } from '../../protocol';
import type { WorkerRecognizer } from '../engine/engine';
import type { Recognizer } from '../engine/recognizer';
import type { ServiceCounters } from '../counters';
import type { ServerLogger } from '../log';
import type { CheckpointRow, SessionStore } from '../storage/stores';

export type SessionState = 'configured' | 'recording' | 'paused' | 'stopping' | 'stopped';

export interface SessionPeer {
  /** A message, or one already serialised as JSON (sent as it is). */
  send(message: OutgoingMessage | string): void;
  /** Sends `error` and closes (the session has ended on a failure of its own). */
  fail?(code: ErrorCode, message: string): void;
}

/**
 * A stop waits for a worker to decode the audio it already has for as long as decoding advances;
 * it gives up when nothing advanced for `stop_delay` plus this long.
 */
export const STOP_STALL_MS = 10_000;

export interface LiveSessionInit {
  id: string;
  keyId: string;
  orgId: string;
  config: EffectiveConfig;
  recognizer: Recognizer | WorkerRecognizer;
  store: SessionStore;
  log: ServerLogger;
  /** Rebuild from a persisted checkpoint (after a restart); `storedSeq` is the highest durable seq kept. */
  restore?: { row: CheckpointRow; lastSeq: number; storedSeq: number };
  /** Called once the session has stopped (its concurrency slot is free). */
  onStop?: (ended: { orgId: string; id: string }) => void;
  /** What the session counts for the service's metrics (default: counted nowhere). */
  counters?: ServiceCounters;
}
