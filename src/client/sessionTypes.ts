/** The options, events and results of a `DictationSession` (docs/client.md). */
import { DEFAULTS, bytesPerSecond, type ClientConfig } from '../protocol/config';
import { RECOMMENDED_FRAME_BYTES } from '../protocol/messages';
import type { BatchReplaceMessage, Metrics, TranscriptMessage } from '../protocol/messages';
import { silentLogger, type Logger } from '../shared/logger';
import type { DictationError, DictationErrorCode } from './errors';
import type { HttpOptions } from './http';

export type SessionState = 'idle' | 'connecting' | 'recording' | 'paused' | 'reconnecting' | 'stopping' | 'stopped' | 'failed';

export interface DictationSessionOptions {
  serverUrl: string;
  apiKey: string;
  /** The `configure` fields (resume is managed by the session). */
  config?: Omit<ClientConfig, 'resume'>;
  logger?: Logger;
  /** Retries in a row (session init and reconnection) before the run fails (default 8). */
  maxAttempts?: number;
  /** Backoff: first ceiling and cap (ms), full jitter (defaults 250 and 10 000). */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Seconds of audio kept while disconnected (default 60); the oldest is dropped beyond it. */
  bufferSeconds?: number;
  /** Seconds of already-sent audio kept for re-sending after a resume (default 60, never less). */
  retainSeconds?: number;
  /**
   * Added to `stop_delay`: how long a stop waits for `status: stopped` without any sign that the
   * service is working (a message, a pong, a new connection) (default 5000 ms).
   */
  stopMarginMs?: number;
  /**
   * The most a stop waits for `status: stopped` in all, beyond `stop_delay` plus the margin, while the
   * service shows it is working (a decoder behind real time on a loaded machine) (default 120 000 ms).
   */
  stopMaxWaitMs?: number;
  /** Connection + `configured` timeout (default 10 000 ms). */
  connectTimeoutMs?: number;
  /**
   * A connection with no message, ping or pong for this long is considered dead (default 7000 ms): the
   * client pings every `pingIntervalMs`, so a frozen service is noticed within this time.
   */
  idleTimeoutMs?: number;
  /** How often the client pings the service (default 2000 ms). */
  pingIntervalMs?: number;
  /** Random source for the jitter (tests). */
  random?: () => number;
  http?: HttpOptions;
}

/** The options with their defaults, and the sizes they give. */
export interface SessionSettings {
  serverUrl: string;
  apiKey: string;
  config: Omit<ClientConfig, 'resume'>;
  logger: Logger;
  http: HttpOptions;
  maxAttempts: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  random: () => number;
  bufferSeconds: number;
  stopMarginMs: number;
  stopMaxWaitMs: number;
  connectTimeoutMs: number;
  idleTimeoutMs: number;
  pingIntervalMs: number;
  /** A frame: 100 ms of audio at the configured rate (an even number of bytes). */
  frameBytes: number;
  /** Most bytes queued while disconnected. */
  bufferBytes: number;
  /** Least bytes of sent audio kept for re-sending. */
  retainBytes: number;
}

/** The most a stop waits in all, beyond `stop_delay` plus the margin, while the service is working. */
export const DEFAULT_STOP_MAX_WAIT_MS = 120_000;

export function sessionSettings(o: DictationSessionOptions): SessionSettings {
  const config = { ...(o.config ?? {}) };
  delete (config as ClientConfig).resume;
  const perSecond = bytesPerSecond(config.sample_rate ?? DEFAULTS.sample_rate);
  const bufferSeconds = o.bufferSeconds ?? 60;
  return {
    serverUrl: o.serverUrl,
    apiKey: o.apiKey,
    config,
    logger: o.logger ?? silentLogger,
    http: o.http ?? {},
    maxAttempts: o.maxAttempts ?? 8,
    backoffBaseMs: o.backoffBaseMs ?? 250,
    backoffMaxMs: o.backoffMaxMs ?? 10_000,
    random: o.random ?? Math.random,
    bufferSeconds,
    stopMarginMs: o.stopMarginMs ?? 5000,
    stopMaxWaitMs: o.stopMaxWaitMs ?? DEFAULT_STOP_MAX_WAIT_MS,
    connectTimeoutMs: o.connectTimeoutMs ?? 10_000,
    idleTimeoutMs: o.idleTimeoutMs ?? 7000,
    pingIntervalMs: o.pingIntervalMs ?? 2000,
    frameBytes: Math.max(2, Math.round((RECOMMENDED_FRAME_BYTES * perSecond) / bytesPerSecond(DEFAULTS.sample_rate) / 2) * 2),
    bufferBytes: Math.round(bufferSeconds * perSecond),
    retainBytes: Math.round(Math.max(o.retainSeconds ?? 60, 60) * perSecond),
  };
}

export interface ConfiguredInfo {
  sessionId: string;
  /** True when the service continued the previous service session. */
  resumed: boolean;
  generation: number;
  lastSeq?: number;
  resumeAudioOffset?: number;
  engine?: string;
}

export interface GenerationInfo {
  generation: number;
  sessionId: string;
  previousSessionId?: string;
}

export interface ReconnectInfo {
  attempt: number;
  maxAttempts: number;
  delayMs: number;
  /** What failed: RATE_LIMITED (the service asked to wait), INIT_ERROR (its speech recogniser is not available now), … */
  code: DictationErrorCode;
  reason: string;
}

export interface StopResult {
  reason: 'stopped' | 'timeout' | 'error' | 'disposed' | 'not-started';
  metrics?: Metrics;
  sessionId?: string;
  error?: DictationError;
}

export interface AudioStats {
  /** Bytes handed to the socket (including re-sends). */
  sentBytes: number;
  /** Bytes sent again after a resume. */
  resentBytes: number;
  /** Bytes given while paused (not sent, by design). */
  pausedBytes: number;
  /** Bytes dropped because the disconnected buffer was full. */
  droppedBytes: number;
  /** Bytes the service asked for again that were no longer retained. */
  unrecoverableBytes: number;
  /** Bytes waiting to be sent. */
  queuedBytes: number;
  /** Bytes given to the connection that it has not yet written to the network (how far the service lags behind). */
  bufferedBytes: number;
}

export interface SessionEvents {
  state: SessionState;
  /** Validated `transcript` and `batch.replace` messages, in arrival order. */
  message: TranscriptMessage | BatchReplaceMessage;
  error: DictationError;
  configured: ConfiguredInfo;
  /** The run continues on a new service session (not a resumption): start a new model generation. */
  generation: GenerationInfo;
  reconnecting: ReconnectInfo;
  /** Something was lost or degraded but the run goes on (audio dropped from a full buffer, …). */
  warning: string;
}
