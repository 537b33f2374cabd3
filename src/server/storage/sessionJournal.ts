/**
 * What a live session writes while audio flows, before the event is sent: each durable event with the
 * checkpoint after it, the checkpoint alone, the stop mark, the end in the session's record; and whether
 * writing works. The calls return at once; a store may queue the writes (stores.ts), and the connection
 * sends nothing that follows them before they are done.
 */
import type { ServerLogger } from '../log';
import type { SegmenterCheckpoint } from '../engine/segmenter';
import { type CheckpointRow, MAX_EVENTS_PER_SESSION, type SessionEnd, type SessionStore } from './stores';

/** The session's counters a checkpoint keeps. */
interface SessionCounters {
  nextSeq: number;
  totalFrames: number;
  discardedFrames: number;
  finalChunks: number;
}

interface SessionJournalInit {
  id: string;
  keyId: string;
  orgId: string;
  /** The session's effective configuration, as JSON. */
  configJson: string;
  createdIso: string;
  store: SessionStore;
  log: ServerLogger;
  /** The highest seq already persisted (restored from storage), 0 for a new session. */
  persistedSeq: number;
  counters(): SessionCounters;
}

export class SessionJournal {
  private persisted: number;
  private persistedEvents = 0;
  private durable = true;

  constructor(private readonly o: SessionJournalInit) {
    this.persisted = o.persistedSeq;
  }

  /** The highest seq persisted. */
  get persistedSeq(): number {
    return this.persisted;
  }

  /**
   * The event and the checkpoint after it. A failure is logged (once until writing works again), not
   * thrown: the text still goes to the client; only resumption after a restart is at risk. A store that
   * queues its writes (group commit on SQLite, the PostgreSQL journal) tells how they ended later.
   */
  persist(seq: number, json: string, cp: SegmenterCheckpoint): void {
    const { store, id } = this.o;
    try {
      store.persistEvent(id, seq, json, this.row(cp));
      this.persisted = seq;
      if (++this.persistedEvents % 100 === 0 && this.persistedEvents > MAX_EVENTS_PER_SESSION) store.trimEvents(id);
    } catch (e) {
      this.failed(e, seq);
      return;
    }
    const pending = store.pendingWrites(id);
    if (!pending) this.worked();
    else
      void pending.then((o) => (o === 'failed' ? this.failed(store.lastWriteError?.(), seq) : o === 'durable' ? this.worked() : undefined));
  }

  saveCheckpoint(cp: SegmenterCheckpoint): void {
    try {
      this.o.store.saveCheckpoint(this.row(cp));
    } catch (e) {
      this.o.log.error('could not save the session checkpoint', { error: e });
      return;
    }
    this.logIfFailed('could not save the session checkpoint');
  }

  /** The session stopped for good (not resumable); throws what the store throws at once, logs what fails later. */
  markStopped(at: string): void {
    this.o.store.markStopped(this.o.id, this.o.counters().nextSeq, at);
    this.logIfFailed('could not record the end of the session');
  }

  /** The session's record gets its end (also of one never stopped). Does not wait; a failure is logged. */
  sessionEnded(end: SessionEnd): void {
    this.o.store
      .sessionEnded(this.o.id, end)
      .catch((e: unknown) => this.o.log.error('could not record the end of the session', { error: e }));
  }

  /** A store that queues its writes tells later how they ended: a failure is logged with `message`. */
  private logIfFailed(message: string): void {
    const { store, log } = this.o;
    void store.pendingWrites(this.o.id)?.then((o) => {
      if (o === 'failed') log.error(message, { error: store.lastWriteError?.() });
    });
  }

  private failed(error: unknown, seq: number): void {
    if (this.durable) this.o.log.error('could not persist a final event; resuming after a restart may lose it', { error, seq });
    this.durable = false;
  }

  private worked(): void {
    if (this.durable) return;
    this.durable = true;
    this.o.log.info('persistence works again');
  }

  private row(cp: SegmenterCheckpoint): CheckpointRow {
    const c = this.o.counters();
    return {
      session_id: this.o.id,
      key_id: this.o.keyId,
      org_id: this.o.orgId,
      next_seq: c.nextSeq,
      next_index: cp.nextIndex,
      audio_offset: cp.audioOffset,
      engine: JSON.stringify(cp),
      config: this.o.configJson,
      total_frames: c.totalFrames,
      discarded_frames: c.discardedFrames,
      final_chunks: c.finalChunks,
      created_at: this.o.createdIso,
      stopped_at: null,
      updated_at: new Date().toISOString(),
    };
  }
}
