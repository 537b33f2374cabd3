/**
 * The dashboard's OpenID Connect relying party (openid-client): the provider's metadata discovered from
 * its issuer at the first sign-in (and again after a failure), an authorization request with PKCE (S256),
 * `state` and `nonce`, kept in the browser in a short-lived cookie (`PendingSignIn`, see ssoRoutes.ts) so
 * that any instance can finish it; at the callback, the state compared, the code exchanged (client secret),
 * the ID token checked (signature, issuer, audience, nonce, expiry) and the person's claims read from it
 * and from the userinfo endpoint. Every failure is an `SsoError` whose `reason` the page explains; tokens
 * are used here and dropped, never logged nor stored.
 */
import { timingSafeEqual } from 'node:crypto';
import * as oidc from 'openid-client';
import type { ServerLogger } from '../log';
import type { OrgRole } from '../storage/teams';
import { isLoopbackHost } from '../ssoOptions';

/** Why a sign-in through the provider did not happen (each has its message in the page). */
export const SSO_FAILURES = [
  'provider_unreachable',
  'sign_in_expired',
  'state_mismatch',
  'provider_refused',
  'token_rejected',
  'email_missing',
  'email_not_verified',
  'no_role',
  'no_organisation',
] as const;
export type SsoFailure = (typeof SSO_FAILURES)[number];

export class SsoError extends Error {
  constructor(
    readonly reason: SsoFailure,
    message: string,
  ) {
    super(message);
  }
}

/** What the browser keeps between the redirect to the provider and the callback (a cookie, ten minutes). */
interface PendingSignIn {
  state: string;
  nonce: string;
  verifier: string;
  /** When the sign-in began (ms since the epoch). */
  at: number;
  /** The dashboard page to go to once signed in. */
  next: string;
}

/** The person as the provider describes them. */
export interface SsoIdentity {
  subject: string;
  email?: string;
  emailVerified: boolean;
  name?: string;
  groups: string[];
}

interface RelyingPartySettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** `--public-url` + /dashboard/sso/callback. */
  redirectUri: string;
  scopes: string;
  groupsClaim: string;
  trustEmail: boolean;
  /** How long a begun sign-in may take (default ten minutes). */
  pendingTtlMs?: number;
  /** How long one request to the provider may take (default 10 s). */
  timeoutS?: number;
}

/** The redirect URI's path (after `--public-url`). */
export const SSO_CALLBACK_PATH = '/dashboard/sso/callback';

const PENDING_TTL_MS = 10 * 60_000;

/** A pending sign-in as a cookie value (base64url JSON: nothing in it is secret from its own browser). */
export function encodePending(p: PendingSignIn): string {
  return Buffer.from(JSON.stringify(p)).toString('base64url');
}

export function decodePending(v: string | undefined): PendingSignIn | undefined {
  if (!v || v.length > 1024) return undefined;
  try {
    const p = JSON.parse(Buffer.from(v, 'base64url').toString('utf8')) as Partial<PendingSignIn>;
    if (typeof p.state === 'string' && typeof p.nonce === 'string' && typeof p.verifier === 'string' && typeof p.at === 'number') {
      return { state: p.state, nonce: p.nonce, verifier: p.verifier, at: p.at, next: typeof p.next === 'string' ? p.next : '/dashboard' };
    }
  } catch {
    // not ours: as if absent
  }
  return undefined;
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The groups claim as a list of names: an array of strings, or one string. */
export function groupsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((g): g is string => typeof g === 'string');
  return [];
}

/** Whether an error is the provider not answering (refused, reset, timed out, a name that does not resolve, a 5xx). */
function unreachable(e: unknown): boolean {
  if (e instanceof oidc.ResponseBodyError) return e.status >= 500;
  const code = (e as { code?: unknown }).code;
  if (code === 'OAUTH_TIMEOUT' || code === 'OAUTH_ABORT') return true;
  if (e instanceof TypeError && /fetch failed/i.test(e.message)) return true;
  if (e instanceof oidc.ClientError && e.cause !== undefined) return unreachable(e.cause);
  if ((e as { name?: unknown }).name === 'TimeoutError' || (e as { name?: unknown }).name === 'AbortError') return true;
  return code === 'OAUTH_RESPONSE_IS_NOT_CONFORM' && /5\d\d/.test(String((e as Error).message));
}

/** What the dashboard needs for single sign-on (built at start from the `--oidc-*` options). */
export interface DashboardSso {
  rp: OidcRelyingParty;
  /** `--public-url` (the callback's origin). */
  publicUrl: string;
  orgId: string;
  roleMap: ReadonlyMap<string, OrgRole>;
  /** The provider's name on the sign-in button. */
  label: string;
}

export class OidcRelyingParty {
  private config: Promise<oidc.Configuration> | undefined;
  private readonly ttl: number;

