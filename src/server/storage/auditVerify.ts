/**
 * `node dist/server.js audit verify [--data-dir DIR | --database URL]`: reads every audit chain (SQLite read
 * only, or PostgreSQL) and checks each link from its anchor or its start to its head (audit.ts). Writes
 * nothing.
 */
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { type VerifyReport, verifyChains } from './audit';
import { redactedUrl } from './backend';
import { DB_FILE } from './db';
import { PgAuditRows } from './pg/audit';
import { SqliteAuditRows } from './sqliteAudit';

export class AuditVerifyError extends Error {}

export async function verifyAudit(o: { dataDir: string; databaseUrl?: string }): Promise<VerifyReport & { where: string }> {
  if (o.databaseUrl) {
    const pool = new pg.Pool({ connectionString: o.databaseUrl, max: 2 });
    try {
      return { ...verifyChains(await new PgAuditRows(pool).readAll()), where: redactedUrl(o.databaseUrl) };
    } catch (e) {
      throw new AuditVerifyError(
        `cannot read the audit log of ${redactedUrl(o.databaseUrl)}: ${e instanceof Error ? e.message : String(e)}`,
      );
    } finally {
      await pool.end().catch(() => undefined);
    }
  }
  const file = path.join(o.dataDir, DB_FILE);
  if (!existsSync(file)) throw new AuditVerifyError(`no database in ${o.dataDir} (${DB_FILE} not found)`);
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return { ...verifyChains(await new SqliteAuditRows(db).readAll()), where: file };
  } catch (e) {
    throw new AuditVerifyError(`cannot read the audit log of ${file}: ${e instanceof Error ? e.message : String(e)}`);
  } finally {
    db.close();
  }
}
