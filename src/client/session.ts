/**
 * One dictation run against the Live Transcription Service (docs/architecture.md, docs/client.md):
 * session init over HTTP, the WebSocket with the key in the `Authorization` header, configure →
 * configured → control start, framed audio, reconnection with backoff and resume, pause/resume, stop.
 *
 * Audio bookkeeping: every frame handed to the socket is numbered by its byte offset in the service
 * session and kept in a retained window (≥ 60 s) until the service has accounted for it; frames given
 * while disconnected wait in a bounded buffer (60 s). After a reconnection the service's
 * `resume_audio_offset` says where to send from, so nothing is lost and nothing is sent twice.
 */
import WebSocket from 'ws';
import { DEFAULTS, bytesPerSecond, type ClientConfig } from '../protocol/config';
import { CLOSE_CODES, DEFAULT_RATE_LIMIT_RETRY_MS, ERROR_CODES, errorCodeForClose, type ErrorCode } from '../protocol/errors';
import { redactKey } from '../protocol/http';
import { silentLogger, type Logger } from '../shared/logger';
import type { BatchReplaceMessage, ConfiguredMessage, Metrics, StatusMessage, TranscriptMessage } from '../protocol/messages';
import { RECOMMENDED_FRAME_BYTES } from '../protocol/messages';
import { parseServerMessage } from '../protocol/parse';
import { PcmFramer } from '../audio/framer';
import { DictationError, FATAL_CODES, fieldFromMessage, scrubKey, type DictationErrorCode } from './errors';
import { TypedEmitter, type Disposable } from '../shared/events';
import { initSession, wsUrlFor, type HttpOptions } from './http';
import { errorMessage } from '../shared/errors';

/** A connection that stays up this long resets the reconnection attempt counter. */
const STABLE_CONNECTION_MS = 5000;

export type SessionState = 'idle' | 'connecting' | 'recording' | 'paused' | 'reconnecting' | 'stopping' | 'stopped' | 'failed';

export interface DictationSessionOptions {
  serverUrl: string;
  apiKey: string;
  /** The `configure` fields (resume is managed by the session). */
  config?: Omit<ClientConfig, 'resume'>;
  logger?: Logger;
  /** Reconnection attempts in a row before the run fails (default 8). */
  maxAttempts?: number;
  /** Backoff: first ceiling and cap (ms), full jitter (defaults 250 and 10 000). */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Seconds of audio kept while disconnected (default 60); the oldest is dropped beyond it. */
  bufferSeconds?: number;
  /** Seconds of already-sent audio kept for re-sending after a resume (default 60, never less). */
  retainSeconds?: number;
  /** Added to `stop_delay` while waiting for `status: stopped` (default 5000 ms). */
  stopMarginMs?: number;
  /** Connection + `configured` timeout (default 10 000 ms). */
  connectTimeoutMs?: number;
  /** A connection with no message or ping for this long is considered dead (default 45 000 ms). */
  idleTimeoutMs?: number;
  /** Random source for the jitter (tests). */
  random?: () => number;
  http?: HttpOptions;
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
}

export interface SessionEvents {
  state: SessionState;
  /** Validated `transcript` and `batch.replace` messages, in arrival order. */
  message: TranscriptMessage | BatchReplaceMessage;
  status: StatusMessage;
  error: DictationError;
  configured: ConfiguredInfo;
  /** The run continues on a new service session (not a resumption): start a new model generation. */
  generation: GenerationInfo;
  reconnecting: ReconnectInfo;
  /** Something was lost or degraded but the run goes on (audio dropped from a full buffer, …). */
  warning: string;
}

interface SentFrame {
  offset: number;
  data: Buffer;
}

export class DictationSession {
  private readonly emitter: TypedEmitter<SessionEvents>;
  private readonly logger: Logger;
  private readonly opts: Required<Omit<DictationSessionOptions, 'config' | 'logger' | 'http' | 'random'>> & {
    random: () => number;
  };
  private readonly config: Omit<ClientConfig, 'resume'>;
  private readonly wsUrl: string;
  private readonly httpOptions: HttpOptions;

  private stateValue: SessionState = 'idle';
  private ws: WebSocket | undefined;
  private connSeq = 0;
  private ready = false;
  private disposed = false;

