/**
 * The `SessionStore` of stores.ts and the rows of the `KeyStore` (keys.ts) on PostgreSQL, for several
 * instances of the service: keys, the organisation, session records, and the resume data (durable events
 * and checkpoints) any instance can resume a session from. The live sessions' writes go through the
 * journal (journal.ts), queued and fenced; everything else is a query awaited by its request.
 *
 * When the database stops answering, requests fail at once with BackendUnavailableError (INTERNAL_ERROR
 * with `retry_after_ms` for the client) while `Availability` reconnects with backoff.
 */
import type pg from 'pg';
import { Availability } from '../backend';
import type { KeyRow, KeyRows } from '../keys';
import { KEY_SELECT, SESSION_SELECT } from '../teams';
import type { ServerLogger } from '../../log';
import {
  BackendUnavailableError,
  type CheckpointRow,
  type JournalOutcome,
  type SessionEnd,
  type SessionRecord,
  type SessionStore,
  type StoredEvent,
} from '../stores';
import { isConnectionError } from './connect';
import { Journal } from './journal';
import { type Transact, poolTransaction } from './transaction';

interface PgStoreOptions {
  pool: pg.Pool;
  orgId: string;
  /** This instance, as written in the `owner` column of the checkpoints it writes. */
  instanceId: string;
  log: ServerLogger;
  /** How long `close()` waits for the journal's queued writes. */
  closeGraceMs?: number;
}

export class PgStore implements SessionStore, KeyRows {
  readonly orgId: string;
  readonly availability: Availability;
  private readonly pool: pg.Pool;
  private readonly journal: Journal;
  private readonly lostListeners: Array<(sessionId: string) => void> = [];

  constructor(private readonly o: PgStoreOptions) {
    this.pool = o.pool;
    this.orgId = o.orgId;
    this.availability = new Availability('PostgreSQL', async () => void (await this.pool.query('SELECT 1')), o.log);
    this.journal = new Journal(this.pool, this.availability, o.instanceId, o.log, (id) => {
      for (const l of this.lostListeners) l(id);
    });
  }

  /** A query of a request: refused at once while the database is known to be unreachable. */
  private async q<R extends pg.QueryResultRow>(text: string, params: unknown[] = []): Promise<pg.QueryResult<R>> {
    if (!this.availability.up) throw new BackendUnavailableError('PostgreSQL', this.availability.retryAfterMs());
    try {
      return await this.pool.query<R>(text, params);
    } catch (e) {
      if (!isConnectionError(e)) throw e;
      this.availability.lost(e);
      throw new BackendUnavailableError('PostgreSQL', this.availability.retryAfterMs(), { cause: e });
    }
  }

  /** A transaction of a request (pg/transaction.ts), refused at once as a query is while the database is unreachable. */
  readonly transaction: Transact = (work) =>
    poolTransaction(this.pool, async () => {
      if (!this.availability.up) throw new BackendUnavailableError('PostgreSQL', this.availability.retryAfterMs());
      try {
        return await this.pool.connect();
      } catch (e) {
        if (!isConnectionError(e)) throw e;
        this.availability.lost(e);
        throw new BackendUnavailableError('PostgreSQL', this.availability.retryAfterMs(), { cause: e });
      }
    })(work);

  /** A query of a request (as the store's own: refused at once while the database is unreachable): the team store's (pg/teams.ts), usage, session listing and audit (pg/usage.ts, pg/audit.ts). */
  query<R extends pg.QueryResultRow>(text: string, params: unknown[] = []): Promise<pg.QueryResult<R>> {
    return this.q<R>(text, params);
  }

  /** Asks the database whether it answers (`GET /readyz`, the metrics); a connection lost is noticed as by any query. */
  async ping(): Promise<void> {
    await this.q('SELECT 1');
  }

