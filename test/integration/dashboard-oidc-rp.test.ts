/**
 * The dashboard's OpenID Connect relying party (src/server/dashboard/oidcClient.ts) against a real OpenID
 * provider (oidc-provider, test/helpers/oidcProvider.ts), its login page completed in real Chromium: the
 * code flow with PKCE, state and nonce gives the person's verified email and groups (from the userinfo
 * endpoint); a callback whose state is not the browser's is refused before any token request; a code is
 * single-use; a provider that is down is said so. Skipped where Chromium is not installed.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createLogger } from '../../src/server/log';
import { OidcRelyingParty, SsoError, type SsoFailure } from '../../src/server/dashboard/oidcClient';
import { startOidcProvider, type TestAccount, type TestProvider } from '../helpers/oidcProvider';

const CHROMIUM = process.env.DICTEE_E2E_CHROMIUM ?? '/usr/bin/chromium';

const ALICE: TestAccount = {
  login: 'alice',
  password: 'alice-pw-1',
  email: 'Alice.Martin@hospital.example',
  email_verified: true,
  name: 'Alice Martin',
  groups: ['radiology', 'staff'],
};

async function rejects(p: Promise<unknown>, reason: SsoFailure): Promise<SsoError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof SsoError, `expected an SsoError, got ${String(e)}`);
    assert.equal(e.reason, reason, e.message);
    return e;
  }
  assert.fail(`expected a refusal (${reason})`);
}

describe('dashboard OpenID Connect relying party (real provider, Chromium)', function () {
  this.timeout(60000);
  let browser: Browser;
  let provider: TestProvider;
  let callbackServer: http.Server;
  let redirectUri: string;
  /** The callback URLs the browser was sent to, in order. */
  const callbacks: URL[] = [];

  before(async function () {
    if (!existsSync(CHROMIUM)) this.skip();
    callbackServer = http.createServer((req, res) => {
      const u = new URL(req.url!, redirectUri);
      if (u.pathname === '/dashboard/sso/callback') callbacks.push(u);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('back');
    });
    await new Promise<void>((r) => callbackServer.listen(0, '127.0.0.1', r));
    redirectUri = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/dashboard/sso/callback`;
    provider = await startOidcProvider({ redirectUris: [redirectUri], accounts: [ALICE] });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  });

  after(async () => {
    await browser?.close();
    await provider?.stop();
    callbackServer?.close();
  });

  function relyingParty(over: Partial<ConstructorParameters<typeof OidcRelyingParty>[0]> = {}): OidcRelyingParty {
    return new OidcRelyingParty(
      {
        issuer: provider.issuer,
        clientId: provider.clientId,
        clientSecret: provider.clientSecret,
        redirectUri,
        scopes: 'openid email profile',
        groupsClaim: 'groups',
        trustEmail: false,
        ...over,
      },
      createLogger({ level: 'error', write: () => undefined }),
    );
  }

  /** Follows `url` in a fresh browser context, signs in on the provider's page, and gives the callback URL reached. */
  async function signInAt(url: string, account: TestAccount): Promise<URL> {
    const context = await browser.newContext();
    try {
      const page: Page = await context.newPage();
      const before = callbacks.length;
      await page.goto(url);
      await page.getByLabel('Username').fill(account.login);
      await page.getByLabel('Password').fill(account.password);
      await Promise.all([
        page.waitForURL((u) => u.pathname === '/dashboard/sso/callback'),
        page.getByRole('button', { name: 'Sign in' }).click(),
      ]);
      assert.equal(callbacks.length, before + 1);
      return callbacks.at(-1)!;
    } finally {
      await context.close();
    }
  }

  it('gives the verified email, name and groups after the code flow with PKCE, state and nonce', async () => {
    const rp = relyingParty();
    const { url, pending } = await rp.begin();
    const auth = new URL(url);
    assert.equal(auth.origin, provider.issuer);
    assert.equal(auth.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(auth.searchParams.get('state'), pending.state);
    assert.equal(auth.searchParams.get('nonce'), pending.nonce);
    assert.equal(auth.searchParams.get('redirect_uri'), redirectUri);
    assert.ok(!url.includes(pending.verifier), 'the PKCE verifier never leaves the service');
    const callback = await signInAt(url, ALICE);
    const identity = await rp.complete(callback, pending);
    assert.deepEqual(identity, {
      subject: 'alice',
      email: ALICE.email,
      emailVerified: true,
      name: 'Alice Martin',
      groups: ['radiology', 'staff'],
    });
    assert.deepEqual(provider.logins, ['alice']);
    // The code is single-use: the same callback again is refused by the provider.
    await rejects(rp.complete(callback, pending), 'token_rejected');
  });

  it('refuses a callback whose state is not the one this browser began with', async () => {
    const rp = relyingParty();
    const mine = await rp.begin();
    const theirs = await rp.begin();
    const callback = await signInAt(theirs.url, ALICE);
    await rejects(rp.complete(callback, mine.pending), 'state_mismatch');
    await rejects(rp.complete(callback, undefined), 'sign_in_expired');
    await rejects(rp.complete(callback, theirs.pending, theirs.pending.at + 11 * 60_000), 'sign_in_expired');
  });

  it('refuses a wrong PKCE verifier (a stolen code is useless without it)', async () => {
    const rp = relyingParty();
    const { url, pending } = await rp.begin();
    const callback = await signInAt(url, ALICE);
    await rejects(rp.complete(callback, { ...pending, verifier: `${pending.verifier.slice(0, -2)}xx` }), 'token_rejected');
  });

  it('refuses an answer for another client secret, and says when the provider is down', async () => {
    const wrongSecret = relyingParty({ clientSecret: 'not-the-secret' });
    const { url, pending } = await wrongSecret.begin();
    const callback = await signInAt(url, ALICE);
    const e = await rejects(wrongSecret.complete(callback, pending), 'token_rejected');
    assert.ok(!e.message.includes('not-the-secret'), 'the secret is never in a message');

    const down = relyingParty({ issuer: 'http://127.0.0.1:9/' });
    await rejects(down.begin(), 'provider_unreachable');
  });
});
