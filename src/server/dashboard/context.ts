/**
 * What every dashboard route works with: the API's context (the key store, the audit sink, the registry),
 * the dashboard's store (storage/dashboard.ts), the browser assets, the session rules; and, per request, the
 * request itself with its language, the signed-in person (when there is one) and the form sent.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiContext } from '../http/context';
import type { Actor } from '../http/actor';
import type { DashboardSession, DashboardStore } from '../storage/dashboard';
import type { Person } from '../storage/teams';
import type { Assets } from './assets';
import type { L10n } from './i18n';
import type { SessionPolicy } from './sessionRules';
import type { DashboardSso } from './oidcClient';
import type { DashboardSecondFactor } from './totp';

export interface DashboardContext {
  api: ApiContext;
  store: DashboardStore;
  assets: Assets;
  policy: SessionPolicy;
  now(): number;
  /** Single sign-on with OpenID Connect (ssoRoutes.ts), when `--oidc-issuer` is given. */
  sso?: DashboardSso;
  /** The people's optional second factor (secondFactorAccess.ts), when the store keeps it. */
  secondFactor?: DashboardSecondFactor;
}

/** The person signed in on a request, their session, and the actor they are to the key-management code (http/actor.ts). */
export interface SignedIn {
  person: Person;
  session: DashboardSession;
  /** The SHA-256 of the session cookie's value (the session's key in the store). */
  idHash: string;
  /** The cookie's value itself (keys the flashes' encryption; never stored). */
  token: string;
  actor: Actor;
}

export interface DashReq {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** The path without a trailing slash (`/dashboard/keys`). */
  path: string;
  ctx: DashboardContext;
  l10n: L10n;
  /** The client's address (http/clientAddress.ts). */
  ip: string;
  /** Set by the router on routes that need a signed-in person. */
  who?: SignedIn;
  /** The form of a POST (application/x-www-form-urlencoded), once the CSRF check passed. */
  form?: URLSearchParams;
  /** The regular expression groups of the route's path. */
  params: string[];
}

/** A route's request with a signed-in person. */
export type AuthedReq = DashReq & { who: SignedIn };
