/** The sign-in page's link to the OpenID provider, when single sign-on is set up (ssoRoutes.ts). */
import type { DashReq } from './context';
import { html, type Html } from './html';

/** The sign-in page's link to the provider (nothing when single sign-on is not set up). */
export function ssoSignInLink(r: DashReq, next: string): Html {
  const sso = r.ctx.sso;
  if (!sso) return html``;
  return html`<p class="sso">
    <a class="button" href="/dashboard/sso/start?next=${encodeURIComponent(next)}">${r.l10n.t('Sign in with {0}', sso.label)}</a>
  </p>`;
}
