/**
 * The journal of the live sessions on PostgreSQL: what a session writes while audio flows (its durable
 * events, checkpoints, its stop and its end), queued per session and written in order, one transaction per
 * batch of what queued up meanwhile. Sessions write concurrently through the pool.
 *
 * Fencing: each session's journal carries the epoch this instance holds (1 for a session it created; the
 * value of its claim for one it took over). Every batch locks the checkpoint row and is written only if the
 * epoch there is still this one; otherwise another instance claimed the session, the writes are abandoned
 * and `onLost` is told. A batch of finals and checkpoints (the common case) is one statement; one with a
 * stop, an end or a trim is a transaction of several.
 *
 * While the database is unreachable the writes stay queued, in order, and are written once it answers
 * again (the connection sends nothing behind them meanwhile); a statement that fails for another reason
 * is tried three times, then logged and given up ('failed').
 */
import type pg from 'pg';
import type { Availability } from '../backend';
import { Condition } from '../../../shared/condition';
import type { ServerLogger } from '../../log';
import { type CheckpointRow, type JournalOutcome, MAX_EVENTS_PER_SESSION, type SessionEnd } from '../stores';
import { isConnectionError, isRetryableError } from './connect';

type JournalOp =
  | { kind: 'event'; seq: number; json: string; cp: CheckpointRow }
  | { kind: 'checkpoint'; cp: CheckpointRow }
  | { kind: 'trim' }
  | { kind: 'stopped'; nextSeq: number; at: string }
  | { kind: 'end'; end: SessionEnd };

interface Queued {
  op: JournalOp;
  settled: boolean;
  done: Promise<JournalOutcome>;
  settle: (o: JournalOutcome) => void;
}

class SessionJournal {
  queue: Queued[] = [];
  last: Queued | undefined;
  running = false;
  lost = false;
  /** When the session ended here (ms since epoch): its journal is kept a while for writes still on their way. */
  endedAt: number | undefined;
  constructor(public epoch: number) {}
}

/** How long the journal of an ended session is kept (a decoder in a worker may still hand in flushed finals). */
const ENDED_KEPT_MS = 60_000;

const ABANDONED: Promise<JournalOutcome> = Promise.resolve('abandoned');

function queued(op: JournalOp): Queued {
  let resolve!: (o: JournalOutcome) => void;
  const done = new Promise<JournalOutcome>((r) => (resolve = r));
  return {
    op,
    settled: false,
    done,
    settle(o) {
      if (this.settled) return;
      this.settled = true;
      resolve(o);
    },
  };
}

