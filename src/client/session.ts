/**
 * One dictation run against the Live Transcription Service (docs/architecture.md, docs/client.md): its
 * lifecycle — `idle → connecting → recording ⇄ paused → stopping → stopped`, or `failed` — the audio it
 * is given, pause and resume, the stop and its metrics, and teardown. The link to the service across
 * connections (session init, configure, reconnection, resume, the audio and its ledger) is link.ts: the run
 * uses only its public members, and hears from it through `LinkHost`.
 */
import { DEFAULTS } from '../protocol/config';
import type { Metrics } from '../protocol/messages';
import { errorMessage } from '../shared/errors';
import { TypedEmitter, type Disposable } from '../shared/events';
import { rewritingLogger, type Logger } from '../shared/logger';
import { DictationError, scrubKey } from './errors';
import { ServiceLink, type LinkEnd } from './link';
import {
  sessionSettings,
  type AudioStats,
  type DictationSessionOptions,
  type SessionEvents,
  type SessionSettings,
  type SessionState,
  type StopResult,
} from './sessionTypes';

export type * from './sessionTypes';

/** How every log line about a session starts, in the client library and the extension alike. */
export function sessionLogPrefix(sessionId: string | undefined): string {
  return `[session ${sessionId ?? '-'}]`;
}

export class DictationSession {
  private readonly o: SessionSettings;
  private readonly emitter: TypedEmitter<SessionEvents>;
  private readonly logger: Logger;
  private readonly link: ServiceLink;

  private stateValue: SessionState = 'idle';
  private disposed = false;
  private paused = false;
  private pausedBytes = 0;
  private stopRequested = false;
  private stopTimer: NodeJS.Timeout | undefined;
  /** When the run's stop was first sent, and the last sign since that the service is working (ms). */
  private stopSentAt: number | undefined;
  /** The stop met a silent service once and resumed the session on a new connection. */
  private stopResumeTried = false;
  private lastSignAt = 0;
  private lastMetrics: Metrics | undefined;

  private startPromise: Promise<void> | undefined;
  private startSettle: { resolve: () => void; reject: (e: DictationError) => void } | undefined;
  private stopPromise: Promise<StopResult> | undefined;
  private stopResolve: ((r: StopResult) => void) | undefined;

  /** Throws a CONFIG_ERROR DictationError (field serverUrl) for a bad server URL: before anything starts. */
  constructor(options: DictationSessionOptions) {
    this.o = sessionSettings(options);
    // Every line carries the session id, and never the key (messages of the service are scrubbed too).
    this.logger = rewritingLogger(this.o.logger, (m) => `${sessionLogPrefix(this.sessionId)} ${scrubKey(m, this.o.apiKey)}`);
    this.emitter = new TypedEmitter((event, e) => this.logger.error(`listener of "${event}" threw: ${errorMessage(e)}`));
    this.link = new ServiceLink(this.o, this.logger, {
      emit: (event, value) => this.emit(event, value),
      ready: () => this.onReady(),
      alive: () => {
        this.lastSignAt = Date.now();
      },
      reconnecting: () => {
        if (!this.stopRequested) this.setState('reconnecting');
      },
      ended: (end) => this.onLinkEnded(end),
    });
  }

  on<K extends keyof SessionEvents>(event: K, listener: (value: SessionEvents[K]) => void): Disposable {
    return this.emitter.on(event, listener);
  }

  get state(): SessionState {
    return this.stateValue;
  }

  /** The service session id (from `configured`), or the tracking id from session init before that. */
  get sessionId(): string | undefined {
    return this.link.sessionId;
  }

  get generation(): number {
    return this.link.generation;
  }

  get audioStats(): AudioStats {
    const { sentBytes, resentBytes, droppedBytes, unrecoverableBytes, queuedBytes, bufferedBytes } = this.link.audioStats;
    return { sentBytes, resentBytes, pausedBytes: this.pausedBytes, droppedBytes, unrecoverableBytes, queuedBytes, bufferedBytes };
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
    void this.link.open();
    return this.startPromise;
  }

  /** Frames and sends audio (any chunk size). Buffered while connecting or reconnecting; ignored while paused. */
  sendAudio(pcm: Uint8Array): void {
    if (!(pcm instanceof Uint8Array)) {
      throw new TypeError(`sendAudio expects PCM bytes (a Buffer or Uint8Array), got ${pcm === null ? 'null' : typeof pcm}`);
    }
    if (this.disposed || this.stopRequested || this.isEnded()) return;
    if (this.paused) {
      this.pausedBytes += pcm.length;
      return;
    }
    this.link.sendAudio(pcm);
  }

  /** Pauses: pending audio is sent (the partial frame too), then `control pause`; audio given while paused is not sent. */
  pause(): void {
    if (this.paused || this.stopRequested || this.isEnded()) return;
    this.link.control('pause');
    this.paused = true;
    this.logger.info('paused');
    if (this.stateValue === 'recording') this.setState('paused');
  }

  resume(): void {
    if (!this.paused || this.stopRequested || this.isEnded()) return;
    this.paused = false;
    this.link.control('resume');
    this.logger.info('resumed');
    if (this.stateValue === 'paused') this.setState('recording');
  }

