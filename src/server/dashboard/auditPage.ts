/**
 * The Audit log page (`/dashboard/audit`, owners and admins of the organisation, as `GET /v1/audit` needs):
 * the organisation's entries filtered by actor, action, key and days, newest first; the hash chain verified
 * on every view with `verifyChains`, the check of `audit verify` (storage/audit.ts), its result shown; and
 * the export of what the filters select as CSV or JSON lines (`/dashboard/audit/export`), only after a
 * fresh sign-in (`requireFreshSignIn`).
 */
import { type AuditAnchor, type StoredAudit, type VerifyReport, verifyChains } from '../storage/audit';
import type { AuditFilter } from '../storage/dashboardData';
import type { AuthedReq, DashReq } from './context';
import { fileName, toCsv } from './csv';
import { dayInput, dayProblemText, formatDay, parseDay } from './dayField';
import { type Html, html, raw } from './html';
import { requireFreshSignIn } from './identity';
import { DashError, sendHtml, sendPage } from './respond';
import { type Route, authed } from './route';
import { teamOf } from './usagePage';

const SHOWN = 500;
const EXPORTED = 100_000;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const TOKEN = /^[A-Za-z0-9_.:/-]{1,200}$/;
const COLUMNS = ['org_id', 'seq', 'at', 'actor', 'action', 'target', 'ip', 'outcome', 'prev_hash', 'hash'] as const;
const ROLES = ['owner', 'admin'] as const;

interface Filters {
  actor: string;
  action: string;
  key: string;
  from: string;
  to: string;
}

/** A real UTC day `YYYY-MM-DD` (not 2026-13-01, not 2026-02-30). */
function isDay(s: string): boolean {
  const t = DAY.test(s) ? Date.parse(`${s}T00:00:00Z`) : NaN;
  return Number.isFinite(t) && new Date(t).toISOString().startsWith(s);
}

type FilterProblem = { field: keyof Filters; code: 'day' | 'order' | 'token' };

/**
 * The filters of the query, or what is wrong with one. Days are UTC, both included; by default the retention's;
 * `readDay` reads a day as typed (dayField.ts `parseDay` in the page's language), and `shown` has it as ISO.
 */
export function auditFilter(
  q: URLSearchParams,
  orgId: string,
  now: number,
  retentionDays: number,
  readDay: (typed: string) => string | undefined = (d) => (isDay(d) ? d : undefined),
): { shown: Filters; filter: Omit<AuditFilter, 'limit'> } | FilterProblem {
  const shown: Filters = {
    actor: (q.get('actor') ?? '').trim(),
    action: (q.get('action') ?? '').trim(),
    key: (q.get('key') ?? '').trim(),
    from: (q.get('from') ?? '').trim(),
    to: (q.get('to') ?? '').trim(),
  };
  for (const f of ['actor', 'action', 'key'] as const) if (shown[f] && !TOKEN.test(shown[f])) return { field: f, code: 'token' };
  // The days as typed (in the page's language, dayField.ts) become ISO days.
  for (const f of ['from', 'to'] as const) {
    if (!shown[f]) continue;
    const d = readDay(shown[f]);
    if (!d) return { field: f, code: 'day' };
    shown[f] = d;
  }
  if (shown.from && shown.to && shown.from > shown.to) return { field: 'from', code: 'order' };
  const from = shown.from ? `${shown.from}T00:00:00.000Z` : new Date(now - retentionDays * 86_400_000).toISOString();
  const to = shown.to ? new Date(Date.parse(`${shown.to}T00:00:00Z`) + 86_400_000).toISOString() : new Date(now + 1).toISOString();
  return {
    shown,
    filter: {
      orgId,
      from,
      to,
      ...(shown.actor ? { actor: shown.actor } : {}),
      ...(shown.action ? { action: shown.action } : {}),
      ...(shown.key ? { keyId: shown.key } : {}),
    },
  };
}

/** The organisation's chain (and only it) checked from its anchor to its head. */
export function verifyOrg(all: { entries: StoredAudit[]; anchors: AuditAnchor[]; heads: AuditAnchor[] }, orgId: string): VerifyReport {
  return verifyChains({
    entries: all.entries.filter((e) => e.org_id === orgId),
    anchors: all.anchors.filter((a) => a.org_id === orgId),
    heads: all.heads.filter((h) => h.org_id === orgId),
  });
}

