/**
 * What the dashboard's Usage, Sessions and Audit log pages read, in the signed-in person's view
 * (`ViewScope`): an owner or admin of the organisation sees all of it, anyone else their own keys' and the
 * keys of the projects where they are a project admin. The same SQL on SQLite and PostgreSQL (placeholders
 * `?` or `$n`). Usage over days reads the daily rollup (usageSchema.ts), so a month over a million sessions
 * reads a few thousand rows; usage by hour (the last 24 hours) reads the session records of that day
 * through their index on (org_id, created_at). Never a transcript: the records hold none.
 */
import type { StoredAudit } from './audit';
import type { OrgRole } from './teams';
import { END_CODE } from './usageSchema';
import { type SessionListing, Where } from './usage';

/** What a signed-in person sees. */
export interface ViewScope {
  orgId: string;
  /** The whole organisation (an owner or admin of it). */
  all: boolean;
  /** Their own keys (personal keys of this person). */
  personId: string;
  /** The projects where they are a project admin: those projects' keys. */
  projectIds: readonly string[];
}

/** The view of a person of this role with these project memberships (`role` of each: admin or member). */
export function viewScope(
  person: { id: string; org_id: string; role: OrgRole },
  memberships: ReadonlyArray<{ project_id: string; role: string }>,
): ViewScope {
  return {
    orgId: person.org_id,
    all: person.role === 'owner' || person.role === 'admin',
    personId: person.id,
    projectIds: memberships.filter((m) => m.role === 'admin').map((m) => m.project_id),
  };
}

/** Whether a key (its organisation, project and person) is in the view. */
export function viewSees(v: ViewScope, k: { org_id: string; project_id: string | null; person_id: string | null }): boolean {
  if (k.org_id !== v.orgId) return false;
  if (v.all) return true;
  return k.person_id === v.personId || (k.project_id !== null && v.projectIds.includes(k.project_id));
}

/** A store's read queries: SQLite's prepared statements, or PostgreSQL's pool. */
interface DashboardRows {
  all<T>(sql: string, params: unknown[]): Promise<T[]>;
  placeholder(n: number): string;
}

export type UsageGrouping = 'key' | 'project' | 'person';

export interface UsageRequest {
  /** `day`: from and to are UTC days (YYYY-MM-DD, both included); `hour`: ISO instants, from included, to excluded. */
  bucket: 'day' | 'hour';
  from: string;
  to: string;
  groupBy: UsageGrouping;
}

/** One bucket (a day `YYYY-MM-DD` or an hour `YYYY-MM-DDTHH`), one group, one end code ('' for none). */
export interface UsagePoint {
  bucket: string;
  group: string | null;
  code: string;
  sessions: number;
  audio_seconds: number;
}

/** A session as the Sessions page lists it: the API's listing (without the organisation) and its key's names; never text. */
export interface SessionRow extends Omit<SessionListing, 'org_id'> {
  key_name: string | null;
  key_hint: string | null;
  person_id: string | null;
}

/** A key as the pages name it. */
interface KeyLabel {
  id: string;
  name: string;
  hint: string;
  type: string;
  project_id: string | null;
  person_id: string | null;
  revoked_at: string | null;
}

export interface AuditFilter {
  orgId: string;
  /** ISO instants, from included, to excluded. */
  from: string;
  to: string;
  actor?: string;
  action?: string;
  /** Entries whose target or actor is this key. */
  keyId?: string;
  limit: number;
}

/** The view's conditions on the key, joined as `k`. */
function viewWhere(w: Where, v: ViewScope): void {
  if (v.all) return;
  if (v.projectIds.length === 0) {
    w.add('k.person_id = §', v.personId);
    return;
  }
  w.add(`(k.person_id = § OR k.project_id IN (${v.projectIds.map(() => '§').join(', ')}))`, v.personId, ...v.projectIds);
}

const GROUP_COLUMN: Record<UsageGrouping, string> = { key: 'k.id', project: 'k.project_id', person: 'k.person_id' };

function usagePointsSql(v: ViewScope, q: UsageRequest, ph: (n: number) => string): { sql: string; params: unknown[] } {
  const grp = GROUP_COLUMN[q.groupBy];
  if (q.bucket === 'day') {
    const w = new Where(ph).add('u.org_id = §', v.orgId).add('u.day >= §', q.from).add('u.day <= §', q.to);
    viewWhere(w, v);
    const g = q.groupBy === 'key' ? 'u.key_id' : grp;
    // The keys are joined only to group or scope by their project or person.
    const join = v.all && q.groupBy === 'key' ? '' : 'LEFT JOIN api_keys k ON k.id = u.key_id';
    return {
      sql: `SELECT u.day AS bucket, ${g} AS grp, u.code AS code, SUM(u.sessions) AS sessions, SUM(u.audio_seconds) AS audio_seconds
            FROM usage_daily u ${join} ${w.sql} GROUP BY u.day, ${g}, u.code`,
      params: w.params,
    };
  }
  // The last hours: the records themselves (the rollup is by day), counted as the rollup counts them.
  const w = new Where(ph)
    .add('s.org_id = §', v.orgId)
    .add('s.created_at >= §', q.from)
    .add('s.created_at < §', q.to)
    .add('s.ended_at IS NOT NULL AND s.started_at IS NOT NULL');
  viewWhere(w, v);
  const g = q.groupBy === 'key' ? 's.key_id' : grp;
  const code = END_CODE('s.end_reason');
  return {
    sql: `SELECT substr(s.created_at, 1, 13) AS bucket, ${g} AS grp, ${code} AS code, COUNT(*) AS sessions,
            SUM(COALESCE(s.audio_seconds, 0)) AS audio_seconds
          FROM sessions s LEFT JOIN api_keys k ON k.id = s.key_id ${w.sql} GROUP BY substr(s.created_at, 1, 13), ${g}, ${code}`,
    params: w.params,
  };
}

