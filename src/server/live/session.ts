/**
 * One live session: its state, its segmenter, `seq` numbering, the flush timer, and stop; its writes go
 * through its {@link SessionJournal}. Knows nothing of sockets: it talks to its current peer through
 * {@link SessionPeer} (absent while the socket is gone and the session waits to be resumed).
 */
import type { ControlAction, EffectiveConfig, OutgoingMessage, SentMetrics } from '../../protocol';
import { isWorkerRecognizer } from '../engine/engine';
import { monotonicMs } from '../clock';
import { type EndReason, type ServiceCounters, Tallies } from '../counters';
import type { ServerLogger } from '../log';
import type { SegmentEvent, SegmenterCheckpoint } from '../engine/segmenter';
import { LocalSegmenterPort, type PortInit, type SegmenterPort, whileProgressing } from '../engine/segmenterPort';
import { SessionJournal } from '../storage/sessionJournal';
import { type LiveSessionInit, STOP_STALL_MS, type SessionPeer, type SessionState } from './sessionTypes';
import { FlushTimer, within } from './timers';
import { wireEvent } from './wire';
import type { SessionEnd, StoredEvent } from '../storage/stores';

const round3 = (n: number): number => Math.round(n * 1000) / 1000;

export class LiveSession {
  readonly id: string;
  readonly keyId: string;
  readonly orgId: string;
  readonly config: EffectiveConfig;
  readonly engineName: string;
  readonly log: ServerLogger;
  state: SessionState = 'configured';
  peer: SessionPeer | undefined;
  /** When the session lost its peer (monotonic ms, clock.ts), or undefined while attached. */
  detachedAt: number | undefined;
  /** When the session stopped or failed (monotonic ms, clock.ts). */
  stoppedAt: number | undefined;

  private readonly onStop: ((session: LiveSession) => void) | undefined;
  private readonly counters: ServiceCounters;
  /** The seq of the last durable event persisted (0: none). */
  private readonly journal: SessionJournal;
  private readonly segmenter: SegmenterPort;
  /** Flushes asked of a worker and not answered yet. */
  private inFlight = new Set<Promise<void>>();
  private failedMessage: string | undefined;
  /** Set once an end from outside gave up waiting: what the decoder still sends is dropped (never persisted unsent). */
  private cutOff = false;
  /** The end from outside under way ({@link end}). */
  private ending: Promise<SentMetrics | undefined> | undefined;
  /** The client's stop under way. */
  private stopping: Promise<SentMetrics | undefined> | undefined;
  private nextSeq = 1;
  private totalFrames = 0;
  private discardedFrames = 0;
  private finalChunks = 0;
  private readonly createdAt: number;
  /** `createdAt` on the monotonic clock: durations do not move when the wall clock steps. */
  private readonly createdMono: number;
  private readonly createdIso: string;
  private readonly flushTimer: FlushTimer;

  constructor(init: LiveSessionInit) {
    this.id = init.id;
    this.keyId = init.keyId;
    this.orgId = init.orgId;
    this.config = init.config;
    this.engineName = init.recognizer.name;
    this.onStop = init.onStop;
    this.counters = init.counters ?? new Tallies();
    this.log = init.log;
    this.flushTimer = new FlushTimer(init.config.flush_timeout * 1000, () => {
      if (this.state === 'stopped' || this.state === 'stopping') return;
      this.log.debug('flush timeout: pending text finalised');
      void this.track(this.segmenter.flush({ proofread: true }));
    });
    const portInit = (restore?: SegmenterCheckpoint): PortInit => ({
      sessionId: init.id,
      config: init.config,
      ...(restore ? { restore } : {}),
      onEvents: (events) => this.emitAll(events),
      onFailure: (message) => this.failed(message),
      onDecoded: (audioSeconds, decodeSeconds) => this.counters.decoded(audioSeconds, decodeSeconds),
    });
    const open = (restore?: SegmenterCheckpoint): SegmenterPort =>
      isWorkerRecognizer(init.recognizer)
        ? init.recognizer.open(portInit(restore))
        : new LocalSegmenterPort(portInit(restore), init.recognizer);
    if (init.restore) {
      const { row, lastSeq, storedSeq } = init.restore;
      const cp = JSON.parse(row.engine) as SegmenterCheckpoint;
      this.segmenter = open(cp);
      this.nextSeq = Math.max(storedSeq, row.next_seq - 1, lastSeq) + 1;
      this.totalFrames = row.total_frames;
      this.discardedFrames = row.discarded_frames;
      this.finalChunks = row.final_chunks;
      this.createdIso = row.created_at;
      this.createdAt = Date.parse(row.created_at);
      this.createdMono = monotonicMs() - Math.max(0, Date.now() - this.createdAt);
      this.state = 'recording';
    } else {
      this.segmenter = open();
      this.createdAt = Date.now();
      this.createdMono = monotonicMs();
      this.createdIso = new Date(this.createdAt).toISOString();
    }
    this.journal = new SessionJournal({
      id: init.id,
      keyId: init.keyId,
      orgId: init.orgId,
      configJson: JSON.stringify(init.config),
      createdIso: this.createdIso,
      store: init.store,
      log: init.log,
      persistedSeq: init.restore?.storedSeq ?? 0,
      counters: () => ({
        nextSeq: this.nextSeq,
        totalFrames: this.totalFrames,
        discardedFrames: this.discardedFrames,
        finalChunks: this.finalChunks,
      }),
    });
    if (!init.restore) this.journal.saveCheckpoint(this.segmenter.checkpoint());
  }

