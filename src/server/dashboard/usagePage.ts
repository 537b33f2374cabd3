/**
 * The Usage page (`/dashboard/usage`) and its CSV export (`/dashboard/usage.csv`): audio minutes, sessions
 * and errors by code over the last 24 hours, 7 days, 30 days or a custom range, grouped by key, project or
 * person, in the person's view (storage/dashboardData.ts). Each chart (drawn by browser/charts.ts from a
 * JSON block) has a table beside it with the same figures; days come from the daily rollup, so a month over
 * a million sessions reads a few thousand rows.
 */
import type { UsagePoint, ViewScope } from '../storage/dashboardData';
import { viewScope } from '../storage/dashboardData';
import type { AuthedReq, DashReq } from './context';
import { fileName, toCsv } from './csv';
import { dayInput, dayProblemText, formatDay, parseDay } from './dayField';
import { type Html, html, raw } from './html';
import { DashError, sendHtml, sendPage } from './respond';
import { type Route, authed } from './route';
import { type Chart, type UsageModel, chartData, usageCsvRows, usageModel } from './usageModel';
import { GROUPINGS, type PeriodProblem, RANGES, type UsagePeriod, isProblem, usagePeriod } from './usageRange';

/** The person's view: the organisation for an owner or admin, else their keys and their admin projects'. */
export function viewOf(r: AuthedReq): ViewScope {
  return viewScope(
    r.who.person,
    [...r.who.actor.adminProjects].map((p) => ({ project_id: p, role: 'admin' })),
  );
}

export function teamOf(r: DashReq): NonNullable<DashReq['ctx']['api']['team']> {
  const team = r.ctx.api.team;
  if (!team) throw new DashError(404, r.l10n.t('Usage, sessions and the audit log are not available on this service.'));
  return team;
}

/** JSON for a `<script type="application/json">` block: nothing in it can end the element or be read as markup. */
export function jsonBlock(id: string, value: unknown): Html {
  const text = JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return html`<script type="application/json" id="${id}">
    ${raw(text)}
  </script>`;
}

/** How each group is named: its key's name and hint, its project's name, its person's name. */
async function labels(r: AuthedReq, view: ViewScope, period: UsagePeriod): Promise<(id: string | null) => string> {
  const { l10n } = r;
  const teams = r.ctx.api.keys.teams;
  if (period.groupBy === 'key') {
    const keys = new Map((await teamOf(r).dashboard.keys(view)).map((k) => [k.id, `${k.name} (${k.hint})`]));
    return (id) => (id === null ? l10n.t('Unknown key') : (keys.get(id) ?? id));
  }
  if (period.groupBy === 'project') {
    const projects = new Map((await teams.listProjects(view.orgId)).map((p) => [p.id, p.name]));
    return (id) => (id === null ? l10n.t('No project') : (projects.get(id) ?? id));
  }
  const people = new Map((await teams.listPeople(view.orgId)).map((p) => [p.id, p.display_name || p.email]));
  return (id) => (id === null ? l10n.t('No person (organisation or project keys)') : (people.get(id) ?? id));
}

async function figures(r: AuthedReq, period: UsagePeriod): Promise<{ points: UsagePoint[]; labelOf: (id: string | null) => string }> {
  const view = viewOf(r);
  const [points, labelOf] = await Promise.all([teamOf(r).dashboard.usage(view, period.request), labels(r, view, period)]);
  return { points, labelOf };
}

/** What was wrong with the period, in the page's language. */
function problemText(r: DashReq, p: PeriodProblem): string {
  const { l10n } = r;
  switch (p.code) {
    case 'range':
      return l10n.t('Choose a period: 24 hours, 7 days, 30 days or custom.');
    case 'group':
      return l10n.t('Group by key, project or person.');
    case 'from_date':
      return dayProblemText(r, 'from');
    case 'to_date':
      return dayProblemText(r, 'to');
    case 'order':
      return l10n.t('The first day must not be after the last day.');
    case 'too_long':
      return l10n.t('A custom period is at most 366 days.');
  }
}

function rangeText(r: DashReq, id: (typeof RANGES)[number]): string {
  const { l10n } = r;
  return id === '24h' ? l10n.t('24 hours') : id === '7d' ? l10n.t('7 days') : id === '30d' ? l10n.t('30 days') : l10n.t('Custom');
}

