/**
 * What usage and the audit log need of a store, opened beside it (backends.ts): the usage and session
 * listings, the keys' last use (written in batches), the audit log with its retention.
 */
import type { ServerLogger } from '../log';
import { AuditLog, DEFAULT_AUDIT_RETENTION_DAYS } from './audit';
import { DashboardData } from './dashboardData';
import { Invites } from './invites';
import type { SqliteStore } from './db';
import { auditExpiredKeys } from './expiryAudit';
import { LastUsed } from './lastUsed';
import { PgAuditRows } from './pg/audit';
import type { PgStore } from './pg/store';
import { PgUsage } from './pg/usage';
import { SqliteAuditRows } from './sqliteAudit';
import { SqliteUsage, type UsageReader } from './usage';

export interface Team {
  usage: UsageReader;
  audit: AuditLog;
  lastUsed: LastUsed;
  /** The dashboard's reads (usage by day or hour, sessions, keys, the audit log filtered), in a person's view. */
  dashboard: DashboardData;
  /** The dashboard's one-time sign-up codes (invites.ts). */
  invites: Invites;
  /** Records `key.expired` for the keys whose expiry has passed, once across instances (expiryAudit.ts). */
  auditExpiries(): Promise<number>;
  close(): Promise<void>;
}

export function openTeam(
  store: { sqlite: SqliteStore } | { pg: PgStore },
  log: ServerLogger,
  auditRetentionDays = DEFAULT_AUDIT_RETENTION_DAYS,
): Team {
  const usage = 'sqlite' in store ? new SqliteUsage(store.sqlite.db) : new PgUsage(store.pg);
  const rows =
    'sqlite' in store ? new SqliteAuditRows(store.sqlite.db) : new PgAuditRows(store.pg.pgPool, { query: (t, p) => store.pg.query(t, p) });
  const orgId = 'sqlite' in store ? store.sqlite.orgId : store.pg.orgId;
  const audit = new AuditLog(rows, orgId, log, auditRetentionDays);
  const lastUsed = new LastUsed((uses) => usage.writeLastUse(uses), log);
  const dashboard = new DashboardData(
    'sqlite' in store
      ? { all: async <T>(sql: string, params: unknown[]) => store.sqlite.db.prepare(sql).all(...params) as T[], placeholder: () => '?' }
      : { all: async <T>(sql: string, params: unknown[]) => (await store.pg.query(sql, params)).rows as T[], placeholder: (n) => `$${n}` },
  );
  const invites = new Invites(
    'sqlite' in store
      ? {
          all: async <T>(sql: string, params: unknown[]) => store.sqlite.db.prepare(sql).all(...params) as T[],
          run: async (sql, params) => store.sqlite.db.prepare(sql).run(...params).changes,
          placeholder: () => '?',
        }
      : {
          all: async <T>(sql: string, params: unknown[]) => (await store.pg.query(sql, params)).rows as T[],
          run: async (sql, params) => (await store.pg.query(sql, params)).rowCount ?? 0,
          placeholder: (n) => `$${n}`,
        },
  );
  return {
    usage,
    audit,
    lastUsed,
    dashboard,
    invites,
    auditExpiries: () => auditExpiredKeys(store, audit),
    async close() {
      await lastUsed.close();
      await audit.close();
    },
  };
}
