/**
 * The dashboard's sign-in and its defences, in real Chromium against the built service: a wrong password,
 * the lock after too many, the right password; the session cookie's flags; a POST without the CSRF token
 * (or from another site) refused with 403; the security headers; sign-out; the four languages; the
 * keyboard alone from the sign-in to the navigation; no CSP violation; axe-core on the sign-in page.
 */
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { useServer } from '../helpers/server';
import { call } from '../helpers/team';
import { axeViolations, cspViolations, haveChromium, launchChromium, newContext, signIn, usersAdd } from '../helpers/dashboard';

const PASSWORD = 'correct horse battery staple';

describe('dashboard: sign-in, session and defences (Chromium)', function () {
  this.timeout(120_000);
  const server = useServer();
  let browser: Browser | undefined;

  before(async function () {
    if (!haveChromium()) return this.skip();
    for (const [email, role] of [
      ['owner@example.org', 'owner'],
      ['locked@example.org', 'member'],
      ['keys@example.org', 'member'],
    ] as const) {
      const r = await usersAdd(server.dataDir, { email, role, password: PASSWORD, name: email.split('@')[0] });
      assert.equal(r.code, 0, r.err);
      assert.match(r.out, /person added/);
    }
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
  });

  async function page(locale = 'en-GB'): Promise<Page> {
    return (await newContext(browser!, locale)).newPage();
  }

  it('refuses a wrong password with a clear message, keeps the email, then signs in with the right one', async () => {
    const p = await page();
    await signIn(p, server, 'owner@example.org', 'not the password');
    assert.equal(await p.getByRole('alert').innerText(), 'Wrong email or password.');
    assert.equal(await p.getByLabel('Email', { exact: true }).inputValue(), 'owner@example.org');
    assert.equal((await p.context().cookies()).filter((c) => c.name === '__Host-dictee_session').length, 0);
    await signIn(p, server, 'owner@example.org', PASSWORD);
    assert.equal(new URL(p.url()).pathname, '/dashboard/keys');
    assert.equal(await p.getByRole('heading', { level: 1 }).innerText(), 'API keys');
    const cookie = (await p.context().cookies()).find((c) => c.name === '__Host-dictee_session');
    assert.ok(cookie, 'the session cookie is set');
    assert.deepEqual(
      [cookie.httpOnly, cookie.secure, cookie.sameSite, cookie.path, cookie.domain],
      [true, true, 'Strict', '/', '127.0.0.1'],
    );
    assert.equal(cookie.expires, -1, 'a browser-session cookie: never written to disk with an expiry');
    assert.deepEqual(await cspViolations(p), []);
    // The owner sees every page of the navigation, People and projects included.
    const nav = p.getByRole('navigation', { name: 'Dashboard' });
    assert.deepEqual(await nav.getByRole('link').allInnerTexts(), [
      'API keys',
      'Usage',
      'Sessions',
      'Audit log',
      'People and projects',
      'Security',
    ]);
    await p.context().close();
  });

  it('locks an account after 5 wrong passwords, says so in the page, and keeps it locked for the right one; audited', async () => {
    const p = await page();
    for (let i = 0; i < 4; i++) {
      await signIn(p, server, 'locked@example.org', `wrong ${i}`);
      assert.equal(await p.getByRole('alert').innerText(), 'Wrong email or password.');
    }
    await signIn(p, server, 'locked@example.org', 'wrong 4');
    assert.match(await p.getByRole('alert').innerText(), /^Too many failed sign-ins: signing in is locked for 15 minutes\./);
    await signIn(p, server, 'locked@example.org', PASSWORD);
    assert.match(await p.getByRole('alert').innerText(), /^Too many failed sign-ins/);
    assert.equal(new URL(p.url()).pathname, '/dashboard/sign-in');
    const audit = await call(server.url, 'GET', '/v1/audit', server.masterKey);
    const entries = audit.json.entries as Array<{ action: string; actor: string; outcome: string }>;
    assert.equal(entries.filter((e) => e.action === 'person.sign_in_failed').length >= 6, true);
    assert.equal(entries.filter((e) => e.action === 'person.locked').length, 1);
    assert.ok(entries.some((e) => e.action === 'person.signed_in' && e.outcome === 'success'));
    assert.ok(!audit.text.includes(PASSWORD) && !audit.text.includes('wrong 4'), 'no password in the audit log');
    await p.context().close();
  });

  it('refuses a POST without the CSRF token, with a wrong one, or from another site (403); GET changes nothing', async () => {
    const p = await page();
    await signIn(p, server, 'keys@example.org', PASSWORD);
    const csrf = await p.locator('input[name="_csrf"]').first().inputValue();
    const idem = await p.locator('#create-key input[name="_idem"]').inputValue();
    const form = { type: 'personal', name: 'csrf probe', permissions: 'read', expiry: '90', _idem: idem };
    const without = await p.request.post(`${server.url}/dashboard/keys`, { form, maxRedirects: 0 });
    assert.equal(without.status(), 403);
    assert.match(await without.text(), /Refused: the form has expired/);
    const wrong = await p.request.post(`${server.url}/dashboard/keys`, {
      form: { ...form, _csrf: 'x'.repeat(csrf.length) },
      maxRedirects: 0,
    });
    assert.equal(wrong.status(), 403);
    const crossSite = await p.request.post(`${server.url}/dashboard/keys`, {
      form: { ...form, _csrf: csrf },
      headers: { 'sec-fetch-site': 'cross-site' },
      maxRedirects: 0,
    });
    assert.equal(crossSite.status(), 403);
    const keys = await call(server.url, 'GET', '/v1/api-keys', server.masterKey);
    assert.equal((keys.json.keys as Array<{ name: string }>).filter((k) => k.name === 'csrf probe').length, 0, 'no key made');
    const get = await p.request.get(`${server.url}/dashboard/sign-out`, { maxRedirects: 0 });
    assert.equal(get.status(), 405, 'signing out is a POST');
    await p.context().close();
  });

  it('answers every page with the security headers, and the assets with a hashed URL and long caching', async () => {
    const res = await fetch(`${server.url}/dashboard/sign-in`);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /style-src 'self'(;|$)/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(res.headers.get('x-frame-options'), 'DENY');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const page = await res.text();
    assert.doesNotMatch(page, /<script>|<style|style="/, 'no inline script or style');
    const script = /<script src="(\/dashboard\/assets\/dashboard\.[0-9a-f]{12}\.js)"/.exec(page)?.[1];
    assert.ok(script);
    const asset = await fetch(`${server.url}${script}`);
    assert.equal(asset.status, 200);
    assert.match(asset.headers.get('cache-control') ?? '', /max-age=31536000, immutable/);
    const root = await fetch(`${server.url}/`, { redirect: 'manual' });
    assert.equal(root.status, 302);
    assert.equal(root.headers.get('location'), '/dashboard');
  });

  it('signs out: the session ends on the server, the old cookie opens nothing', async () => {
    const p = await page();
    await signIn(p, server, 'keys@example.org', PASSWORD);
    const cookie = (await p.context().cookies()).find((c) => c.name === '__Host-dictee_session')!;
    await Promise.all([p.waitForNavigation(), p.getByRole('button', { name: 'Sign out' }).click()]);
    assert.equal(await p.getByRole('status').innerText(), 'You are signed out.');
    const replay = await fetch(`${server.url}/dashboard/keys`, {
      headers: { cookie: `${cookie.name}=${cookie.value}` },
      redirect: 'manual',
    });
    assert.equal(replay.status, 303);
    assert.match(replay.headers.get('location') ?? '', /^\/dashboard\/sign-in/);
    await p.context().close();
  });

  const LANGUAGES = [
    { locale: 'fr-FR', email: 'E-mail', password: 'Mot de passe', button: 'Se connecter', keys: "Clés d'API", create: 'Créer une clé' },
    {
      locale: 'es-ES',
      email: 'Correo electrónico',
      password: 'Contraseña',
      button: 'Iniciar sesión',
      keys: 'Claves de API',
      create: 'Crear clave',
    },
    { locale: 'de-DE', email: 'E-Mail', password: 'Passwort', button: 'Anmelden', keys: 'API-Schlüssel', create: 'Schlüssel erstellen' },
    { locale: 'en-US', email: 'Email', password: 'Password', button: 'Sign in', keys: 'API keys', create: 'Create key' },
  ];
  for (const l of LANGUAGES) {
    it(`speaks the browser's language: ${l.locale} (sign-in and API keys pages, axe-core clean)`, async () => {
      const p = await page(l.locale);
      await p.goto(`${server.url}/dashboard/sign-in`);
      assert.equal(await p.locator('html').getAttribute('lang'), l.locale.slice(0, 2));
      assert.deepEqual(await axeViolations(p), []);
      await signIn(p, server, 'owner@example.org', PASSWORD, { email: l.email, password: l.password, button: l.button });
      assert.equal(await p.getByRole('heading', { level: 1 }).innerText(), l.keys);
      assert.equal(await p.getByRole('heading', { level: 2, name: l.create }).count(), 1);
      assert.deepEqual(await axeViolations(p), []);
      assert.deepEqual(await cspViolations(p), []);
      await p.context().close();
    });
  }

  it("keeps a person's choice of language over the browser's", async () => {
    const p = await page('en-GB');
    await signIn(p, server, 'keys@example.org', PASSWORD);
    await p.getByLabel('Language').selectOption('de');
    await Promise.all([p.waitForNavigation(), p.getByRole('button', { name: 'Change language' }).click()]);
    assert.equal(await p.getByRole('heading', { level: 1 }).innerText(), 'API-Schlüssel');
    await p.reload();
    assert.equal(await p.locator('html').getAttribute('lang'), 'de');
    await p.getByLabel('Sprache').selectOption('en');
    await Promise.all([p.waitForNavigation(), p.getByRole('button', { name: 'Sprache ändern' }).click()]);
    assert.equal(await p.getByRole('heading', { level: 1 }).innerText(), 'API keys');
    await p.context().close();
  });

  it('is usable with the keyboard alone: sign in, then reach each page of the navigation', async () => {
    const p = await page();
    await p.goto(`${server.url}/dashboard/sign-in`);
    const focused = (): Promise<string> =>
      p.evaluate<string>(`(() => { const el = document.activeElement;
        return el ? el.tagName.toLowerCase() + ':' + (el.getAttribute('name') || (el.textContent || '').trim()) : ''; })()`);
    // The skip link first, then the fields in order.
    await p.keyboard.press('Tab');
    assert.equal(await focused(), 'a:Skip to content');
    await p.keyboard.press('Tab');
    assert.equal(await focused(), 'input:email');
    await p.keyboard.type('owner@example.org');
    await p.keyboard.press('Tab');
    assert.equal(await focused(), 'input:password');
    await p.keyboard.type(PASSWORD);
    await Promise.all([p.waitForNavigation(), p.keyboard.press('Enter')]);
    assert.equal(new URL(p.url()).pathname, '/dashboard/keys');
    const seen: string[] = [];
    for (let i = 0; i < 12 && seen.length < 5; i++) {
      await p.keyboard.press('Tab');
      const f = await focused();
      if (f.startsWith('a:') && f !== 'a:Skip to content') seen.push(f.slice(2));
    }
    assert.deepEqual(seen, ['API keys', 'Usage', 'Sessions', 'Audit log', 'People and projects']);
    // Enter on the focused link (People and projects) opens it.
    await Promise.all([p.waitForNavigation(), p.keyboard.press('Enter')]);
    assert.equal(new URL(p.url()).pathname, '/dashboard/people');
    await p.context().close();
  });
});
