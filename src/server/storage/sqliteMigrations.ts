/**
 * The SQLite schema as versioned migrations, as PostgreSQL's (pg/migrations.ts): the database's
 * `PRAGMA user_version` is the last migration applied; at open, each later one runs in a transaction of its
 * own that also sets `user_version`, so a migration is applied whole or not at all. The caller logs what was
 * applied (backends.ts).
 *
 * Migration 1 is the schema as it was before versions were kept (`user_version` 0): it creates what is
 * missing and adds the one column added since (`session_checkpoints.final_chunks`), so a data dir of any
 * earlier version, or a new one, reaches version 1 without losing anything. A migration is never edited once
 * released; a change is a new migration, and migrations only add (tables, columns with a default, indexes).
 */
import type Database from 'better-sqlite3';
import { SQLITE_USAGE_AUDIT } from './usageSchema';
import { DASHBOARD_SQL } from './dashboard';
import { INVITES_SQL } from './invites';
import { SECOND_FACTOR_SQL } from './secondFactor';

interface SqliteMigration {
  version: number;
  name: string;
  up(db: Database.Database): void;
}

const BASELINE = `
CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS orgs (id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS api_keys (
  id TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE, hint TEXT NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL,
  project_id TEXT, permissions TEXT NOT NULL, environment TEXT NOT NULL, org_id TEXT NOT NULL,
  created_at TEXT NOT NULL, revoked_at TEXT);
CREATE TABLE IF NOT EXISTS sessions (
  id TEXT PRIMARY KEY, key_id TEXT NOT NULL, org_id TEXT NOT NULL, origin TEXT NOT NULL, created_at TEXT NOT NULL,
  started_at TEXT, ended_at TEXT, duration REAL, total_frames INTEGER NOT NULL DEFAULT 0,
  final_chunks INTEGER NOT NULL DEFAULT 0, end_reason TEXT);
CREATE TABLE IF NOT EXISTS session_checkpoints (
  session_id TEXT PRIMARY KEY, key_id TEXT NOT NULL, org_id TEXT NOT NULL, next_seq INTEGER NOT NULL,
  next_index INTEGER NOT NULL, audio_offset INTEGER NOT NULL, engine TEXT NOT NULL, config TEXT NOT NULL,
  total_frames INTEGER NOT NULL DEFAULT 0, discarded_frames INTEGER NOT NULL DEFAULT 0,
  final_chunks INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL, stopped_at TEXT, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS session_events (
  session_id TEXT NOT NULL, seq INTEGER NOT NULL, json TEXT NOT NULL, PRIMARY KEY (session_id, seq)) WITHOUT ROWID;
`;

/**
 * Migration 3 (the same in PostgreSQL, pg/migrations.ts): people of an organisation (emails unique per
 * organisation, compared in lower case), projects (their id unique per organisation) and their members; a
 * key's person, expiry and the key it was rolled from; an organisation's maximum key lifetime.
 */
export const TEAMS_SQL = `
ALTER TABLE orgs ADD COLUMN max_key_lifetime_days INTEGER;
CREATE TABLE people (
  id TEXT PRIMARY KEY, org_id TEXT NOT NULL, email TEXT NOT NULL, email_lower TEXT NOT NULL, display_name TEXT NOT NULL,
  role TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE UNIQUE INDEX people_email ON people (org_id, email_lower);
CREATE TABLE projects (id TEXT NOT NULL, org_id TEXT NOT NULL, name TEXT NOT NULL, created_at TEXT NOT NULL, PRIMARY KEY (org_id, id));
CREATE TABLE project_members (
  org_id TEXT NOT NULL, project_id TEXT NOT NULL, person_id TEXT NOT NULL, role TEXT NOT NULL, created_at TEXT NOT NULL,
  PRIMARY KEY (org_id, project_id, person_id));
CREATE INDEX project_members_person ON project_members (person_id);
ALTER TABLE api_keys ADD COLUMN person_id TEXT;
ALTER TABLE api_keys ADD COLUMN expires_at TEXT;
ALTER TABLE api_keys ADD COLUMN rolled_from TEXT;
CREATE INDEX api_keys_scope ON api_keys (org_id, project_id, person_id);
`;

/** Columns added to the baseline's tables before versions were kept. */
const ADDED_COLUMNS: Array<[table: string, column: string, definition: string]> = [
  ['session_checkpoints', 'final_chunks', 'INTEGER NOT NULL DEFAULT 0'],
];

const SQLITE_MIGRATIONS: readonly SqliteMigration[] = [
  {
    version: 1,
    name: 'keys, sessions, resume data',
    up(db) {
      db.exec(BASELINE);
      for (const [table, column, definition] of ADDED_COLUMNS) {
        const cols = db.prepare<[], { name: string }>(`PRAGMA table_info(${table})`).all();
        if (!cols.some((c) => c.name === column)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${definition}`);
      }
    },
  },
  {
    version: 2,
    name: 'revocations not yet announced to the other instances',
    up(db) {
      db.exec('CREATE TABLE pending_revocations (key_id TEXT PRIMARY KEY, revoked_at TEXT NOT NULL)');
    },
  },
  {
    version: 3,
    name: 'teams: people, projects, members; key expiry, owner and roll',
    up(db) {
      db.exec(TEAMS_SQL);
    },
  },
  {
    version: 4,
    name: 'usage (last use of keys, audio seconds, daily rollup) and the audit log',
    up(db) {
      db.exec(SQLITE_USAGE_AUDIT);
    },
  },
  {
    version: 5,
    name: 'dashboard: passwords and languages of people, sign-in sessions, failed sign-ins, one-time flashes',
    up(db) {
      db.exec(DASHBOARD_SQL);
    },
  },
  {
    version: 6,
    name: 'dashboard: one-time sign-up codes of invited people',
    up(db) {
      db.exec(INVITES_SQL);
    },
  },
  {
    version: 7,
    name: "dashboard: people's second factor (TOTP secrets, recovery codes, sign-ins waiting for a code)",
    up(db) {
      db.exec(SECOND_FACTOR_SQL);
    },
  },
];

/** The schema version this code writes (the last migration's). */
export const SQLITE_SCHEMA_VERSION = SQLITE_MIGRATIONS[SQLITE_MIGRATIONS.length - 1]!.version;

export interface SqliteMigrationReport {
  /** `user_version` found at open. */
  from: number;
  /** `user_version` after the migrations (from, when there were none to apply or the database is newer). */
  to: number;
  /** The migrations this open applied, in order. */
  applied: Array<{ version: number; name: string }>;
}

/** Applies the migrations after the database's `user_version`, each in its own transaction with the new version. */
export function migrateSqlite(db: Database.Database): SqliteMigrationReport {
  const from = Number(db.pragma('user_version', { simple: true }));
  const applied: SqliteMigrationReport['applied'] = [];
  for (const m of SQLITE_MIGRATIONS) {
    if (m.version <= from) continue;
    try {
      db.transaction(() => {
        m.up(db);
        db.pragma(`user_version = ${m.version}`);
      })();
    } catch (e) {
      throw new Error(`SQLite migration ${m.version} (${m.name}) failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    applied.push({ version: m.version, name: m.name });
  }
  return { from, to: Math.max(from, applied.at(-1)?.version ?? from), applied };
}
