/**
 * The API keys page's actions, each a POST answered by a redirect (POST-redirect-GET): Create key (the
 * form's idempotency token makes a double click one key; the new key goes through a one-time flash to the
 * one page that shows it), Revoke (the key's name typed; two administrators at once: one revocation, both
 * told), Roll (the wizard: the new key, the old key's last use watched until it goes quiet, then its
 * revocation). The key-management logic is the keys API's (http/keys.ts: createKeyAs, revokeKeyAs, rollKeyAs).
 */
import type { CreateKeyRequest, Permission } from '../../protocol';
import { createKeyAs, revokeKeyAs, rollKeyAs } from '../http/keys';
import { actorManages } from '../http/actor';
import { HttpError } from '../http/util';
import { type ApiKey, KeyRequestError } from '../storage/stores';
import { TeamRequestError } from '../storage/teams';
import type { AuthedReq, DashReq } from './context';
import { html } from './html';
import { flashId, openFlash, sealFlash } from './flash';
import { csrfField } from './layout';
import { confirmPage } from './confirmTyped';
import { type CreateFormState, EXPIRY_CHOICES, keysPage, mayGiveAdmin, revokeConfirm, revokeDetails } from './keysPage';
import { DashError, redirect, sendPage } from './respond';
import { newToken } from './identity';
import { type Route, authed } from './route';

interface KeyFlash {
  key: string;
  id: string;
  name: string;
  rolled_from?: string;
}

const ID = '([A-Za-z0-9_-]{1,100})';

/** The key the person manages, or a 404 page (the same for a key outside their scope: nothing is told of it). */
async function managed(r: AuthedReq, id: string) {
  const key = await r.ctx.api.keys.find(id);
  if (!key || key.id !== id || !actorManages(r.who.actor, { orgId: key.orgId, projectId: key.projectId, personId: key.personId }))
    throw new DashError(404, r.l10n.t('No such API key.'));
  return key;
}

function fieldOf(e: unknown): string | undefined {
  return e instanceof KeyRequestError || e instanceof TeamRequestError ? e.field : undefined;
}

async function postCreate(r: AuthedReq): Promise<void> {
  const { l10n, ctx } = r;
  const f = r.form!;
  const state: CreateFormState = {
    type: f.get('type') ?? 'personal',
    name: (f.get('name') ?? '').trim(),
    permissions: f.getAll('permissions'),
    project: f.get('project') ?? '',
    expiry: f.get('expiry') ?? '90',
  };
  const refuse = (field: string, error: string): Promise<void> => keysPage(r, { ...state, field, error }, 400);
  if (!state.name) return refuse('name', l10n.t('Give the key a name.'));
  if (state.type !== 'personal' && state.type !== 'project') return refuse('type', l10n.t('Choose a type.'));
  const perms = state.permissions!.filter((p): p is Permission => p === 'read' || p === 'write' || (p === 'admin' && mayGiveAdmin(r)));
  if (perms.length === 0 || perms.length !== state.permissions!.length)
    return refuse('permissions', l10n.t('Choose at least one permission.'));
  if (state.type === 'project' && !state.project) return refuse('project', l10n.t('Choose the project of a project key.'));
  if (!(EXPIRY_CHOICES as readonly string[]).includes(state.expiry!)) return refuse('expiry', l10n.t('Choose an expiry.'));
  const idem = f.get('_idem') ?? '';
  if (!/^[A-Za-z0-9_-]{43}$/.test(idem)) throw new DashError(400, l10n.t('This form must be sent by the page.'));
  const id = flashId(r.who.idHash, idem);
  if (!(await ctx.store.claimFlash(id, r.who.idHash, new Date(ctx.now()).toISOString()))) {
    // The same form sent again (a double click): the first submission's key, shown once.
    return redirect(r, `/dashboard/keys/created/${idem}`);
  }
  const req: CreateKeyRequest = {
    type: state.type,
    name: state.name,
    permissions: perms,
    ...(state.type === 'project' ? { project_id: state.project! } : {}),
    ...(state.expiry === 'never' ? {} : { expires_in_days: Number(state.expiry) }),
  };
  try {
    const created = await createKeyAs(ctx.api, r.who.actor, req);
    await ctx.store.fillFlash(id, sealFlash(r.who.token, { key: created.key, id: created.id, name: created.name } satisfies KeyFlash));
  } catch (e) {
    await ctx.store.dropFlash(id);
    const field = fieldOf(e);
    if (field === 'name') return refuse('name', l10n.t('A key named "{0}" exists already here: choose another name.', state.name!));
    if (field === 'project_id') return refuse('project', l10n.t('No such project.'));
    if (field === 'expires_in_days' || field === 'expires_at')
      return refuse('expiry', l10n.t("This expiry is not allowed by the organisation's maximum key lifetime."));
    if (field) return refuse(field, (e as Error).message);
    if (e instanceof HttpError && e.status === 403) return refuse('', l10n.t('You may not create this key.'));
    throw e;
  }
  redirect(r, `/dashboard/keys/created/${idem}`);
}

