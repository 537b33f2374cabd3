/**
 * Resuming a session with `configure` `config.resume`: a session in memory (taking over from a dying
 * connection, or from this instance's stale copy when another instance claimed it), one restored from
 * storage after a restart or on another instance, or the replay of a stopped one. The registry owns the
 * sessions, connections and slots; this module decides what a resume request gets.
 */
import type { EffectiveConfig, OutgoingConfigured, SentMetrics } from '../../protocol';
import { Connection } from './connection';
import type { Engine } from '../engine/engine';
import type { ServerLogger } from '../log';
import type { LiveSession, LiveSessionInit } from './session';
import type { ApiKey, CheckpointRow, SessionStore, StoredEvent } from '../storage/stores';

/** What a resume needs of the registry. */
export interface ResumeHost {
  readonly engine: Engine;
  readonly store: SessionStore;
  readonly log: ServerLogger;
  /** The live and recently stopped sessions of this instance, by id (the registry's own map). */
  readonly sessions: Map<string, LiveSession>;
  /** A slot for the session; sends the error itself and resolves false when none is free. */
  admit(conn: Connection, sessionId: string): Promise<boolean>;
  /** Gives the session its connection; false (and the slot back) when the connection went away meanwhile. */
  attach(session: LiveSession, conn: Connection): boolean;
  /** The one way a LiveSession is made. */
  create(id: string, key: ApiKey, config: EffectiveConfig, restore?: LiveSessionInit['restore']): LiveSession;
  releaseSlot(orgId: string, sessionId: string): void;
  /** A dying connection replaced by a resuming one: cut and forgotten. */
  dropConnection(conn: Connection): void;
  /** Another instance claimed the session: its copy here ends without a word. */
  takenOver(sessionId: string): void;
}

/** Reads of a replay that may lag behind the session's own writes (a networked store) are retried this often at most. */
const REPLAY_READS = 5;

function lastSeqTooHigh(lastSeq: number, issued: number): string {
  return `invalid configuration: resume.last_seq ${lastSeq} is above the highest seq this session issued (${issued})`;
}

/** The metrics of a stopped session as its checkpoint kept them (after a restart). */
function storedMetrics(row: CheckpointRow): SentMetrics {
  let audioSeconds = 0;
  try {
    audioSeconds = Math.round((row.audio_offset / 2 / (JSON.parse(row.config) as EffectiveConfig).sample_rate) * 1000) / 1000;
  } catch {
    /* an unreadable config: no audio_seconds */
  }
  return {
    total_chunks: row.total_frames,
    session_duration: (Date.parse(row.stopped_at ?? row.updated_at) - Date.parse(row.created_at)) / 1000,
    discarded_chunks: row.discarded_frames,
    audio_seconds: audioSeconds,
    final_chunks: row.final_chunks,
  };
}

/** The one `configured` builder: the engine and its languages, the resume fields when the `configure` asked to resume. */
export function configured(sessionId: string, engine: Engine, resume?: { resumed: boolean; lastSeq: number; offset: number }): OutgoingConfigured {
  return {
    type: 'configured',
    session_id: sessionId,
    engine: engine.name,
    languages: engine.languages,
    ...(resume ? { resumed: resume.resumed, last_seq: resume.lastSeq, resume_audio_offset: resume.offset } : {}),
  };
}

export class Resumer {
  constructor(private readonly h: ResumeHost) {}

