/**
 * Resuming a session with `configure` `config.resume`. This module decides what a resume request gets,
 * from the registry's session of that id (if any) and from storage: the session in memory takes the new
 * connection (taking over from a dying one), or it is restored from storage (after a restart, or from
 * another instance), or a stopped session is replayed, or the request is refused. The registry
 * (registry.ts), which owns the sessions, connections and slots, carries the decision out; this module
 * never reaches into it. It also does the parts that need no registry: the replay of a stopped session,
 * the claim of a journal, the events a resuming client has not seen, and the one `configured` builder.
 */
import type { EffectiveConfig, OutgoingConfigured, SentMetrics } from '../../protocol';
import type { Connection } from './connection';
import { type Engine, keytermsApplied } from '../engine/engine';
import type { ServerLogger } from '../log';
import type { LiveSession } from './session';
import type { LiveSessionInit } from './sessionTypes';
import type { ApiKey, CheckpointRow, SessionStore, StoredEvent } from '../storage/stores';

/** What a resume request gets: carried out by the registry. */
type ResumeDecision =
  /** Not resumable here (unknown, expired, another key's): the `configure` starts a new session. */
  | { kind: 'refuse' }
  /** A request that cannot be right (resume.last_seq above what the session issued): CONFIG_ERROR. */
  | { kind: 'invalid'; message: string }
  /** A stopped session: {@link Resumer.replay}. */
  | { kind: 'replay'; replay: StoppedReplay }
  /** Another instance claimed the session meanwhile: the copy here is stale; forget it, then decide again. */
  | { kind: 'stale' }
  /**
   * A live session in memory takes the connection: the session's connection, if another, is dead or dying
   * and is cut (its slot passes on); else the session needs a slot.
   */
  | { kind: 'takeOver'; session: LiveSession }
  /** A live session in storage only: with a slot, {@link Resumer.claim} it and rebuild it. */
  | { kind: 'restore' };

/** What the replay of a stopped session sends. */
interface StoppedReplay {
  sessionId: string;
  /** The client's `resume.last_seq`: the events after it are sent. */
  lastSeq: number;
  /** The highest seq the session issued. */
  issued: number;
  /** Bytes of audio the session accounted for. */
  offset: number;
  metrics: SentMetrics;
}

/** What a session is rebuilt from after {@link Resumer.claim}. */
export interface Restoration {
  config: EffectiveConfig;
  restore: NonNullable<LiveSessionInit['restore']>;
}

/** What a resume reads and writes: no part of the registry. */
interface ResumeDeps {
  readonly engine: Engine;
  readonly store: SessionStore;
  readonly log: ServerLogger;
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

/**
 * The one `configured` builder: the engine and its languages, whether it applied the session's keyterms, the
 * resume fields when the `configure` asked to resume.
 */
export function configured(
  sessionId: string,
  engine: Engine,
  config: EffectiveConfig | undefined,
  resume?: { resumed: boolean; lastSeq: number; offset: number },
): OutgoingConfigured {
  return {
    type: 'configured',
    session_id: sessionId,
    engine: engine.name,
    languages: engine.languages,
    keyterms_applied: config ? keytermsApplied(engine, config) : false,
    ...(resume ? { resumed: resume.resumed, last_seq: resume.lastSeq, resume_audio_offset: resume.offset } : {}),
  };
}

export class Resumer {
  constructor(private readonly d: ResumeDeps) {}

  /** What a resume of `sessionId` gets; `session` is the registry's session of that id, if it has one. */
  async decide(key: ApiKey, sessionId: string, lastSeq: number, session: LiveSession | undefined): Promise<ResumeDecision> {
    if (session) {
      if (session.keyId !== key.id) return this.refuse('resume refused: session of another key', sessionId);
      // Resumed on another instance meanwhile: what this one holds is stale; take it back from storage.
      if (session.isLive && !(await this.d.store.stillOwned(session.id))) return { kind: 'stale' };
      if (lastSeq > session.lastSeq) return { kind: 'invalid', message: lastSeqTooHigh(lastSeq, session.lastSeq) };
      if (!session.isLive)
        return {
          kind: 'replay',
          replay: { sessionId: session.id, lastSeq, issued: session.lastSeq, offset: session.audioOffset, metrics: session.metrics() },
        };
      return { kind: 'takeOver', session };
    }
    const row = await this.d.store.getCheckpoint(sessionId);
    if (!row || row.key_id !== key.id) return this.refuse('resume refused: unknown or expired session', sessionId);
    if (!row.stopped_at) return { kind: 'restore' };
    const storedSeq = await this.d.store.maxSeq(sessionId);
    const issued = Math.max(storedSeq, row.next_seq - 1);
    if (lastSeq > issued) return { kind: 'invalid', message: lastSeqTooHigh(lastSeq, issued) };
    return { kind: 'replay', replay: { sessionId, lastSeq, issued, offset: row.audio_offset, metrics: storedMetrics(row) } };
  }

  /**
   * A session from storage (its slot already taken): this instance claims its journal (any other instance's
   * writes to it are refused from now on) and reads the checkpoint as claimed. An Error says why it cannot
   * be restored; what the store throws is thrown.
   */
  async claim(key: ApiKey, sessionId: string, lastSeq: number): Promise<Restoration | Error> {
    const row = await this.d.store.claim(sessionId);
    const storedSeq = row ? await this.d.store.maxSeq(sessionId) : 0;
    try {
      if (!row || row.key_id !== key.id || row.stopped_at) throw new Error('the checkpoint changed while it was claimed');
      return { config: JSON.parse(row.config) as EffectiveConfig, restore: { row, lastSeq, storedSeq } };
    } catch (e) {
      return e instanceof Error ? e : new Error(String(e));
    }
  }

  /** The durable events after `lastSeq`, up to the last one the session persisted. */
  async unseenEvents(session: LiveSession, lastSeq: number): Promise<StoredEvent[]> {
    const events = await this.d.store.eventsAfter(session.id, lastSeq);
    for (let i = 1; i < REPLAY_READS && (events.at(-1)?.seq ?? lastSeq) < session.durableSeq; i++) {
      events.push(...(await this.d.store.eventsAfter(session.id, events.at(-1)?.seq ?? lastSeq)));
    }
    return events;
  }

  /** The session resumed on `conn` (attached to it): `configured`, then the events the client has not seen. */
  resumed(session: LiveSession, conn: Connection, lastSeq: number, events: StoredEvent[]): void {
    const issued = session.lastSeq;
    conn.send(configured(session.id, this.d.engine, session.config, { resumed: true, lastSeq: issued, offset: session.audioOffset }));
    const replayed = session.replay(events);
    session.log.info('session resumed', { client_last_seq: lastSeq, last_seq: issued, replayed, resume_audio_offset: session.audioOffset });
  }

  /** A stopped session: `configured`, its events after `last_seq`, `status: stopped`, then a close. */
  async replay(conn: Connection, r: StoppedReplay): Promise<void> {
    const events = await this.d.store.eventsAfter(r.sessionId, r.lastSeq);
    conn.send(configured(r.sessionId, this.d.engine, undefined, { resumed: true, lastSeq: r.issued, offset: r.offset }));
    for (const row of events) conn.send(row.json);
    conn.send({ type: 'status', state: 'stopped', message: 'session already stopped (replayed)', metrics: r.metrics });
    this.d.log.info('stopped session replayed', { session_id: r.sessionId, replayed: events.length });
    conn.close(1000, 'stopped');
  }

  private refuse(why: string, sessionId: string): ResumeDecision {
    this.d.log.info(why, { session_id: sessionId });
    return { kind: 'refuse' };
  }
}