async function getCreated(r: AuthedReq): Promise<void> {
  const { l10n, ctx } = r;
  const idem = r.params[0]!;
  const taken = await ctx.store.takeFlash(flashId(r.who.idHash, idem), r.who.idHash);
  if (taken.state === 'absent') throw new DashError(404, l10n.t('No such page.'));
  if (taken.state === 'pending')
    return sendPage(
      r,
      l10n.t('Creating the key'),
      html`<p role="status">${l10n.t('The key is being created: reload this page in a moment.')}</p>`,
    );
  if (taken.state === 'taken')
    return sendPage(
      r,
      l10n.t('Key already shown'),
      html`<p role="alert">
          ${l10n.t('This key was shown once and is never shown again. If it was not copied, revoke it and create another.')}
        </p>
        <p><a href="/dashboard/keys">${l10n.t('Back to the API keys')}</a></p>`,
    );
  const flash = taken.state === 'ready' ? openFlash<KeyFlash>(r.who.token, taken.body) : undefined;
  if (!flash) throw new DashError(404, l10n.t('No such page.'));
  const next = flash.rolled_from
    ? html`<p>
        <a class="button primary" href="/dashboard/keys/${flash.rolled_from}/watch"
          >${l10n.t('Next: watch the old key until it goes quiet')}</a
        >
      </p>`
    : html`<p><a href="/dashboard/keys">${l10n.t('Back to the API keys')}</a></p>`;
  sendPage(
    r,
    flash.rolled_from ? l10n.t('Roll: the new key') : l10n.t('Key created'),
    html`<p>${l10n.t('Copy the key "{0}" now: it is shown only once, never again, not even after a reload.', flash.name)}</p>
      <p class="secret">
        <label for="new-key">${l10n.t('Key')}</label>
        <input id="new-key" class="key" readonly value="${flash.key}" size="60" />
        <button type="button" class="copy" data-copy="new-key" data-copied="${l10n.t('Copied to the clipboard.')}">
          ${l10n.t('Copy')}
        </button>
        <span class="copied" role="status" aria-live="polite"></span>
      </p>
      ${next}`,
  );
}

function revokePage(r: AuthedReq, key: ApiKey, error?: string, typed = '', status = 200): void {
  const details = revokeDetails(r, { hint: key.hint, created_at: key.createdAt, expires_at: key.expiresAt });
  confirmPage(
    r,
    revokeConfirm(r),
    { action: `/dashboard/keys/${key.id}/revoke`, expected: key.name, back: '/dashboard/keys', details },
    error,
    typed,
    status,
  );
}

async function getRevoke(r: AuthedReq): Promise<void> {
  const key = await managed(r, r.params[0]!);
  if (key.revokedAt)
    return sendPage(
      r,
      r.l10n.t('Revoke key'),
      html`<p role="status">${r.l10n.t('The key "{0}" was revoked on {1}.', key.name, r.l10n.dateTime(key.revokedAt))}</p>
        <p><a href="/dashboard/keys">${r.l10n.t('Back to the API keys')}</a></p>`,
    );
  revokePage(r, key);
}

