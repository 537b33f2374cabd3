/**
 * SQLite storage in the data dir (better-sqlite3, WAL, synchronous=NORMAL): the organisation, API keys
 * (SHA-256 hashes only; keys.ts makes them a KeyStore), and the `SessionStore` of stores.ts: session
 * records, and what a session needs to be resumed after a restart (durable events and a checkpoint).
 * better-sqlite3 is synchronous: the asynchronous methods of the interface do their work before they
 * return. The live sessions' journal is written by group commit (sqliteJournal.ts): its writes wait for
 * the end of the current turn of the event loop, and every read here flushes them first, so nothing is
 * reordered. One process owns the database, so it owns every session's journal: a claim is a read of the
 * checkpoint.
 */
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { chmodSync, closeSync, existsSync, openSync, statSync } from 'node:fs';
import path from 'node:path';
import {
  type CheckpointRow,
  type JournalOutcome,
  MAX_EVENTS_PER_SESSION,
  type SessionEnd,
  type SessionRecord,
  type SessionStore,
  type StoredEvent,
} from './stores';
import { SqliteJournal } from './sqliteJournal';
import { type SqliteMigrationReport, migrateSqlite } from './sqliteMigrations';
import { WalCheckpointer } from './walCheckpointer';
import { KEY_SELECT, SESSION_SELECT } from './teams';

export const DB_FILE = 'dictee.sqlite';

export interface KeyRow {
  id: string;
  hash: string;
  hint: string;
  name: string;
  type: 'personal' | 'project';
  project_id: string | null;
  permissions: string; // JSON array
  environment: 'live' | 'test';
  org_id: string;
  created_at: string;
  revoked_at: string | null;
  /** The person a personal key belongs to (null: the organisation's own key, or a project key). */
  person_id: string | null;
  /** When the key stops working (null: never). */
  expires_at: string | null;
  /** The key this one replaced by a roll. */
  rolled_from: string | null;
  /** Read with the key: its person's role in the organisation (null when no person). */
  person_role?: 'owner' | 'admin' | 'member' | null;
  /** When the key was last let in (schema version 4; lastUsed.ts): null until its first use. */
  last_used_at?: string | null;
}

/** The database and the files SQLite keeps beside it. */
function dataFiles(dataDir: string): string[] {
  const db = path.join(dataDir, DB_FILE);
  return [db, `${db}-wal`, `${db}-shm`, `${db}-journal`];
}

/**
 * Makes the database private before SQLite opens it: created 0600 when missing (SQLite then creates
 * its -wal and -shm with the database's mode), and any of the files left more open by an older
 * version set to 0600. They hold dictated text, whatever the data dir's own mode.
 */
function makeDataFilesPrivate(dataDir: string): void {
  const [db] = dataFiles(dataDir);
  closeSync(openSync(db!, 'a', 0o600));
  for (const f of dataFiles(dataDir)) {
    if (existsSync(f) && (statSync(f).mode & 0o077) !== 0) chmodSync(f, 0o600);
  }
}

/** A warning when the data dir can be read or entered by other users, or undefined. */
export function dataDirWarning(dataDir: string): string | undefined {
  const mode = statSync(dataDir).mode & 0o777;
  if ((mode & 0o077) === 0) return undefined;
  return `the data dir ${dataDir} is readable by other users (mode ${mode.toString(8).padStart(4, '0')}); its files are kept 0600, but chmod 700 it`;
}

export class SqliteStore implements SessionStore {
  readonly db: Database.Database;
  readonly orgId: string;
  private readonly st;
  /** The live sessions' writes, by group commit. */
  readonly journal: SqliteJournal;

  /** Checkpoints the WAL off the event loop (walCheckpointer.ts). */
  readonly checkpointer: WalCheckpointer;
  /** The schema versions at open and the migrations applied then (sqliteMigrations.ts). */
  readonly migrations: SqliteMigrationReport;

