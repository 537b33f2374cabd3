/**
 * Opens what the service keeps and counts, as the command line says: SQLite in the data dir (default; one
 * instance) or PostgreSQL (`--database`); limits in this process (default) or in Redis (`--redis`), with
 * revocation fan-out over Redis pub/sub. A failure to open any of them is a BackendStartError naming what
 * failed (never a password).
 */
import { randomBytes } from 'node:crypto';
import { BackendStartError } from './backend';
import { type BackendCheck, BackendProbe, LOCAL_STORE } from './health';
import { SqliteStore } from './db';
import { ApiKeys, SqliteKeyStore } from './keys';
import { type GivenMasterKey, MasterKeyConflictError } from './masterKey';
import { SQLITE_SCHEMA_VERSION } from './sqliteMigrations';
import { InProcessLimits, LocalRevocations } from './limits';
import type { ServerLogger } from '../log';
import { openPool } from './pg/connect';
import { prepareDatabase } from './pg/migrations';
import { PgStore } from './pg/store';
import { PgTeams } from './pg/teams';
import { connectRedis, openRedis } from './redis/connect';
import { RedisLimits } from './redis/limits';
import { RedisRevocations } from './redis/revocations';
import type { KeyStore, Limits, RevocationFeed, SessionStore } from './stores';
import { type Team, openTeam } from './team';
import { DashboardStore, pgQuery, sqliteQuery } from './dashboard';
import { SecondFactorStore } from './secondFactor';

interface BackendOptions {
  dataDir: string;
  /** `--database` (PostgreSQL URL), or undefined for SQLite in the data dir. */
  databaseUrl?: string;
  /** `--redis`, or undefined for limits in this process. */
  redisUrl?: string;
  instanceId: string;
  /** The master key this instance was started with (DICTEE_MASTER_KEY or DICTEE_MASTER_KEY_FILE), if any. */
  masterKey: GivenMasterKey | undefined;
  announceMasterKey: (key: string) => void;
  concurrencyLimit: number;
  rateLimit: number;
  rateWindowMs: number;
  /** Lease of a concurrency slot in Redis (the slots of a dead instance are free after it). */
  slotLeaseMs: number;
  /** Failed master-key (and, apart, API-key) attempts allowed per client address per minute (default 10). */
  authFailureLimit?: number;
  /** Days audit entries are kept (DICTEE_AUDIT_RETENTION_DAYS; default 365). */
  auditRetentionDays?: number;
  log: ServerLogger;
}

export interface Backends {
  store: SessionStore;
  keys: KeyStore;
  limits: Limits;
  revocations: RevocationFeed;
  /** For the log: `sqlite` or `postgres`, `in-process` or `redis`. */
  storeKind: 'sqlite' | 'postgres';
  limitsKind: 'in-process' | 'redis';
  /** Migrations this start applied (PostgreSQL, SQLite). */
  migrationsApplied: number[];
  /** Whether each backend answers now (`GET /readyz`, the metrics): the store, then Redis when there is one. */
  checks: BackendCheck[];
  /** Usage, session listings, the keys' last use and the audit log (team.ts). */
  team: Team;
  /** The dashboard's accounts, sign-in sessions, locks and flashes (dashboard.ts). */
  dashboard: DashboardStore;
  /** The dashboard's second factor: TOTP secrets, recovery codes, sign-ins waiting for a code (secondFactor.ts). */
  secondFactor: SecondFactorStore;
  /** Closes the limits, then the store (after its queued writes). */
  close(): Promise<void>;
}