  private trackingId: string | undefined;
  private serviceSessionId: string | undefined;
  private lastSeq: number | undefined;
  private generationNo = 0;
  private hadSession = false;
  /** The service ended the current service session on its own: the next connection starts a new one. */
  private sessionOver = false;
  /** The service refused `resume` (a service written to the spec only): reconnect with new sessions. */
  private resumeUnsupported = false;
  /** The `configure` of the current connection carried `resume`. */
  private resumeSent = false;
  /** `stopped` messages we did not ask for, in a row (a drained service, then a session really over). */
  private unsolicitedStops = 0;

  private paused = false;
  private stopRequested = false;
  private stopSent = false;

  private attempts = 0;
  private serverErrorsInARow = 0;
  private pendingError: DictationError | undefined;

  private readonly framer: PcmFramer;
  private unsent: Buffer[] = [];
  private unsentBytes = 0;
  private retained: SentFrame[] = [];
  private retainedBytes = 0;
  private nextOffset = 0;
  /** `nextOffset` when the last final text of the current service session arrived. */
  private finalOffset = 0;
  private readonly bufferBytes: number;
  private readonly retainBytes: number;
  private overflowing = false;
  private readonly stats: AudioStats = { sentBytes: 0, resentBytes: 0, pausedBytes: 0, droppedBytes: 0, unrecoverableBytes: 0, queuedBytes: 0 };

  private reconnectTimer: NodeJS.Timeout | undefined;
  private configureTimer: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private stopTimer: NodeJS.Timeout | undefined;
  private errorCloseTimer: NodeJS.Timeout | undefined;
  private stableTimer: NodeJS.Timeout | undefined;

  private startPromise: Promise<void> | undefined;
  private startSettle: { resolve: () => void; reject: (e: DictationError) => void } | undefined;
  private stopPromise: Promise<StopResult> | undefined;
  private stopResolve: ((r: StopResult) => void) | undefined;
  private lastMetrics: Metrics | undefined;

  constructor(options: DictationSessionOptions) {
    this.logger = options.logger ?? silentLogger;
    this.opts = {
      serverUrl: options.serverUrl,
      apiKey: options.apiKey,
      maxAttempts: options.maxAttempts ?? 8,
      backoffBaseMs: options.backoffBaseMs ?? 250,
      backoffMaxMs: options.backoffMaxMs ?? 10_000,
      bufferSeconds: options.bufferSeconds ?? 60,
      retainSeconds: Math.max(options.retainSeconds ?? 60, 60),
      stopMarginMs: options.stopMarginMs ?? 5000,
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
      idleTimeoutMs: options.idleTimeoutMs ?? 45_000,
      random: options.random ?? Math.random,
    };
    this.httpOptions = options.http ?? {};
    this.config = { ...(options.config ?? {}) };
    delete (this.config as ClientConfig).resume;
    // Throws a CONFIG_ERROR DictationError (field serverUrl) for a bad URL: before anything starts.
    this.wsUrl = wsUrlFor(options.serverUrl);
    const rate = this.config.sample_rate ?? DEFAULTS.sample_rate;
    this.bufferBytes = Math.round(this.opts.bufferSeconds * bytesPerSecond(rate));
    this.retainBytes = Math.round(this.opts.retainSeconds * bytesPerSecond(rate));
    this.framer = new PcmFramer(Math.max(2, Math.round((RECOMMENDED_FRAME_BYTES * rate) / 16000 / 2) * 2));
    this.emitter = new TypedEmitter((event, e) => this.log('error', `listener of "${event}" threw: ${errorMessage(e)}`));
  }

  // ------------------------------------------------------------------ public API

  on<K extends keyof SessionEvents>(event: K, listener: (value: SessionEvents[K]) => void): Disposable {
    return this.emitter.on(event, listener);
  }

  get state(): SessionState {
    return this.stateValue;
  }

  /** The service session id (from `configured`), or the tracking id from session init before that. */
  get sessionId(): string | undefined {
    return this.serviceSessionId ?? this.trackingId;
  }

  get generation(): number {
    return this.generationNo;
  }

  get audioStats(): AudioStats {
    return { ...this.stats, queuedBytes: this.unsentBytes + this.framer.pending };
  }

  /**
   * Starts the run: session init, connection, configure, `control start`. Resolves once recording;
   * rejects with a fatal DictationError (which is also emitted as `error`). Audio given before it
   * resolves is buffered.
   */
  start(): Promise<void> {
    if (this.startPromise) return this.startPromise;
    this.startPromise = new Promise<void>((resolve, reject) => {
      this.startSettle = { resolve, reject };
    });
    this.setState('connecting');
    void this.initAndConnect();
    return this.startPromise;
  }