  constructor(
    private readonly settings: RelyingPartySettings,
    private readonly log: ServerLogger,
  ) {
    this.ttl = settings.pendingTtlMs ?? PENDING_TTL_MS;
  }

  /** The provider's configuration, discovered once (a failed discovery is tried again at the next sign-in). */
  private configuration(): Promise<oidc.Configuration> {
    if (!this.config) {
      const issuer = new URL(this.settings.issuer);
      const insecure = issuer.protocol === 'http:' && isLoopbackHost(issuer);
      const started = oidc
        .discovery(issuer, this.settings.clientId, this.settings.clientSecret, undefined, {
          ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
          timeout: this.settings.timeoutS ?? 10,
        })
        .then((c) => {
          c.timeout = this.settings.timeoutS ?? 10;
          this.log.info('OpenID provider discovered', { issuer: c.serverMetadata().issuer });
          return c;
        });
      started.catch((e: unknown) => {
        this.config = undefined;
        this.log.warn('OpenID provider discovery failed', { issuer: this.settings.issuer, error: whyFailed(e) });
      });
      this.config = started;
    }
    return this.config;
  }

  /** Begins a sign-in: the provider's authorization URL to redirect to, and what the browser keeps until the callback. */
  async begin(next = '/dashboard', now = Date.now()): Promise<{ url: string; pending: PendingSignIn }> {
    let config: oidc.Configuration;
    try {
      config = await this.configuration();
    } catch (e) {
      throw new SsoError('provider_unreachable', `the OpenID provider could not be reached (${whyFailed(e)})`);
    }
    const pending: PendingSignIn = {
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      verifier: oidc.randomPKCECodeVerifier(),
      at: now,
      next,
    };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.settings.redirectUri,
      scope: this.settings.scopes,
      response_type: 'code',
      state: pending.state,
      nonce: pending.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(pending.verifier),
      code_challenge_method: 'S256',
    });
    return { url: url.href, pending };
  }

  /**
   * Finishes a sign-in at the callback: `callbackUrl` is the redirect URI with the query the provider gave;
   * `pending` what the browser kept (undefined: none, or unreadable). The identity, or an SsoError.
   */
  async complete(callbackUrl: URL, pending: PendingSignIn | undefined, now = Date.now()): Promise<SsoIdentity> {
    if (!pending || now - pending.at > this.ttl || now < pending.at - 60_000) {
      throw new SsoError('sign_in_expired', 'no sign-in was begun in this browser, or it took longer than ten minutes');
    }
    const state = callbackUrl.searchParams.get('state');
    if (!state || !sameText(state, pending.state)) {
      throw new SsoError('state_mismatch', 'the answer from the OpenID provider does not belong to the sign-in begun in this browser');
    }
    const error = callbackUrl.searchParams.get('error');
    if (error) throw new SsoError('provider_refused', `the OpenID provider refused the sign-in (${error.slice(0, 64)})`);
    let config: oidc.Configuration;
    try {
      config = await this.configuration();
    } catch (e) {
      throw new SsoError('provider_unreachable', `the OpenID provider could not be reached (${whyFailed(e)})`);
    }
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    let userinfo: Record<string, unknown> = {};
    try {
      tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: pending.verifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims()!;
      if (config.serverMetadata().userinfo_endpoint) {
        userinfo = { ...(await oidc.fetchUserInfo(config, tokens.access_token, claims.sub)) };
      }
    } catch (e) {
      if (unreachable(e)) throw new SsoError('provider_unreachable', `the OpenID provider could not be reached (${whyFailed(e)})`);
      throw new SsoError('token_rejected', `the OpenID provider's answer was refused (${whyFailed(e)})`);
    }
    const claims: Record<string, unknown> = { ...userinfo, ...tokens.claims()! };
    const email = typeof claims.email === 'string' && claims.email.includes('@') ? claims.email : undefined;
    const verified = claims.email_verified === true || claims.email_verified === 'true';
    return {
      subject: String(claims.sub),
      ...(email ? { email } : {}),
      emailVerified: verified || (this.settings.trustEmail && claims.email_verified === undefined),
      ...(typeof claims.name === 'string' ? { name: claims.name } : {}),
      groups: groupsOf(claims[this.settings.groupsClaim] ?? userinfo[this.settings.groupsClaim]),
    };
  }
}

/** An error as a short text for the log and the page: its message and code, never a token (openid-client's messages hold none). */
export function whyFailed(e: unknown): string {
  if (e instanceof oidc.ResponseBodyError) return `${e.error}: HTTP ${e.status}`;
  if (e instanceof oidc.AuthorizationResponseError) return e.error;
  const code = (e as { code?: unknown }).code;
  const cause = (e as { cause?: { code?: unknown } }).cause;
  const causeCode = typeof cause?.code === 'string' ? ` ${cause.code}` : '';
  return `${e instanceof Error ? e.message : String(e)}${typeof code === 'string' ? ` [${code}]` : ''}${causeCode}`.slice(0, 200);
}
