/**
 * A run's link to the service, across its connections: session init, one connection at a time
 * (socket.ts), configure with `resume` when there is a session to continue, retries with the one backoff
 * policy (retry.ts), the service's messages, the run's controls (pause, resume, stop) sent again on every
 * new connection, and the audio: the link owns the ledger (audioLedger.ts) and re-sends from where the
 * service stands. The run (session.ts) decides what its state is and talks to the link through its public
 * members only; the link tells it what happened through {@link LinkHost}.
 */
import type { ClientConfig } from '../protocol/config';
import { CLOSE_CODES, isRetried } from '../protocol/errors';
import type { ConfiguredMessage, ControlAction, Metrics } from '../protocol/messages';
import { parseServerMessage } from '../protocol/parse';
import type { Logger } from '../shared/logger';
import { AudioLedger, type QueueResult, type RewindResult } from './audioLedger';
import { DictationError, errorFromClose, errorFromServiceMessage, scrubKey, toDictationError } from './errors';
import { initSession, wsUrlFor } from './http';
import { Resumption } from './resumption';
import { Backoff, gaveUpError } from './retry';
import type { AudioStats, SessionEvents, SessionSettings } from './sessionTypes';
import { ServiceSocket } from './socket';

/** A connection that stays up this long resets the attempt counter. */
const STABLE_CONNECTION_MS = 5000;

/**
 * How the link ended: `status: stopped` answered the run's stop; the connection closed cleanly after the
 * stop without it (nothing more will come); or the run cannot go on.
 */
export type LinkEnd =
  { reason: 'stopped'; metrics: Metrics | undefined } | { reason: 'closed' } | { reason: 'failed'; error: DictationError };

/** What the link tells the run (session.ts). */
interface LinkHost {
  emit<K extends keyof SessionEvents>(event: K, value: SessionEvents[K]): void;
  /** `configured` arrived and the run's controls and queued audio went out: the run takes up its state. */
  ready(): void;
  /** The service showed it is alive: a message, a pong, a connection configured. */
  alive(): void;
  /** A failed connection is retried (after the backoff). */
  reconnecting(): void;
  /** Nothing more will come (see {@link LinkEnd}); the run ends, and closes the link. */
  ended(end: LinkEnd): void;
}

/** The audio counts of a run, but for the audio given while paused (the run's own). */
type LinkAudioStats = Omit<AudioStats, 'pausedBytes'>;

export class ServiceLink {
  private readonly ledger: AudioLedger;
  private readonly resumption = new Resumption();
  private readonly backoff: Backoff;
  private readonly wsUrl: string;
  private socket: ServiceSocket | undefined;
  /** `configured` arrived on the current connection. */
  private readyFlag = false;
  /** The run's `control stop` went out on the current connection. */
  private stopSent = false;
  private serverErrorsInARow = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private stableTimer: NodeJS.Timeout | undefined;
  /** The service closed the paused session for idleness: no connection until the run resumes or stops. */
  private dormant = false;
  /** The run is paused, or stopping: what every new connection tells the service after `control start`. */
  private paused = false;
  private stopping = false;
  /** Closed by the run (ended or disposed): nothing more happens. */
  private closed = false;

  /** Throws a CONFIG_ERROR DictationError (field serverUrl) for a bad server URL. */
  constructor(
    private readonly o: SessionSettings,
    private readonly logger: Logger,
    private readonly host: LinkHost,
  ) {
    this.wsUrl = wsUrlFor(o.serverUrl);
    this.backoff = new Backoff({ maxAttempts: o.maxAttempts, baseMs: o.backoffBaseMs, maxMs: o.backoffMaxMs, random: o.random });
    this.ledger = new AudioLedger(o.frameBytes, o.bufferBytes, o.retainBytes);
  }

  /** The ledger's counts, what waits to be sent, and what the connection has not written to the network yet. */
  get audioStats(): LinkAudioStats {
    const { sentBytes, resentBytes, droppedBytes, unrecoverableBytes } = this.ledger.stats;
    return {
      sentBytes,
      resentBytes,
      droppedBytes,
      unrecoverableBytes,
      queuedBytes: this.ledger.queuedBytes,
      bufferedBytes: this.socket?.bufferedBytes ?? 0,
    };
  }

  get sessionId(): string | undefined {
    return this.resumption.sessionId;
  }

  get generation(): number {
    return this.resumption.generation;
  }