  /** Frames and sends audio (any chunk size). Buffered while connecting or reconnecting; ignored while paused. */
  sendAudio(pcm: Uint8Array): void {
    if (!(pcm instanceof Uint8Array)) {
      throw new TypeError(`sendAudio expects PCM bytes (a Buffer or Uint8Array), got ${pcm === null ? 'null' : typeof pcm}`);
    }
    if (this.disposed || this.stopRequested || this.stateValue === 'failed' || this.stateValue === 'stopped') return;
    if (this.paused) {
      this.stats.pausedBytes += pcm.length;
      return;
    }
    for (const frame of this.framer.push(pcm)) this.enqueue(frame);
    this.flushQueue();
  }

  /** Pauses: pending audio is sent, then `control pause`; audio given while paused is not sent. */
  pause(): void {
    if (this.paused || this.stopRequested || this.isEnded()) return;
    this.enqueuePartial();
    this.flushQueue();
    this.paused = true;
    if (this.ready) this.sendJson({ type: 'control', action: 'pause' });
    this.log('info', 'paused');
    if (this.stateValue === 'recording') this.setState('paused');
  }

  resume(): void {
    if (!this.paused || this.stopRequested || this.isEnded()) return;
    this.paused = false;
    if (this.ready) this.sendJson({ type: 'control', action: 'resume' });
    this.log('info', 'resumed');
    if (this.stateValue === 'paused') this.setState('recording');
  }

  /**
   * Sends what is pending, then `control stop`, and resolves with the `metrics` of `status: stopped`
   * (waiting `stop_delay` plus a margin); then closes. Never rejects. While reconnecting, the stop is
   * sent once the connection is back (the buffered audio first).
   */
  stop(): Promise<StopResult> {
    if (this.stopPromise) return this.stopPromise;
    if (this.stateValue === 'idle' || this.isEnded()) {
      return Promise.resolve({ reason: this.stateValue === 'idle' ? 'not-started' : 'error', sessionId: this.sessionId, metrics: this.lastMetrics });
    }
    this.stopPromise = new Promise<StopResult>((resolve) => {
      this.stopResolve = resolve;
    });
    this.stopRequested = true;
    this.enqueuePartial();
    this.setState('stopping');
    if (this.ready) this.sendStop();
    else this.log('info', 'stop requested while not connected: it is sent once the connection is back');
    return this.stopPromise;
  }

  /** Tears everything down now (no dangling timer or socket). Safe to call at any time, repeatedly. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.clearTimers();
    this.closeSocket('disposed', false);
    if (!this.isEnded()) this.setState('stopped');
    this.finishStop({ reason: 'disposed', sessionId: this.sessionId, metrics: this.lastMetrics });
    this.startSettle?.resolve();
    this.startSettle = undefined;
    this.emitter.removeAllListeners();
  }

  /**
   * Audio that was given to the run but that the service has not confirmed: the retained window
   * followed by the unsent queue. Lets a caller keep it when a run fails for good.
   */
  pendingAudio(): Buffer {
    return Buffer.concat([...this.retained.map((f) => f.data), ...this.unsent]);
  }

  // ------------------------------------------------------------------ connection

  private async initAndConnect(): Promise<void> {
    for (;;) {
      if (this.disposed || this.isEnded()) return;
      try {
        const init = await initSession(this.opts.serverUrl, this.opts.apiKey, this.httpOptions);
        if (this.disposed) return;
        this.trackingId = init.sessionId;
        this.log('info', `session initialised (org ${init.orgId}) via ${init.path}`);
        break;
      } catch (e) {
        const err = e instanceof DictationError ? e : new DictationError({ code: 'INTERNAL_ERROR', message: errorMessage(e), fatal: false });
        if (this.disposed) return;
        if (err.code === 'RATE_LIMITED' || err.code === 'INTERNAL_ERROR' || err.code === 'TIMEOUT') {
          this.attempts += 1;
          if (this.attempts <= this.opts.maxAttempts) {
            const delay = this.retryDelay(err);
            this.log('warn', `session init failed (${err.code}: ${err.message}); retrying in ${delay} ms (${this.attempts}/${this.opts.maxAttempts})`);
            this.emit('error', err);
            this.emit('reconnecting', { attempt: this.attempts, maxAttempts: this.opts.maxAttempts, delayMs: delay, reason: err.code });
            await new Promise<void>((r) => {
              this.reconnectTimer = setTimeout(r, delay);
            });
            this.reconnectTimer = undefined;
            continue;
          }
        }
        this.fail(new DictationError({ ...errInit(err), fatal: true }));
        return;
      }
    }
    this.connect();
  }

