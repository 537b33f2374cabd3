/**
 * The audit log's hash chain on a real SQLite database migrated to the current schema: appends in order,
 * verify finding an altered entry, a missing one and entries removed from the end; retention leaving a chain
 * that still verifies from its anchor; a key's value refused.
 */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { AuditLog, verifyChains } from '../../src/server/storage/audit';
import { createLogger } from '../../src/server/log';
import { SqliteAuditRows } from '../../src/server/storage/sqliteAudit';
import { migrateSqlite } from '../../src/server/storage/sqliteMigrations';

const log = createLogger({ level: 'error', write: () => undefined });

function fresh(): { db: Database.Database; rows: SqliteAuditRows } {
  const db = new Database(':memory:');
  migrateSqlite(db);
  return { db, rows: new SqliteAuditRows(db) };
}

const entry = (i: number) => ({
  at: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(),
  actor: 'master',
  action: 'key.created',
  target: `key_${i}`,
  ip: '10.0.0.1',
  outcome: 'success',
});

describe('the audit chain (SQLite)', () => {
  it('verifies an intact chain and finds an altered entry, a missing one, and a cut end', async () => {
    const { db, rows } = fresh();
    await rows.append('org_a', [entry(1), entry(2)]);
    await rows.append('org_a', [entry(3), entry(4), entry(5)]);
    await rows.append('org_b', [entry(1)]);
    assert.deepEqual(verifyChains(await rows.readAll()), { ok: true, entries: 6, chains: 2 });

    db.prepare("UPDATE audit_log SET target = 'key_x' WHERE org_id = 'org_a' AND seq = 3").run();
    const altered = verifyChains(await rows.readAll());
    assert.deepEqual(altered.broken, {
      org_id: 'org_a',
      seq: 3,
      kind: 'altered',
      reason: 'entry 3 was altered (its hash does not match its fields)',
    });
    db.prepare("UPDATE audit_log SET target = 'key_3' WHERE org_id = 'org_a' AND seq = 3").run();

    db.prepare("DELETE FROM audit_log WHERE org_id = 'org_a' AND seq = 2").run();
    const missing = verifyChains(await rows.readAll()).broken!;
    assert.match(missing.reason, /entry 2 is missing/);
    assert.deepEqual([missing.kind, missing.seq, missing.found], ['missing', 2, 3]);
  });

  it('finds entries removed from the end of a chain (its head remembers)', async () => {
    const { db, rows } = fresh();
    await rows.append('org_a', [entry(1), entry(2), entry(3)]);
    db.prepare('DELETE FROM audit_log WHERE seq = 3').run();
    const cut = verifyChains(await rows.readAll()).broken!;
    assert.match(cut.reason, /entries were removed from its end/);
    assert.deepEqual([cut.kind, cut.found], ['truncated', 3]);
  });

  it('retention deletes the old entries and the rest still verifies from the anchor', async () => {
    const { rows } = fresh();
    await rows.append('org_a', [entry(1), entry(2), entry(3), entry(40)]);
    const audit = new AuditLog(rows, 'org_a', log, 10);
    assert.equal(await audit.prune(Date.UTC(2026, 0, 20)), 3);
    const all = await rows.readAll();
    assert.deepEqual(
      all.entries.map((e) => e.seq),
      [4],
    );
    assert.deepEqual(
      all.anchors.map((a) => a.seq),
      [3],
    );
    assert.deepEqual(verifyChains(all), { ok: true, entries: 1, chains: 1 });
    audit.record({ actor: 'master', action: 'key.revoked', target: 'key_1', ip: null, outcome: 'success' });
    await audit.written();
    assert.equal(verifyChains(await rows.readAll()).ok, true);
    assert.throws(
      () => audit.record({ actor: 'master', action: 'key.created', target: `svc_live_${'A'.repeat(43)}`, ip: null, outcome: 'success' }),
      /never by its value/,
    );
    await audit.close();
  });
});