const SESSION_COLUMNS = `s.id AS session_id, s.key_id, k.name AS key_name, k.hint AS key_hint, k.project_id, k.person_id, s.origin,
  CASE WHEN s.ended_at IS NOT NULL THEN 'ended' WHEN s.started_at IS NULL THEN 'initialised' ELSE 'live' END AS state,
  s.created_at, s.started_at, s.ended_at, s.duration, s.audio_seconds, s.final_chunks, s.end_reason`;

function sessionsListSql(
  v: ViewScope,
  q: { state: 'live' | 'ended'; since?: string; limit: number },
  ph: (n: number) => string,
): { sql: string; params: unknown[] } {
  const w = new Where(ph).add('s.org_id = §', v.orgId);
  if (q.since !== undefined) w.add('s.created_at >= §', q.since);
  w.add(q.state === 'live' ? 's.ended_at IS NULL AND s.started_at IS NOT NULL' : 's.ended_at IS NOT NULL');
  viewWhere(w, v);
  w.params.push(q.limit);
  return {
    sql: `SELECT ${SESSION_COLUMNS} FROM sessions s LEFT JOIN api_keys k ON k.id = s.key_id ${w.sql}
          ORDER BY s.created_at DESC, s.id DESC LIMIT ${ph(w.params.length)}`,
    params: w.params,
  };
}

function sessionByIdSql(v: ViewScope, id: string, ph: (n: number) => string): { sql: string; params: unknown[] } {
  const w = new Where(ph).add('s.id = §', id).add('s.org_id = §', v.orgId);
  viewWhere(w, v);
  return { sql: `SELECT ${SESSION_COLUMNS} FROM sessions s LEFT JOIN api_keys k ON k.id = s.key_id ${w.sql}`, params: w.params };
}

function keysSql(v: ViewScope, ph: (n: number) => string): { sql: string; params: unknown[] } {
  const w = new Where(ph).add('k.org_id = §', v.orgId);
  viewWhere(w, v);
  return {
    sql: `SELECT k.id, k.name, k.hint, k.type, k.project_id, k.person_id, k.revoked_at FROM api_keys k ${w.sql} ORDER BY k.name, k.id`,
    params: w.params,
  };
}

function auditSql(q: AuditFilter, ph: (n: number) => string): { sql: string; params: unknown[] } {
  const w = new Where(ph).add('org_id = §', q.orgId).add('at >= §', q.from).add('at < §', q.to);
  if (q.actor !== undefined) w.add('actor = §', q.actor);
  if (q.action !== undefined) w.add('action = §', q.action);
  if (q.keyId !== undefined) w.add('(target = § OR actor = §)', q.keyId, q.keyId);
  w.params.push(q.limit);
  return {
    sql: `SELECT org_id, seq, at, actor, action, target, ip, outcome, prev_hash, hash FROM audit_log ${w.sql}
          ORDER BY seq DESC LIMIT ${ph(w.params.length)}`,
    params: w.params,
  };
}

const orNull = (x: unknown): number | null => (x === null || x === undefined ? null : Number(x));

/** The dashboard's reads on one store. */
export class DashboardData {
  constructor(private readonly rows: DashboardRows) {}

  async usage(v: ViewScope, q: UsageRequest): Promise<UsagePoint[]> {
    const { sql, params } = usagePointsSql(v, q, this.rows.placeholder);
    const got = await this.rows.all<{ bucket: string; grp: string | null; code: string | null; sessions: unknown; audio_seconds: unknown }>(
      sql,
      params,
    );
    return got
      .map((r) => ({
        bucket: r.bucket,
        group: r.grp,
        code: r.code ?? '',
        sessions: Number(r.sessions),
        audio_seconds: Number(r.audio_seconds ?? 0),
      }))
      .filter((p) => p.sessions > 0);
  }

  async sessions(v: ViewScope, q: { state: 'live' | 'ended'; since?: string; limit: number }): Promise<SessionRow[]> {
    const { sql, params } = sessionsListSql(v, q, this.rows.placeholder);
    return (await this.rows.all<SessionRow>(sql, params)).map(numbers);
  }

  async session(v: ViewScope, id: string): Promise<SessionRow | undefined> {
    const { sql, params } = sessionByIdSql(v, id, this.rows.placeholder);
    const [row] = await this.rows.all<SessionRow>(sql, params);
    return row ? numbers(row) : undefined;
  }

  async keys(v: ViewScope): Promise<KeyLabel[]> {
    const { sql, params } = keysSql(v, this.rows.placeholder);
    return this.rows.all<KeyLabel>(sql, params);
  }

  async audit(q: AuditFilter): Promise<StoredAudit[]> {
    const { sql, params } = auditSql(q, this.rows.placeholder);
    return (await this.rows.all<StoredAudit>(sql, params)).map((r) => ({ ...r, seq: Number(r.seq) }));
  }
}

function numbers(r: SessionRow): SessionRow {
  return {
    ...r,
    duration: orNull(r.duration),
    audio_seconds: orNull(r.audio_seconds),
    final_chunks: Number(r.final_chunks),
  };
}