function groupText(r: DashReq, g: (typeof GROUPINGS)[number]): string {
  const { l10n } = r;
  return g === 'key' ? l10n.t('Key') : g === 'project' ? l10n.t('Project') : l10n.t('Person');
}

function filters(r: AuthedReq, q: URLSearchParams, period: UsagePeriod | undefined, problem?: PeriodProblem): Html {
  const { l10n } = r;
  const range = period?.range ?? q.get('range') ?? '7d';
  const group = period?.groupBy ?? q.get('group') ?? 'key';
  // The days in the page's language; after a refusal, as typed.
  const from = period?.range === 'custom' ? formatDay(period.fromDay, l10n.locale) : (q.get('from') ?? '');
  const to = period?.range === 'custom' ? formatDay(period.toDay, l10n.locale) : (q.get('to') ?? '');
  const invalid = (f: PeriodProblem['field']): Html | string =>
    problem?.field === f ? html` aria-invalid="true" aria-describedby="usage-error"` : '';
  return html`<form method="get" action="/dashboard/usage" class="filters">
${problem ? html`<p class="error" role="alert" id="usage-error">${problemText(r, problem)}</p>` : ''}
<fieldset${invalid('range')}><legend>${l10n.t('Period')}</legend>
${RANGES.map((id) => html`<label><input type="radio" name="range" value="${id}" ${range === id ? html` checked` : ''} /> ${rangeText(r, id)}</label> `)}
</fieldset>
<p>${dayInput(r, { id: 'usage-from', name: 'from', label: l10n.t('First day (custom)'), value: from, invalid: invalid('from') })}
${dayInput(r, { id: 'usage-to', name: 'to', label: l10n.t('Last day (custom)'), value: to, invalid: invalid('to') })}</p>
<p><label for="usage-group">${l10n.t('Group by')}</label> <select id="usage-group" name="group"${invalid('group')}>
${GROUPINGS.map((g) => html`<option value="${g}" ${group === g ? html` selected` : ''}>${groupText(r, g)}</option>`)}</select>
<button type="submit">${l10n.t('Show')}</button></p>
</form>`;
}

function bucketText(r: DashReq, b: string): string {
  return b.length === 13 ? r.l10n.dateTime(`${b}:00:00Z`) : r.l10n.date(`${b}T00:00:00Z`);
}

function chartTitle(r: DashReq, c: Chart): string {
  const { l10n } = r;
  return c.id === 'minutes' ? l10n.t('Audio minutes') : c.id === 'sessions' ? l10n.t('Sessions') : l10n.t('Errors by code');
}

