/**
 * The API keys page: the table of the keys the person manages (one listing and one query of the daily
 * rollup, whatever the number of keys), the Create key form, and the one revocation dialog that the script
 * fills for the row chosen (without script, Revoke is a link to a confirmation page).
 */
import type { KeyListing, Permission } from '../../protocol';
import type { Project } from '../storage/teams';
import type { AuthedReq, DashReq } from './context';
import { type TypedConfirm, confirmDialog } from './confirmTyped';
import { type Html, html } from './html';
import { newToken } from './identity';
import {
  badgesOf,
  expiryText,
  inRollOverlap,
  keysCaption,
  keysPageOf,
  lastDays,
  usageByKey,
  visibleKeys,
  type Badge,
  type KeysPage,
} from './keyRows';
import { csrfField } from './layout';
import { sendPage } from './respond';
import { sparkline } from './sparkline';

export interface CreateFormState {
  type?: string;
  name?: string;
  permissions?: string[];
  project?: string;
  expiry?: string;
  error?: string;
  field?: string;
}

export const EXPIRY_CHOICES = ['30', '90', '180', '365', 'never'] as const;

/** The projects the person may make project keys for: every one for an owner or admin, else those they administer. */
async function projectsFor(r: AuthedReq): Promise<Project[]> {
  const all = await r.ctx.api.keys.teams.listProjects(r.who.person.org_id);
  if (r.who.person.role === 'owner' || r.who.person.role === 'admin') return all;
  return all.filter((p) => r.who.actor.adminProjects.has(p.id));
}

/** Whether the person may give the `admin` permission (owners and admins of the organisation). */
export function mayGiveAdmin(r: AuthedReq): boolean {
  return r.who.person.role === 'owner' || r.who.person.role === 'admin';
}

function badgeText(r: AuthedReq, b: Badge): string {
  switch (b) {
    case 'expires_soon':
      return r.l10n.t('expires soon');
    case 'never_used':
      return r.l10n.t('never used');
    case 'idle':
      return r.l10n.t('idle 90 days');
    case 'expired':
      return r.l10n.t('expired');
    case 'revoked':
      return r.l10n.t('revoked');
  }
}

function permissionText(r: AuthedReq, p: Permission): string {
  return p === 'read' ? r.l10n.t('read') : p === 'write' ? r.l10n.t('write') : r.l10n.t('admin');
}

function row(
  r: AuthedReq,
  k: KeyListing,
  usage: number[] | undefined,
  now: number,
  days: readonly string[],
  projectNames: ReadonlyMap<string, string>,
  people: ReadonlyMap<string, string>,
  rolling = false,
): Html {
  const { l10n } = r;
  const series = usage ?? days.map(() => 0);
  const total = series.reduce((a, b) => a + b, 0);
  const badges = badgesOf(k, now);
  return html`<tr>
    <th scope="row">${k.name}</th>
    <td>
      ${k.type === 'project' ? l10n.t('project') : l10n.t('personal')}${k.environment === 'test' ? html` <span class="badge">${l10n.t('test')}</span>` : ''}
    </td>
    <td>${k.project_id ? (projectNames.get(k.project_id) ?? k.project_id) : '—'}</td>
    <td>${k.type === 'project' ? '—' : k.person_id ? (people.get(k.person_id) ?? k.person_id) : l10n.t('organisation')}</td>
    <td>${k.permissions.map((p) => permissionText(r, p)).join(', ')}</td>
    <td><code>${k.hint}</code></td>
    <td>${l10n.date(k.created_at)}</td>
    <td>${k.expires_at ? expiryText(l10n, k.expires_at, now) : l10n.t('never')}</td>
    <td>${k.last_used_at ? l10n.dateTime(k.last_used_at) : '—'}</td>
    <td>
      ${sparkline(
        series,
        l10n.one(total) ? l10n.t('{0} session in 7 days', l10n.number(total)) : l10n.t('{0} sessions in 7 days', l10n.number(total)),
      )}
    </td>
    <td>${badges.map((b) => html`<span class="badge badge-${b}">${badgeText(r, b)}</span> `)}</td>
    <td class="actions">
      ${badges.includes('expired') ? '' : html`<a href="/dashboard/keys/${k.id}/roll">${l10n.t('Roll')}<span class="sr-only"> ${k.name}</span></a>`}
      ${rolling ? html`<a href="/dashboard/keys/${k.id}/watch">${l10n.t('Watch')}<span class="sr-only"> ${k.name} ${k.hint}</span></a>` : ''}
      <a
        href="/dashboard/keys/${k.id}/revoke"
        class="revoke"
        data-key-id="${k.id}"
        data-key-name="${k.name}"
        data-confirm-details="${revokeDetails(r, k)}"
        >${l10n.t('Revoke')}<span class="sr-only"> ${k.name}</span></a
      >
    </td>
  </tr>`;
}