  private connect(): void {
    if (this.disposed || this.isEnded()) return;
    const id = ++this.connSeq;
    this.ready = false;
    this.pendingError = undefined;
    const resume = this.serviceSessionId !== undefined && !this.sessionOver && !this.resumeUnsupported ? { session_id: this.serviceSessionId, last_seq: this.lastSeq ?? 0 } : undefined;
    this.resumeSent = resume !== undefined;
    this.log('info', `connecting to ${this.wsUrl}${resume ? ` (resume after seq ${resume.last_seq})` : ''}`);
    let ws: WebSocket;
    try {
      ws = new WebSocket(this.wsUrl, {
        headers: { Authorization: `Bearer ${this.opts.apiKey}` },
        handshakeTimeout: this.opts.connectTimeoutMs,
        perMessageDeflate: false,
      });
    } catch (e) {
      this.onClosed(id, 1006, `could not open the connection: ${errorMessage(e)}`);
      return;
    }
    this.ws = ws;
    this.configureTimer = setTimeout(() => {
      if (id !== this.connSeq || this.ready) return;
      this.pendingError = new DictationError({ code: 'TIMEOUT', message: `no "configured" within ${this.opts.connectTimeoutMs} ms`, fatal: false });
      ws.terminate();
    }, this.opts.connectTimeoutMs);

    ws.on('open', () => {
      if (id !== this.connSeq) return;
      this.touchIdle(ws);
      const config: ClientConfig = { ...this.config, ...(resume ? { resume } : {}) };
      this.sendJson({ type: 'configure', config });
    });
    ws.on('message', (data: WebSocket.RawData, isBinary: boolean) => {
      if (id !== this.connSeq) return;
      this.touchIdle(ws);
      if (isBinary) {
        this.log('warn', 'ignored a binary frame from the service');
        return;
      }
      this.onText(rawToString(data));
    });
    ws.on('ping', () => {
      if (id === this.connSeq) this.touchIdle(ws);
    });
    ws.on('unexpected-response', (_req, res) => {
      if (id !== this.connSeq) return;
      const status = res.statusCode ?? 0;
      const code: DictationErrorCode = status === 401 || status === 403 ? 'AUTH_ERROR' : status === 429 ? 'RATE_LIMITED' : status >= 500 ? 'INTERNAL_ERROR' : 'NETWORK_ERROR';
      const retry = Number(res.headers['retry-after']);
      this.pendingError = new DictationError({
        code,
        status,
        fatal: FATAL_CODES.has(code),
        retryAfterMs: Number.isFinite(retry) && retry > 0 ? retry * 1000 : 0,
        message: `the service refused the WebSocket upgrade with HTTP ${status}${code === 'AUTH_ERROR' ? ` (API key ${redactKey(this.opts.apiKey)})` : ''}`,
      });
      res.resume();
      ws.terminate();
    });
    ws.on('error', (err: Error) => {
      if (id !== this.connSeq) return;
      this.log('debug', `socket error: ${this.scrub(err.message)}`);
      if (!this.pendingError) {
        this.pendingError = new DictationError({ code: 'NETWORK_ERROR', message: `connection to ${this.wsUrl} failed: ${this.scrub(err.message)}`, fatal: false });
      }
    });
    ws.on('close', (code: number, reason: Buffer) => {
      this.onClosed(id, code, reason.toString('utf8'));
    });
  }