  /**
   * Sends what is pending, then `control stop`, and resolves with the `metrics` of `status: stopped`;
   * then closes. Never rejects. It waits as long as the service shows it is working (any message, a
   * pong: a decoder behind real time on a loaded machine still delivers the last sentence), and gives
   * up after `stop_delay` plus `stopMarginMs` without any sign, or `stopMaxWaitMs` more in all (reason
   * `timeout`). While reconnecting, the stop is sent once the connection is back (the buffered audio first).
   */
  stop(): Promise<StopResult> {
    if (this.stopPromise) return this.stopPromise;
    if (this.stateValue === 'idle' || this.isEnded()) {
      return Promise.resolve({
        reason: this.stateValue === 'idle' ? 'not-started' : 'error',
        sessionId: this.sessionId,
        metrics: this.lastMetrics,
      });
    }
    this.stopPromise = new Promise<StopResult>((resolve) => {
      this.stopResolve = resolve;
    });
    this.stopRequested = true;
    this.setState('stopping');
    if (this.link.control('stop')) this.stopSent();
    return this.stopPromise;
  }

  /** Tears everything down now (no dangling timer or socket). Safe to call at any time, repeatedly. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    clearTimeout(this.stopTimer);
    this.link.close('disposed', false);
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
    return this.link.pendingAudio();
  }

  /** A connection is configured and the link sent the run's pause or stop and what was queued. */
  private onReady(): void {
    if (this.stopRequested) this.stopSent();
    else this.setState(this.paused ? 'paused' : 'recording');
    this.startSettle?.resolve();
    this.startSettle = undefined;
  }

  private onLinkEnded(end: LinkEnd): void {
    if (end.reason === 'failed') {
      this.fail(end.error);
      return;
    }
    if (end.reason === 'stopped') this.lastMetrics = end.metrics;
    this.finishStop(
      end.reason === 'stopped'
        ? { reason: 'stopped', metrics: end.metrics, sessionId: this.sessionId }
        : { reason: 'error', sessionId: this.sessionId, metrics: this.lastMetrics },
    );
    this.endRun('stopped');
  }

  /** The stop went out (again, on a new connection): its deadline starts. */
  private stopSent(): void {
    const now = Date.now();
    this.stopSentAt ??= now;
    this.lastSignAt = now;
    this.armStopTimer();
    this.logger.info('stop sent');
  }

  /**
   * The stop's deadline: `stop_delay` + margin after the last sign of work, within the overall bound. The
   * first time the service stays silent that long, the run does not give up yet: the connection may be
   * dead while the service is fine (a network change leaves the old socket open and mute), so the run
   * resumes the session on a new connection, which hands over what the service finalised meanwhile and
   * takes the stop again. Only a second silence, or the overall bound, ends the stop as `timeout`.
   */
  private armStopTimer(): void {
    clearTimeout(this.stopTimer);
    const quietMs = (this.o.config.stop_delay ?? DEFAULTS.stop_delay) * 1000 + this.o.stopMarginMs;
    const limitAt = this.stopSentAt! + quietMs + this.o.stopMaxWaitMs;
    const dueAt = Math.min(this.lastSignAt + quietMs, limitAt);
    this.stopTimer = setTimeout(
      () => {
        this.stopTimer = undefined;
        const now = Date.now();
        if (now < Math.min(this.lastSignAt + quietMs, limitAt)) {
          this.armStopTimer(); // the service showed it works meanwhile
          return;
        }
        if (now < limitAt && !this.stopResumeTried) {
          this.stopResumeTried = true;
          this.logger.warn(
            `no sign of the service for ${quietMs} ms while stopping: resuming the session on a new connection before giving up`,
          );
          this.link.dropConnection(
            new DictationError({ code: 'TIMEOUT', message: `no answer for ${quietMs} ms while stopping`, fatal: false }),
          );
          // The new connection gets the time to connect and configure, then the usual quiet time.
          this.lastSignAt = now + this.o.connectTimeoutMs;
          this.armStopTimer();
          return;
        }
        this.logger.warn(
          now >= limitAt
            ? `no "stopped" within ${limitAt - this.stopSentAt!} ms, the most a stop waits; closing`
            : `no "stopped" and no sign of the service for ${quietMs} ms; closing`,
        );
        this.finishStop({ reason: 'timeout', sessionId: this.sessionId, metrics: this.lastMetrics });
        this.endRun('stopped');
      },
      Math.max(0, dueAt - Date.now()),
    );
  }

  /** Ends the run for good with a fatal error: logged here, once; emitted; `start()` rejects with it. */
  private fail(err: DictationError): void {
    if (this.isEnded()) return;
    this.logger.error(`run failed: ${err.code}${err.field ? ` (field ${err.field})` : ''}: ${err.message}`);
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
    clearTimeout(this.stopTimer);
    this.stopTimer = undefined;
    this.link.close(state);
    this.setState(state);
    // Listeners learn the end through `state`; start() must not hang.
    this.startSettle?.resolve();
    this.startSettle = undefined;
  }

  private isEnded(): boolean {
    return this.stateValue === 'stopped' || this.stateValue === 'failed';
  }

  private setState(state: SessionState): void {
    if (this.stateValue === state) return;
    this.stateValue = state;
    this.emit('state', state);
  }

  private emit<K extends keyof SessionEvents>(event: K, value: SessionEvents[K]): void {
    if (!this.disposed) this.emitter.emit(event, value);
  }
}
