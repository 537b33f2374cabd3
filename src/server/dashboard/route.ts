/**
 * What a dashboard route is (docs/dashboard.md): its method, its path or pattern, who may open it. Each page's
 * file exports its routes; router.ts lists them all and answers them.
 */
import type { AuthedReq, DashReq } from './context';
import type { OrgRole } from '../storage/teams';

export interface Route {
  method: 'GET' | 'POST';
  /** The whole path (`/dashboard/keys`), or a pattern whose groups become `params`. */
  path: string | RegExp;
  /** false: answered to anyone (sign-in); default: a signed-in person, with the CSRF check on POST. */
  auth?: false;
  roles?: readonly OrgRole[];
  handler(r: DashReq): Promise<void>;
}

/** A handler of a route that needs a signed-in person (the router sets `r.who` before it runs). */
export function authed(h: (r: AuthedReq) => Promise<void>): (r: DashReq) => Promise<void> {
  return (r) => h(r as AuthedReq);
}
