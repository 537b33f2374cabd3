/** Usage, the session listing and the keys' last use on PostgreSQL: the queries of ../usage.ts with `$n` placeholders. */
import type { LastUse } from '../lastUsed';
import {
  type RollupRow,
  type SessionListing,
  type SessionQuery,
  type UsageLine,
  type UsageQuery,
  type UsageReader,
  sessionsSql,
  sumUsage,
  usageSql,
} from '../usage';
import type { PgStore } from './store';

const dollar = (n: number): string => `$${n}`;

export class PgUsage implements UsageReader {
  constructor(private readonly store: PgStore) {}

  async usage(q: UsageQuery): Promise<UsageLine[]> {
    const { sql, params } = usageSql(q, dollar);
    return sumUsage((await this.store.query<RollupRow>(sql, params)).rows, q.groupBy);
  }

  async sessions(q: SessionQuery): Promise<SessionListing[]> {
    const { sql, params } = sessionsSql(q, dollar);
    return (await this.store.query<SessionListing>(sql, params)).rows.map((r) => ({
      ...r,
      duration: r.duration === null ? null : Number(r.duration),
      audio_seconds: r.audio_seconds === null ? null : Number(r.audio_seconds),
    }));
  }

  async writeLastUse(uses: LastUse[]): Promise<void> {
    await this.store.query(
      `UPDATE api_keys k SET last_used_at = v.at FROM unnest($1::text[], $2::text[]) AS v(id, at)
       WHERE k.id = v.id AND (k.last_used_at IS NULL OR k.last_used_at < v.at)`,
      [uses.map((u) => u.id), uses.map((u) => u.at)],
    );
  }
}