  /** Session init, then the first connection. */
  async open(): Promise<void> {
    if (this.closed) return;
    let failure: DictationError;
    try {
      const init = await initSession(this.o.serverUrl, this.o.apiKey, this.o.http);
      if (this.closed) return;
      this.resumption.initialised(init.sessionId);
      this.logger.info(`session initialised (org ${init.orgId}) via ${init.path}`);
      this.connect();
      return;
    } catch (e) {
      failure = toDictationError(e);
    }
    if (this.closed) return;
    if (!isRetried(failure.code, 'init')) this.fail(failure.withFatal(true));
    else if (!this.retry(failure, 'session init', () => void this.open()))
      this.fail(gaveUpError(failure, this.o.maxAttempts, 'session init', this.sessionId));
  }

  /** Frames and queues audio of any chunk size: sent at once while connected, kept (bounded) while not. */
  sendAudio(pcm: Uint8Array): void {
    this.queue(this.ledger.push(pcm, this.readyFlag));
  }

  /**
   * A control of the run. Before `pause` and `stop` the partial frame is queued and what is queued is sent.
   * Sent now when connected, and the run's pause or stop again on every new connection. Returns whether it
   * went out now; a stop that did not goes out once a connection is back (one is made if the session was
   * closed for idleness meanwhile).
   */
  control(action: Exclude<ControlAction, 'start'>): boolean {
    if (action !== 'resume') this.queue(this.ledger.pushPartial(this.readyFlag));
    if (action === 'pause') this.paused = true;
    if (action === 'stop') this.stopping = true;
    if (action === 'resume') {
      this.paused = false;
      this.wake();
    }
    if (this.readyFlag) {
      if (action === 'stop') this.sendStop();
      else this.send({ type: 'control', action });
      return true;
    }
    if (action === 'stop') {
      this.logger.info('stop requested while not connected: it is sent once the connection is back');
      this.wake();
    }
    return false;
  }

  /**
   * Audio that was given to the run but that the service has not confirmed: the retained window
   * followed by the unsent queue.
   */
  pendingAudio(): Buffer {
    return this.ledger.pending();
  }

  /** A run that resumes or stops after its session was closed for idleness: connect again (resuming it). */
  private wake(): void {
    if (!this.dormant || this.closed) return;
    this.dormant = false;
    this.logger.info('the run goes on: reconnecting to the session closed for idleness');
    this.connect();
  }

  /** What the ledger queued: a warning when it began to drop audio, and sent at once while connected. */
  private queue(r: QueueResult): void {
    if (r.overflowBegan) this.warn(`disconnected for more than ${this.o.bufferSeconds} s: the oldest buffered audio is being dropped`);
    this.flush();
  }

  /** Sends the queue, when connected. */
  private flush(): void {
    const socket = this.socket;
    if (!this.readyFlag || !socket?.isOpen) return;
    for (const frame of this.ledger.takeQueue()) socket.sendAudio(frame);
  }

  private send(message: object): void {
    this.socket?.sendJson(message);
  }

  /** What is queued, then `control stop` (after `control resume` when paused: the service finalises only what it records). */
  private sendStop(): void {
    this.flush();
    if (this.paused) this.send({ type: 'control', action: 'resume' });
    this.send({ type: 'control', action: 'stop' });
    this.stopSent = true;
  }

  /**
   * The current connection is given up as dead (`cause`, not fatal) and the run reconnects, resuming its
   * session, as after any lost connection. Nothing happens while no connection is open (one is on its way).
   */
  dropConnection(cause: DictationError): void {
    this.socket?.endWith(cause);
  }

  /** Ends the link: timers cleared, the connection closed (a bounded handshake, or at once). */
  close(reason: string, graceful = true): void {
    this.closed = true;
    for (const t of [this.retryTimer, this.stableTimer]) clearTimeout(t);
    this.retryTimer = this.stableTimer = undefined;
    const socket = this.socket;
    this.socket = undefined;
    this.readyFlag = false;
    socket?.release(reason, graceful);
  }