function problemText(r: DashReq, p: FilterProblem): string {
  const { l10n } = r;
  if (p.code === 'day') return dayProblemText(r, p.field === 'to' ? 'to' : 'from');
  if (p.code === 'order') return l10n.t('The first day must not be after the last day.');
  return l10n.t('Use only letters, digits and _ . : / - in this filter.');
}

function filterForm(r: AuthedReq, f: Filters, problem?: FilterProblem): Html {
  const { l10n } = r;
  const invalid = (name: keyof Filters): Html | string =>
    problem?.field === name ? html` aria-invalid="true" aria-describedby="audit-error"` : '';
  const field = (name: keyof Filters, label: string): Html =>
    html`<label for="audit-${name}">${label}</label>
      <input id="audit-${name}" name="${name}" type="text" value="${f[name]}" ${invalid(name)} />`;
  // A day accepted is ISO in `f` (written in the page's language); one refused is as typed.
  const day = (name: 'from' | 'to', label: string): Html =>
    dayInput(r, {
      id: `audit-${name}`,
      name,
      label,
      value: problem ? f[name] : formatDay(f[name], l10n.locale),
      invalid: invalid(name),
    });
  return html`<form method="get" action="/dashboard/audit" class="filters">
    ${problem ? html`<p class="error" role="alert" id="audit-error">${problemText(r, problem)}</p>` : ''}
    <p>${field('actor', l10n.t('Actor'))} ${field('action', l10n.t('Action'))} ${field('key', l10n.t('Key id'))}</p>
    <p>
      ${day('from', l10n.t('First day'))} ${day('to', l10n.t('Last day'))}
      <button type="submit">${l10n.t('Filter')}</button>
    </p>
  </form>`;
}

function verdict(r: AuthedReq, v: VerifyReport): Html {
  const { l10n } = r;
  if (v.ok)
    return html`<p class="notice ok" role="status" id="audit-chain">
      ${
        l10n.one(v.entries)
          ? l10n.t('Hash chain verified: {0} entry, intact.', l10n.number(v.entries))
          : l10n.t('Hash chain verified: {0} entries, intact.', l10n.number(v.entries))
      }
    </p>`;
  return html`<p class="error" role="alert" id="audit-chain">
    ${l10n.t('Hash chain broken at entry {0}: {1}', l10n.number(v.broken!.seq), brokenText(r, v.broken!))}
  </p>`;
}

/** Why the chain is broken, in the page's language. */
function brokenText(r: DashReq, b: NonNullable<VerifyReport['broken']>): string {
  const { l10n } = r;
  const seq = l10n.number(b.seq);
  switch (b.kind) {
    case 'missing':
      return l10n.t('entry {0} is missing (the next one found is {1})', seq, l10n.number(b.found ?? NaN));
    case 'unlinked':
      return l10n.t('entry {0} does not carry the hash of the entry before it', seq);
    case 'altered':
      return l10n.t('entry {0} was altered (its hash does not match its fields)', seq);
    case 'truncated':
      return l10n.t('entries were removed from the end of the chain (its head says {0})', l10n.number(b.found ?? NaN));
  }
}

/** An entry's outcome in the page's language (the record's own word, as the exports write it, when unknown). */
function outcomeText(r: DashReq, outcome: string): string {
  const { l10n } = r;
  return outcome === 'success'
    ? l10n.t('success')
    : outcome === 'denied'
      ? l10n.t('denied')
      : outcome === 'failure'
        ? l10n.t('failure')
        : outcome;
}

