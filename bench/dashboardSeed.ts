/**
 * The data the dashboard bench reads, seeded in bulk: `keys` API keys in 20 projects (the sessions on the
 * first `activeKeys` of them, the others never used), `sessions` ended session records spread evenly over
 * the last 35 days (2 % ended by an error), one owner with a password; the daily rollup then built in one
 * statement as migration 4 builds it. SQLite: one transaction of prepared statements, the per-row trigger
 * set aside; PostgreSQL: `generate_series`, the trigger off (`session_replication_role`).
 */
import Database from 'better-sqlite3';
import type pg from 'pg';
import { hashPassword } from '../src/server/dashboard/passwords';
import { USAGE_BACKFILL } from '../src/server/storage/usageSchema';

export interface SeedSize {
  keys: number;
  activeKeys: number;
  sessions: number;
}

export const OWNER_EMAIL = 'bench-owner@example.org';
export const OWNER_PASSWORD = 'a bench password of some length';
const DAY_MS = 86_400_000;

/** What the seeded data holds, counted back from the database (a seeding that lost rows is seen). */
export interface SeedCounts {
  keys: number;
  sessions: number;
  rollupRows: number;
  rollupSessions: number;
}

/** Seeds the SQLite file of a data dir the built service made (and closed). */
export async function seedSqlite(file: string, size: SeedSize, now = Date.now()): Promise<SeedCounts> {
  const db = new Database(file);
  try {
    const orgId = (db.prepare("SELECT v FROM meta WHERE k = 'org_id'").get() as { v: string }).v;
    db.prepare(
      `INSERT INTO people (id, org_id, email, email_lower, display_name, role, created_at, password_hash)
       VALUES ('person_bench', ?, ?, ?, 'Bench owner', 'owner', '2026-01-01T00:00:00.000Z', ?)`,
    ).run(orgId, OWNER_EMAIL, OWNER_EMAIL, await hashPassword(OWNER_PASSWORD));
    const triggers = db
      .prepare<[], { name: string; sql: string }>("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'sessions'")
      .all();
    db.transaction(() => {
      const key = db.prepare(
        `INSERT INTO api_keys (id, hash, hint, name, type, project_id, permissions, environment, org_id, created_at)
         VALUES (?, ?, ?, ?, 'project', ?, '["read","write"]', 'live', ?, '2026-01-01T00:00:00.000Z')`,
      );
      for (let i = 1; i <= size.keys; i++) key.run(`key_${i}`, `h${i}`, `svc_proj_…${i}`, `bench ${i}`, `proj_${i % 20}`, orgId);
      for (const t of triggers) db.exec(`DROP TRIGGER ${t.name}`);
      const s = db.prepare(
        `INSERT INTO sessions (id, key_id, org_id, origin, created_at, started_at, ended_at, duration, total_frames, final_chunks, end_reason, audio_seconds)
         VALUES (?, ?, ?, 'ws', ?, ?, ?, 60, 600, 10, ?, ?)`,
      );
      for (let i = 1; i <= size.sessions; i++) {
        const t = new Date(now - Math.floor((i * 35 * DAY_MS) / size.sessions)).toISOString();
        s.run(
          `ses_${i}`,
          `key_${1 + (i % size.activeKeys)}`,
          orgId,
          t,
          t,
          t,
          i % 50 === 0 ? 'decoder failure' : 'client stop',
          30 + (i % 60),
        );
      }
      db.exec(USAGE_BACKFILL);
      for (const t of triggers) db.exec(t.sql);
    })();
    db.exec('ANALYZE');
    const n = (sql: string): number => Number((db.prepare(sql).get() as { n: number | null }).n ?? 0);
    return {
      keys: n('SELECT count(*) AS n FROM api_keys'),
      sessions: n('SELECT count(*) AS n FROM sessions'),
      rollupRows: n('SELECT count(*) AS n FROM usage_daily'),
      rollupSessions: n('SELECT sum(sessions) AS n FROM usage_daily'),
    };
  } finally {
    db.close();
  }
}

/** Seeds a PostgreSQL database the migrations made (`orgId`: its organisation). */
export async function seedPostgres(pool: pg.Pool, orgId: string, size: SeedSize): Promise<SeedCounts> {
  await pool.query(
    `INSERT INTO people (id, org_id, email, email_lower, display_name, role, created_at, password_hash)
     VALUES ('person_bench', $1, $2, $2, 'Bench owner', 'owner', '2026-01-01T00:00:00.000Z', $3)`,
    [orgId, OWNER_EMAIL, await hashPassword(OWNER_PASSWORD)],
  );
  await seedPostgresKeysAndSessions(pool, orgId, size);
  const n = async (sql: string): Promise<number> => Number((await pool.query<{ n: string | null }>(sql)).rows[0]!.n ?? 0);
  return {
    keys: await n('SELECT count(*) AS n FROM api_keys'),
    sessions: await n('SELECT count(*) AS n FROM sessions'),
    rollupRows: await n('SELECT count(*) AS n FROM usage_daily'),
    rollupSessions: await n('SELECT sum(sessions) AS n FROM usage_daily'),
  };
}

/**
 * Bulk-loads `size.keys` project keys and `size.sessions` ended sessions over 35 days on the first
 * `size.activeKeys` of them (2 % ended by an error): the per-row trigger off, the rollup then built in one statement
 * (as migration 4 does). Shared with bench/usage.bench.ts.
 */
export async function seedPostgresKeysAndSessions(
  pool: pg.Pool,
  orgId: string,
  size: Pick<SeedSize, 'keys' | 'activeKeys' | 'sessions'>,
): Promise<void> {
  await pool.query(
    `INSERT INTO api_keys (id, hash, hint, name, type, project_id, permissions, environment, org_id, created_at)
     SELECT 'key_' || i, md5('k' || i), 'svc_proj_…' || i, 'bench ' || i, 'project', 'proj_' || (i % 20), '["read","write"]', 'live', $1,
            '2026-01-01T00:00:00.000Z'
     FROM generate_series(1, $2) AS i`,
    [orgId, size.keys],
  );
  const c = await pool.connect();
  try {
    await c.query("SET session_replication_role = 'replica'");
    await c.query(
      `INSERT INTO sessions (id, key_id, org_id, origin, created_at, started_at, ended_at, duration, total_frames, final_chunks, end_reason, audio_seconds)
       SELECT 'ses_' || i, 'key_' || (1 + i % $2), $1, 'ws', t, t, t, 60, 600, 10,
              CASE WHEN i % 50 = 0 THEN 'decoder failure' ELSE 'client stop' END, 30 + (i % 60)
       FROM generate_series(1, $3) AS i,
            LATERAL (SELECT to_char((now() - ((i::bigint * 35 * 86400) / $3) * interval '1 second') AT TIME ZONE 'UTC',
                             'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS t) AS ts`,
      [orgId, size.activeKeys, size.sessions],
    );
    await c.query("SET session_replication_role = 'origin'");
    await c.query(USAGE_BACKFILL);
    await c.query('ANALYZE');
  } finally {
    c.release();
  }
}