  /** The highest seq issued so far (0 before any). */
  get lastSeq(): number {
    return this.nextSeq - 1;
  }

  /** Bytes of session audio accounted for (the client re-sends from here after a resume). */
  get audioOffset(): number {
    return this.segmenter.receivedBytes;
  }

  /** Why the decoder failed, when it did. */
  get failure(): string | undefined {
    return this.failedMessage;
  }

  get isLive(): boolean {
    return this.state !== 'stopped';
  }

  /** The seq of the last durable event this session persisted (what a replay read from the store must reach). */
  get durableSeq(): number {
    return this.journal.persistedSeq;
  }

  attach(peer: SessionPeer): void {
    this.peer = peer;
    this.detachedAt = undefined;
  }

  detach(): void {
    this.peer = undefined;
    this.detachedAt = monotonicMs();
  }

  metrics(): SentMetrics {
    return {
      total_chunks: this.totalFrames,
      session_duration: round3(((this.stoppedAt ?? monotonicMs()) - this.createdMono) / 1000),
      discarded_chunks: this.discardedFrames,
      audio_seconds: round3(this.segmenter.audioSeconds),
      final_chunks: this.finalChunks,
    };
  }

  /** One binary audio frame (already checked: even length, within size); `now`: monotonic ms (clock.ts). */
  audio(frame: Buffer, now = monotonicMs()): void {
    this.totalFrames++;
    if (this.state === 'configured') {
      this.log.debug('audio before start: recording starts');
      this.state = 'recording';
    }
    if (this.state !== 'recording') {
      this.discardedFrames++;
      this.log.debug('audio discarded', { state: this.state, bytes: frame.length });
      return;
    }
    this.counters.audio(frame.length, this.config.sample_rate);
    this.segmenter.push(frame);
    this.flushTimer.audio(now);
  }

  /** A control action other than `stop` (see {@link stop}). Returns whether it changed the state. */
  control(action: Exclude<ControlAction, 'stop'>): boolean {
    const from = this.state;
    if (from === 'stopping' || from === 'stopped') {
      this.log.debug('control ignored after stop', { action });
      return false;
    }
    let to: SessionState = from;
    if (action === 'start' || action === 'resume') to = 'recording';
    else if (action === 'pause') to = 'paused';
    if (to === from) {
      this.log.debug('redundant control: no-op', { action, state: from });
      return false;
    }
    this.state = to;
    this.log.debug('state change', { action, from, to });
    return true;
  }

  /**
   * `stop`: `status stopping`, finalise everything (with proofreading), `status stopped` with metrics.
   * With `resumable` (service shutdown) the session is not marked stopped in storage, so a client
   * may resume it after the restart.
   */
  stop(opts: { reason: EndReason; resumable?: boolean }): Promise<SentMetrics | undefined> {
    if (this.state === 'stopping' || this.state === 'stopped') return Promise.resolve(undefined);
    this.stopping = this.stopNow(opts);
    return this.stopping;
  }