export class Journal {
  private readonly sessions = new Map<string, SessionJournal>();
  private closing = false;
  /** What {@link close} waits for: no session has writes queued or under way, or the database is lost (then none can be written). */
  private readonly writesDone = new Condition(() => this.backlog === 0 || !this.availability.up);
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly pool: pg.Pool,
    private readonly availability: Availability,
    /** Written as `owner` of the checkpoints this instance writes (informative). */
    private readonly instance: string,
    private readonly log: ServerLogger,
    private readonly onLost: (sessionId: string) => void,
  ) {
    this.sweeper = setInterval(() => this.sweep(), ENDED_KEPT_MS / 2);
    this.sweeper.unref();
  }

  enqueue(sessionId: string, op: JournalOp): void {
    let j = this.sessions.get(sessionId);
    if (!j) {
      j = new SessionJournal(1);
      this.sessions.set(sessionId, j);
    }
    const q = queued(op);
    j.last = q;
    if (j.lost || this.closing) {
      q.settle('abandoned');
      return;
    }
    j.queue.push(q);
    if (!j.running) void this.run(sessionId, j);
  }

  /** The outcome of every write queued so far for the session, or undefined when none is waiting. */
  pending(sessionId: string): Promise<JournalOutcome> | undefined {
    const j = this.sessions.get(sessionId);
    if (!j) return undefined;
    if (j.lost) return ABANDONED;
    return j.last && !j.last.settled ? j.last.done : undefined;
  }

  /** The epoch this instance holds for the session, when it journals it. */
  epoch(sessionId: string): number | undefined {
    const j = this.sessions.get(sessionId);
    return j && !j.lost ? j.epoch : undefined;
  }

  /** This instance now journals the session with the epoch of its claim (a fresh journal). */
  adopt(sessionId: string, epoch: number): void {
    const j = new SessionJournal(epoch);
    this.sessions.set(sessionId, j);
  }

  /** The session ended here; its journal goes once idle for ENDED_KEPT_MS (late writes keep its epoch meanwhile). */
  end(sessionId: string): void {
    const j = this.sessions.get(sessionId);
    if (j) j.endedAt = Date.now();
  }

  private sweep(now = Date.now()): void {
    for (const [id, j] of this.sessions) {
      if (j.endedAt !== undefined && now - j.endedAt >= ENDED_KEPT_MS && !j.running && !j.queue.length) this.sessions.delete(id);
    }
  }

  /** Sessions with writes still queued. */
  get backlog(): number {
    let n = 0;
    for (const j of this.sessions.values()) if (j.queue.length || j.running) n++;
    return n;
  }

  /** Waits up to `graceMs` for the queued writes, then abandons what is left. */
  async close(graceMs: number): Promise<number> {
    void this.availability.whenDown().then(() => this.writesDone.changed());
    await this.writesDone.wait(graceMs);
    this.closing = true;
    clearInterval(this.sweeper);
    let abandoned = 0;
    for (const [id, j] of this.sessions) {
      if (j.queue.length) {
        abandoned += j.queue.length;
        this.log.error(
          'journal writes abandoned at shutdown: the database did not take them; the client re-sends the audio when it resumes',
          { session_id: id, writes: j.queue.length },
        );
      }
      for (const q of j.queue) q.settle('abandoned');
      j.queue = [];
    }
    return abandoned;
  }

  private async run(sessionId: string, j: SessionJournal): Promise<void> {
    j.running = true;
    try {
      while (j.queue.length && !j.lost) {
        const batch = takeBatch(j.queue);
        const outcome = await this.writeWithRetries(
          sessionId,
          j,
          batch.map((q) => q.op),
        );
        if (outcome === 'lost') {
          j.lost = true;
          for (const q of [...batch, ...j.queue]) q.settle('abandoned');
          j.queue = [];
          this.log.warn('session claimed by another instance: its journal here is closed', { session_id: sessionId });
          this.onLost(sessionId);
          break;
        }
        for (const q of batch) q.settle(outcome);
      }
    } finally {
      j.running = false;
      this.writesDone.changed();
    }
  }

  private async writeWithRetries(sessionId: string, j: SessionJournal, ops: JournalOp[]): Promise<JournalOutcome | 'lost'> {
    let failures = 0;
    for (;;) {
      if (this.closing) return 'abandoned';
      if (!this.availability.up) {
        await this.availability.whenUp();
        continue;
      }
      try {
        return (await this.write(sessionId, j.epoch, ops)) ? 'durable' : 'lost';
      } catch (e) {
        if (isConnectionError(e)) {
          this.availability.lost(e);
          continue;
        }
        if (++failures <= 3) {
          if (!isRetryableError(e))
            this.log.warn('journal write failed; trying again', { session_id: sessionId, attempt: failures, error: e });
          await new Promise((r) => setTimeout(r, 50 * 2 ** failures));
          continue;
        }
        this.log.error('could not persist a final event; resuming after a failure may lose it', { session_id: sessionId, error: e });
        return 'failed';
      }
    }
  }

  /** One transaction: false when the session's checkpoint holds another epoch (claimed elsewhere). */
  private async write(sessionId: string, epoch: number, ops: JournalOp[]): Promise<boolean> {
    const cp = ops.reduce<CheckpointRow | undefined>((last, o) => (o.kind === 'event' || o.kind === 'checkpoint' ? o.cp : last), undefined);
    const events = ops.flatMap((o) => (o.kind === 'event' ? [o] : []));
    if (cp && ops.every((o) => o.kind === 'event' || o.kind === 'checkpoint')) {
      // The common case (finals and their checkpoint): one statement, one round trip.
      const r = await this.pool.query<{ ok: boolean }>(WRITE_EVENTS, [
        ...checkpointParams(cp, this.instance, epoch),
        events.map((e) => e.seq),
        events.map((e) => e.json),
      ]);
      return r.rows[0]?.ok === true;
    }
    const client = await this.pool.connect();
    let broken: unknown;
    try {
      await client.query('BEGIN');
      const cur = await client.query<{ epoch: number }>('SELECT epoch FROM session_checkpoints WHERE session_id = $1 FOR UPDATE', [
        sessionId,
      ]);
      if (cur.rows[0] && Number(cur.rows[0].epoch) !== epoch) {
        await client.query('ROLLBACK');
        return false;
      }
      if (events.length) {
        await client.query(
          `INSERT INTO session_events (session_id, seq, json) SELECT $1, s, j FROM unnest($2::int[], $3::text[]) AS u(s, j)
           ON CONFLICT (session_id, seq) DO UPDATE SET json = EXCLUDED.json`,
          [sessionId, events.map((e) => e.seq), events.map((e) => e.json)],
        );
      }
      if (cp) await client.query(UPSERT_CHECKPOINT, checkpointParams(cp, this.instance, epoch));
      if (ops.some((o) => o.kind === 'trim')) {
        await client.query(
          `DELETE FROM session_events WHERE session_id = $1 AND seq <= (
             SELECT seq FROM session_events WHERE session_id = $1 ORDER BY seq DESC LIMIT 1 OFFSET $2)`,
          [sessionId, MAX_EVENTS_PER_SESSION],
        );
      }
      for (const o of ops) {
        if (o.kind === 'stopped') {
          await client.query(
            'UPDATE session_checkpoints SET stopped_at = $2, next_seq = GREATEST(next_seq, $3), updated_at = $2 WHERE session_id = $1',
            [sessionId, o.at, o.nextSeq],
          );
        } else if (o.kind === 'end') {
          const e = o.end;
          await client.query(
            'UPDATE sessions SET ended_at = $2, duration = $3, total_frames = $4, final_chunks = $5, end_reason = $6, audio_seconds = $7 WHERE id = $1',
            [sessionId, e.at, e.duration, e.totalFrames, e.finals, e.reason, e.audioSeconds],
          );
        }
      }
      await client.query('COMMIT');
      return true;
    } catch (e) {
      broken = isConnectionError(e) ? e : undefined;
      if (!broken) await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      client.release(broken instanceof Error ? broken : broken ? true : undefined);
    }
  }
}

