/**
 * The PostgreSQL schema as versioned migrations, applied at start under an advisory lock (several
 * instances may start at once: one applies, the others wait and find them applied), and what the first
 * start creates: the organisation and the master key's hash (the one given, or one generated and shown
 * once; masterKey.ts: a database never gets a second one).
 *
 * A migration is never edited once released; a change is a new migration. Migrations only add (tables,
 * nullable columns, indexes) so that during a rolling upgrade the older instances still running keep
 * working on the newer schema (docs/deploy.md).
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { errorMessage } from '../../../shared/errors';
import { BackendStartError } from '../backend';
import { PG_USAGE_AUDIT } from '../usageSchema';
import {
  type GivenMasterKey,
  MASTER_HASH_META,
  MASTER_ORIGIN_META,
  MasterKeyConflictError,
  settleMasterKey,
  storedMasterKey,
} from '../masterKey';
import { TEAMS_SQL } from '../sqliteMigrations';
import { DASHBOARD_SQL } from '../dashboard';
import { INVITES_SQL } from '../invites';
import { SECOND_FACTOR_SQL } from '../secondFactor';

interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * Times are ISO-8601 UTC text, as in the SQLite schema (db.ts), so both stores compare and return them
 * alike. `session_checkpoints.epoch` is the fencing token of the instance that owns the session's journal
 * (`owner`, informative): a claim raises it, and a write of an older epoch is refused.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'keys, sessions, resume data',
    sql: `
CREATE TABLE meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE orgs (id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE, hint TEXT NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL,
  project_id TEXT, permissions TEXT NOT NULL, environment TEXT NOT NULL, org_id TEXT NOT NULL REFERENCES orgs (id),
  created_at TEXT NOT NULL, revoked_at TEXT);
CREATE TABLE sessions (
  id TEXT PRIMARY KEY, key_id TEXT NOT NULL, org_id TEXT NOT NULL, origin TEXT NOT NULL, created_at TEXT NOT NULL,
  started_at TEXT, ended_at TEXT, duration DOUBLE PRECISION, total_frames BIGINT NOT NULL DEFAULT 0,
  final_chunks INTEGER NOT NULL DEFAULT 0, end_reason TEXT);
CREATE TABLE session_checkpoints (
  session_id TEXT PRIMARY KEY, key_id TEXT NOT NULL, org_id TEXT NOT NULL, next_seq INTEGER NOT NULL,
  next_index INTEGER NOT NULL, audio_offset BIGINT NOT NULL, engine TEXT NOT NULL, config TEXT NOT NULL,
  total_frames BIGINT NOT NULL DEFAULT 0, discarded_frames BIGINT NOT NULL DEFAULT 0,
  final_chunks INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL, stopped_at TEXT, updated_at TEXT NOT NULL,
  owner TEXT NOT NULL, epoch BIGINT NOT NULL DEFAULT 1);
CREATE INDEX session_checkpoints_stopped ON session_checkpoints (stopped_at);
CREATE INDEX session_checkpoints_updated ON session_checkpoints (updated_at);
CREATE INDEX sessions_ended ON sessions (COALESCE(ended_at, created_at));
CREATE TABLE session_events (
  session_id TEXT NOT NULL, seq INTEGER NOT NULL, json TEXT NOT NULL, PRIMARY KEY (session_id, seq));
`,
  },
  {
    version: 2,
    name: 'revocations not yet announced to the other instances',
    sql: 'CREATE TABLE pending_revocations (key_id TEXT PRIMARY KEY, revoked_at TEXT NOT NULL);',
  },
  {
    version: 3,
    name: 'teams: people, projects, members; key expiry, owner and roll',
    sql: TEAMS_SQL,
  },
  // Version 3 is another change's (organisations, people, projects); versions are applied in order, gaps skipped.
  { version: 4, name: 'usage (last use of keys, audio seconds, daily rollup) and the audit log', sql: PG_USAGE_AUDIT },
  {
    version: 5,
    name: 'dashboard: passwords and languages of people, sign-in sessions, failed sign-ins, one-time flashes',
    sql: DASHBOARD_SQL,
  },
  { version: 6, name: 'dashboard: one-time sign-up codes of invited people', sql: INVITES_SQL },
  {
    version: 7,
    name: "dashboard: people's second factor (TOTP secrets, recovery codes, sign-ins waiting for a code)",
    sql: SECOND_FACTOR_SQL,
  },
];

/** The key of the advisory lock taken while migrating ("dictee" in ASCII). */
const MIGRATION_LOCK = 0x646963746565;

