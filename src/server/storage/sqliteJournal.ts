/**
 * The journal of the live sessions on SQLite, written by group commit. What the sessions write while
 * audio flows (each durable event with the checkpoint after it, checkpoints, stop marks, trims) is queued
 * and written in one transaction at the end of the current turn of the event loop, instead of one
 * transaction per final: when many sessions end a sentence at once, each final costs a fraction of its
 * own transaction, and the event loop is held for much less.
 *
 * Nothing is sent before it is durable: a connection sends what follows a journal write only once
 * `pending(session)` has settled (connection.ts), as with the PostgreSQL journal. Within a transaction,
 * a session's checkpoint row is written once, with the last checkpoint queued (before a stop mark or a
 * trim of that session, the one queued so far), so the rows end as they would with one write per op.
 * The store's own reads `flush()` first, so they see every write queued before them.
 *
 * The end of the turn can be far off under load: one turn reads every socket that has data, and at a
 * thousand sessions that is tens of milliseconds of audio processing, which every queued final would
 * wait for. So a write queued {@link MAX_GROUP_WAIT_MS} or more after the oldest one still waiting
 * first writes the group that waits, then starts the next: under load, a final waits a few
 * milliseconds rather than the rest of the turn, and a group still holds every final of those
 * milliseconds. (The write that comes late is not in the group written: whoever queued it asks
 * `pending()` after queuing, and must get the outcome of its own write.)
 *
 * A transaction that fails (the disk full, a lock held by another process) is tried again session by
 * session, so a failure costs only the sessions it concerns; their writes end 'failed' and their events
 * are sent all the same, as documented (docs/reliability.md). `lastError` keeps the cause for the log.
 */
import type Database from 'better-sqlite3';
import { monotonicMs } from '../clock';
import { type CheckpointRow, type JournalOutcome, MAX_EVENTS_PER_SESSION } from './stores';

/** A group is written once its oldest write has waited this long, without waiting for the end of the turn. */
export const MAX_GROUP_WAIT_MS = 4;

type SqliteJournalOp =
  | { kind: 'event'; seq: number; json: string; cp: CheckpointRow }
  | { kind: 'checkpoint'; cp: CheckpointRow }
  | { kind: 'trim' }
  | { kind: 'stopped'; nextSeq: number; at: string };

/** The statements the journal writes with (prepared by the store). */
interface SqliteJournalStatements {
  insertEvent: Database.Statement<[string, number, string]>;
  upsertCheckpoint: Database.Statement<[CheckpointRow]>;
  setStopped: Database.Statement<[string, number, string, string]>;
  trimEvents: Database.Statement<[string, number]>;
}

interface Waiting {
  done: Promise<JournalOutcome>;
  settle: (o: JournalOutcome) => void;
}

function waiting(): Waiting {
  let settle!: (o: JournalOutcome) => void;
  const done = new Promise<JournalOutcome>((r) => (settle = r));
  return { done, settle };
}

export class SqliteJournal {
  private queue: Array<{ sessionId: string; op: SqliteJournalOp }> = [];
  /** Per session with writes in `queue`: what its connection waits for. */
  private waiters = new Map<string, Waiting>();
  private scheduled: NodeJS.Immediate | undefined;
  /** When the oldest write in `queue` was queued (monotonic ms). */
  private oldestAt = 0;
  /** How long a group may wait for the end of the turn, and the clock that tells (tests set both). */
  groupTiming = { maxWaitMs: MAX_GROUP_WAIT_MS, now: monotonicMs };
  /** The cause of the last failed write (for the log; never holds dictated text). */
  lastError: unknown;
  /** Transactions written (tests count them). */
  readonly stats = { transactions: 0 };

  /** One transaction of writes: made once (better-sqlite3 builds a wrapper and its variants per `transaction()`). */
  private readonly tx: (ops: ReadonlyArray<{ sessionId: string; op: SqliteJournalOp }>) => void;

  constructor(
    db: Database.Database,
    private readonly st: SqliteJournalStatements,
  ) {
    this.tx = db.transaction((ops: ReadonlyArray<{ sessionId: string; op: SqliteJournalOp }>) => this.write(ops));
  }

  enqueue(sessionId: string, op: SqliteJournalOp): void {
    const now = this.groupTiming.now();
    if (this.queue.length && now - this.oldestAt >= this.groupTiming.maxWaitMs) this.flush();
    if (this.queue.length === 0) this.oldestAt = now;
    this.queue.push({ sessionId, op });
    if (!this.waiters.has(sessionId)) this.waiters.set(sessionId, waiting());
    this.scheduled ??= setImmediate(() => this.flush());
  }

  /** How the writes queued so far for the session end, or undefined when none is waiting. */
  pending(sessionId: string): Promise<JournalOutcome> | undefined {
    return this.waiters.get(sessionId)?.done;
  }

  /** Writes what is queued now, in one transaction (or session by session if that fails). */
  flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    if (!this.queue.length) return;
    const queue = this.queue;
    const waiters = this.waiters;
    this.queue = [];
    this.waiters = new Map();
    const failed = new Set<string>();
    try {
      this.tx(queue);
      this.stats.transactions++;
    } catch (e) {
      this.lastError = e;
      const bySession = new Map<string, typeof queue>();
      for (const q of queue) {
        const ops = bySession.get(q.sessionId);
        if (ops) ops.push(q);
        else bySession.set(q.sessionId, [q]);
      }
      for (const [id, ops] of bySession) {
        try {
          this.tx(ops);
          this.stats.transactions++;
        } catch (e2) {
          this.lastError = e2;
          failed.add(id);
        }
      }
    }
    for (const [id, w] of waiters) w.settle(failed.has(id) ? 'failed' : 'durable');
  }

  private write(ops: ReadonlyArray<{ sessionId: string; op: SqliteJournalOp }>): void {
    const st = this.st;
    // The checkpoint of each session still to write (a later one replaces an earlier one).
    const checkpoints = new Map<string, CheckpointRow>();
    const writeCheckpoint = (sessionId: string): void => {
      const cp = checkpoints.get(sessionId);
      if (!cp) return;
      st.upsertCheckpoint.run(cp);
      checkpoints.delete(sessionId);
    };
    for (const { sessionId, op } of ops) {
      switch (op.kind) {
        case 'event':
          st.insertEvent.run(sessionId, op.seq, op.json);
          checkpoints.set(sessionId, op.cp);
          break;
        case 'checkpoint':
          checkpoints.set(sessionId, op.cp);
          break;
        case 'trim':
          writeCheckpoint(sessionId);
          st.trimEvents.run(sessionId, MAX_EVENTS_PER_SESSION);
          break;
        case 'stopped':
          writeCheckpoint(sessionId);
          st.setStopped.run(op.at, op.nextSeq, op.at, sessionId);
          break;
      }
    }
    for (const cp of checkpoints.values()) st.upsertCheckpoint.run(cp);
  }
}