  private connect(): void {
    if (this.closed) return;
    this.readyFlag = false;
    const resume = this.resumption.nextResume();
    this.logger.info(`connecting to ${this.wsUrl}${resume ? ` (resume after seq ${resume.last_seq})` : ''}`);
    const config: ClientConfig = { ...this.o.config, ...(resume ? { resume } : {}) };
    const socket: ServiceSocket = new ServiceSocket(
      {
        url: this.wsUrl,
        apiKey: this.o.apiKey,
        connectTimeoutMs: this.o.connectTimeoutMs,
        idleTimeoutMs: this.o.idleTimeoutMs,
        pingIntervalMs: this.o.pingIntervalMs,
        log: this.logger,
        scrub: (t) => this.scrub(t),
      },
      {
        open: () => socket.sendJson({ type: 'configure', config }),
        text: (text) => {
          this.host.alive();
          this.onText(text);
        },
        alive: () => this.host.alive(),
        closed: (code, reason, cause) => this.onClosed(socket, code, reason, cause),
      },
    );
    this.socket = socket;
  }

  /**
   * The one retry path, for the session init and the reconnection alike: counts the attempt, reports it
   * and runs `again` after the backoff. False once the attempts are spent (the caller fails the run).
   */
  private retry(cause: DictationError, what: 'session init' | 'connection', again: () => void): boolean {
    const next = this.backoff.next(cause);
    if (!next || this.serverErrorsInARow > this.o.maxAttempts) return false;
    // Errors the run goes on after are reported too; a lost connection and a refused resume are not errors of the service.
    if (cause.code !== 'NETWORK_ERROR' && cause.code !== 'TIMEOUT' && cause.code !== 'CONFIG_ERROR') this.host.emit('error', cause);
    this.logger.warn(
      `${what} failed (${cause.code}: ${cause.message}); ${what === 'connection' ? 'reconnecting' : 'retrying'} in ${next.delayMs} ms (attempt ${next.attempt}/${this.o.maxAttempts})`,
    );
    if (what === 'connection') this.host.reconnecting();
    this.host.emit('reconnecting', {
      attempt: next.attempt,
      maxAttempts: this.o.maxAttempts,
      delayMs: next.delayMs,
      reason: `${cause.code}: ${cause.message}`,
    });
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      again();
    }, next.delayMs);
    return true;
  }

  private onText(text: string): void {
    const parsed = parseServerMessage(text);
    if (!parsed.ok) {
      this.logger.warn(`ignored a message from the service: ${parsed.message}`);
      return;
    }
    const msg = parsed.value;
    switch (msg.type) {
      case 'configured':
        this.onConfigured(msg);
        return;
      case 'transcript':
      case 'batch.replace':
        this.resumption.received(msg.seq);
        if (msg.type === 'batch.replace' || msg.status === 'final') this.ledger.markFinal();
        this.serverErrorsInARow = 0;
        this.host.emit('message', msg);
        return;
      case 'status':
        if (msg.state !== 'stopped') {
          this.logger.info(`status ${msg.state}${msg.message ? `: ${msg.message}` : ''}`);
        } else if (this.stopSent) {
          this.logger.info(`stopped; metrics ${JSON.stringify(msg.metrics ?? {})}`);
          this.host.ended({ reason: 'stopped', metrics: msg.metrics });
        } else {
          // The service ended the session without our stop on this connection (it is shutting down):
          // everything it received is final now, and the close that follows is handled as a drop.
          const over = this.resumption.endedByService();
          this.logger.warn(
            `the service ended the session without a stop (shutting down?); the run continues ${over ? 'on a new session' : 'by resuming it'}`,
          );
        }
        return;
      case 'error':
        this.onServiceError(errorFromServiceMessage(msg, this.o.apiKey, this.sessionId));
        return;
    }
  }

  private onConfigured(msg: ConfiguredMessage): void {
    this.socket?.configured();
    const { requestedResume, resumed, newGeneration, previousSessionId } = this.resumption.configured(msg);
    const generation = this.resumption.generation;
    if (newGeneration) {
      // A new service session: seq numbering and audio offsets start again. The old session's final
      // text covers at most the audio sent before its last final arrived; what was sent after it only
      // ever became provisional text (dropped), so it is sent again to the new one.
      this.logger.warn(
        `the service could not resume session ${previousSessionId ?? '?'}; continuing as generation ${generation}, re-sending the audio sent after its last final text`,
      );
      this.reportRewind(this.ledger.startNewSession());
      this.host.emit('generation', { generation, sessionId: msg.session_id, previousSessionId });
    } else if (resumed) {
      if (msg.resume_audio_offset === undefined) this.logger.warn('the service did not say how much audio it has; nothing is re-sent');
      else this.reportRewind(this.ledger.resumeAt(msg.resume_audio_offset));
    }
    this.readyFlag = true;
    // The attempt counter restarts once a connection has proved stable (not at every `configured`,
    // so a service that accepts and drops at once cannot keep the run reconnecting forever).
    clearTimeout(this.stableTimer);
    this.stableTimer = setTimeout(() => {
      this.stableTimer = undefined;
      this.backoff.reset();
      this.serverErrorsInARow = 0;
    }, STABLE_CONNECTION_MS);
    this.logger.info(
      `configured${requestedResume ? (resumed ? ' (resumed)' : ' (new session)') : ''}${msg.engine ? `, engine ${msg.engine}` : ''}`,
    );
    this.host.emit('configured', {
      sessionId: msg.session_id,
      resumed,
      generation,
      lastSeq: msg.last_seq,
      resumeAudioOffset: msg.resume_audio_offset,
      engine: msg.engine,
    });
    this.send({ type: 'control', action: 'start' });
    // The run's controls again (a new connection knows none of them), what was queued, then the stop.
    if (this.paused && !this.stopping) this.send({ type: 'control', action: 'pause' });
    this.flush();
    if (this.stopping) this.sendStop();
    this.host.ready();
  }

  /** A rewind of the ledger, told: what is sent again, and what the service needs but is gone. */
  private reportRewind(r: RewindResult): void {
    if (r.offset > r.sentUpTo) this.logger.warn(`the service reports ${r.offset} bytes of audio but ${r.sentUpTo} were sent`);
    if (r.offset >= r.sentUpTo) return;
    if (r.lost > 0)
      this.warn(
        `the service needs audio from byte ${r.offset} but only audio from byte ${r.firstRetained} is retained: ${r.lost} bytes cannot be re-sent`,
      );
    this.logger.info(`resuming audio from byte ${r.offset}: ${r.resent} bytes sent again`);
  }

  private onServiceError(err: DictationError): void {
    if (this.resumption.refusesResume(err, this.readyFlag)) {
      // A service without our resume extension: go on with a new session on the next connection.
      this.warn(`the service does not support resume (${err.message}); the run continues on a new session`);
      this.socket?.endWith(
        new DictationError({
          code: 'CONFIG_ERROR',
          field: err.field,
          message: `resume not supported: ${err.message}`,
          sessionId: err.sessionId,
          fatal: false,
        }),
      );
    } else if (err.fatal) {
      this.fail(err);
    } else {
      // The service closes right after an error: the close is retried (and logged) with this cause.
      this.socket?.endWith(err);
    }
  }

  private onClosed(socket: ServiceSocket, code: number, rawReason: string, pending: DictationError | undefined): void {
    if (socket !== this.socket) return;
    this.socket = undefined;
    this.readyFlag = false;
    clearTimeout(this.stableTimer);
    this.stableTimer = undefined;
    if (this.closed) return;
    const reason = this.scrub(rawReason);
    this.logger.info(`connection closed (code ${code}${reason ? `, ${reason}` : ''})`);
    const stopWasSent = this.stopSent;
    this.stopSent = false; // a stop must be sent again on the next connection
    if (stopWasSent && code === CLOSE_CODES.NORMAL && !pending) {
      this.host.ended({ reason: 'closed' });
      return;
    }
    const cause = pending ?? errorFromClose(code, reason, this.sessionId);
    if (cause.fatal) {
      this.fail(cause);
      return;
    }
    if (cause.code === 'SESSION_IDLE' && this.paused) {
      // Paused past the service's idle limit: nothing to send until the person resumes, then the run
      // reconnects (resuming the session, or on a new one after it): the text stays where it is.
      this.dormant = true;
      this.logger.info(`the service closed the paused session for idleness (${cause.message}); it is resumed when dictation resumes`);
      return;
    }
    if (cause.code === 'PROTOCOL_ERROR' || cause.code === 'INTERNAL_ERROR') this.serverErrorsInARow += 1;
    if (!this.retry(cause, 'connection', () => this.connect()))
      this.fail(gaveUpError(cause, this.o.maxAttempts, 'reconnection', this.sessionId));
  }

  /** The run cannot go on. */
  private fail(error: DictationError): void {
    this.host.ended({ reason: 'failed', error });
  }

  /** Something was lost or degraded but the run goes on: logged and emitted as a `warning`. */
  private warn(text: string): void {
    this.logger.warn(text);
    this.host.emit('warning', text);
  }

  private scrub(text: string): string {
    return scrubKey(text, this.o.apiKey);
  }
}