  /**
   * `onCheckpointError`: a checkpoint of the WAL failed (nothing is lost; said once per run of failures).
   * `checkpointEveryMs`: how often the thread checkpoints (1000).
   */
  constructor(dataDir: string, opts: { onCheckpointError?: (message: string) => void; checkpointEveryMs?: number } = {}) {
    makeDataFilesPrivate(dataDir);
    const file = path.join(dataDir, DB_FILE);
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    // Never inside a commit on the event loop: a thread of its own checkpoints (and waits for the disk).
    this.db.pragma('wal_autocheckpoint = 0');
    // better-sqlite3 is synchronous: a wait for a lock held by another process stalls every live
    // session of this one, so it is kept short. Only an outside writer can hold the lock (this process is
    // the only writer; WAL readers such as backups never block it); a failed write is an INTERNAL_ERROR
    // for one request, or a logged loss of durability for one final, never lost text.
    this.db.pragma('busy_timeout = 500');
    this.migrations = migrateSqlite(this.db);
    this.checkpointer = new WalCheckpointer(file, opts.onCheckpointError, opts.checkpointEveryMs);
    const st = {
      getMeta: this.db.prepare<[string], { v: string }>('SELECT v FROM meta WHERE k = ?'),
      setMeta: this.db.prepare('INSERT INTO meta (k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v'),
      insertOrg: this.db.prepare('INSERT INTO orgs (id, name, created_at) VALUES (?, ?, ?)'),
      insertKey: this.db.prepare(
        `INSERT INTO api_keys (id, hash, hint, name, type, project_id, permissions, environment, org_id, created_at, revoked_at,
           person_id, expires_at, rolled_from)
         VALUES (@id, @hash, @hint, @name, @type, @project_id, @permissions, @environment, @org_id, @created_at, @revoked_at,
           @person_id, @expires_at, @rolled_from)`,
      ),
      keyByHash: this.db.prepare<[string], KeyRow>(`${KEY_SELECT} WHERE k.hash = ?`),
      keyById: this.db.prepare<[string], KeyRow>(`${KEY_SELECT} WHERE k.id = ?`),
      listKeys: this.db.prepare<[], KeyRow>(`${KEY_SELECT} ORDER BY k.created_at, k.id`),
      revokeKey: this.db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
      addPendingRevocation: this.db.prepare('INSERT INTO pending_revocations (key_id, revoked_at) VALUES (?, ?) ON CONFLICT DO NOTHING'),
      pendingRevocations: this.db.prepare<[], { key_id: string }>('SELECT key_id FROM pending_revocations ORDER BY revoked_at'),
      revocationAnnounced: this.db.prepare('DELETE FROM pending_revocations WHERE key_id = ?'),
      insertSession: this.db.prepare(
        `INSERT INTO sessions (id, key_id, org_id, origin, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT(id) DO NOTHING`,
      ),
      startSession: this.db.prepare('UPDATE sessions SET started_at = COALESCE(started_at, ?) WHERE id = ?'),
      endSession: this.db.prepare(
        'UPDATE sessions SET ended_at = ?, duration = ?, total_frames = ?, final_chunks = ?, end_reason = ?, audio_seconds = ? WHERE id = ?',
      ),
      getSession: this.db.prepare<[string], SessionRecord>(`${SESSION_SELECT} WHERE s.id = ?`),
      upsertCheckpoint: this.db.prepare(
        `INSERT INTO session_checkpoints (session_id, key_id, org_id, next_seq, next_index, audio_offset, engine, config,
           total_frames, discarded_frames, final_chunks, created_at, stopped_at, updated_at)
         VALUES (@session_id, @key_id, @org_id, @next_seq, @next_index, @audio_offset, @engine, @config,
           @total_frames, @discarded_frames, @final_chunks, @created_at, @stopped_at, @updated_at)
         ON CONFLICT(session_id) DO UPDATE SET next_seq = excluded.next_seq, next_index = excluded.next_index,
           audio_offset = excluded.audio_offset, engine = excluded.engine, total_frames = excluded.total_frames,
           discarded_frames = excluded.discarded_frames, final_chunks = excluded.final_chunks,
           stopped_at = excluded.stopped_at, updated_at = excluded.updated_at`,
      ),
      setStopped: this.db.prepare(
        'UPDATE session_checkpoints SET stopped_at = ?, next_seq = MAX(next_seq, ?), updated_at = ? WHERE session_id = ?',
      ),
      getCheckpoint: this.db.prepare<[string], CheckpointRow>('SELECT * FROM session_checkpoints WHERE session_id = ?'),
      insertEvent: this.db.prepare('INSERT OR REPLACE INTO session_events (session_id, seq, json) VALUES (?, ?, ?)'),
      trimEvents: this.db.prepare(
        `DELETE FROM session_events WHERE session_id = ?1 AND seq <= (
           SELECT seq FROM session_events WHERE session_id = ?1 ORDER BY seq DESC LIMIT 1 OFFSET ?2)`,
      ),
      eventsAfter: this.db.prepare<[string, number], { seq: number; json: string }>(
        'SELECT seq, json FROM session_events WHERE session_id = ? AND seq > ? ORDER BY seq',
      ),
      maxSeq: this.db.prepare<[string], { m: number | null }>('SELECT MAX(seq) AS m FROM session_events WHERE session_id = ?'),
      expiredCheckpoints: this.db.prepare<[string, string], { session_id: string }>(
        'SELECT session_id FROM session_checkpoints WHERE (stopped_at IS NOT NULL AND stopped_at < ?) OR (stopped_at IS NULL AND updated_at < ?)',
      ),
      deleteCheckpoint: this.db.prepare('DELETE FROM session_checkpoints WHERE session_id = ?'),
      pruneSessions: this.db.prepare(
        'DELETE FROM sessions WHERE COALESCE(ended_at, created_at) < ? AND id NOT IN (SELECT session_id FROM session_checkpoints)',
      ),
      pruneCheckpoints: this.db.prepare('DELETE FROM session_checkpoints WHERE updated_at < ?'),
      pruneEvents: this.db.prepare(
        `DELETE FROM session_events WHERE session_id NOT IN (SELECT session_id FROM session_checkpoints)
           AND session_id NOT IN (SELECT id FROM sessions)`,
      ),
      deleteEvents: this.db.prepare('DELETE FROM session_events WHERE session_id = ?'),
    };
    this.st = st;
    this.journal = new SqliteJournal(this.db, st);
    let org = st.getMeta.get('org_id')?.v;
    if (!org) {
      org = `org_${randomUUID()}`;
      const id = org;
      this.db.transaction(() => {
        st.insertOrg.run(id, 'default', new Date().toISOString());
        st.setMeta.run('org_id', id);
      })();
    }
    this.orgId = org;
  }

