/**
 * `node dist/server.js users add --email E --role R --password-stdin [--org ID] [--name N]` (docs/server.md):
 * a person with a dashboard password, in the store of the service (SQLite in the data dir, or PostgreSQL),
 * which may be running. The organisation is the one the master key's key listing shows (the store's first)
 * unless --org names another. A person of that email already there gets the password (and the role) set.
 * Either is audited (`person.created` or `person.updated`, the actor the command line's) on the organisation's
 * chain, appended as the service appends (audit.ts `AuditRows`: the chain's head read under the write lock).
 */
import { randomUUID } from 'node:crypto';
import { DashboardStore, pgQuery, sqliteQuery } from './dashboard';
import { existsSync } from 'node:fs';
import { errorMessage } from '../../shared/errors';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { AuditRows } from './audit';
import type { AuditAction } from './auditSink';
import { DB_FILE, type SqliteStore } from './db';
import { PgAuditRows } from './pg/audit';
import { SqliteAuditRows } from './sqliteAudit';
import { migrateSqlite } from './sqliteMigrations';
import { openPool } from './pg/connect';
import { MASTER_HASH_META } from './masterKey';
import { PgTeams } from './pg/teams';
import { poolTransaction } from './pg/transaction';
import { SqliteTeams } from './teamsSqlite';
import { type OrgRole, type TeamStore, TeamRequestError } from './teams';

export class UsersAddError extends Error {}

const NOT_STARTED = 'this database has no master key yet: start the service once first';

/** The organisation of a PostgreSQL database that the service has started on (its migrations applied, a master key set). */
async function startedOrg(pool: {
  query(text: string, params: unknown[]): Promise<{ rows: Array<{ k: string; v: string }> }>;
}): Promise<string> {
  let rows: Array<{ k: string; v: string }>;
  try {
    rows = (await pool.query("SELECT k, v FROM meta WHERE k IN ('org_id', $1)", [MASTER_HASH_META])).rows;
  } catch (e) {
    // No `meta` table (42P01): the service never started on it. Anything else (unreachable…) as it is.
    if ((e as { code?: unknown }).code === '42P01') throw new UsersAddError(NOT_STARTED);
    throw e;
  }
  const org = rows.find((r) => r.k === 'org_id')?.v;
  if (!org || !rows.some((r) => r.k === MASTER_HASH_META)) throw new UsersAddError(NOT_STARTED);
  return org;
}

interface UserToAdd {
  email: string;
  role: OrgRole;
  passwordHash: string;
  orgId?: string;
  name?: string;
}

/**
 * Adds the person, or sets an existing one's password and role, then appends the audit entry (`actor`: the
 * command line's, usersCommand.ts `cliActor`) to the organisation's chain.
 */
export async function addUser(
  where: { dataDir: string; databaseUrl?: string },
  u: UserToAdd,
  actor: string,
): Promise<{ personId: string; orgId: string; created: boolean }> {
  let teams: TeamStore;
  let dash: DashboardStore;
  let audit: AuditRows;
  let close: () => Promise<void>;
  if (where.databaseUrl) {
    const pool = await openPool(where.databaseUrl);
    try {
      // The database as the service made it (its schema, organisation and master key): read, never settled
      // here, so that neither the master key nor its origin (given or generated) is needed.
      const orgId = await startedOrg(pool);
      teams = new PgTeams((text, params) => pool.query(text, params), orgId, poolTransaction(pool));
      dash = new DashboardStore(pgQuery((text, params) => pool.query(text, params)));
      // The chain's head row locked FOR UPDATE in the appending transaction, as every instance appends.
      audit = new PgAuditRows(pool);
    } catch (e) {
      await pool.end();
      throw e;
    }
    close = () => pool.end();
  } else {
    // The database as the running service has it (WAL: it may be running), without the service's checkpointer thread.
    const file = path.join(where.dataDir, DB_FILE);
    if (!existsSync(file)) throw new UsersAddError(`no database in ${where.dataDir}: start the service once with this --data-dir first`);
    const db = new Database(file);
    try {
      db.pragma('busy_timeout = 5000');
      migrateSqlite(db);
      const org = db.prepare<[], { v: string }>("SELECT v FROM meta WHERE k = 'org_id'").get();
      if (!org) throw new UsersAddError(`the database in ${where.dataDir} has no organisation yet: start the service once first`);
      teams = new SqliteTeams({ db, orgId: org.v } as SqliteStore);
      dash = new DashboardStore(sqliteQuery(db));
      // BEGIN IMMEDIATE: the chain's head read under the database's write lock, so a running service's appends
      // and this one follow each other.
      audit = new SqliteAuditRows(db);
    } catch (e) {
      db.close();
      throw e;
    }
    close = async () => void db.close();
  }
  try {
    const orgId = u.orgId ?? teams.defaultOrgId;
    if (!(await teams.getOrg(orgId))) throw new UsersAddError(`--org: no organisation ${JSON.stringify(orgId)}`);
    const existing = (await dash.accountsByEmail(u.email)).find((a) => a.person.org_id === orgId);
    let personId: string;
    if (existing) {
      personId = existing.person.id;
      // The organisation's last owner is not demoted here either (teams.ts LAST_OWNER).
      await teams.updatePerson(personId, { role: u.role, ...(u.name ? { display_name: u.name } : {}) }).catch((e: unknown) => {
        throw e instanceof TeamRequestError && e.field === 'role' ? new UsersAddError(`--${e.message}`) : e;
      });
    } else {
      personId = `person_${randomUUID()}`;
      await teams.createPerson({
        id: personId,
        org_id: orgId,
        email: u.email,
        display_name: u.name ?? u.email,
        role: u.role,
        created_at: new Date().toISOString(),
      });
    }
    await dash.setPassword(personId, u.passwordHash);
    // A password set again ends the sessions signed in with the one before.
    await dash.deletePersonSessions(personId);
    const action: AuditAction = existing ? 'person.updated' : 'person.created';
    // As the API and the dashboard record a person's creation or change: ids only, never the email or the password.
    await audit
      .append(orgId, [{ at: new Date().toISOString(), actor, action, target: personId, ip: null, outcome: 'success' }])
      .catch((e: unknown) => {
        throw new Error(
          `${existing ? 'password and role set' : 'person added'} (${personId}), but the audit entry could not be written: ${errorMessage(
            e,
          )}`,
        );
      });
    return { personId, orgId, created: !existing };
  } finally {
    await close();
  }
}
