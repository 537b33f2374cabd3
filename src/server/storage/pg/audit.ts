/**
 * The audit log's chains on PostgreSQL (../audit.ts), for several instances: an append locks its chain's
 * head row (`SELECT … FOR UPDATE`) in its transaction, so appends to one chain are serialised whichever
 * instance makes them, and each entry's `prev_hash` is the hash of the entry before it.
 */
import type pg from 'pg';
import { type AuditAnchor, type AuditQuery, type AuditRows, GENESIS_HASH, type StoredAudit, chainAfter } from '../audit';
import { Where } from '../usage';

/** A pool, or a PgStore's query function with its availability check (the service), for reads. */
interface PgLike {
  query<R extends pg.QueryResultRow>(text: string, params?: unknown[]): Promise<pg.QueryResult<R>>;
}

const num = <T extends { seq: number | string }>(r: T): T => ({ ...r, seq: Number(r.seq) });

export class PgAuditRows implements AuditRows {
  constructor(
    private readonly pool: pg.Pool,
    private readonly reads: PgLike = pool,
  ) {}

  /** One transaction with the chain's head locked. */
  private async locked<T>(orgId: string, work: (c: pg.PoolClient, head: { seq: number; hash: string }) => Promise<T>): Promise<T> {
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN');
      await c.query('INSERT INTO audit_heads (org_id, seq, hash) VALUES ($1, 0, $2) ON CONFLICT (org_id) DO NOTHING', [
        orgId,
        GENESIS_HASH,
      ]);
      const head = (await c.query<{ seq: string; hash: string }>('SELECT seq, hash FROM audit_heads WHERE org_id = $1 FOR UPDATE', [orgId]))
        .rows[0]!;
      const out = await work(c, { seq: Number(head.seq), hash: head.hash });
      await c.query('COMMIT');
      return out;
    } catch (e) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      c.release();
    }
  }

  async append(orgId: string, entries: Array<Omit<StoredAudit, 'org_id' | 'seq' | 'prev_hash' | 'hash'>>): Promise<void> {
    await this.locked(orgId, async (c, head) => {
      const rows = chainAfter(head, orgId, entries);
      const cols = ['org_id', 'seq', 'at', 'actor', 'action', 'target', 'ip', 'outcome', 'prev_hash', 'hash'] as const;
      await c.query(
        `INSERT INTO audit_log (${cols.join(', ')})
         SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[])`,
        cols.map((k) => rows.map((r) => r[k])),
      );
      const last = rows.at(-1);
      if (last) await c.query('UPDATE audit_heads SET seq = $2, hash = $3 WHERE org_id = $1', [orgId, last.seq, last.hash]);
    });
  }

  async query(q: AuditQuery): Promise<StoredAudit[]> {
    const w = new Where((n) => `$${n}`).add('at >= §', q.from).add('at < §', q.to);
    if (q.orgId !== undefined) w.add('org_id = §', q.orgId);
    if (q.action !== undefined) w.add('action = §', q.action);
    w.params.push(q.limit);
    return (
      await this.reads.query<StoredAudit>(`SELECT * FROM audit_log ${w.sql} ORDER BY org_id, seq LIMIT $${w.params.length}`, w.params)
    ).rows.map(num);
  }

  async prune(before: string): Promise<number> {
    const orgs = (await this.reads.query<{ org_id: string }>('SELECT DISTINCT org_id FROM audit_log WHERE at < $1', [before])).rows;
    let n = 0;
    for (const { org_id } of orgs) {
      n += await this.locked(org_id, async (c) => {
        const last = (
          await c.query<{ seq: string; hash: string }>(
            'SELECT seq, hash FROM audit_log WHERE org_id = $1 AND at < $2 ORDER BY seq DESC LIMIT 1',
            [org_id, before],
          )
        ).rows[0];
        if (!last) return 0;
        await c.query(
          `INSERT INTO audit_anchors (org_id, seq, hash, pruned_at) VALUES ($1, $2, $3, $4)
           ON CONFLICT (org_id) DO UPDATE SET seq = EXCLUDED.seq, hash = EXCLUDED.hash, pruned_at = EXCLUDED.pruned_at`,
          [org_id, last.seq, last.hash, new Date().toISOString()],
        );
        return (await c.query('DELETE FROM audit_log WHERE org_id = $1 AND seq <= $2', [org_id, last.seq])).rowCount ?? 0;
      });
    }
    return n;
  }

  async readAll(): Promise<{ entries: StoredAudit[]; anchors: AuditAnchor[]; heads: AuditAnchor[] }> {
    return {
      entries: (await this.reads.query<StoredAudit>('SELECT * FROM audit_log ORDER BY org_id, seq')).rows.map(num),
      anchors: (await this.reads.query<AuditAnchor>('SELECT org_id, seq, hash FROM audit_anchors')).rows.map(num),
      heads: (await this.reads.query<AuditAnchor>('SELECT org_id, seq, hash FROM audit_heads')).rows.map(num),
    };
  }
}