/** The ops at the head of the queue that one transaction writes in their order: up to the first `stopped` or `end`, included. */
function takeBatch(queue: Queued[]): Queued[] {
  let n = 0;
  while (n < queue.length && n < 200) {
    const kind = queue[n]!.op.kind;
    n++;
    if (kind === 'stopped' || kind === 'end') break;
  }
  return queue.splice(0, n);
}

/** What a checkpoint upsert changes in an existing row (everything but its identity and creation). */
const CHECKPOINT_UPDATES = `next_seq = EXCLUDED.next_seq, next_index = EXCLUDED.next_index,
  audio_offset = EXCLUDED.audio_offset, engine = EXCLUDED.engine, total_frames = EXCLUDED.total_frames,
  discarded_frames = EXCLUDED.discarded_frames, final_chunks = EXCLUDED.final_chunks, stopped_at = EXCLUDED.stopped_at,
  updated_at = EXCLUDED.updated_at, owner = EXCLUDED.owner, epoch = EXCLUDED.epoch`;

const UPSERT_CHECKPOINT = `
INSERT INTO session_checkpoints (session_id, key_id, org_id, next_seq, next_index, audio_offset, engine, config,
  total_frames, discarded_frames, created_at, stopped_at, updated_at, owner, epoch, final_chunks)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
ON CONFLICT (session_id) DO UPDATE SET ${CHECKPOINT_UPDATES}`;

/**
 * Durable events and the checkpoint after them, in one statement (so one round trip, one transaction): the
 * checkpoint row is locked first, and nothing is written when it holds another epoch than $15 (ok = false).
 * $1–$16 as UPSERT_CHECKPOINT; $17 the seqs, $18 the events' JSON.
 */
const WRITE_EVENTS = `
WITH cur AS (SELECT epoch FROM session_checkpoints WHERE session_id = $1 FOR UPDATE),
ok AS (SELECT NOT EXISTS (SELECT 1 FROM cur WHERE epoch <> $15::bigint) AS ok),
ev AS (
  INSERT INTO session_events (session_id, seq, json)
  SELECT $1, u.s, u.j FROM unnest($17::int[], $18::text[]) AS u(s, j), ok WHERE ok.ok
  ON CONFLICT (session_id, seq) DO UPDATE SET json = EXCLUDED.json
  RETURNING 1),
cp AS (
  INSERT INTO session_checkpoints (session_id, key_id, org_id, next_seq, next_index, audio_offset, engine, config,
    total_frames, discarded_frames, created_at, stopped_at, updated_at, owner, epoch, final_chunks)
  SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16 FROM ok WHERE ok.ok
  ON CONFLICT (session_id) DO UPDATE SET ${CHECKPOINT_UPDATES}
  RETURNING 1)
SELECT ok.ok, (SELECT count(*) FROM ev) AS events, (SELECT count(*) FROM cp) AS checkpoints FROM ok`;

function checkpointParams(cp: CheckpointRow, owner: string, epoch: number): unknown[] {
  return [
    cp.session_id,
    cp.key_id,
    cp.org_id,
    cp.next_seq,
    cp.next_index,
    cp.audio_offset,
    cp.engine,
    cp.config,
    cp.total_frames,
    cp.discarded_frames,
    cp.created_at,
    cp.stopped_at,
    cp.updated_at,
    owner,
    epoch,
    cp.final_chunks,
  ];
}
