/**
 * The dashboard's routes (docs/dashboard.md): `/dashboard/…` is answered here, before the API's routes. Each
 * route says whether it needs a signed-in person (then a POST is refused with 403 unless it comes from this
 * origin and carries the session's CSRF token) and which roles may see it. Every answer gets the security
 * headers (security.ts) and `Cache-Control: no-store`; the browser assets are the only cached answers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DashboardContext, DashReq, AuthedReq } from './context';
import { html } from './html';
import { isLocale, l10nFor, negotiate } from './i18n';
import { signedIn } from './identity';
import { DashError, readForm, redirect, sendErrorPage, sendPage } from './respond';
import { sameOrigin, securityHeaders, tokensMatch } from './security';
import type { OrgRole } from '../storage/teams';
import { SIGN_IN_ROUTES } from './signIn';
import { KEY_ROUTES } from './keysRoutes';
import { USAGE_ROUTES } from './usagePage';
import { SESSION_ROUTES } from './sessionsPage';
import { AUDIT_ROUTES } from './auditPage';
import { PEOPLE_ROUTES } from './peoplePage';
import { INVITE_ROUTES } from './peopleInvite';
import { PERSON_ACTION_ROUTES } from './peopleActions';
import { SSO_ROUTES } from './ssoRoutes';
import { SECOND_FACTOR_SIGN_IN_ROUTES } from './secondFactorSignIn';
import { SECURITY_ROUTES } from './securityPage';
import type { Route } from './route';

/** Every route of the dashboard. A page adds its routes here (its own file exports them). */
const ROUTES: readonly Route[] = [
  { method: 'GET', path: '/dashboard', handler: async (r) => redirect(r, '/dashboard/keys') },
  ...SIGN_IN_ROUTES,
  ...SSO_ROUTES,
  ...SECOND_FACTOR_SIGN_IN_ROUTES,
  ...SECURITY_ROUTES,
  ...KEY_ROUTES,
  ...USAGE_ROUTES,
  ...SESSION_ROUTES,
  ...AUDIT_ROUTES,
  ...PEOPLE_ROUTES,
  ...INVITE_ROUTES,
  ...PERSON_ACTION_ROUTES,
];

/** Whether the request is the dashboard's. */
export function isDashboardPath(pathname: string): boolean {
  return pathname === '/dashboard' || pathname.startsWith('/dashboard/');
}

function match(route: Route, method: string, path: string): string[] | undefined {
  const m = method === 'HEAD' ? 'GET' : method;
  if (route.method !== m) return undefined;
  if (typeof route.path === 'string') return route.path === path ? [] : undefined;
  const found = route.path.exec(path);
  return found ? found.slice(1).map((g) => decodeURIComponent(g ?? '')) : undefined;
}

export async function handleDashboard(ctx: DashboardContext, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  securityHeaders(res);
  const path = url.pathname.replace(/\/+$/, '') || '/';
  const method = req.method ?? 'GET';
  const r: DashReq = {
    req,
    res,
    url,
    path,
    ctx,
    l10n: l10nFor(negotiate(req.headers['accept-language'])),
    ip: ctx.api.clientAddress(req),
    params: [],
  };
  const asset = ctx.assets.get(url.pathname);
  if (asset && (method === 'GET' || method === 'HEAD')) {
    res.writeHead(200, {
      'content-type': asset.type,
      'content-length': String(asset.body.length),
      'cache-control': 'public, max-age=31536000, immutable',
    });
    res.end(method === 'HEAD' ? undefined : asset.body);
    return;
  }
  try {
    let route: Route | undefined;
    let allowed: string[] = [];
    for (const candidate of ROUTES) {
      const params = match(candidate, method, path);
      if (params) {
        route = candidate;
        r.params = params;
        break;
      }
      if (match(candidate, candidate.method, path)) allowed.push(candidate.method);
    }
    if (!route) {
      if (allowed.length) {
        allowed = [...new Set(allowed)];
        res.setHeader('allow', allowed.join(', '));
        throw new DashError(405, r.l10n.t('This address does not take this method.'));
      }
      throw new DashError(404, r.l10n.t('No such page.'));
    }
    if (route.auth !== false) {
      const who = await signedIn(r);
      if (typeof who === 'string') {
        if (method === 'POST') throw new DashError(403, r.l10n.t('Your sign-in has ended: sign in again.'));
        const next = encodeURIComponent(url.pathname + url.search);
        redirect(r, `/dashboard/sign-in?next=${next}${who === 'timed_out' ? '&expired=1' : ''}`);
        return;
      }
      r.who = who;
      const locale = (await ctx.store.account(who.person.id))?.locale;
      if (isLocale(locale)) r.l10n = l10nFor(locale);
      if (route.roles && !route.roles.includes(who.person.role))
        throw new DashError(403, r.l10n.t('Your role does not give access to this page.'));
      if (method === 'POST') {
        if (!sameOrigin(req)) throw new DashError(403, r.l10n.t('Refused: this form was not sent from this dashboard.'));
        r.form = await readForm(r);
        if (!tokensMatch(r.form.get('_csrf'), who.session.csrf))
          throw new DashError(
            403,
            r.l10n.t('Refused: the form has expired or was not sent from this dashboard. Reload the page and try again.'),
          );
      }
      await route.handler(r as AuthedReq);
      return;
    }
    await route.handler(r);
  } catch (e) {
    if (!(e instanceof DashError)) throw e;
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (method === 'POST' || e.status >= 400)
      ctx.api.log.info('dashboard refusal', { status: e.status, path: url.pathname, address: r.ip });
    sendErrorPage(r, e);
  }
}