  /** Resumes a session (in memory, or from storage after a restart). Resolves false to start a new one. */
  async resume(conn: Connection, sessionId: string, lastSeq: number): Promise<boolean> {
    const key = conn.key;
    let session = this.h.sessions.get(sessionId);
    if (session && session.keyId !== key.id) {
      this.h.log.info('resume refused: session of another key', { session_id: sessionId });
      return false;
    }
    if (session?.isLive && !(await this.h.store.stillOwned(session.id))) {
      // Resumed on another instance meanwhile: what this one holds is stale; take it back from storage.
      this.h.takenOver(session.id);
      return this.resume(conn, sessionId, lastSeq);
    }
    if (session && lastSeq > session.lastSeq) {
      conn.fail('CONFIG_ERROR', lastSeqTooHigh(lastSeq, session.lastSeq));
      return true;
    }
    if (session && !session.isLive) {
      await this.replayStopped(conn, session.id, lastSeq, session.lastSeq, session.audioOffset, session.metrics());
      return true;
    }
    if (session) {
      const old = session.peer;
      if (old instanceof Connection && old !== conn) {
        // Take-over: the old socket is dead or dying; its slot passes to the new one.
        old.log.info('connection replaced by a resuming one');
        this.h.dropConnection(old);
        session.detach();
      } else if (!(await this.h.admit(conn, session.id))) {
        return true;
      }
    } else {
      const row = await this.h.store.getCheckpoint(sessionId);
      if (!row || row.key_id !== key.id) {
        this.h.log.info('resume refused: unknown or expired session', { session_id: sessionId });
        return false;
      }
      if (row.stopped_at) {
        const storedSeq = await this.h.store.maxSeq(sessionId);
        const issued = Math.max(storedSeq, row.next_seq - 1);
        if (lastSeq > issued) {
          conn.fail('CONFIG_ERROR', lastSeqTooHigh(lastSeq, issued));
          return true;
        }
        await this.replayStopped(conn, sessionId, lastSeq, issued, row.audio_offset, storedMetrics(row));
        return true;
      }
      if (!(await this.h.admit(conn, sessionId))) return true;
      // Another connection may have restored it meanwhile (a store across the network answers later).
      if (this.h.sessions.has(sessionId)) return this.resume(conn, sessionId, lastSeq);
      const restored = await this.restore(conn, sessionId, lastSeq);
      if (!restored) return false;
      session = restored;
    }
    const events = await this.unseenEvents(session, lastSeq);
    if (!this.h.attach(session, conn)) return true;
    const issued = session.lastSeq;
    conn.send(configured(session.id, this.h.engine, { resumed: true, lastSeq: issued, offset: session.audioOffset }));
    const replayed = session.replay(events);
    session.log.info('session resumed', { client_last_seq: lastSeq, last_seq: issued, replayed, resume_audio_offset: session.audioOffset });
    return true;
  }

  /**
   * A session from storage (its slot already taken): this instance claims its journal (any other instance's
   * writes to it are refused from now on) and rebuilds it from the checkpoint as claimed. Undefined (and the
   * slot given back) when it cannot be restored.
   */
  private async restore(conn: Connection, sessionId: string, lastSeq: number): Promise<LiveSession | undefined> {
    const key = conn.key;
    let row: CheckpointRow | undefined;
    let storedSeq: number;
    try {
      row = await this.h.store.claim(sessionId);
      storedSeq = row ? await this.h.store.maxSeq(sessionId) : 0;
    } catch (e) {
      this.h.releaseSlot(key.orgId, sessionId);
      throw e;
    }
    let session: LiveSession;
    try {
      if (!row || row.key_id !== key.id || row.stopped_at) throw new Error('the checkpoint changed while it was claimed');
      session = this.h.create(sessionId, key, JSON.parse(row.config) as EffectiveConfig, { row, lastSeq, storedSeq });
    } catch (e) {
      this.h.releaseSlot(key.orgId, sessionId);
      this.h.log.warn('resume refused: checkpoint cannot be restored', { session_id: sessionId, error: e });
      return undefined;
    }
    this.h.sessions.set(sessionId, session);
    session.log.info('session restored from storage', { audio_offset: row.audio_offset, previous_owner: (row as { previous_owner?: string }).previous_owner });
    return session;
  }

  /** The durable events after `lastSeq`, up to the last one the session persisted. */
  private async unseenEvents(session: LiveSession, lastSeq: number): Promise<StoredEvent[]> {
    const events = await this.h.store.eventsAfter(session.id, lastSeq);
    for (let i = 1; i < REPLAY_READS && (events.at(-1)?.seq ?? lastSeq) < session.durableSeq; i++) {
      events.push(...(await this.h.store.eventsAfter(session.id, events.at(-1)?.seq ?? lastSeq)));
    }
    return events;
  }

  private async replayStopped(conn: Connection, id: string, lastSeq: number, issued: number, offset: number, metrics: SentMetrics): Promise<void> {
    const events = await this.h.store.eventsAfter(id, lastSeq);
    conn.send(configured(id, this.h.engine, { resumed: true, lastSeq: issued, offset }));
    for (const row of events) conn.send(row.json);
    conn.send({ type: 'status', state: 'stopped', message: 'session already stopped (replayed)', metrics });
    this.h.log.info('stopped session replayed', { session_id: id, replayed: events.length });
    conn.close(1000, 'stopped');
  }
}
