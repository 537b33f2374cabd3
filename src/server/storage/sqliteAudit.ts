/**
 * The audit log's chains on SQLite (audit.ts): each batch in one `BEGIN IMMEDIATE` transaction, the chain's head
 * read under the database's write lock, so that the service and `users add` (another process on the same file)
 * append one after the other.
 */
import type Database from 'better-sqlite3';
import { type AuditAnchor, type AuditQuery, type AuditRows, GENESIS_HASH, type StoredAudit, chainAfter } from './audit';
import { Where } from './usage';

export class SqliteAuditRows implements AuditRows {
  constructor(private readonly db: Database.Database) {}

  async append(orgId: string, entries: Array<Omit<StoredAudit, 'org_id' | 'seq' | 'prev_hash' | 'hash'>>): Promise<void> {
    const head = this.db.prepare<[string], { seq: number; hash: string }>('SELECT seq, hash FROM audit_heads WHERE org_id = ?');
    const insert = this.db.prepare(
      `INSERT INTO audit_log (org_id, seq, at, actor, action, target, ip, outcome, prev_hash, hash)
       VALUES (@org_id, @seq, @at, @actor, @action, @target, @ip, @outcome, @prev_hash, @hash)`,
    );
    const setHead = this.db.prepare(
      'INSERT INTO audit_heads (org_id, seq, hash) VALUES (?, ?, ?) ON CONFLICT (org_id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash',
    );
    this.db
      .transaction(() => {
        const rows = chainAfter(head.get(orgId) ?? { seq: 0, hash: GENESIS_HASH }, orgId, entries);
        for (const r of rows) insert.run(r);
        const last = rows.at(-1);
        if (last) setHead.run(orgId, last.seq, last.hash);
      })
      .immediate();
  }

  async query(q: AuditQuery): Promise<StoredAudit[]> {
    const w = new Where(() => '?').add('at >= §', q.from).add('at < §', q.to);
    if (q.orgId !== undefined) w.add('org_id = §', q.orgId);
    if (q.action !== undefined) w.add('action = §', q.action);
    return this.db
      .prepare<unknown[], StoredAudit>(`SELECT * FROM audit_log ${w.sql} ORDER BY org_id, seq LIMIT ?`)
      .all(...w.params, q.limit);
  }

  async prune(before: string): Promise<number> {
    return this.db
      .transaction(() => {
        const last = this.db
          .prepare<[string], { org_id: string; seq: number }>('SELECT org_id, MAX(seq) AS seq FROM audit_log WHERE at < ? GROUP BY org_id')
          .all(before);
        let n = 0;
        for (const { org_id, seq } of last) {
          const hash = this.db
            .prepare<[string, number], { hash: string }>('SELECT hash FROM audit_log WHERE org_id = ? AND seq = ?')
            .get(org_id, seq)!.hash;
          this.db
            .prepare(
              'INSERT INTO audit_anchors (org_id, seq, hash, pruned_at) VALUES (?, ?, ?, ?) ON CONFLICT (org_id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, pruned_at = excluded.pruned_at',
            )
            .run(org_id, seq, hash, new Date().toISOString());
          n += this.db.prepare('DELETE FROM audit_log WHERE org_id = ? AND seq <= ?').run(org_id, seq).changes;
        }
        return n;
      })
      .immediate();
  }

  async readAll(): Promise<{ entries: StoredAudit[]; anchors: AuditAnchor[]; heads: AuditAnchor[] }> {
    return {
      entries: this.db.prepare<[], StoredAudit>('SELECT * FROM audit_log ORDER BY org_id, seq').all(),
      anchors: this.db.prepare<[], AuditAnchor>('SELECT org_id, seq, hash FROM audit_anchors').all(),
      heads: this.db.prepare<[], AuditAnchor>('SELECT org_id, seq, hash FROM audit_heads').all(),
    };
  }
}
