/**
 * What `GET /v1/usage` and `GET /v1/sessions` read, and where `last_used_at` is written: the same queries on
 * SQLite (here) and PostgreSQL (pg/usage.ts), with their placeholders. Usage comes from the daily rollup
 * (usageSchema.ts: kept by a trigger as sessions end), so a month over a million sessions reads a few
 * thousand rows; the session listing reads the records (indexed by organisation or key, and creation).
 * Never a transcript: the records hold none.
 */
import type Database from 'better-sqlite3';
import type { LastUse } from './lastUsed';

/** What a reader may see: every organisation (the master key), or one, or one project of one. */
export interface UsageScope {
  /** undefined: every organisation. */
  orgId?: string;
  /** A project key's project. */
  projectId?: string;
  /** A person's personal key: that person's (http/scope.ts). */
  personId?: string;
  /** A test key: only what test keys did. */
  testOnly?: boolean;
}

export type UsageGroup = 'key' | 'project' | 'person' | 'day';

export interface UsageQuery {
  scope: UsageScope;
  /** First and last UTC day (YYYY-MM-DD), both included. */
  fromDay: string;
  toDay: string;
  groupBy: UsageGroup;
}

export interface UsageLine {
  group: string | null;
  sessions: number;
  audio_seconds: number;
  errors: Record<string, number>;
}

export interface SessionQuery {
  scope: UsageScope;
  keyId?: string;
  projectId?: string;
  state?: 'live' | 'ended';
  /** Created at or after `from`, before `to` (ISO). */
  from: string;
  to: string;
  limit: number;
}

export interface SessionListing {
  session_id: string;
  key_id: string;
  project_id: string | null;
  org_id: string;
  origin: string;
  /** `live` (started, not ended), `ended`, or `initialised` (an HTTP init no WebSocket took yet). */
  state: 'live' | 'ended' | 'initialised';
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  duration: number | null;
  audio_seconds: number | null;
  final_chunks: number;
  end_reason: string | null;
}

/** Usage and session listings, and the keys' last use, on one store. */
export interface UsageReader {
  usage(q: UsageQuery): Promise<UsageLine[]>;
  sessions(q: SessionQuery): Promise<SessionListing[]>;
  writeLastUse(uses: LastUse[]): Promise<void>;
}

/** The rollup summed in the database by group (`grp`: the key, project, person or day) and end code. */
export interface RollupRow {
  grp: string | null;
  code: string;
  sessions: number | string;
  audio_seconds: number;
}

/** The rollup's rows summed by the group asked for. */
export function sumUsage(rows: RollupRow[], _groupBy: UsageGroup): UsageLine[] {
  const lines = new Map<string | null, UsageLine>();
  for (const r of rows) {
    const group = r.grp;
    let line = lines.get(group);
    if (!line) lines.set(group, (line = { group, sessions: 0, audio_seconds: 0, errors: {} }));
    const n = Number(r.sessions);
    line.sessions += n;
    line.audio_seconds += Number(r.audio_seconds);
    if (r.code && n) line.errors[r.code] = (line.errors[r.code] ?? 0) + n;
  }
  return [...lines.values()]
    .filter((l) => l.sessions > 0)
    .map((l) => ({ ...l, audio_seconds: Math.round(l.audio_seconds * 1000) / 1000 }))
    .sort((a, b) => String(a.group ?? '').localeCompare(String(b.group ?? '')));
}

/** A WHERE clause built with the store's placeholders (`?` or `$n`). */
export class Where {
  readonly params: unknown[] = [];
  private readonly parts: string[] = [];
  constructor(private readonly placeholder: (n: number) => string) {}
  add(sql: string, ...values: unknown[]): this {
    let text = sql;
    for (const v of values) {
      this.params.push(v);
      text = text.replace('§', this.placeholder(this.params.length));
    }
    this.parts.push(text);
    return this;
  }
  get sql(): string {
    return this.parts.length ? `WHERE ${this.parts.join(' AND ')}` : '';
  }
}

