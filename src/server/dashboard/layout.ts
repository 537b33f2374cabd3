/**
 * The page around every dashboard page: the language, the style sheet and the script (external files
 * only: the CSP allows no inline script or style), a skip link, the header with the person and the
 * sign-out, the navigation of links (NAV: one entry per page; People and projects for owners and admins),
 * the main content, and the language menu.
 */
import type { OrgRole } from '../storage/teams';
import type { DashReq } from './context';
import { type Html, html } from './html';
import { LOCALES, LOCALE_NAMES } from './i18n';

interface NavEntry {
  path: string;
  /** The English label (translated with l10n.t in `navLabel`). */
  id: 'keys' | 'usage' | 'sessions' | 'audit' | 'people' | 'security';
  /** Only these roles of the organisation see the entry (undefined: everyone). */
  roles?: readonly OrgRole[];
}

const NAV: readonly NavEntry[] = [
  { id: 'keys', path: '/dashboard/keys' },
  { id: 'usage', path: '/dashboard/usage' },
  { id: 'sessions', path: '/dashboard/sessions' },
  { id: 'audit', path: '/dashboard/audit', roles: ['owner', 'admin'] },
  { id: 'people', path: '/dashboard/people', roles: ['owner', 'admin'] },
  { id: 'security', path: '/dashboard/security' },
];

function navLabel(r: DashReq, id: NavEntry['id']): string {
  const { l10n } = r;
  switch (id) {
    case 'keys':
      return l10n.t('API keys');
    case 'usage':
      return l10n.t('Usage');
    case 'sessions':
      return l10n.t('Sessions');
    case 'audit':
      return l10n.t('Audit log');
    case 'people':
      return l10n.t('People and projects');
    case 'security':
      return l10n.t('Security');
  }
}

/** The hidden CSRF field of every form of a signed-in page. */
export function csrfField(r: DashReq): Html {
  return html`<input type="hidden" name="_csrf" value="${r.who?.session.csrf ?? ''}" />`;
}

function header(r: DashReq): Html {
  const { l10n, who } = r;
  if (!who) return html`<header class="top"><span class="brand">Dictée</span></header>`;
  const nav = NAV.filter((n) => !n.roles || n.roles.includes(who.person.role)).map(
    (n) =>
      html`<li>
        <a href="${n.path}" ${r.path === n.path || r.path.startsWith(`${n.path}/`) ? html` aria-current="page"` : ''}
          >${navLabel(r, n.id)}</a
        >
      </li>`,
  );
  return html`<header class="top">
    <span class="brand">Dictée</span>
    <nav aria-label="${l10n.t('Dashboard')}">
      <ul class="nav">
        ${nav}
      </ul>
    </nav>
    <div class="who">
      <span>${who.person.display_name || who.person.email}</span>
      <form method="post" action="/dashboard/locale" class="inline">
        ${csrfField(r)}<input type="hidden" name="back" value="${r.url.pathname}" />
        <label for="locale-select" class="sr-only">${l10n.t('Language')}</label>
        <select id="locale-select" name="locale">
          ${LOCALES.map(
            (l) => html`<option value="${l}" ${l === l10n.locale ? html` selected` : ''} lang="${l}">${LOCALE_NAMES[l]}</option>`,
          )}
        </select>
        <button type="submit">${l10n.t('Change language')}</button>
      </form>
      <form method="post" action="/dashboard/sign-out" class="inline">
        ${csrfField(r)}<button type="submit">${l10n.t('Sign out')}</button>
      </form>
    </div>
  </header>`;
}

/** A whole page: `title` in the tab and as the first heading, `body` in the main landmark. */
export function page(r: DashReq, title: string, body: Html): Html {
  const { l10n, ctx } = r;
  return html`<!doctype html>
    <html lang="${l10n.locale}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${title} · Dictée</title>
        <link rel="stylesheet" href="${ctx.assets.style}" />
        <script src="${ctx.assets.script}" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">${l10n.t('Skip to content')}</a>
        ${header(r)}
        <main id="main" tabindex="-1">
          <h1>${title}</h1>
          ${body}
        </main>
      </body>
    </html>`;
}