  private onText(text: string): void {
    const parsed = parseServerMessage(text);
    if (!parsed.ok) {
      this.log('warn', `ignored a message from the service: ${parsed.message}`);
      return;
    }
    const msg = parsed.value;
    switch (msg.type) {
      case 'configured':
        this.onConfigured(msg);
        return;
      case 'transcript':
      case 'batch.replace':
        if (this.lastSeq === undefined || msg.seq > this.lastSeq) this.lastSeq = msg.seq;
        if (msg.type === 'batch.replace' || msg.status === 'final') this.finalOffset = this.nextOffset;
        this.serverErrorsInARow = 0;
        this.emit('message', msg);
        return;
      case 'status':
        this.emit('status', msg);
        if (msg.state === 'stopped' && !this.stopSent) {
          // The service ended the session without our stop on this connection (it is shutting down):
          // everything it received is final now, and the close that follows is handled as a drop. The
          // first time, the service is probably draining and keeps the session resumable: the run resumes
          // it; if a resumption ends the same way, the session is over and the run goes on in a new one.
          this.unsolicitedStops += 1;
          this.sessionOver = this.unsolicitedStops >= 2;
          this.log('warn', `the service ended the session without a stop (shutting down?); the run continues ${this.sessionOver ? 'on a new session' : 'by resuming it'}`);
          return;
        }
        if (msg.state === 'stopped') {
          this.lastMetrics = msg.metrics;
          this.log('info', `stopped; metrics ${JSON.stringify(msg.metrics ?? {})}`);
          this.finishStop({ reason: 'stopped', metrics: msg.metrics, sessionId: this.sessionId });
          this.endRun('stopped');
        } else {
          this.log('info', `status ${msg.state}${msg.message ? `: ${msg.message}` : ''}`);
        }
        return;
      case 'error':
        this.onServiceError(msg.code, msg.message, msg.retry_after_ms, msg.session_id, (msg as { field?: unknown }).field);
        return;
    }
  }

  private onConfigured(msg: ConfiguredMessage): void {
    if (this.configureTimer) clearTimeout(this.configureTimer);
    this.configureTimer = undefined;
    const requestedResume = this.serviceSessionId !== undefined && !this.sessionOver;
    if (this.sessionOver) this.unsolicitedStops = 0;
    this.sessionOver = false;
    const resumed = requestedResume && msg.resumed === true && msg.session_id === this.serviceSessionId;
    const previous = this.serviceSessionId;
    this.serviceSessionId = msg.session_id;
    if (this.hadSession && !resumed) {
      // A new service session: new generation, seq numbering and audio offsets start again. The old
      // session's final text covers at most the audio sent before its last final arrived; what was
      // sent after it only ever became provisional text (dropped), so it is sent again to the new one.
      this.generationNo += 1;
      this.lastSeq = undefined;
      this.log('warn', `the service could not resume session ${previous ?? '?'}; continuing as generation ${this.generationNo}, re-sending the audio sent after its last final text`);
      this.rewindTo(this.finalOffset);
      this.retained = [];
      this.retainedBytes = 0;
      this.nextOffset = 0;
      this.finalOffset = 0;
      this.emit('generation', { generation: this.generationNo, sessionId: msg.session_id, previousSessionId: previous });
    } else if (resumed) {
      this.rewindTo(msg.resume_audio_offset);
      this.finalOffset = Math.min(this.finalOffset, this.nextOffset);
    }
    this.hadSession = true;
    this.ready = true;
    // The attempt counter restarts once a connection has proved stable (not at every `configured`,
    // so a service that accepts and drops at once cannot keep the run reconnecting forever).
    if (this.stableTimer) clearTimeout(this.stableTimer);
    this.stableTimer = setTimeout(() => {
      this.stableTimer = undefined;
      this.attempts = 0;
      this.serverErrorsInARow = 0;
    }, STABLE_CONNECTION_MS);
    this.log('info', `configured${requestedResume ? (resumed ? ' (resumed)' : ' (new session)') : ''}${msg.engine ? `, engine ${msg.engine}` : ''}`);
    this.emit('configured', {
      sessionId: msg.session_id,
      resumed,
      generation: this.generationNo,
      lastSeq: msg.last_seq,
      resumeAudioOffset: msg.resume_audio_offset,
      engine: msg.engine,
    });
    this.sendJson({ type: 'control', action: 'start' });
    if (this.paused && !this.stopRequested) this.sendJson({ type: 'control', action: 'pause' });
    this.flushQueue();
    if (this.stopRequested) {
      this.sendStop();
    } else {
      this.setState(this.paused ? 'paused' : 'recording');
    }
    this.startSettle?.resolve();
    this.startSettle = undefined;
  }