function createForm(r: AuthedReq, projects: Project[], state: CreateFormState = {}): Html {
  const { l10n } = r;
  const type = state.type ?? 'personal';
  const perms = state.permissions ?? ['read', 'write'];
  const expiry = state.expiry ?? '90';
  const err = (field: string): Html | string =>
    state.error && state.field === field ? html`<span class="error" id="err-${field}" role="alert">${state.error}</span>` : '';
  const described = (field: string): Html | string =>
    state.error && state.field === field ? html` aria-describedby="err-${field}" aria-invalid="true"` : '';
  return html`<form method="post" action="/dashboard/keys" id="create-key" class="create">
${csrfField(r)}<input type="hidden" name="_idem" value="${newToken()}">
${state.error && !['name', 'project', 'permissions', 'expiry'].includes(state.field ?? '') ? html`<p class="error" role="alert">${state.error}</p>` : ''}
<fieldset><legend>${l10n.t('Type')}</legend>
<label><input type="radio" name="type" value="personal"${type === 'personal' ? html` checked` : ''}> ${l10n.t('personal')}</label>
<label><input type="radio" name="type" value="project"${type === 'project' ? html` checked` : ''}${projects.length ? '' : html` disabled`}> ${l10n.t('project')}</label>
</fieldset>
<p><label for="key-name">${l10n.t('Name')}</label>
<input id="key-name" name="name" required maxlength="100" value="${state.name ?? ''}"${described('name')}> ${err('name')}</p>
<fieldset${described('permissions')}><legend>${l10n.t('Permissions')}</legend>
${(['read', 'write', 'admin'] as const)
  .filter((p) => p !== 'admin' || mayGiveAdmin(r))
  .map(
    (p) =>
      html`<label
        ><input type="checkbox" name="permissions" value="${p}" ${perms.includes(p) ? html` checked` : ''} /> ${permissionText(r, p)}</label
      > `,
  )}
${err('permissions')}</fieldset>
<p><label for="key-project">${l10n.t('Project')}</label>
<select id="key-project" name="project"${described('project')}><option value="">${l10n.t('(none: a personal key)')}</option>
${projects.map((p) => html`<option value="${p.id}" ${state.project === p.id ? html` selected` : ''}>${p.name}</option>`)}</select> ${err('project')}</p>
<p><label for="key-expiry">${l10n.t('Expires')}</label>
<select id="key-expiry" name="expiry"${described('expiry')}>
${EXPIRY_CHOICES.map((d) => html`<option value="${d}" ${expiry === d ? html` selected` : ''}>${d === 'never' ? l10n.t('never') : l10n.t('in {0} days', d)}</option>`)}
</select> ${err('expiry')}</p>
<p><button type="submit" class="primary">${l10n.t('Create key')}</button></p>
</form>`;
}

/**
 * Which key Revoke acts on, beside its name (a roll's old and new keys share it): its hint, creation and
 * expiry, as the table shows them.
 */
export function revokeDetails(r: DashReq, k: Pick<KeyListing, 'hint' | 'created_at' | 'expires_at'>): string {
  const { l10n } = r;
  return k.expires_at
    ? l10n.t('Hint {0}, created {1}, expires {2}.', k.hint, l10n.date(k.created_at), expiryText(l10n, k.expires_at, r.ctx.now()))
    : l10n.t('Hint {0}, created {1}, never expires.', k.hint, l10n.date(k.created_at));
}

