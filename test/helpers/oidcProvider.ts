/**
 * A real OpenID provider for the tests: `oidc-provider` (panva's certified implementation) on a free
 * loopback port, with one confidential client (authorization code + PKCE, `client_secret_basic`/`_post`,
 * the redirect URIs the test gives), test accounts with an email, `email_verified`, a name and a `groups`
 * claim, and a small interactive login page (fields **Username** and **Password**, a **Sign in** button)
 * that a browser completes; consent is granted without a page (a hospital's own application). Claims are
 * given by the userinfo endpoint (the ID token carries only `sub` for a code flow, as the specification's
 * conformance mode wants), so the relying party must read both.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OidcContext } from 'oidc-provider';

export interface TestAccount {
  /** The subject (`sub`) and the login typed on the page. */
  login: string;
  password: string;
  email: string;
  email_verified: boolean;
  name: string;
  groups: string[];
}

export interface TestProviderOptions {
  redirectUris: string[];
  accounts: TestAccount[];
  /** The claim that carries the groups (default `groups`). */
  groupsClaim?: string;
}

export interface TestProvider {
  /** http://127.0.0.1:PORT (the issuer; discovery at /.well-known/openid-configuration). */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Sign-ins completed on the login page, by login. */
  readonly logins: string[];
  /**
   * When true, the redirect back to the application is not sent: a page with a link to it (`Continue to the
   * application`) in its place, so that a test holds a callback URL (a state mismatch, a provider gone down).
   */
  holdRedirects: boolean;
  stop(): Promise<void>;
}

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function loginPage(uid: string, error?: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Hospital sign-in</title></head><body>
<h1>Hospital sign-in</h1>${error ? `<p role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/interaction/${escapeHtml(uid)}">
<label>Username <input name="login" autocomplete="username" required></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button></form></body></html>`;
}

function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => resolve(new URLSearchParams(body)));
    req.on('error', reject);
  });
}

export async function startOidcProvider(opts: TestProviderOptions): Promise<TestProvider> {
  // oidc-provider is ESM only: loaded with a dynamic import (kept as such by tsx and the compiler's CommonJS output).
  const { default: Provider } = await import('oidc-provider');
  const groupsClaim = opts.groupsClaim ?? 'groups';
  const clientId = 'dictee-dashboard';
  const clientSecret = randomBytes(24).toString('base64url');
  const accounts = new Map(opts.accounts.map((a) => [a.login, a]));
  const logins: string[] = [];

  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: opts.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'test', use: 'sig', alg: 'RS256' }] },
    cookies: { keys: [randomBytes(16).toString('hex')] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', groupsClaim] },
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
    ttl: { Interaction: 600, Grant: 600, Session: 600, AccessToken: 600, IdToken: 600 },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount(_ctx: unknown, sub: string) {
      const a = accounts.get(sub);
      if (!a) return undefined;
      return {
        accountId: sub,
        claims: () => ({ sub, email: a.email, email_verified: a.email_verified, name: a.name, [groupsClaim]: a.groups }),
      };
    },
    // A first-party application: the grant is given without a consent page.
    async loadExistingGrant(ctx: OidcContext) {
      const { oidc } = ctx;
      const grantId = oidc.result?.consent?.grantId ?? oidc.session.grantIdFor(oidc.client.clientId);
      if (grantId) return oidc.provider.Grant.find(grantId);
      const grant = new oidc.provider.Grant({ clientId: oidc.client.clientId, accountId: oidc.session.accountId });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
  });
  const handle = provider.callback();

  async function interaction(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    const send = (status: number, html: string): void => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(html);
    };
    if (details.prompt.name !== 'login') return send(501, `unexpected prompt ${escapeHtml(details.prompt.name)}`);
    if (req.method === 'GET') return send(200, loginPage(details.uid));
    const form = await readForm(req);
    const account = accounts.get(form.get('login') ?? '');
    if (!account || account.password !== form.get('password')) return send(200, loginPage(details.uid, 'Wrong username or password.'));
    logins.push(account.login);
    await provider.interactionFinished(req, res, { login: { accountId: account.login } }, { mergeWithLastSubmission: false });
  }

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.startsWith('/interaction/')) {
      interaction(req, res).catch((e: unknown) => {
        if (!res.headersSent) res.writeHead(400, { 'content-type': 'text/plain' });
        res.end(`interaction failed: ${e instanceof Error ? e.message : String(e)}`);
      });
      return;
    }
    if (provided.holdRedirects) holdRedirect(res, opts.redirectUris);
    handle(req, res);
  });

  const provided: TestProvider = {
    issuer,
    clientId,
    clientSecret,
    logins,
    holdRedirects: false,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return provided;
}

/** Replaces a redirect to one of `uris` (as the provider's framework ends it) by a page with a link to it. */
function holdRedirect(res: ServerResponse, uris: string[]): void {
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.end = ((...args: unknown[]) => {
    const location = res.getHeader('location');
    if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === 'string' && uris.some((u) => location.startsWith(u))) {
      res.statusCode = 200;
      res.removeHeader('location');
      res.removeHeader('content-length');
      res.setHeader('content-type', 'text/html; charset=utf-8');
      return end(`<!doctype html><title>Held</title><a href="${escapeHtml(location)}">Continue to the application</a>`);
    }
    return end(...args);
  }) as typeof res.end;
}
