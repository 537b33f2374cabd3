/**
 * A run's link to the service, across its connections: session init, one connection at a time
 * (socket.ts), configure with `resume` when there is a session to continue, retries with the one backoff
 * policy (retry.ts), the service's messages (what they mean: serviceMessages.ts), the run's controls
 * (pause, resume, stop) sent again on every new connection, and the audio: the link owns the ledger
 * (audioLedger.ts) and re-sends from where the service stands. The run (session.ts) decides what its state
 * is and talks to the link through its public members only; the link tells it what happened through
 * {@link LinkHost}.
 */
import type { ClientConfig } from '../protocol/config';
import { CLOSE_CODES, isRetried } from '../protocol/errors';
import type { ConfiguredMessage, ControlAction, Metrics } from '../protocol/messages';
import type { Logger } from '../shared/logger';
import { AudioLedger, type QueueResult } from './audioLedger';
import { type DictationError, errorFromClose, scrubKey, toDictationError } from './errors';
import { initSession, wsUrlFor } from './http';
import { Resumption } from './resumption';
import { Backoff, gaveUpError } from './retry';
import { ServiceMessages } from './serviceMessages';
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
  private readonly messages: ServiceMessages;
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
    this.messages = new ServiceMessages({
      logger,
      apiKey: o.apiKey,
      resumption: this.resumption,
      ledger: this.ledger,
      emit: (event, value) => host.emit(event, value),
      isReady: () => this.readyFlag,
      stopSent: () => this.stopSent,
      configured: (msg, outcome) => this.onConfigured(msg, outcome),
      progress: () => {
        this.serverErrorsInARow = 0;
      },
      stopped: (metrics) => host.ended({ reason: 'stopped', metrics }),
      endWith: (cause) => this.socket?.endWith(cause),
      fail: (error) => this.fail(error),
      warn: (text) => this.warn(text),
    });
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
    if (!isRetried(failure.code, 'init', failure.retryAfterMs)) this.fail(failure.withFatal(true));
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
          this.messages.onText(text);
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
      code: cause.code,
      reason: `${cause.code}: ${cause.message}`,
    });
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      again();
    }, next.delayMs);
    return true;
  }

  /** `configured` arrived and its session's part is done (serviceMessages.ts): the connection is taken up. */
  private onConfigured(msg: ConfiguredMessage, { requestedResume, resumed }: { requestedResume: boolean; resumed: boolean }): void {
    this.socket?.configured();
    const generation = this.resumption.generation;
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
