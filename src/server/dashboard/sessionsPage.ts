/**
 * The Sessions page (`/dashboard/sessions`): the live sessions in the person's view, read from the shared
 * store so that every instance's are there, each with **End session** (a POST with the CSRF token, ended as
 * `DELETE /v1/sessions/<id>` ends it: http/sessionEnd.ts, on whichever instance holds it, its pending words
 * delivered as finals first); the recent ones (7 days); and one session looked up by its `session_id`.
 * Ids, times and figures only: no dictated text is kept, so none can be shown.
 */
import { END_REASONS, type EndReason } from '../counters';
import { endSessionBy } from '../http/sessionEnd';
import { HttpError } from '../http/util';
import { type SessionRow, viewSees } from '../storage/dashboardData';
import type { AuthedReq, DashReq } from './context';
import { type Html, html } from './html';
import { personActorId } from './identity';
import { csrfField } from './layout';
import { DashError, redirect, sendPage } from './respond';
import { type Route, authed } from './route';
import { teamOf, viewOf } from './usagePage';

const RECENT_DAYS = 7;
const LIST_LIMIT = 100;
const SESSION_ID = /^[A-Za-z0-9_-]{1,100}$/;

function stateText(r: DashReq, s: SessionRow['state']): string {
  const { l10n } = r;
  return s === 'live' ? l10n.t('live') : s === 'ended' ? l10n.t('ended') : l10n.t('initialised');
}

/** Why a session ended, in the page's language (the record's own words, END_REASONS, when unknown). */
function endReasonText(r: DashReq, reason: string | null): Html | string {
  const { l10n } = r;
  const known: Record<EndReason, string> = {
    'client stop': l10n.t('stopped by the client'),
    'service shutdown': l10n.t('service shut down'),
    'decoder failure': l10n.t('decoder failure'),
    'key revoked': l10n.t('key revoked'),
    'key expired': l10n.t('key expired'),
    'ended by an administrator': l10n.t('ended by an administrator'),
    'dropped and not resumed': l10n.t('connection dropped and not resumed'),
  };
  if (reason === null) return '—';
  return (END_REASONS as readonly string[]).includes(reason) ? known[reason as EndReason] : html`<code>${reason}</code>`;
}

function keyText(s: SessionRow): string {
  return s.key_name ? `${s.key_name} (${s.key_hint ?? ''})` : s.key_id;
}

function minutes(r: DashReq, seconds: number | null): string {
  return seconds === null ? '—' : r.l10n.number(Math.round((seconds / 60) * 100) / 100);
}

function endButton(r: AuthedReq, s: SessionRow): Html {
  return html`<form method="post" action="/dashboard/sessions/end" class="inline">
    ${csrfField(r)}
    <input type="hidden" name="session_id" value="${s.session_id}" />
    <button type="submit" class="danger">${r.l10n.t('End session')}<span class="sr-only"> ${s.session_id}</span></button>
  </form>`;
}

/** A column of a sessions table: its heading and its cell of a session. */
type Column = [heading: string, cell: (s: SessionRow) => Html | string];