async function postRevoke(r: AuthedReq): Promise<void> {
  const { l10n, ctx } = r;
  const key = await managed(r, r.params[0]!);
  const typed = r.form!.get('confirm_name') ?? '';
  if (key.revokedAt)
    return sendPage(
      r,
      l10n.t('Revoke key'),
      html`<p role="alert">
          ${l10n.t('The key "{0}" was already revoked, on {1}: nothing more to do.', key.name, l10n.dateTime(key.revokedAt))}
        </p>
        <p><a href="/dashboard/keys">${l10n.t('Back to the API keys')}</a></p>`,
      409,
    );
  if (typed.trim() !== key.name)
    return revokePage(r, key, l10n.t("The name typed is not the key's name: nothing was revoked."), typed, 400);
  const done = await revokeKeyAs(ctx.api, r.who.actor, key.id);
  if (!done.revokedHere)
    return sendPage(
      r,
      l10n.t('Revoke key'),
      html`<p role="alert">
          ${l10n.t('The key "{0}" was already revoked, on {1}: nothing more to do.', key.name, l10n.dateTime(done.key.revokedAt ?? new Date(ctx.now()).toISOString()))}
        </p>
        <p><a href="/dashboard/keys">${l10n.t('Back to the API keys')}</a></p>`,
      409,
    );
  redirect(r, `/dashboard/keys/${key.id}/revoked`);
}

async function getRevoked(r: AuthedReq): Promise<void> {
  const key = await managed(r, r.params[0]!);
  sendPage(
    r,
    r.l10n.t('Key revoked'),
    html`<p role="status">${r.l10n.t('The key "{0}" is revoked.', key.name)}</p>
      <p><a href="/dashboard/keys">${r.l10n.t('Back to the API keys')}</a></p>`,
  );
}

async function getRoll(r: AuthedReq): Promise<void> {
  const { l10n } = r;
  const key = await managed(r, r.params[0]!);
  if (key.revokedAt || (key.expiresAt && Date.parse(key.expiresAt) <= r.ctx.now()))
    return sendPage(
      r,
      l10n.t('Roll key'),
      html`<p role="status">
          ${
            key.revokedAt
              ? l10n.t('The key "{0}" is revoked: it cannot be rolled.', key.name)
              : l10n.t('The key "{0}" has expired: it cannot be rolled.', key.name)
          }
          ${l10n.t('Create a new key instead.')}
        </p>
        <p><a href="/dashboard/keys#create-title">${l10n.t('Create a new key')}</a></p>`,
    );
  sendPage(
    r,
    l10n.t('Roll key'),
    html`<ol class="steps">
        <li aria-current="step">${l10n.t('A new key, with the same name, type, project and permissions')}</li>
        <li>${l10n.t('The old key watched until it goes quiet')}</li>
        <li>${l10n.t('The old key revoked')}</li>
      </ol>
      <form method="post" action="/dashboard/keys/${key.id}/roll">
        ${csrfField(r)}<input type="hidden" name="_idem" value="${newToken()}" />
        <p>
          ${l10n.t('Rolling "{0}" makes a new key; the old one keeps working during the overlap, so that its users can switch.', key.name)}
        </p>
        <p>
          <label for="overlap">${l10n.t('Overlap')}</label>
          <select id="overlap" name="overlap_hours">
            <option value="1">${l10n.t('1 hour')}</option>
            <option value="24" selected>${l10n.t('{0} hours', 24)}</option>
            <option value="168">${l10n.t('{0} days', 7)}</option>
          </select>
        </p>
        <p><button type="submit" class="primary">${l10n.t('Roll')}</button> <a href="/dashboard/keys">${l10n.t('Cancel')}</a></p>
      </form>`,
  );
}