/** Revoke's confirmation (confirmTyped.ts): the key's name typed. */
export function revokeConfirm(r: DashReq): TypedConfirm {
  const { l10n } = r;
  return {
    prefix: 'revoke',
    title: l10n.t('Revoke key'),
    text: l10n.t(
      'A revoked key stops working at once, and each of its live sessions ends after its pending words are delivered. This cannot be undone.',
    ),
    label: (name) => l10n.t('Type the name of the key to confirm: {0}', name),
    field: 'confirm_name',
    button: l10n.t('Revoke'),
    detailed: true,
  };
}

/** Previous and next links under the table when the keys fill more than one page. */
function pager(r: AuthedReq, at: KeysPage): Html {
  if (at.pages === 1) return html``;
  const { l10n } = r;
  const link = (page: number, text: string, rel: string): Html =>
    html`<a href="/dashboard/keys?page=${String(page)}" rel="${rel}">${text}</a>`;
  return html`<nav class="pager" aria-label="${l10n.t('Pages of keys')}">
    ${at.page > 1 ? link(at.page - 1, l10n.t('Previous page'), 'prev') : html``}
    <span>${l10n.t('Page {0} of {1}', l10n.number(at.page), l10n.number(at.pages))}</span>
    ${at.page < at.pages ? link(at.page + 1, l10n.t('Next page'), 'next') : html``}
  </nav>`;
}

/** The page: the table (a page of it), then the form (its state kept after a refusal). */
export async function keysPage(r: AuthedReq, state?: CreateFormState, status = 200): Promise<void> {
  const { l10n, ctx } = r;
  const now = ctx.now();
  const days = lastDays(now);
  const [all, rollup, projects, people] = await Promise.all([
    ctx.api.keys.list(),
    ctx.store.dailyUsage(r.who.person.org_id, days[0]!),
    projectsFor(r),
    ctx.api.keys.teams.listPeople(r.who.person.org_id),
  ]);
  const keys = visibleKeys(all, r.who.actor, now);
  const usage = usageByKey(rollup, days);
  const rolling = inRollOverlap(all, now);
  const names = new Map(projects.map((p) => [p.id, p.name]));
  const whose = new Map(people.map((p) => [p.id, p.display_name || p.email]));
  const at = keysPageOf(keys.length, r.url.searchParams.get('page'));
  const table = keys.length
    ? html`<table class="keys">
          <caption>
            ${keysCaption(l10n, keys.length, at)}
          </caption>
          <thead>
            <tr>
              <th scope="col">${l10n.t('Name')}</th>
              <th scope="col">${l10n.t('Type')}</th>
              <th scope="col">${l10n.t('Project')}</th>
              <th scope="col">${l10n.t('Person')}</th>
              <th scope="col">${l10n.t('Permissions')}</th>
              <th scope="col">${l10n.t('Hint')}</th>
              <th scope="col">${l10n.t('Created')}</th>
              <th scope="col">${l10n.t('Expires')}</th>
              <th scope="col">${l10n.t('Last used')}</th>
              <th scope="col">${l10n.t('7 days')}</th>
              <th scope="col">${l10n.t('Status')}</th>
              <th scope="col">${l10n.t('Actions')}</th>
            </tr>
          </thead>
          <tbody>
            ${keys.slice(at.from, at.to).map((k) => row(r, k, usage.get(k.id), now, days, names, whose, rolling.has(k.id)))}
          </tbody>
        </table>
        ${pager(r, at)}`
    : html`<p>${l10n.t('No API keys yet.')}</p>`;
  const dialog = confirmDialog(r, revokeConfirm(r), '/dashboard/keys');
  sendPage(
    r,
    l10n.t('API keys'),
    html`${table}
      <h2 id="create-title">${l10n.t('Create key')}</h2>
      ${createForm(r, projects, state)} ${dialog}`,
    status,
  );
}
