/**
 * Single sign-on in the dashboard, end to end: the built service (`--public-url`, `--oidc-*`) and a real
 * OpenID provider (oidc-provider, test/helpers/oidcProvider.ts), driven in real Chromium from the sign-in
 * page's link through the provider's login page back to the dashboard. A person in a mapped group is created
 * with the group's role (the highest of their groups); one in no mapped group is refused with a page that
 * says so and is not created; a callback whose state is not this browser's is refused; a provider that is
 * down is said so in the page. The client secret never appears in the logs. Skipped where Chromium is not
 * installed.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { freePort } from '../helpers/backends';
import { startOidcProvider, type TestAccount, type TestProvider } from '../helpers/oidcProvider';
import { startServer, type TestServer } from '../helpers/server';

const CHROMIUM = process.env.DICTEE_E2E_CHROMIUM ?? '/usr/bin/chromium';

const account = (login: string, groups: string[], over: Partial<TestAccount> = {}): TestAccount => ({
  login,
  password: `${login}-pw`,
  email: `${login}@hospital.example`,
  email_verified: true,
  name: `${login[0]!.toUpperCase()}${login.slice(1)} Test`,
  groups,
  ...over,
});

const ALICE = account('alice', ['staff', 'radiology']);
const BRUNO = account('bruno', ['radiology', 'radiology-admins']);
const CARLA = account('carla', ['cardiology']);
const DENIS = account('denis', ['radiology'], { email_verified: false });

interface PersonRow {
  id: string;
  email: string;
  role: string;
  display_name: string;
}

describe('dashboard single sign-on through a real OpenID provider (Chromium)', function () {
  this.timeout(120000);
  let browser: Browser;
  let provider: TestProvider;
  let server: TestServer;

  before(async function () {
    if (!existsSync(CHROMIUM)) this.skip();
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    provider = await startOidcProvider({ redirectUris: [`${publicUrl}/dashboard/sso/callback`], accounts: [ALICE, BRUNO, CARLA, DENIS] });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-sso-'));
    const secretFile = path.join(dir, 'client-secret');
    writeFileSync(secretFile, `${provider.clientSecret}\n`, { mode: 0o600 });
    server = await startServer({
      port,
      args: [
        '--public-url',
        publicUrl,
        '--oidc-issuer',
        provider.issuer,
        '--oidc-client-id',
        provider.clientId,
        '--oidc-client-secret-file',
        secretFile,
        '--oidc-role-map',
        'radiology-admins=admin,radiology=member',
        '--oidc-label',
        'Hospital account',
      ],
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    await provider?.stop();
  });

  async function people(): Promise<PersonRow[]> {
    const res = await fetch(`${server.url}/v1/people`, { headers: { authorization: `Bearer ${server.masterKey}` } });
    assert.equal(res.status, 200);
    return ((await res.json()) as { people: PersonRow[] }).people;
  }

  /** From the dashboard's sign-in page through the provider's login page; the page where it ends. */
  async function ssoSignIn(page: Page, who: TestAccount): Promise<void> {
    await page.goto(`${server.url}/dashboard/sign-in`);
    await page.getByRole('link', { name: 'Sign in with Hospital account' }).click();
    await page.waitForURL((u) => u.origin === provider.issuer);
    await page.getByLabel('Username').fill(who.login);
    await page.getByLabel('Password').fill(who.password);
    await Promise.all([page.waitForURL((u) => u.origin === server.url), page.getByRole('button', { name: 'Sign in' }).click()]);
  }

  it('signs in a person of a mapped group, creating them with its role, into a session of their own', async () => {
    const context = await browser.newContext({ locale: 'en-GB' });
    const page = await context.newPage();
    await ssoSignIn(page, ALICE);
    await page.waitForURL(`${server.url}/dashboard/keys`);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'API keys');
    const alice = (await people()).find((p) => p.email === ALICE.email);
    assert.ok(alice, 'created at the first sign-in');
    assert.equal(alice.role, 'member');
    assert.equal(alice.display_name, 'Alice Test');
    const cookies = await context.cookies(server.url);
    const session = cookies.find((c) => c.name === '__Host-dictee_session');
    assert.ok(session?.httpOnly && session.sameSite === 'Strict', 'the session cookie as a password sign-in makes it');
    assert.ok(!cookies.some((c) => c.name === '__Host-dictee_sso'), 'the begun sign-in is cleared at the callback');
    // A second sign-in (the provider remembers her: no login page) is the same person, with a new session id.
    await page.goto(`${server.url}/dashboard/sign-in`);
    await page.getByRole('link', { name: 'Sign in with Hospital account' }).click();
    await page.waitForURL(`${server.url}/dashboard/keys`);
    const again = (await context.cookies(server.url)).find((c) => c.name === '__Host-dictee_session');
    assert.notEqual(again?.value, session.value, 'a new session id at every sign-in');
    assert.equal((await people()).filter((p) => p.email === ALICE.email).length, 1);
    await context.close();
  });

  /** Signs in at the provider, and gives the callback URL it sends the browser to, not followed. */
  async function callbackOf(page: Page, who: TestAccount): Promise<string> {
    provider.holdRedirects = true;
    try {
      await page.goto(`${server.url}/dashboard/sign-in`);
      await page.getByRole('link', { name: 'Sign in with Hospital account' }).click();
      await page.waitForURL((u) => u.origin === provider.issuer);
      await page.getByLabel('Username').fill(who.login);
      await page.getByLabel('Password').fill(who.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      const url = (await page.getByRole('link', { name: 'Continue to the application' }).getAttribute('href')) ?? '';
      assert.match(url, /\/dashboard\/sso\/callback\?.*code=/);
      return url;
    } finally {
      provider.holdRedirects = false;
    }
  }

  it('gives the highest role of several mapped groups', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await ssoSignIn(page, BRUNO);
    await page.waitForURL(`${server.url}/dashboard/keys`);
    assert.equal((await people()).find((p) => p.email === BRUNO.email)?.role, 'admin');
    await context.close();
  });

  it('refuses a person in no mapped group, and one whose email is not verified, saying why', async () => {
    for (const [who, reason, text] of [
      [CARLA, 'no_role', /no group that gives access/],
      [DENIS, 'email_not_verified', /not say that your email address is verified/],
    ] as const) {
      const context = await browser.newContext();
      const page = await context.newPage();
      const answered = page.waitForResponse((r) => r.url().includes('/dashboard/sso/callback'));
      await ssoSignIn(page, who);
      assert.equal((await answered).status(), 403);
      const alert = page.getByRole('alert');
      assert.equal(await alert.getAttribute('data-reason'), reason);
      assert.match((await alert.textContent()) ?? '', text);
      assert.ok(!(await context.cookies(server.url)).some((c) => c.name === '__Host-dictee_session'), 'no session');
      await context.close();
    }
    const emails = (await people()).map((p) => p.email);
    assert.ok(!emails.includes(CARLA.email) && !emails.includes(DENIS.email), 'neither was created');
  });

  it("refuses a callback that belongs to another browser's sign-in (state mismatch)", async () => {
    // The victim's browser has begun a sign-in (its cookie holds its state)…
    const victim = await browser.newContext();
    const victimPage = await victim.newPage();
    await victimPage.goto(`${server.url}/dashboard/sign-in`);
    await victimPage.getByRole('link', { name: 'Sign in with Hospital account' }).click();
    await victimPage.waitForURL((u) => u.origin === provider.issuer);
    // …and an attacker's own completed sign-in gives a callback URL, never followed by the attacker.
    const attacker = await browser.newContext();
    const attackerPage = await attacker.newPage();
    const stolen = await callbackOf(attackerPage, BRUNO);
    const answer = await victimPage.goto(stolen);
    assert.equal(answer?.status(), 400);
    assert.equal(await victimPage.getByRole('alert').getAttribute('data-reason'), 'state_mismatch');
    assert.ok(!(await victim.cookies(server.url)).some((c) => c.name === '__Host-dictee_session'), 'no session');
    // Without any begun sign-in in the browser: expired, not signed in.
    const bare = await browser.newContext();
    const barePage = await bare.newPage();
    await barePage.goto(stolen);
    assert.equal(await barePage.getByRole('alert').getAttribute('data-reason'), 'sign_in_expired');
    await Promise.all([victim.close(), attacker.close(), bare.close()]);
  });

  it('says in the page when the provider does not answer, and never logs the client secret', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    // Signed in at the provider, which goes down before the service exchanges the code.
    const callback = await callbackOf(page, ALICE);
    await provider.stop();
    const answer = await page.goto(callback);
    assert.equal(answer?.status(), 502);
    assert.equal(await page.getByRole('alert').getAttribute('data-reason'), 'provider_unreachable');
    assert.match((await page.getByRole('alert').textContent()) ?? '', /does not answer/);
    await context.close();
    assert.ok(!server.logs().includes(provider.clientSecret), 'the client secret is never logged');
    assert.match(server.logs(), /dashboard single sign-on refused/);
  });
});