  private onServiceError(rawCode: string, rawMessage: string, retryAfterMs: number | undefined, sessionId: string | undefined, field: unknown): void {
    const code: ErrorCode = (ERROR_CODES as readonly string[]).includes(rawCode) ? (rawCode as ErrorCode) : 'INTERNAL_ERROR';
    const message = this.scrub(rawMessage);
    const err = new DictationError({
      code,
      message: (ERROR_CODES as readonly string[]).includes(rawCode) ? message : `${rawCode}: ${message}`,
      field: code === 'CONFIG_ERROR' ? (typeof field === 'string' ? field : fieldFromMessage(message)) : undefined,
      retryAfterMs: code === 'RATE_LIMITED' ? retryAfterMs || DEFAULT_RATE_LIMIT_RETRY_MS : (retryAfterMs ?? 0),
      sessionId: sessionId ?? this.sessionId,
      fatal: FATAL_CODES.has(code),
    });
    if (code === 'CONFIG_ERROR' && this.resumeSent && !this.ready && (err.field?.startsWith('resume') || /\bresume\b/.test(message))) {
      // A service without our resume extension: go on with a new session on the next connection.
      this.resumeUnsupported = true;
      const warning = `the service does not support resume (${message}); the run continues on a new session`;
      this.log('warn', warning);
      this.emit('warning', warning);
      this.pendingError = new DictationError({ code: 'CONFIG_ERROR', field: err.field, message: `resume not supported: ${message}`, sessionId: err.sessionId, fatal: false });
      const ws = this.ws;
      this.errorCloseTimer = setTimeout(() => ws?.terminate(), 2000);
      return;
    }
    this.log(err.fatal ? 'error' : 'warn', `service error ${code}: ${message}`);
    if (err.fatal) {
      this.fail(err);
      return;
    }
    this.pendingError = err;
    // The service closes right after an error; make sure we do not wait forever if it does not.
    const ws = this.ws;
    this.errorCloseTimer = setTimeout(() => ws?.terminate(), 2000);
  }

  private onClosed(id: number, code: number, reason: string): void {
    if (id !== this.connSeq) return;
    this.ws = undefined;
    this.ready = false;
    this.clearConnectionTimers();
    if (this.disposed || this.isEnded()) return;
    const err = this.pendingError;
    this.pendingError = undefined;
    this.log('info', `connection closed (code ${code}${reason ? `, ${this.scrub(reason)}` : ''})`);
    const stopWasSent = this.stopSent;
    this.stopSent = false; // a stop must be sent again on the next connection
    if (this.stopRequested && stopWasSent && code === CLOSE_CODES.NORMAL && !err) {
      // A clean close after stop without `stopped`: nothing more will come.
      this.finishStop({ reason: 'error', sessionId: this.sessionId, metrics: this.lastMetrics });
      this.endRun('stopped');
      return;
    }
    // A close code standing for a fatal error, without the error message (should not happen, but be sure).
    const closeCode = errorCodeForClose(code);
    if (!err && closeCode && FATAL_CODES.has(closeCode)) {
      this.fail(new DictationError({ code: closeCode, message: `the service closed the connection with code ${code}${reason ? ` (${this.scrub(reason)})` : ''}`, fatal: true, sessionId: this.sessionId }));
      return;
    }
    const cause =
      err ??
      new DictationError({
        code: closeCode ?? 'NETWORK_ERROR',
        message: `connection lost (close code ${code}${reason ? `, ${this.scrub(reason)}` : ''})`,
        fatal: false,
        sessionId: this.sessionId,
      });
    if (cause.fatal) {
      this.fail(cause);
      return;
    }
    if (cause.code === 'PROTOCOL_ERROR' || cause.code === 'INTERNAL_ERROR') this.serverErrorsInARow += 1;
    this.scheduleReconnect(cause);
  }