async function postRoll(r: AuthedReq): Promise<void> {
  const { l10n, ctx } = r;
  const key = await managed(r, r.params[0]!);
  const hours = Number(r.form!.get('overlap_hours'));
  if (![1, 24, 168].includes(hours)) throw new DashError(400, l10n.t('Choose an overlap.'));
  const idem = r.form!.get('_idem') ?? '';
  if (!/^[A-Za-z0-9_-]{43}$/.test(idem)) throw new DashError(400, l10n.t('This form must be sent by the page.'));
  const id = flashId(r.who.idHash, idem);
  if (!(await ctx.store.claimFlash(id, r.who.idHash, new Date(ctx.now()).toISOString())))
    return redirect(r, `/dashboard/keys/created/${idem}`);
  try {
    const rolled = await rollKeyAs(ctx.api, r.who.actor, key.id, hours);
    await ctx.store.fillFlash(
      id,
      sealFlash(r.who.token, {
        key: rolled.created.key,
        id: rolled.created.id,
        name: rolled.created.name,
        rolled_from: key.id,
      } satisfies KeyFlash),
    );
  } catch (e) {
    await ctx.store.dropFlash(id);
    if (e instanceof KeyRequestError) throw new DashError(409, l10n.t('This key cannot be rolled: it is revoked or expired.'));
    throw e;
  }
  redirect(r, `/dashboard/keys/created/${idem}`);
}

/** Quiet: not used for this long (the last use is written at most once a minute). */
const QUIET_MS = 5 * 60_000;

async function getWatch(r: AuthedReq): Promise<void> {
  const { l10n, ctx } = r;
  const key = await managed(r, r.params[0]!);
  const last = key.lastUsedAt ?? null;
  const quiet = !last || ctx.now() - Date.parse(last) >= QUIET_MS;
  sendPage(
    r,
    l10n.t('Roll: watch the old key'),
    html`<ol class="steps">
        <li>${l10n.t('A new key, with the same name, type, project and permissions')}</li>
        <li aria-current="step">${l10n.t('The old key watched until it goes quiet')}</li>
        <li>${l10n.t('The old key revoked')}</li>
      </ol>
      <p>
        ${l10n.t('The old key (hint {0}) was last used:', key.hint)}
        <strong id="last-used" data-watch="/dashboard/keys/${key.id}/last-used">${last ? l10n.dateTime(last) : l10n.t('never')}</strong>
      </p>
      <p id="quiet" role="status" aria-live="polite">
        ${quiet ? l10n.t('Quiet: not used for 5 minutes. It can be revoked.') : l10n.t('Still in use: this page checks again every few seconds (or reload it).')}
      </p>
      <p>
        <a href="/dashboard/keys/${key.id}/revoke" class="button danger">${l10n.t('Revoke the old key')}</a>
        <a href="/dashboard/keys">${l10n.t('Back to the API keys')}</a>
      </p>`,
  );
}

async function getLastUsed(r: AuthedReq): Promise<void> {
  const key = await managed(r, r.params[0]!);
  const last = key.lastUsedAt ?? null;
  const quiet = !last || r.ctx.now() - Date.parse(last) >= QUIET_MS;
  const body = JSON.stringify({
    last_used_at: last,
    text: last ? r.l10n.dateTime(last) : r.l10n.t('never'),
    quiet,
    status: quiet
      ? r.l10n.t('Quiet: not used for 5 minutes. It can be revoked.')
      : r.l10n.t('Still in use: this page checks again every few seconds (or reload it).'),
  });
  r.res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  r.res.end(body);
}

export const KEY_ROUTES: readonly Route[] = [
  { method: 'GET', path: '/dashboard/keys', handler: authed((r) => keysPage(r)) },
  { method: 'POST', path: '/dashboard/keys', handler: authed(postCreate) },
  { method: 'GET', path: /^\/dashboard\/keys\/created\/([A-Za-z0-9_-]{43})$/, handler: authed(getCreated) },
  { method: 'GET', path: new RegExp(`^/dashboard/keys/${ID}/revoke$`), handler: authed(getRevoke) },
  { method: 'POST', path: new RegExp(`^/dashboard/keys/${ID}/revoke$`), handler: authed(postRevoke) },
  { method: 'GET', path: new RegExp(`^/dashboard/keys/${ID}/revoked$`), handler: authed(getRevoked) },
  { method: 'GET', path: new RegExp(`^/dashboard/keys/${ID}/roll$`), handler: authed(getRoll) },
  { method: 'POST', path: new RegExp(`^/dashboard/keys/${ID}/roll$`), handler: authed(postRoll) },
  { method: 'GET', path: new RegExp(`^/dashboard/keys/${ID}/watch$`), handler: authed(getWatch) },
  { method: 'GET', path: new RegExp(`^/dashboard/keys/${ID}/last-used$`), handler: authed(getLastUsed) },
];