  private stopNow(opts: { reason: EndReason; resumable?: boolean }): Promise<SentMetrics | undefined> {
    this.state = 'stopping';
    this.flushTimer.clear();
    const message = opts.resumable ? 'service shutting down: finalising transcripts' : 'finalising transcripts';
    this.send({ type: 'status', state: 'stopping', message, metrics: this.metrics() });
    const flushed = this.track(this.segmenter.flush({ proofread: true }));
    // In-process engines finish here and now; a worker first decodes the audio it already has.
    if (!flushed) return Promise.resolve(this.finishStop(opts));
    const stallMs = this.config.stop_delay * 1000 + STOP_STALL_MS;
    return whileProgressing(this.segmenter, flushed, stallMs).then((outcome) => {
      if (this.state !== 'stopping') return undefined; // the decoder failed meanwhile: the session has ended
      if (outcome === 'stalled') {
        this.failed(`the speech decoder made no progress for ${stallMs} ms after stop`);
        return undefined;
      }
      return this.finishStop(opts);
    });
  }

  private finishStop(opts: { reason: EndReason; resumable?: boolean }): SentMetrics {
    this.state = 'stopped';
    this.stoppedAt = monotonicMs();
    const metrics = this.metrics();
    this.recordStop(opts.reason, opts.resumable === true);
    // Everything is final and persisted: the decoder is freed now, not when the stopped session is
    // forgotten (it stays for a replay), so its worker can load the next session's decoder meanwhile.
    if (!opts.resumable) this.segmenter.close();
    this.send({
      type: 'status',
      state: 'stopped',
      message: opts.resumable ? 'service shutting down; the session can be resumed after the restart' : 'session stopped',
      metrics,
      ...(opts.resumable ? { resumable: true } : {}),
    });
    this.log.info('session stopped', { reason: opts.reason, ...metrics });
    this.onStop?.(this);
    return metrics;
  }

  /** The end in storage: stopped for good (resumable: a last checkpoint instead), and the session's record. */
  private recordStop(reason: EndReason, resumable: boolean): void {
    const at = new Date().toISOString();
    try {
      if (resumable) this.journal.saveCheckpoint(this.segmenter.checkpoint());
      else this.journal.markStopped(at);
    } catch (e) {
      this.log.error('could not record the end of the session', { error: e });
    }
    this.recordEnd(reason, at);
  }

  /**
   * Ended from outside (endSession.ts): no more audio; everything the decoder has made final and proofread,
   * waited for while it progresses and at most `boundMs` (past that, the pending text final as it stands and
   * later events dropped); then the end recorded. Undefined when already ended (a stop under way is awaited).
   */
  end(opts: { reason: EndReason; boundMs: number; resumable?: boolean }): Promise<SentMetrics | undefined> {
    if (this.ending) return this.ending;
    if (this.state === 'stopped') return Promise.resolve(undefined);
    if (this.state === 'stopping') {
      const stop = this.stopping ?? Promise.resolve(undefined);
      return within(stop, opts.boundMs).then((r) => (r === 'late' ? undefined : r));
    }
    this.ending = this.endNow(opts);
    return this.ending;
  }

  private async endNow(opts: { reason: EndReason; boundMs: number; resumable?: boolean }): Promise<SentMetrics | undefined> {
    this.state = 'stopping';
    this.flushTimer.clear();
    const flushed = this.track(this.segmenter.flush({ proofread: true }));
    // As long as the decoder makes progress (as for a stop), and at most `boundMs` in all.
    const stallMs = this.config.stop_delay * 1000 + STOP_STALL_MS;
    const outcome = flushed && (await within(whileProgressing(this.segmenter, flushed, stallMs), opts.boundMs));
    if (outcome === 'late' || outcome === 'stalled') {
      if (!this.isLive) return undefined; // the decoder failed meanwhile: the session has ended
      const queued = Math.round(this.queuedMs());
      this.log.warn('decoder did not finish in time for the end of the session: pending text made final as it stands', {
        reason: opts.reason,
        outcome,
        bound_ms: outcome === 'late' ? opts.boundMs : stallMs,
        undecoded_audio_ms: queued,
      });
      this.finaliseAsItStands();
      this.cutOff = true;
    }
    if (!this.isLive) return undefined;
    this.state = 'stopped';
    this.stoppedAt = monotonicMs();
    const metrics = this.metrics();
    this.recordStop(opts.reason, opts.resumable === true);
    if (!opts.resumable) this.segmenter.close();
    this.log.info('session ended', { reason: opts.reason, ...metrics });
    this.onStop?.(this);
    return metrics;
  }

