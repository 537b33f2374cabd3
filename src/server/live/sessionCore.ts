/**
 * What a live session is made of and what it sends: its identity and state, its segmenter (in process or
 * in a worker), its {@link SessionJournal}, its counters and metrics, its peer, and its events numbered
 * (`seq`), persisted when durable and sent to the peer; a replay to a resuming peer. The lifecycle (audio,
 * controls, stop, the end from outside, a decoder's failure) is `LiveSession` (session.ts), built on this.
 */
import type { EffectiveConfig, OutgoingMessage, SentMetrics } from '../../protocol';
import { isWorkerRecognizer } from '../engine/engine';
import { monotonicMs } from '../clock';
import { type EndReason, type ServiceCounters, Tallies } from '../counters';
import type { ServerLogger } from '../log';
import type { SegmentEvent, SegmenterCheckpoint } from '../engine/segmenter';
import { LocalSegmenterPort, type PortInit, type SegmenterPort } from '../engine/segmenterPort';
import { SessionJournal } from '../storage/sessionJournal';
import type { LiveSessionInit, SessionPeer, SessionState } from './sessionTypes';
import { FlushTimer } from './timers';
import { wireEvent } from './wire';
import type { SessionEnd, StoredEvent } from '../storage/stores';

const round3 = (n: number): number => Math.round(n * 1000) / 1000;

export abstract class SessionCore {
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

  protected readonly onStop: ((session: SessionCore) => void) | undefined;
  protected readonly counters: ServiceCounters;
  /** The seq of the last durable event persisted (0: none). */
  protected readonly journal: SessionJournal;
  protected readonly segmenter: SegmenterPort;
  /** Flushes asked of a worker and not answered yet. */
  private inFlight = new Set<Promise<void>>();
  protected failedMessage: string | undefined;
  /** Set once an end from outside gave up waiting: what the decoder still sends is dropped (never persisted unsent). */
  protected cutOff = false;
  private nextSeq = 1;
  protected totalFrames = 0;
  protected discardedFrames = 0;
  private finalChunks = 0;
  private readonly createdAt: number;
  /** `createdAt` on the monotonic clock: durations do not move when the wall clock steps. */
  private readonly createdMono: number;
  private readonly createdIso: string;
  protected readonly flushTimer: FlushTimer;

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

  /** The decoder failed (session.ts): the session ends. */
  abstract failed(message: string): void;

  /** The pending chunks made final as they stand (nothing shown is lost), with a checkpoint past them. */
  protected finaliseAsItStands(): void {
    const cp: SegmenterCheckpoint = { ...this.segmenter.checkpoint(), audioOffset: this.segmenter.receivedBytes, sentence: [] };
    for (const chunk of this.segmenter.pendingChunks()) this.emit({ ...chunk, status: 'final', checkpoint: cp });
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

  // ------------------------------------------------------------------ internals

  private emitAll(events: SegmentEvent[]): void {
    for (const e of events) this.emit(e);
  }

  protected track(p: Promise<void> | undefined): Promise<void> | undefined {
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