function table(r: AuthedReq, rows: StoredAudit[]): Html {
  const { l10n } = r;
  if (rows.length === 0) return html`<p>${l10n.t('No entry matches these filters.')}</p>`;
  return html`<div class="table-wrap">
    <table>
      <caption>
        ${rows.length >= SHOWN ? l10n.t('The newest {0} entries (export for all)', l10n.number(SHOWN)) : l10n.one(rows.length) ? l10n.t('{0} entry', l10n.number(rows.length)) : l10n.t('{0} entries', l10n.number(rows.length))}
      </caption>
      <thead>
        <tr>
          <th scope="col">#</th>
          <th scope="col">${l10n.t('Time')}</th>
          <th scope="col">${l10n.t('Actor')}</th>
          <th scope="col">${l10n.t('Action')}</th>
          <th scope="col">${l10n.t('Target')}</th>
          <th scope="col">${l10n.t('Address')}</th>
          <th scope="col">${l10n.t('Outcome')}</th>
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          (e) =>
            html`<tr>
              <th scope="row">${e.seq}</th>
              <td>${l10n.dateTime(e.at)}</td>
              <td><code>${e.actor}</code></td>
              <td><code>${e.action}</code></td>
              <td><code>${e.target ?? '—'}</code></td>
              <td>${e.ip ?? '—'}</td>
              <td>${outcomeText(r, e.outcome)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

async function auditPage(r: AuthedReq): Promise<void> {
  const { l10n, ctx } = r;
  const team = teamOf(r);
  const parsed = auditFilter(r.url.searchParams, r.who.person.org_id, ctx.now(), team.audit.retentionDays, (d) => parseDay(d, l10n.locale));
  if ('code' in parsed) {
    const shown = Object.fromEntries(
      ['actor', 'action', 'key', 'from', 'to'].map((k) => [k, r.url.searchParams.get(k) ?? '']),
    ) as unknown as Filters;
    sendPage(r, l10n.t('Audit log'), filterForm(r, shown, parsed), 400);
    return;
  }
  await team.audit.written();
  const [rows, all] = await Promise.all([team.dashboard.audit({ ...parsed.filter, limit: SHOWN }), team.audit.rows.readAll()]);
  const exportQuery = new URLSearchParams(Object.entries(parsed.shown).filter(([, v]) => v !== ''));
  const link = (format: 'csv' | 'jsonl', label: string): Html => {
    const q = new URLSearchParams(exportQuery);
    q.set('format', format);
    return html`<a href="/dashboard/audit/export?${q.toString()}">${label}</a>`;
  };
  sendPage(
    r,
    l10n.t('Audit log'),
    html`${verdict(r, verifyOrg(all, r.who.person.org_id))} ${filterForm(r, parsed.shown)}
      <p>
        ${l10n.t('Export what these filters select (you will be asked for your password again if you signed in more than 10 minutes ago):')}
        ${link('csv', l10n.t('Export CSV'))} · ${link('jsonl', l10n.t('Export JSON lines'))}
      </p>
      ${table(r, rows)}`,
  );
}

async function auditExport(r: AuthedReq): Promise<void> {
  const { l10n, ctx } = r;
  const team = teamOf(r);
  const format = r.url.searchParams.get('format') ?? 'csv';
  if (format !== 'csv' && format !== 'jsonl') throw new DashError(400, l10n.t('Export as CSV or JSON lines.'));
  const parsed = auditFilter(r.url.searchParams, r.who.person.org_id, ctx.now(), team.audit.retentionDays, (d) => parseDay(d, l10n.locale));
  if ('code' in parsed) throw new DashError(400, problemText(r, parsed));
  if (!requireFreshSignIn(r)) return;
  await team.audit.written();
  const rows = (await team.dashboard.audit({ ...parsed.filter, limit: EXPORTED })).reverse();
  const entries = rows.map((e) => Object.fromEntries(COLUMNS.map((c) => [c, e[c]])) as unknown as StoredAudit);
  const body =
    format === 'jsonl'
      ? entries.map((e) => `${JSON.stringify(e)}\n`).join('')
      : toCsv(
          COLUMNS,
          entries.map((e) => COLUMNS.map((c) => e[c])),
        );
  const name = fileName(`audit-${parsed.filter.from.slice(0, 10)}-${parsed.filter.to.slice(0, 10)}`, format);
  sendHtml(r, 200, raw(body), {
    'content-type': format === 'jsonl' ? 'application/x-ndjson; charset=utf-8' : 'text/csv; charset=utf-8',
    'content-disposition': `attachment; filename="${name}"`,
  });
}

export const AUDIT_ROUTES: readonly Route[] = [
  { method: 'GET', path: '/dashboard/audit', roles: ROLES, handler: authed(auditPage) },
  { method: 'GET', path: '/dashboard/audit/export', roles: ROLES, handler: authed(auditExport) },
];