/** The key-side conditions of a scope (a project's, a person's, test keys only); the key is joined as `k`. */
function scopeWhere(w: Where, scope: UsageScope): void {
  if (scope.projectId !== undefined) w.add('k.project_id = §', scope.projectId);
  if (scope.personId !== undefined) w.add('k.person_id = §', scope.personId);
  if (scope.testOnly) w.add("k.environment = 'test'");
}

/** The rollup query and the session listing, for either store. */
export function usageSql(q: UsageQuery, placeholder: (n: number) => string): { sql: string; params: unknown[] } {
  const w = new Where(placeholder).add('u.day >= §', q.fromDay).add('u.day <= §', q.toDay);
  if (q.scope.orgId !== undefined) w.add('u.org_id = §', q.scope.orgId);
  scopeWhere(w, q.scope);
  const grp = { key: 'u.key_id', person: 'k.person_id', project: 'k.project_id', day: 'u.day' }[q.groupBy];
  // The join is needed only to group or scope by the key's project, person or environment.
  const needsKey =
    q.groupBy === 'project' ||
    q.groupBy === 'person' ||
    q.scope.projectId !== undefined ||
    q.scope.personId !== undefined ||
    q.scope.testOnly === true;
  const join = needsKey ? 'LEFT JOIN api_keys k ON k.id = u.key_id' : '';
  return {
    sql: `SELECT ${grp} AS grp, u.code, SUM(u.sessions) AS sessions, SUM(u.audio_seconds) AS audio_seconds
          FROM usage_daily u ${join} ${w.sql} GROUP BY ${grp}, u.code`,
    params: w.params,
  };
}

export function sessionsSql(q: SessionQuery, placeholder: (n: number) => string): { sql: string; params: unknown[] } {
  const w = new Where(placeholder).add('s.created_at >= §', q.from).add('s.created_at < §', q.to);
  if (q.scope.orgId !== undefined) w.add('s.org_id = §', q.scope.orgId);
  scopeWhere(w, q.scope);
  if (q.keyId !== undefined) w.add('s.key_id = §', q.keyId);
  if (q.projectId !== undefined) w.add('k.project_id = §', q.projectId);
  if (q.state === 'live') w.add('s.ended_at IS NULL AND s.started_at IS NOT NULL');
  if (q.state === 'ended') w.add('s.ended_at IS NOT NULL');
  w.params.push(q.limit);
  return {
    sql: `SELECT s.id AS session_id, s.key_id, k.project_id, s.org_id, s.origin,
            CASE WHEN s.ended_at IS NOT NULL THEN 'ended' WHEN s.started_at IS NULL THEN 'initialised' ELSE 'live' END AS state,
            s.created_at, s.started_at, s.ended_at, s.duration, s.audio_seconds, s.final_chunks, s.end_reason
          FROM sessions s LEFT JOIN api_keys k ON k.id = s.key_id ${w.sql}
          ORDER BY s.created_at DESC, s.id DESC LIMIT ${placeholder(w.params.length)}`,
    params: w.params,
  };
}

export class SqliteUsage implements UsageReader {
  constructor(private readonly db: Database.Database) {}

  async usage(q: UsageQuery): Promise<UsageLine[]> {
    const { sql, params } = usageSql(q, () => '?');
    return sumUsage(this.db.prepare<unknown[], RollupRow>(sql).all(...params), q.groupBy);
  }

  async sessions(q: SessionQuery): Promise<SessionListing[]> {
    const { sql, params } = sessionsSql(q, () => '?');
    return this.db.prepare<unknown[], SessionListing>(sql).all(...params);
  }

  async writeLastUse(uses: LastUse[]): Promise<void> {
    const st = this.db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)');
    this.db.transaction(() => {
      for (const u of uses) st.run(u.at, u.id, u.at);
    })();
  }
}
