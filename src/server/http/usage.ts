/**
 * `GET /v1/usage` (usage summed by key, project, person or day) and `GET /v1/sessions` (the session records),
 * in the reader's scope (scope.ts). Neither ever holds dictated text.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { UsageGroup } from '../storage/usage';
import type { ApiContext } from './context';
import { reader } from './reader';
import { HttpError, sendJson } from './util';

const DAY_MS = 86_400_000;
const GROUPS: readonly UsageGroup[] = ['key', 'project', 'person', 'day'];
const GROUP_FIELD: Record<UsageGroup, string> = { key: 'key_id', project: 'project_id', person: 'person_id', day: 'day' };
const RFC3339 = /^\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2}))?$/;

/** The team endpoints need the store's usage parts (absent in a Service built without them). */
export function teamOf(ctx: ApiContext): NonNullable<ApiContext['team']> {
  if (!ctx.team) throw new HttpError(404, 'NOT_FOUND', 'usage and audit are not available on this service');
  return ctx.team;
}

/** The query's parameters, each known, each once. */
export function queryParams(url: URL, known: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of url.searchParams) {
    if (!known.includes(k)) throw HttpError.of('CONFIG_ERROR', `unknown parameter ${k}; known: ${known.join(', ')}`);
    if (out.has(k)) throw HttpError.of('CONFIG_ERROR', `parameter ${k} given twice`);
    out.set(k, v);
  }
  return out;
}

/** `from` and `to` (RFC 3339 instants or dates), by default the 30 days up to now, as ISO instants. */
export function period(p: Map<string, string>, defaultDays = 30): { from: string; to: string } {
  const at = (name: 'from' | 'to'): number | undefined => {
    const v = p.get(name);
    if (v === undefined) return undefined;
    const t = RFC3339.test(v) ? Date.parse(v) : NaN;
    if (!Number.isFinite(t))
      throw HttpError.of('CONFIG_ERROR', `${name} must be an RFC 3339 date or date-time, e.g. 2026-11-01 or 2026-11-01T00:00:00Z`);
    return t;
  };
  const to = at('to') ?? Date.now();
  const from = at('from') ?? to - defaultDays * DAY_MS;
  if (from > to) throw HttpError.of('CONFIG_ERROR', 'from must not be after to');
  return { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
}

export async function getUsage(ctx: ApiContext, req: IncomingMessage, url: URL, res: ServerResponse): Promise<void> {
  const team = teamOf(ctx);
  const who = await reader(ctx, req, 'read');
  const p = queryParams(url, ['from', 'to', 'group_by']);
  const groupBy = (p.get('group_by') ?? 'key') as UsageGroup;
  if (!GROUPS.includes(groupBy)) throw HttpError.of('CONFIG_ERROR', `group_by must be one of ${GROUPS.join(', ')}`);
  const { from, to } = period(p);
  const lines = await team.usage.usage({ scope: who.scope, fromDay: from.slice(0, 10), toDay: to.slice(0, 10), groupBy });
  sendJson(res, 200, {
    success: true,
    from,
    to,
    group_by: groupBy,
    usage: lines.map((l) => ({ [GROUP_FIELD[groupBy]]: l.group, sessions: l.sessions, audio_seconds: l.audio_seconds, errors: l.errors })),
  });
}

export async function listSessions(ctx: ApiContext, req: IncomingMessage, url: URL, res: ServerResponse): Promise<void> {
  const team = teamOf(ctx);
  const who = await reader(ctx, req, 'read');
  const p = queryParams(url, ['key_id', 'project_id', 'state', 'from', 'to', 'limit']);
  const state = p.get('state');
  if (state !== undefined && state !== 'live' && state !== 'ended') throw HttpError.of('CONFIG_ERROR', 'state must be live or ended');
  const limitText = p.get('limit') ?? '100';
  const limit = /^\d+$/.test(limitText) ? Number(limitText) : NaN;
  if (!(limit >= 1 && limit <= 1000)) throw HttpError.of('CONFIG_ERROR', 'limit must be a whole number from 1 to 1000');
  const { from, to } = period(p);
  const asked = p.get('project_id');
  if (asked !== undefined && who.scope.projectId !== undefined && asked !== who.scope.projectId) {
    throw HttpError.of('AUTH_ERROR', "this project key reads its own project's sessions only", 0, 403);
  }
  const sessions = await team.usage.sessions({
    scope: who.scope,
    keyId: p.get('key_id'),
    projectId: p.get('project_id'),
    state,
    from,
    // `to` includes its own instant.
    to: new Date(Date.parse(to) + 1).toISOString(),
    limit,
  });
  sendJson(res, 200, { success: true, from, to, sessions });
}