/** A table of sessions (the live ones, the recent ones): the session's id as each row's heading, then `columns`. */
function sessionsTable(r: AuthedReq, rows: SessionRow[], caption: string, columns: readonly Column[]): Html {
  const { l10n } = r;
  return html`<div class="table-wrap">
    <table>
      <caption>
        ${caption}
      </caption>
      <thead>
        <tr>
          <th scope="col">${l10n.t('Session')}</th>
          ${columns.map(([h]) => html`<th scope="col">${h}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          (s) =>
            html`<tr>
              <th scope="row">
                <a href="/dashboard/sessions?id=${encodeURIComponent(s.session_id)}"><code>${s.session_id}</code></a>
              </th>
              ${columns.map(([, cell]) => html`<td>${cell(s)}</td>`)}
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

function liveTable(r: AuthedReq, rows: SessionRow[]): Html {
  const { l10n } = r;
  if (rows.length === 0) return html`<p>${l10n.t('No live session.')}</p>`;
  const caption = l10n.one(rows.length)
    ? l10n.t('{0} live session', l10n.number(rows.length))
    : l10n.t('{0} live sessions', l10n.number(rows.length));
  return sessionsTable(r, rows, caption, [
    [l10n.t('Key'), keyText],
    [l10n.t('Started'), (s) => (s.started_at ? l10n.dateTime(s.started_at) : '—')],
    [l10n.t('Connection'), (s) => s.origin],
    [l10n.t('Actions'), (s) => endButton(r, s)],
  ]);
}

function recentTable(r: AuthedReq, rows: SessionRow[]): Html {
  const { l10n } = r;
  if (rows.length === 0) return html`<p>${l10n.t('No session in the last 7 days.')}</p>`;
  const caption = l10n.one(rows.length)
    ? l10n.t('The most recent session of the last 7 days')
    : l10n.t('The {0} most recent sessions of the last 7 days', l10n.number(rows.length));
  return sessionsTable(r, rows, caption, [
    [l10n.t('Key'), keyText],
    [l10n.t('Created'), (s) => l10n.dateTime(s.created_at)],
    [l10n.t('Ended'), (s) => (s.ended_at ? l10n.dateTime(s.ended_at) : '—')],
    [l10n.t('Audio minutes'), (s) => minutes(r, s.audio_seconds)],
    [l10n.t('Final chunks'), (s) => l10n.number(s.final_chunks)],
    [l10n.t('End reason'), (s) => endReasonText(r, s.end_reason)],
  ]);
}

/** One session's record, for tracking. */
function detail(r: AuthedReq, s: SessionRow): Html {
  const { l10n } = r;
  const item = (term: string, value: Html | string): Html =>
    html`<dt>${term}</dt>
      <dd>${value}</dd>`;
  return html`<section aria-labelledby="session-detail-title">
    <h2 id="session-detail-title">${l10n.t('Session {0}', s.session_id)}</h2>
    <dl class="record">
      ${item(l10n.t('State'), stateText(r, s.state))} ${item(l10n.t('Key'), keyText(s))} ${item(l10n.t('Project'), s.project_id ?? '—')}
      ${item(l10n.t('Connection'), s.origin)} ${item(l10n.t('Created'), l10n.dateTime(s.created_at))}
      ${item(l10n.t('Started'), s.started_at ? l10n.dateTime(s.started_at) : '—')}
      ${item(l10n.t('Ended'), s.ended_at ? l10n.dateTime(s.ended_at) : '—')} ${item(l10n.t('Audio minutes'), minutes(r, s.audio_seconds))}
      ${item(l10n.t('Final chunks'), l10n.number(s.final_chunks))} ${item(l10n.t('End reason'), endReasonText(r, s.end_reason))}
    </dl>
    ${s.state === 'live' ? endButton(r, s) : ''}
  </section>`;
}

async function sessionsPage(r: AuthedReq): Promise<void> {
  const { l10n, ctx } = r;
  const team = teamOf(r);
  const view = viewOf(r);
  const asked = (r.url.searchParams.get('id') ?? '').trim();
  const ended = r.url.searchParams.get('ended');
  const since = new Date(ctx.now() - RECENT_DAYS * 86_400_000).toISOString();
  const [live, recent, one] = await Promise.all([
    team.dashboard.sessions(view, { state: 'live', limit: LIST_LIMIT }),
    team.dashboard.sessions(view, { state: 'ended', since, limit: LIST_LIMIT }),
    asked && SESSION_ID.test(asked) ? team.dashboard.session(view, asked) : Promise.resolve(undefined),
  ]);
  const lookup = html`<form method="get" action="/dashboard/sessions" class="filters" role="search">
    <p>
      <label for="session-id">${l10n.t('Session id')}</label>
      <input
        id="session-id"
        name="id"
        value="${asked}"
        autocomplete="off"
        spellcheck="false"
        ${asked && !one ? html` aria-invalid="true" aria-describedby="session-missing"` : ''}
      />
      <button type="submit">${l10n.t('Find')}</button>
    </p>
    ${asked && !one ? html`<p class="error" role="alert" id="session-missing">${l10n.t('No session with this id is in your view.')}</p>` : ''}
  </form>`;
  sendPage(
    r,
    l10n.t('Sessions'),
    html`${ended && SESSION_ID.test(ended) ? html`<p class="notice" role="status">${l10n.t('Session {0} ended; its pending words were delivered.', ended)}</p>` : ''}
      <h2>${l10n.t('Find a session')}</h2>
      ${lookup} ${one ? detail(r, one) : ''}
      <h2>${l10n.t('Live sessions')}</h2>
      ${liveTable(r, live)}
      <h2>${l10n.t('Recent sessions')}</h2>
      ${recentTable(r, recent)}`,
    asked && !one ? 404 : 200,
  );
}

async function endSession(r: AuthedReq): Promise<void> {
  const { l10n, ctx } = r;
  teamOf(r);
  const id = (r.form?.get('session_id') ?? '').trim();
  if (!SESSION_ID.test(id)) throw new DashError(400, l10n.t('No session with this id is in your view.'));
  const view = viewOf(r);
  try {
    await endSessionBy(
      ctx.api,
      {
        actor: personActorId(r.who.person.id),
        ip: r.ip,
        sees: (o) => viewSees(view, { org_id: o.org_id ?? '', project_id: o.project_id ?? null, person_id: o.person_id ?? null }),
      },
      id,
    );
  } catch (e) {
    if (e instanceof HttpError && e.status === 404) throw new DashError(404, l10n.t('No session with this id is in your view.'));
    if (e instanceof HttpError && e.status === 503)
      throw new DashError(503, l10n.t('The instance that holds this session did not end it in time; try again.'));
    throw e;
  }
  redirect(r, `/dashboard/sessions?ended=${encodeURIComponent(id)}`);
}

export const SESSION_ROUTES: readonly Route[] = [
  { method: 'GET', path: '/dashboard/sessions', handler: authed(sessionsPage) },
  { method: 'POST', path: '/dashboard/sessions/end', handler: authed(endSession) },
];