  async close(): Promise<void> {
    if (this.db.open) this.journal.flush();
    await this.checkpointer.close();
    // The last connection closed checkpoints what is left and removes the -wal file.
    if (this.db.open) this.db.close();
  }

  // ---------------------------------------------------------------- keys
  insertKey(row: KeyRow): void {
    const { person_role: _role, ...columns } = row;
    this.st.insertKey.run(columns);
  }
  keyByHash(hash: string): KeyRow | undefined {
    return this.st.keyByHash.get(hash);
  }
  keyById(id: string): KeyRow | undefined {
    return this.st.keyById.get(id);
  }
  listKeys(): KeyRow[] {
    return this.st.listKeys.all();
  }
  /** Marks the key revoked and, in the same transaction, its announcement to other instances as pending. */
  revokeKey(id: string, at: string): boolean {
    return this.db.transaction(() => {
      const changed = this.st.revokeKey.run(at, id).changes > 0;
      if (changed) this.st.addPendingRevocation.run(id, at);
      return changed;
    })();
  }
  pendingRevocations(): string[] {
    return this.st.pendingRevocations.all().map((r) => r.key_id);
  }
  revocationAnnounced(keyId: string): void {
    this.st.revocationAnnounced.run(keyId);
  }

  // ---------------------------------------------------------------- meta (the master key's hash: masterKey.ts)
  getMeta(k: string): string | undefined {
    return this.st.getMeta.get(k)?.v;
  }
  setMetas(rows: Record<string, string>): void {
    this.db.transaction(() => {
      for (const [k, v] of Object.entries(rows)) this.st.setMeta.run(k, v);
    })();
  }