/** A chart and the table of its figures, side by side. */
function chartSection(r: AuthedReq, c: Chart): Html {
  const { l10n } = r;
  const title = chartTitle(r, c);
  const body =
    c.series.length === 0
      ? html`<p>${c.id === 'errors' ? l10n.t('No errors in this period.') : l10n.t('No sessions in this period.')}</p>`
      : html`<div class="chart" data-chart="chart-${c.id}-data" aria-hidden="true"></div>
          ${jsonBlock(`chart-${c.id}-data`, chartData(c, title, l10n.locale))}
          <div class="table-wrap">
            <table class="figures">
              <caption>
                ${l10n.t('{0}, by period', title)}
              </caption>
              <thead>
                <tr>
                  <th scope="col">${l10n.t('Period')}</th>
                  ${c.series.map((s) => html`<th scope="col">${s.label}</th>`)}
                </tr>
              </thead>
              <tbody>
                ${c.buckets.map(
                  (b, i) =>
                    html`<tr>
                      <th scope="row">${bucketText(r, b)}</th>
                      ${c.series.map((s) => html`<td>${l10n.number(s.values[i] ?? 0)}</td>`)}
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`;
  return html`<section class="chart-pair" aria-labelledby="chart-${c.id}-title">
    <h2 id="chart-${c.id}-title">${title}</h2>
    ${body}
  </section>`;
}

function groupTable(r: AuthedReq, m: UsageModel, period: UsagePeriod): Html {
  const { l10n } = r;
  if (m.groups.length === 0) return html`<p>${l10n.t('No sessions in this period.')}</p>`;
  return html`<div class="table-wrap">
    <table class="figures">
      <caption>
        ${period.groupBy === 'key' ? l10n.t('Totals by key') : period.groupBy === 'project' ? l10n.t('Totals by project') : l10n.t('Totals by person')}
      </caption>
      <thead>
        <tr>
          <th scope="col">${groupText(r, period.groupBy)}</th>
          <th scope="col">${l10n.t('Sessions')}</th>
          <th scope="col">${l10n.t('Audio minutes')}</th>
          <th scope="col">${l10n.t('Errors')}</th>
          ${m.codes.map((c) => html`<th scope="col"><code>${c}</code></th>`)}
        </tr>
      </thead>
      <tbody>
        ${m.groups.map(
          (g) =>
            html`<tr>
              <th scope="row">${g.label}</th>
              <td>${l10n.number(g.sessions)}</td>
              <td>${l10n.number(g.audioMinutes)}</td>
              <td>${l10n.number(g.errorTotal)}</td>
              ${m.codes.map((c) => html`<td>${l10n.number(g.errors[c] ?? 0)}</td>`)}
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/** The period's totals in a line, each count with its noun in the singular or the plural of the language. */
function summary(r: DashReq, m: UsageModel): string {
  const { l10n } = r;
  const { sessions, audioMinutes, errors } = m.total;
  return [
    l10n.one(sessions) ? l10n.t('{0} session', l10n.number(sessions)) : l10n.t('{0} sessions', l10n.number(sessions)),
    l10n.one(audioMinutes) ? l10n.t('{0} audio minute', l10n.number(audioMinutes)) : l10n.t('{0} audio minutes', l10n.number(audioMinutes)),
    l10n.one(errors) ? l10n.t('{0} error', l10n.number(errors)) : l10n.t('{0} errors', l10n.number(errors)),
  ].join(', ');
}

async function usagePage(r: AuthedReq): Promise<void> {
  const { l10n, ctx } = r;
  teamOf(r);
  const q = r.url.searchParams;
  const period = usagePeriod(q, ctx.now(), (s) => parseDay(s, l10n.locale));
  if (isProblem(period)) {
    sendPage(r, l10n.t('Usage'), filters(r, q, undefined, period), 400);
    return;
  }
  const { points, labelOf } = await figures(r, period);
  const m = usageModel(points, period.buckets, labelOf, l10n.t('Others'));
  const csvQuery = new URLSearchParams({
    range: period.range,
    group: period.groupBy,
    ...(period.range === 'custom' ? { from: period.fromDay, to: period.toDay } : {}),
  });
  const assets = ctx.assets;
  sendPage(
    r,
    l10n.t('Usage'),
    html`${filters(r, q, period)}
      <p class="summary">${summary(r, m)}</p>
      <p><a href="/dashboard/usage.csv?${csvQuery.toString()}" download>${l10n.t('Export CSV')}</a></p>
      ${m.charts.map((c) => chartSection(r, c))}
      <section aria-labelledby="usage-groups-title">
        <h2 id="usage-groups-title">${l10n.t('Totals')}</h2>
        ${groupTable(r, m, period)}
      </section>
      <link rel="stylesheet" href="${assets.chartStyle}" />
      <script src="${assets.charts}" defer></script>`,
  );
}

async function usageCsv(r: AuthedReq): Promise<void> {
  const { l10n, ctx } = r;
  teamOf(r);
  const period = usagePeriod(r.url.searchParams, ctx.now(), (s) => parseDay(s, l10n.locale));
  if (isProblem(period)) throw new DashError(400, problemText(r, period));
  const { points, labelOf } = await figures(r, period);
  const { header, rows } = usageCsvRows(points, labelOf);
  const name = fileName(`usage-${period.groupBy}-${period.request.from.slice(0, 10)}-${period.request.to.slice(0, 10)}`, 'csv');
  sendHtml(r, 200, raw(toCsv(header, rows)), {
    'content-type': 'text/csv; charset=utf-8',
    'content-disposition': `attachment; filename="${name}"`,
  });
}

export const USAGE_ROUTES: readonly Route[] = [
  { method: 'GET', path: '/dashboard/usage', handler: authed(usagePage) },
  { method: 'GET', path: '/dashboard/usage.csv', handler: authed(usageCsv) },
];