  // ---------------------------------------------------------------- keys (KeyRows)
  async insertKey(row: KeyRow): Promise<void> {
    await this.q(
      `INSERT INTO api_keys (id, hash, hint, name, type, project_id, permissions, environment, org_id, created_at, revoked_at,
         person_id, expires_at, rolled_from)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
      [
        row.id,
        row.hash,
        row.hint,
        row.name,
        row.type,
        row.project_id,
        row.permissions,
        row.environment,
        row.org_id,
        row.created_at,
        row.revoked_at,
        row.person_id,
        row.expires_at,
        row.rolled_from,
      ],
    );
  }
  async keyByHash(hash: string): Promise<KeyRow | undefined> {
    return (await this.q<KeyRow>(`${KEY_SELECT} WHERE k.hash = $1`, [hash])).rows[0];
  }
  async keyById(id: string): Promise<KeyRow | undefined> {
    return (await this.q<KeyRow>(`${KEY_SELECT} WHERE k.id = $1`, [id])).rows[0];
  }
  async listKeys(): Promise<KeyRow[]> {
    return (await this.q<KeyRow>(`${KEY_SELECT} ORDER BY k.created_at, k.id`)).rows;
  }
  /** Marks the key revoked and, in the same statement, its announcement to the other instances as pending. */
  async revokeKey(id: string, at: string): Promise<boolean> {
    const r = await this.q(
      `WITH r AS (UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING id),
         p AS (INSERT INTO pending_revocations (key_id, revoked_at) SELECT id, $2 FROM r ON CONFLICT DO NOTHING)
       SELECT id FROM r`,
      [id, at],
    );
    return r.rows.length > 0;
  }
  async pendingRevocations(): Promise<string[]> {
    return (await this.q<{ key_id: string }>('SELECT key_id FROM pending_revocations ORDER BY revoked_at')).rows.map((r) => r.key_id);
  }
  async revocationAnnounced(keyId: string): Promise<void> {
    await this.q('DELETE FROM pending_revocations WHERE key_id = $1', [keyId]);
  }
  async revokedAmong(ids: string[]): Promise<string[]> {
    const live = new Set(
      (await this.q<{ id: string }>('SELECT id FROM api_keys WHERE id = ANY($1) AND revoked_at IS NULL', [ids])).rows.map((r) => r.id),
    );
    return ids.filter((id) => !live.has(id));
  }

  // ---------------------------------------------------------------- session records
  async recordSession(id: string, keyId: string, orgId: string, origin: 'http' | 'ws', at: string): Promise<void> {
    await this.q('INSERT INTO sessions (id, key_id, org_id, origin, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING', [
      id,
      keyId,
      orgId,
      origin,
      at,
    ]);
  }
  async sessionStarted(id: string, at: string): Promise<void> {
    await this.q('UPDATE sessions SET started_at = COALESCE(started_at, $2) WHERE id = $1', [id, at]);
  }
  /** Through the journal while this instance journals the session (after its writes, and only while it owns it). */
  async sessionEnded(id: string, r: SessionEnd): Promise<void> {
    if (this.journal.epoch(id) !== undefined) {
      this.journal.enqueue(id, { kind: 'end', end: r });
      await this.journal.pending(id);
      return;
    }
    await this.q(
      'UPDATE sessions SET ended_at = $2, duration = $3, total_frames = $4, final_chunks = $5, end_reason = $6, audio_seconds = $7 WHERE id = $1',
      [id, r.at, r.duration, r.totalFrames, r.finals, r.reason, r.audioSeconds],
    );
  }
  async getSession(id: string): Promise<SessionRecord | undefined> {
    return (await this.q<SessionRecord>(`${SESSION_SELECT} WHERE s.id = $1`, [id])).rows[0];
  }

  async adoptHttpInit(keyId: string, createdAfter: string, at: string): Promise<string | undefined> {
    const r = await this.q<{ id: string }>(
      `UPDATE sessions SET started_at = $3 WHERE started_at IS NULL AND id = (SELECT id FROM sessions
         WHERE key_id = $1 AND origin = 'http' AND started_at IS NULL AND ended_at IS NULL AND created_at > $2
         ORDER BY created_at DESC LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id`,
      [keyId, createdAfter, at],
    );
    return r.rows[0]?.id;
  }
  async releaseHttpInit(id: string): Promise<void> {
    await this.q("UPDATE sessions SET started_at = NULL WHERE id = $1 AND origin = 'http' AND ended_at IS NULL", [id]);
  }
  /** The pool, for what needs a transaction of its own (the audit log's appends). */
  get pgPool(): pg.Pool {
    return this.pool;
  }

  // ---------------------------------------------------------------- resume
  async getCheckpoint(sessionId: string): Promise<CheckpointRow | undefined> {
    await this.journal.pending(sessionId);
    return (await this.q<CheckpointRow>('SELECT * FROM session_checkpoints WHERE session_id = $1', [sessionId])).rows[0];
  }
  async eventsAfter(sessionId: string, seq: number): Promise<StoredEvent[]> {
    await this.journal.pending(sessionId);
    return (
      await this.q<StoredEvent>('SELECT seq, json FROM session_events WHERE session_id = $1 AND seq > $2 ORDER BY seq', [sessionId, seq])
    ).rows;
  }
  async maxSeq(sessionId: string): Promise<number> {
    await this.journal.pending(sessionId);
    return (
      (await this.q<{ m: number | null }>('SELECT MAX(seq) AS m FROM session_events WHERE session_id = $1', [sessionId])).rows[0]?.m ?? 0
    );
  }
  async expireResumeData(stoppedBefore: string, idleBefore: string): Promise<string[]> {
    const r = await this.q<{ session_id: string }>(
      `WITH gone AS (
         DELETE FROM session_checkpoints WHERE (stopped_at IS NOT NULL AND stopped_at < $1) OR (stopped_at IS NULL AND updated_at < $2)
         RETURNING session_id),
       events AS (DELETE FROM session_events WHERE session_id IN (SELECT session_id FROM gone))
       SELECT session_id FROM gone`,
      [stoppedBefore, idleBefore],
    );
    return r.rows.map((x) => x.session_id);
  }
  /**
   * Retention, as SQLite's (db.ts): checkpoints not updated since `before`, then the records of sessions that
   * ended (or, never ended, were created) before it with no checkpoint left, then the events that belong to
   * neither; one transaction.
   */
  async pruneBefore(before: string): Promise<{ sessions: number; events: number }> {
    const r = await this.q<{ sessions: number; events: number }>(
      `WITH cps AS (DELETE FROM session_checkpoints WHERE updated_at < $1 RETURNING session_id),
       recs AS (
         DELETE FROM sessions WHERE COALESCE(ended_at, created_at) < $1
           AND id NOT IN (SELECT session_id FROM session_checkpoints EXCEPT SELECT session_id FROM cps)
         RETURNING id),
       evs AS (
         DELETE FROM session_events e
         WHERE NOT EXISTS (SELECT 1 FROM session_checkpoints c WHERE c.session_id = e.session_id AND c.session_id NOT IN (SELECT session_id FROM cps))
           AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = e.session_id AND s.id NOT IN (SELECT id FROM recs))
         RETURNING 1)
       SELECT (SELECT count(*) FROM recs)::int AS sessions, (SELECT count(*) FROM evs)::int AS events`,
      [before],
    );
    return r.rows[0] ?? { sessions: 0, events: 0 };
  }
  async dropResumeData(sessionId: string): Promise<void> {
    await this.q(`WITH cp AS (DELETE FROM session_checkpoints WHERE session_id = $1) DELETE FROM session_events WHERE session_id = $1`, [
      sessionId,
    ]);
  }

  // ---------------------------------------------------------------- the journal (synchronous: queued, see journal.ts)
  persistEvent(sessionId: string, seq: number, json: string, cp: CheckpointRow): void {
    this.journal.enqueue(sessionId, { kind: 'event', seq, json, cp });
  }
  trimEvents(sessionId: string): void {
    this.journal.enqueue(sessionId, { kind: 'trim' });
  }
  saveCheckpoint(cp: CheckpointRow): void {
    this.journal.enqueue(cp.session_id, { kind: 'checkpoint', cp });
  }
  markStopped(sessionId: string, nextSeq: number, at: string): void {
    this.journal.enqueue(sessionId, { kind: 'stopped', nextSeq, at });
  }
  pendingWrites(sessionId: string): Promise<JournalOutcome> | undefined {
    return this.journal.pending(sessionId);
  }
  endJournal(sessionId: string): void {
    this.journal.end(sessionId);
  }

  // ---------------------------------------------------------------- ownership
  async claim(sessionId: string): Promise<CheckpointRow | undefined> {
    // Writes this instance still has queued for the session (from an earlier life of it here) go first.
    await this.journal.pending(sessionId);
    const r = await this.q<CheckpointRow & { epoch: number; previous_owner: string }>(
      `WITH old AS (SELECT session_id, owner FROM session_checkpoints WHERE session_id = $1 FOR UPDATE)
       UPDATE session_checkpoints c SET epoch = c.epoch + 1, owner = $2 FROM old WHERE c.session_id = old.session_id
       RETURNING c.*, old.owner AS previous_owner`,
      [sessionId, this.o.instanceId],
    );
    const row = r.rows[0];
    if (!row) return undefined;
    this.journal.adopt(sessionId, Number(row.epoch));
    return row;
  }
  async stillOwned(sessionId: string): Promise<boolean> {
    const mine = this.journal.epoch(sessionId);
    if (mine === undefined) return false;
    const row = (await this.q<{ epoch: number }>('SELECT epoch FROM session_checkpoints WHERE session_id = $1', [sessionId])).rows[0];
    // No row: its resume data expired; nobody claimed it, and the next write puts it back.
    return !row || Number(row.epoch) === mine;
  }
  onTakenOver(listener: (sessionId: string) => void): void {
    this.lostListeners.push(listener);
  }

  async close(): Promise<void> {
    await this.journal.close(this.o.closeGraceMs ?? 5000);
    this.availability.close();
    await this.pool.end().catch(() => undefined);
  }
}