  // ---------------------------------------------------------------- session records
  async recordSession(id: string, keyId: string, orgId: string, origin: 'http' | 'ws', at: string): Promise<void> {
    this.st.insertSession.run(id, keyId, orgId, origin, at);
  }
  async sessionStarted(id: string, at: string): Promise<void> {
    this.st.startSession.run(at, id);
  }
  async sessionEnded(id: string, r: SessionEnd): Promise<void> {
    this.st.endSession.run(r.at, r.duration, r.totalFrames, r.finals, r.reason, r.audioSeconds, id);
  }
  async getSession(id: string): Promise<SessionRecord | undefined> {
    return this.st.getSession.get(id);
  }
  async adoptHttpInit(keyId: string, createdAfter: string, at: string): Promise<string | undefined> {
    return this.db
      .prepare<[string, string, string], { id: string }>(
        `UPDATE sessions SET started_at = ? WHERE started_at IS NULL AND id = (SELECT id FROM sessions
           WHERE key_id = ? AND origin = 'http' AND started_at IS NULL AND ended_at IS NULL AND created_at > ?
           ORDER BY created_at DESC LIMIT 1) RETURNING id`,
      )
      .get(at, keyId, createdAfter)?.id;
  }
  async releaseHttpInit(id: string): Promise<void> {
    this.db.prepare("UPDATE sessions SET started_at = NULL WHERE id = ? AND origin = 'http' AND ended_at IS NULL").run(id);
  }

  // ---------------------------------------------------------------- resume
  /** One durable event and the checkpoint after it, written together by the journal's next transaction. */
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
  async getCheckpoint(sessionId: string): Promise<CheckpointRow | undefined> {
    this.journal.flush();
    return this.st.getCheckpoint.get(sessionId);
  }
  async eventsAfter(sessionId: string, seq: number): Promise<StoredEvent[]> {
    this.journal.flush();
    return this.st.eventsAfter.all(sessionId, seq);
  }
  async maxSeq(sessionId: string): Promise<number> {
    this.journal.flush();
    return this.st.maxSeq.get(sessionId)?.m ?? 0;
  }
  async expireResumeData(stoppedBefore: string, idleBefore: string): Promise<string[]> {
    this.journal.flush();
    const ids = this.st.expiredCheckpoints.all(stoppedBefore, idleBefore).map((r) => r.session_id);
    if (ids.length) {
      this.db.transaction(() => {
        for (const id of ids) {
          this.st.deleteCheckpoint.run(id);
          this.st.deleteEvents.run(id);
        }
      })();
    }
    return ids;
  }
  /**
   * Retention: deletes resume checkpoints not updated since `before` (ISO time), then session records
   * that ended (or, never ended, were created) before it and have no checkpoint left (a session still
   * live keeps its record), then every transcript event that belongs to neither a kept record nor a kept
   * checkpoint. Returns how many records and events went.
   */
  async pruneBefore(before: string): Promise<{ sessions: number; events: number }> {
    this.journal.flush();
    return this.db.transaction(() => {
      this.st.pruneCheckpoints.run(before);
      const sessions = this.st.pruneSessions.run(before).changes;
      const events = this.st.pruneEvents.run().changes;
      return { sessions, events };
    })();
  }
  async dropResumeData(sessionId: string): Promise<void> {
    this.journal.flush();
    this.st.deleteCheckpoint.run(sessionId);
    this.st.deleteEvents.run(sessionId);
  }

  // ---------------------------------------------------------------- ownership (one process: always this one)
  pendingWrites(sessionId: string): Promise<JournalOutcome> | undefined {
    return this.journal.pending(sessionId);
  }
  lastWriteError(): unknown {
    return this.journal.lastError;
  }
  endJournal(): void {}
  claim(sessionId: string): Promise<CheckpointRow | undefined> {
    return this.getCheckpoint(sessionId);
  }
  async stillOwned(): Promise<boolean> {
    return true;
  }
  onTakenOver(): void {}
}