interface Prepared {
  orgId: string;
  masterHash: string;
  /** Versions this start applied (empty when another instance, or an earlier start, had). */
  applied: number[];
}

/**
 * Applies the migrations not yet applied, then makes sure the organisation and the master key's hash
 * exist, all under the advisory lock. Throws a BackendStartError naming the migration that failed.
 */
export async function prepareDatabase(
  pool: pg.Pool,
  /** The master key this instance was started with (a string: from DICTEE_MASTER_KEY), if any. */
  given: GivenMasterKey | string | undefined,
  announce: (masterKey: string) => void,
): Promise<Prepared> {
  const g = typeof given === 'string' ? { key: given, source: 'DICTEE_MASTER_KEY' } : given;
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (e) {
    throw new BackendStartError(`cannot connect to PostgreSQL: ${errorMessage(e)}`);
  }
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      const applied = await applyMigrations(client);
      const orgId = await ensureOrg(client);
      const masterHash = await ensureMasterHash(client, g, announce);
      return { orgId, masterHash, applied };
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    }
  } catch (e) {
    if (e instanceof BackendStartError || e instanceof MasterKeyConflictError) throw e;
    throw new BackendStartError(`cannot prepare the PostgreSQL database: ${errorMessage(e)}`);
  } finally {
    client.release();
  }
}

async function applyMigrations(client: pg.PoolClient): Promise<number[]> {
  await client.query(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
  );
  const done = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
  const applied: number[] = [];
  for (const m of MIGRATIONS) {
    if (done.has(m.version)) continue;
    try {
      await client.query('BEGIN');
      await client.query(m.sql);
      await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
        m.version,
        m.name,
        new Date().toISOString(),
      ]);
      await client.query('COMMIT');
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw new BackendStartError(`PostgreSQL migration ${m.version} (${m.name}) failed: ${errorMessage(e)}`);
    }
    applied.push(m.version);
  }
  return applied;
}

async function ensureOrg(client: pg.PoolClient): Promise<string> {
  const found = await client.query<{ v: string }>("SELECT v FROM meta WHERE k = 'org_id'");
  if (found.rows[0]) return found.rows[0].v;
  const id = `org_${randomUUID()}`;
  await client.query('BEGIN');
  await client.query('INSERT INTO orgs (id, name, created_at) VALUES ($1, $2, $3)', [id, 'default', new Date().toISOString()]);
  await client.query("INSERT INTO meta (k, v) VALUES ('org_id', $1)", [id]);
  await client.query('COMMIT');
  return id;
}

/** The database's master key, settled with the one given (masterKey.ts); recorded when the database had none. */
async function ensureMasterHash(
  client: pg.PoolClient,
  given: GivenMasterKey | undefined,
  announce: (masterKey: string) => void,
): Promise<string> {
  const rows = (
    await client.query<{ k: string; v: string }>('SELECT k, v FROM meta WHERE k = ANY($1)', [[MASTER_HASH_META, MASTER_ORIGIN_META]])
  ).rows;
  const get = (k: string): string | undefined => rows.find((r) => r.k === k)?.v;
  const where = 'the PostgreSQL database';
  const settled = settleMasterKey(storedMasterKey(get(MASTER_HASH_META), get(MASTER_ORIGIN_META), where), given, where);
  if (settled.record) {
    await client.query('BEGIN');
    await client.query('INSERT INTO meta (k, v) VALUES ($1, $2), ($3, $4) ON CONFLICT (k) DO UPDATE SET v = excluded.v', [
      MASTER_HASH_META,
      settled.record.hash,
      MASTER_ORIGIN_META,
      settled.record.origin,
    ]);
    await client.query('COMMIT');
  }
  if (settled.generated) announce(settled.generated);
  return settled.hash;
}