  private scheduleReconnect(cause: DictationError): void {
    this.attempts += 1;
    if (this.attempts > this.opts.maxAttempts || this.serverErrorsInARow > this.opts.maxAttempts) {
      this.fail(
        new DictationError({
          code: cause.code === 'RATE_LIMITED' || cause.code === 'PROTOCOL_ERROR' || cause.code === 'INTERNAL_ERROR' ? cause.code : 'NETWORK_ERROR',
          message: `gave up after ${this.opts.maxAttempts} reconnection attempts; last failure: ${cause.message}`,
          fatal: true,
          sessionId: this.sessionId,
        }),
      );
      return;
    }
    // Non-fatal errors are reported too (logged by the caller with the session id), then retried.
    // (A refused resume is reported as a `warning`, not as an error.)
    if (cause.code !== 'NETWORK_ERROR' && cause.code !== 'TIMEOUT' && cause.code !== 'CONFIG_ERROR') this.emit('error', cause);
    const delay = this.retryDelay(cause);
    this.log('warn', `reconnecting in ${delay} ms (attempt ${this.attempts}/${this.opts.maxAttempts}) after ${cause.code}: ${cause.message}`);
    if (!this.stopRequested) this.setState('reconnecting');
    this.emit('reconnecting', { attempt: this.attempts, maxAttempts: this.opts.maxAttempts, delayMs: delay, reason: `${cause.code}: ${cause.message}` });
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.connect();
    }, delay);
  }

  /** Exponential backoff with full jitter; RATE_LIMITED waits at least `retry_after_ms` (5000 if absent). */
  private retryDelay(cause: DictationError): number {
    const ceiling = Math.min(this.opts.backoffMaxMs, this.opts.backoffBaseMs * 2 ** Math.max(0, this.attempts - 1));
    const jitter = Math.floor(this.opts.random() * ceiling);
    if (cause.code === 'RATE_LIMITED') return (cause.retryAfterMs || DEFAULT_RATE_LIMIT_RETRY_MS) + jitter;
    return jitter;
  }

  // ------------------------------------------------------------------ audio

  private enqueue(frame: Buffer): void {
    this.unsent.push(frame);
    this.unsentBytes += frame.length;
    if (this.ready) return; // flushed right away
    let dropped = 0;
    while (this.unsentBytes > this.bufferBytes && this.unsent.length > 1) {
      const old = this.unsent.shift()!;
      this.unsentBytes -= old.length;
      dropped += old.length;
    }
    if (dropped > 0) {
      this.stats.droppedBytes += dropped;
      if (!this.overflowing) {
        this.overflowing = true;
        const msg = `disconnected for more than ${this.opts.bufferSeconds} s: the oldest buffered audio is being dropped`;
        this.log('warn', msg);
        this.emit('warning', msg);
      }
    }
  }

  /** Moves the framer's partial frame (even length) to the queue. */
  private enqueuePartial(): void {
    const rest = this.framer.flush();
    if (rest) this.enqueue(rest);
  }

  private flushQueue(): void {
    const ws = this.ws;
    if (!this.ready || !ws || ws.readyState !== WebSocket.OPEN) return;
    if (this.unsent.length > 0) this.overflowing = false;
    while (this.unsent.length > 0) {
      const frame = this.unsent.shift()!;
      this.unsentBytes -= frame.length;
      ws.send(frame);
      this.stats.sentBytes += frame.length;
      this.retained.push({ offset: this.nextOffset, data: frame });
      this.retainedBytes += frame.length;
      this.nextOffset += frame.length;
    }
    while (this.retained.length > 1 && this.retainedBytes - this.retained[0]!.data.length >= this.retainBytes) {
      this.retainedBytes -= this.retained.shift()!.data.length;
    }
  }

  /** After a resume: the service has everything before `offset`; queue what we sent after it again. */
  private rewindTo(offset: number | undefined): void {
    if (offset === undefined) {
      this.log('warn', 'the service did not say how much audio it has; nothing is re-sent');
      return;
    }
    if (offset >= this.nextOffset) {
      if (offset > this.nextOffset) this.log('warn', `the service reports ${offset} bytes of audio but ${this.nextOffset} were sent`);
      return;
    }
    const again: Buffer[] = [];
    const keep: SentFrame[] = [];
    for (const f of this.retained) {
      const end = f.offset + f.data.length;
      if (end <= offset) keep.push(f);
      else again.push(f.offset >= offset ? f.data : f.data.subarray(offset - f.offset));
    }
    const firstRetained = this.retained[0]?.offset ?? this.nextOffset;
    if (firstRetained > offset) {
      const lost = firstRetained - offset;
      this.stats.unrecoverableBytes += lost;
      const msg = `the service needs audio from byte ${offset} but only audio from byte ${firstRetained} is retained: ${lost} bytes cannot be re-sent`;
      this.log('warn', msg);
      this.emit('warning', msg);
    }
    const againBytes = again.reduce((n, b) => n + b.length, 0);
    this.retained = keep;
    this.retainedBytes = keep.reduce((n, f) => n + f.data.length, 0);
    this.unsent = [...again, ...this.unsent];
    this.unsentBytes += againBytes;
    this.stats.resentBytes += againBytes;
    this.nextOffset = offset;
    this.log('info', `resuming audio from byte ${offset}: ${againBytes} bytes sent again`);
  }

  // ------------------------------------------------------------------ stop, failure, teardown

  private sendStop(): void {
    this.flushQueue();
    if (this.paused) this.sendJson({ type: 'control', action: 'resume' });
    this.sendJson({ type: 'control', action: 'stop' });
    this.stopSent = true;
    const stopDelayMs = (this.config.stop_delay ?? DEFAULTS.stop_delay) * 1000;
    if (this.stopTimer) clearTimeout(this.stopTimer);
    this.stopTimer = setTimeout(() => {
      this.stopTimer = undefined;
      this.log('warn', `no "stopped" within ${stopDelayMs + this.opts.stopMarginMs} ms; closing`);
      this.finishStop({ reason: 'timeout', sessionId: this.sessionId, metrics: this.lastMetrics });
      this.endRun('stopped');
    }, stopDelayMs + this.opts.stopMarginMs);
    this.log('info', 'stop sent');
  }

  private fail(err: DictationError): void {
    if (this.isEnded()) return;
    this.log('error', `run failed: ${err.code}${err.field ? ` (field ${err.field})` : ''}: ${err.message}`);
    this.emit('error', err);
    this.startSettle?.reject(err);
    this.startSettle = undefined;
    this.finishStop({ reason: 'error', error: err, sessionId: this.sessionId, metrics: this.lastMetrics });
    this.endRun('failed');
  }

  private finishStop(result: StopResult): void {
    const resolve = this.stopResolve;
    this.stopResolve = undefined;
    resolve?.(result);
  }

  private endRun(state: 'stopped' | 'failed'): void {
    this.clearTimers();
    this.closeSocket(state);
    this.setState(state);
    // Listeners learn the end through `state`; start() must not hang.
    this.startSettle?.resolve();
    this.startSettle = undefined;
  }

  private isEnded(): boolean {
    return this.stateValue === 'stopped' || this.stateValue === 'failed';
  }

  /** Closes the current socket: a close handshake bounded to 1 s, or at once (`graceful` false). */
  private closeSocket(reason: string, graceful = true): void {
    const ws = this.ws;
    this.ws = undefined;
    this.ready = false;
    this.connSeq += 1; // events of this socket are stale from now on
    if (!ws) return;
    ws.removeAllListeners('message');
    ws.on('error', () => {}); // a late socket error must not become an unhandled 'error' event
    if (ws.readyState === WebSocket.OPEN && graceful) {
      ws.close(CLOSE_CODES.NORMAL, reason.slice(0, 100));
      const t = setTimeout(() => ws.terminate(), 1000);
      ws.once('close', () => clearTimeout(t));
    } else if (ws.readyState !== WebSocket.CLOSED) {
      ws.terminate();
    }
  }

  private clearConnectionTimers(): void {
    for (const t of [this.configureTimer, this.idleTimer, this.errorCloseTimer, this.stableTimer]) if (t) clearTimeout(t);
    this.configureTimer = this.idleTimer = this.errorCloseTimer = this.stableTimer = undefined;
  }

  private clearTimers(): void {
    this.clearConnectionTimers();
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    if (this.stopTimer) clearTimeout(this.stopTimer);
    this.reconnectTimer = this.stopTimer = undefined;
  }

  private touchIdle(ws: WebSocket): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.pendingError = new DictationError({ code: 'TIMEOUT', message: `no message or ping from the service for ${this.opts.idleTimeoutMs} ms`, fatal: false });
      ws.terminate();
    }, this.opts.idleTimeoutMs);
  }

  private sendJson(msg: object): void {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) return;
    ws.send(JSON.stringify(msg));
  }

  private setState(state: SessionState): void {
    if (this.stateValue === state) return;
    this.stateValue = state;
    this.emit('state', state);
  }

  private emit<K extends keyof SessionEvents>(event: K, value: SessionEvents[K]): void {
    if (!this.disposed) this.emitter.emit(event, value);
  }

  private scrub(text: string): string {
    return scrubKey(text, this.opts.apiKey, redactKey(this.opts.apiKey));
  }

  private log(level: 'trace' | 'debug' | 'info' | 'warn' | 'error', message: string): void {
    this.logger[level](`[session ${this.sessionId ?? '-'}] ${this.scrub(message)}`);
  }
}

function errInit(e: DictationError): Omit<ConstructorParameters<typeof DictationError>[0], 'fatal'> {
  return { code: e.code, message: e.message, field: e.field, retryAfterMs: e.retryAfterMs, sessionId: e.sessionId, status: e.status };
}

function rawToString(data: WebSocket.RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

