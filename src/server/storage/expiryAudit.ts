/**
 * `key.expired` in the audit log, once per key across every instance: each instance claims the keys whose
 * expiry has passed and that no instance has recorded yet (`api_keys.expiry_audited_at`, schema version 4)
 * in one UPDATE … RETURNING, so two instances never both claim a key, and records what it claimed.
 */
import type { AuditLog } from './audit';
import type { SqliteStore } from './db';
import type { PgStore } from './pg/store';

interface Claimed {
  id: string;
  org_id: string;
}

const CLAIM = (p: (n: number) => string): string =>
  `UPDATE api_keys SET expiry_audited_at = ${p(1)}
   WHERE expires_at IS NOT NULL AND expires_at <= ${p(1)} AND expiry_audited_at IS NULL AND revoked_at IS NULL
   RETURNING id, org_id`;

/** Claims the keys newly expired at `now` (ISO) and records `key.expired` for each (actor `system`). */
export async function auditExpiredKeys(
  store: { sqlite: SqliteStore } | { pg: PgStore },
  audit: AuditLog,
  now = new Date().toISOString(),
): Promise<number> {
  const claimed: Claimed[] =
    'sqlite' in store
      ? store.sqlite.db.prepare<[string, string], Claimed>(CLAIM(() => '?')).all(now, now)
      : (
          await store.pg.query<Claimed>(
            CLAIM((n) => `$${n}`),
            [now],
          )
        ).rows;
  for (const k of claimed) {
    audit.record({ actor: 'system', action: 'key.expired', target: k.id, ip: null, outcome: 'success', org_id: k.org_id });
  }
  return claimed.length;
}