export async function openBackends(o: BackendOptions): Promise<Backends> {
  const opened: Array<() => Promise<void>> = [];
  const closeAll = async (): Promise<void> => {
    for (const c of opened.reverse()) await c().catch(() => undefined);
  };
  try {
    let store: SessionStore;
    let keys: KeyStore;
    let migrationsApplied: number[] = [];
    let team: Team;
    let dashboard: DashboardStore;
    let secondFactor: SecondFactorStore;
    const checks: BackendCheck[] = [];
    if (o.databaseUrl) {
      const pool = await openPool(o.databaseUrl);
      opened.push(() => pool.end());
      const prepared = await prepareDatabase(pool, o.masterKey, o.announceMasterKey);
      migrationsApplied = prepared.applied;
      const pg = new PgStore({ pool, orgId: prepared.orgId, instanceId: o.instanceId, log: o.log });
      opened.pop();
      opened.push(() => pg.close());
      store = pg;
      keys = new ApiKeys(pg, prepared.masterHash, new PgTeams((text, params) => pg.query(text, params), prepared.orgId, pg.transaction));
      team = openTeam({ pg }, o.log, o.auditRetentionDays);
      dashboard = new DashboardStore(pgQuery((text, params) => pg.query(text, params)));
      secondFactor = new SecondFactorStore(pgQuery((text, params) => pg.query(text, params)));
      checks.push(new BackendProbe('postgresql', { known: () => pg.availability.up, ping: () => pg.ping() }));
    } else {
      let sqlite: SqliteStore;
      try {
        sqlite = new SqliteStore(o.dataDir, {
          onCheckpointError: (message) =>
            o.log.warn('could not checkpoint the database log; retried every second, nothing is lost', { error: message }),
        });
        opened.push(() => sqlite.close());
        logSqliteMigrations(o.log, sqlite);
        migrationsApplied = sqlite.migrations.applied.map((m) => m.version);
        keys = new SqliteKeyStore(sqlite, o.dataDir, o.masterKey, o.announceMasterKey);
      } catch (e) {
        if (e instanceof MasterKeyConflictError) throw e;
        throw new BackendStartError(`cannot open the data dir ${o.dataDir}: ${e instanceof Error ? e.message : String(e)}`);
      }
      store = sqlite;
      team = openTeam({ sqlite }, o.log, o.auditRetentionDays);
      dashboard = new DashboardStore(sqliteQuery(sqlite.db));
      secondFactor = new SecondFactorStore(sqliteQuery(sqlite.db));
      checks.push(LOCAL_STORE);
    }
    opened.push(() => team.close());
    const used = team.lastUsed;
    if (keys instanceof ApiKeys) keys.onUsed = (keyId) => used.touch(keyId);
    let limits: Limits;
    let revocations: RevocationFeed;
    if (o.redisUrl) {
      const link = await openRedis(o.redisUrl, o.log);
      opened.push(async () => link.close());
      checks.push(new BackendProbe('redis', { known: () => link.up, ping: () => link.redis.ping() }));
      // Unique per process, so that a restarted instance never renews the leases of its previous life.
      const holder = `${o.instanceId}/${randomBytes(4).toString('hex')}`;
      const redisLimits = new RedisLimits({
        link,
        rateLimit: o.rateLimit,
        rateWindowMs: o.rateWindowMs,
        concurrencyLimit: o.concurrencyLimit,
        leaseMs: o.slotLeaseMs,
        holder,
        authFailureLimit: o.authFailureLimit,
        log: o.log,
      });
      opened.push(() => redisLimits.close());
      const feed = new RedisRevocations(link, connectRedis(o.redisUrl, o.log, 'revocations'), keys, o.log);
      opened.push(() => feed.close());
      try {
        await feed.start();
      } catch (e) {
        throw new BackendStartError(`cannot subscribe to Redis revocations: ${e instanceof Error ? e.message : String(e)}`);
      }
      limits = redisLimits;
      revocations = feed;
    } else {
      limits = new InProcessLimits(o.rateLimit, o.rateWindowMs, o.concurrencyLimit, undefined, o.authFailureLimit);
      revocations = new LocalRevocations(keys);
    }
    return {
      store,
      keys,
      limits,
      revocations,
      storeKind: o.databaseUrl ? 'postgres' : 'sqlite',
      limitsKind: o.redisUrl ? 'redis' : 'in-process',
      migrationsApplied,
      checks,
      team,
      dashboard,
      secondFactor,
      close: closeAll,
    };
  } catch (e) {
    await closeAll();
    throw e;
  }
}

/** The SQLite migrations of this start, each logged with the schema version (`user_version`) it brought. */
function logSqliteMigrations(log: ServerLogger, sqlite: SqliteStore): void {
  const { from, to, applied } = sqlite.migrations;
  for (const m of applied) log.info('SQLite migration applied', { version: m.version, name: m.name, user_version: m.version });
  if (applied.length) log.info('SQLite schema upgraded', { from_user_version: from, user_version: to });
  if (from > SQLITE_SCHEMA_VERSION) {
    log.warn(
      'the database was written by a newer version of the service; downgrades are not supported (restore a backup taken before the upgrade)',
      {
        user_version: from,
        known_user_version: SQLITE_SCHEMA_VERSION,
      },
    );
  }
}