  /** The pending chunks made final as they stand (nothing shown is lost), with a checkpoint past them. */
  private finaliseAsItStands(): void {
    const cp: SegmenterCheckpoint = { ...this.segmenter.checkpoint(), audioOffset: this.segmenter.receivedBytes, sentence: [] };
    for (const chunk of this.segmenter.pendingChunks()) this.emit({ ...chunk, status: 'final', checkpoint: cp });
  }

  /**
   * Finalises pending text (it is persisted and sent to the peer if there is one). Used before an
   * error closes the socket.
   */
  flush(opts: { proofread: boolean }): Promise<void> | undefined {
    if (!this.isLive) return undefined;
    return this.track(this.segmenter.flush(opts));
  }

  /** Resolves when no work asked of a worker is still in flight (before storage closes). */
  settled(): Promise<void> {
    return Promise.all([...this.inFlight]).then(() => undefined);
  }

  /** Milliseconds of received audio not decoded yet. */
  queuedMs(): number {
    return (this.segmenter.queuedBytes / 2 / this.config.sample_rate) * 1000;
  }

  /**
   * The decoder failed: the pending text is made final as it stands (nothing shown is lost), the
   * session ends, and the peer gets INTERNAL_ERROR.
   */
  failed(message: string): void {
    if (this.state === 'stopped' || this.failedMessage) return;
    this.flushTimer.clear();
    const queued = Math.round(this.queuedMs());
    this.log.error('speech decoder failed: session ended', { reason: message, undecoded_audio_ms: queued });
    this.finaliseAsItStands();
    this.failedMessage = message; // from here on, anything the failed decoder still sends is dropped
    this.state = 'stopped';
    this.stoppedAt = monotonicMs();
    this.recordStop('decoder failure', false);
    this.segmenter.close();
    this.onStop?.(this);
    const lost = queued > 0 ? `; the last ${queued} ms of audio were not transcribed` : '';
    this.peer?.fail?.(
      'INTERNAL_ERROR',
      `speech decoder failed; the session has ended (its text so far is final)${lost}; start a new session`,
    );
  }

  /**
   * For a resuming peer: the durable events it has not seen (read from the store by the caller, up to
   * {@link durableSeq}), then the pending chunks as they stand now (the client dropped its provisional
   * text when the connection was lost).
   */
  replay(events: StoredEvent[]): number {
    for (const row of events) this.peer?.send(row.json);
    const pending = this.segmenter.pendingChunks();
    for (const chunk of pending) this.emit({ ...chunk });
    return events.length + pending.length;
  }

  /** Sends a status message to the peer (no seq). */
  send(message: OutgoingMessage | string): void {
    this.peer?.send(message);
  }

  /** Records the end of the session (also of one never stopped: expired after a drop, key revoked). Does not wait. */
  recordEnd(reason: EndReason, at = new Date().toISOString()): void {
    this.counters.sessionEnded(reason);
    const m = this.metrics();
    const audioSeconds = round3(this.segmenter.receivedBytes / 2 / this.config.sample_rate);
    const end: SessionEnd = { at, duration: m.session_duration, totalFrames: m.total_chunks, finals: m.final_chunks, reason, audioSeconds };
    this.journal.sessionEnded(end);
  }

  dispose(): void {
    this.flushTimer.clear();
    this.peer = undefined;
    this.segmenter.close();
  }

  // ------------------------------------------------------------------ internals

  private emitAll(events: SegmentEvent[]): void {
    for (const e of events) this.emit(e);
  }

  private track(p: Promise<void> | undefined): Promise<void> | undefined {
    if (!p) return undefined;
    const t = p.finally(() => this.inFlight.delete(t));
    this.inFlight.add(t);
    return t;
  }

  private emit(event: SegmentEvent): void {
    if (this.failedMessage || this.cutOff) {
      this.log.warn(this.cutOff ? 'event after the end of the session dropped' : 'event from a failed decoder dropped', {
        type: event.type,
      });
      return;
    }
    const seq = this.nextSeq++;
    if (event.type === 'transcript' && event.status === 'final') this.finalChunks++;
    this.counters.transcriptEvent(event.type === 'transcript' ? event.status : event.type);
    // Serialised once: the same text is persisted and sent.
    const json = JSON.stringify(wireEvent(event, seq));
    if (event.checkpoint) this.journal.persist(seq, json, event.checkpoint);
    this.peer?.send(json);
  }
}
