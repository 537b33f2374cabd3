/** `GET /v1/audit`: the audit log of the reader's organisation (the master key: every organisation), as JSON, JSON lines or CSV. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StoredAudit } from '../storage/audit';
import type { ApiContext } from './context';
import { reader } from './reader';
import { period, queryParams, teamOf } from './usage';
import { API_HEADERS, HttpError, sendJson } from './util';

const COLUMNS = ['org_id', 'seq', 'at', 'actor', 'action', 'target', 'ip', 'outcome', 'prev_hash', 'hash'] as const;
const MAX_ENTRIES = 100_000;

/** One CSV field (RFC 4180), a leading =, +, - or @ neutralised so a spreadsheet never runs it. */
function csvField(v: unknown): string {
  let s = v === null || v === undefined ? '' : String(v);
  if (/^[=+\-@]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export async function getAudit(ctx: ApiContext, req: IncomingMessage, url: URL, res: ServerResponse): Promise<void> {
  const team = teamOf(ctx);
  const who = await reader(ctx, req, 'audit');
  const p = queryParams(url, ['from', 'to', 'action', 'format', 'limit']);
  const format = p.get('format') ?? 'json';
  if (!['json', 'jsonl', 'csv'].includes(format)) throw HttpError.of('CONFIG_ERROR', 'format must be json, jsonl or csv');
  const limitText = p.get('limit') ?? String(MAX_ENTRIES);
  const limit = /^\d+$/.test(limitText) ? Number(limitText) : NaN;
  if (!(limit >= 1 && limit <= MAX_ENTRIES)) throw HttpError.of('CONFIG_ERROR', `limit must be a whole number from 1 to ${MAX_ENTRIES}`);
  const { from, to } = period(p, team.audit.retentionDays);
  const rows = await team.audit.query({
    orgId: who.scope.orgId,
    from,
    to: new Date(Date.parse(to) + 1).toISOString(),
    action: p.get('action'),
    limit,
  });
  const entries = rows.map((r) => Object.fromEntries(COLUMNS.map((c) => [c, r[c]])) as unknown as StoredAudit);
  if (format === 'json') {
    sendJson(res, 200, { success: true, from, to, entries });
    return;
  }
  const body =
    format === 'jsonl'
      ? entries.map((e) => `${JSON.stringify(e)}\n`).join('')
      : `${COLUMNS.join(',')}\r\n${entries.map((e) => `${COLUMNS.map((c) => csvField(e[c])).join(',')}\r\n`).join('')}`;
  res.writeHead(200, {
    'content-type': format === 'jsonl' ? 'application/x-ndjson; charset=utf-8' : 'text/csv; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    ...API_HEADERS,
  });
  res.end(body);
}
