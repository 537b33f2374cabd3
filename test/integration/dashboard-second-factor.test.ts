/**
 * The dashboard's optional second factor, end to end in real Chromium against the built service: a person
 * added with `users add` sets it up on the Security page (the secret shown, confirmed by a first code
 * computed here from it by RFC 6238), gets ten recovery codes once; the secret is stored encrypted with
 * `--mfa-key-file` and never logged. Then a password sign-in asks for the code: a wrong code refused, the
 * right one signs in, a used code refused, a recovery code signs in once; five wrong codes lock the account
 * (even the right code is refused while locked). Skipped where Chromium is not installed.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { chromium, type Browser, type Page } from 'playwright-core';
import { SERVER_JS, startServer, type TestServer } from '../helpers/server';
import { rfcTotp } from '../helpers/totp';

const CHROMIUM = process.env.DICTEE_E2E_CHROMIUM ?? '/usr/bin/chromium';
const EMAIL = 'ines@hospital.example';
const PASSWORD = 'a long password for Ines';

function usersAdd(dataDir: string): Promise<number | null> {
  return new Promise((resolve) => {
    const p = spawn(
      process.execPath,
      [SERVER_JS, 'users', 'add', '--email', EMAIL, '--role', 'owner', '--password-stdin', '--data-dir', dataDir],
      {
        stdio: ['pipe', 'ignore', 'inherit'],
      },
    );
    p.on('close', resolve);
    p.stdin.end(`${PASSWORD}\n`);
  });
}

const stepNow = (): number => Math.floor(Date.now() / 30_000);

describe('dashboard second factor (TOTP) in Chromium', function () {
  this.timeout(120000);
  let browser: Browser;
  let server: TestServer;
  let secret = '';
  let recovery: string[] = [];

  before(async function () {
    if (!existsSync(CHROMIUM)) this.skip();
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'dictee-mfa-'));
    const keyFile = path.join(dataDir, '..', `${path.basename(dataDir)}.mfa-key`);
    writeFileSync(keyFile, randomBytes(32).toString('base64'), { mode: 0o600 });
    server = await startServer({ dataDir, args: ['--mfa-key-file', keyFile] });
    assert.equal(await usersAdd(dataDir), 0);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** A password sign-in in a fresh context; the page where it lands. */
  async function passwordSignIn(): Promise<Page> {
    const context = await browser.newContext({ locale: 'en-GB' });
    const page = await context.newPage();
    await page.goto(`${server.url}/dashboard/sign-in`);
    await page.getByLabel('Email', { exact: true }).fill(EMAIL);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign in', exact: true }).click()]);
    return page;
  }

  async function sendCode(page: Page, code: string): Promise<number> {
    await page.getByLabel('Code', { exact: true }).fill(code);
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/dashboard/sign-in/code') && r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Verify' }).click(),
    ]);
    await page.waitForLoadState();
    return answer.status();
  }

  /** A six-digit code that is none of the valid ones around now. */
  function wrongCode(): string {
    const valid = new Set([-1, 0, 1, 2].map((d) => rfcTotp(secret, stepNow() + d)));
    for (let n = 0; ; n++) {
      const c = String(n).padStart(6, '0');
      if (!valid.has(c)) return c;
    }
  }

  it('sets up the second factor on the Security page: secret shown, confirmed by a first code, recovery codes shown once', async () => {
    const page = await passwordSignIn();
    assert.equal(new URL(page.url()).pathname, '/dashboard/keys', 'no second factor yet: signed in by the password');
    await page.getByRole('link', { name: 'Security' }).click();
    assert.match((await page.locator('#second-factor-state').textContent()) ?? '', /off/);
    await page.getByRole('button', { name: 'Set up a second factor' }).click();
    secret = ((await page.locator('#totp-secret').textContent()) ?? '').replace(/\s/g, '');
    assert.match(secret, /^[A-Z2-7]{32}$/);
    const uri = new URL((await page.locator('#totp-uri').textContent()) ?? '');
    assert.equal(uri.searchParams.get('secret'), secret);
    // A wrong first code does not confirm it.
    await page.getByLabel('Code', { exact: true }).fill(wrongCode());
    await page.getByRole('button', { name: 'Confirm' }).click();
    assert.match((await page.getByRole('alert').textContent()) ?? '', /Wrong code/);
    await page.getByLabel('Code', { exact: true }).fill(rfcTotp(secret, stepNow()));
    await page.getByRole('button', { name: 'Confirm' }).click();
    recovery = await page.locator('#recovery-codes code').allTextContents();
    assert.equal(recovery.length, 10);
    await page.getByRole('link', { name: 'Done' }).click();
    assert.match((await page.locator('#second-factor-state').textContent()) ?? '', /on since/);
    await page.context().close();

    const db = new Database(path.join(server.dataDir, 'dictee.sqlite'), { readonly: true });
    const stored = db.prepare('SELECT secret FROM second_factors').get() as { secret: string };
    const hashes = db.prepare('SELECT hash FROM recovery_codes').all() as Array<{ hash: string }>;
    db.close();
    assert.match(stored.secret, /^v1:/, 'encrypted with the key of --mfa-key-file');
    assert.ok(!stored.secret.includes(secret));
    assert.equal(hashes.length, 10);
    for (const h of hashes) assert.match(h.hash, /^\$argon2id\$/);
    assert.ok(!server.logs().includes(secret), 'the secret is never logged');
    for (const c of recovery) assert.ok(!server.logs().includes(c), 'nor a recovery code');
  });

  it('asks for the code after the password: a wrong code refused, the right one signs in, a used one refused', async () => {
    const page = await passwordSignIn();
    assert.equal(new URL(page.url()).pathname, '/dashboard/sign-in/code');
    assert.ok(!(await page.context().cookies(server.url)).some((c) => c.name === '__Host-dictee_session'), 'no session before the code');
    assert.equal(await sendCode(page, wrongCode()), 401);
    assert.match((await page.getByRole('alert').textContent()) ?? '', /Wrong code/);
    // The confirmation took the current step: the next one (one step of drift allowed) signs in.
    const code = rfcTotp(secret, stepNow() + 1);
    assert.equal(await sendCode(page, code), 303);
    await page.waitForURL(`${server.url}/dashboard/keys`);
    assert.ok((await page.context().cookies(server.url)).some((c) => c.name === '__Host-dictee_session'));
    await page.context().close();

    const again = await passwordSignIn();
    assert.equal(await sendCode(again, code), 401, 'a code is taken once');
    await again.context().close();
  });

  it('signs in once with a recovery code', async () => {
    const page = await passwordSignIn();
    assert.equal(await sendCode(page, recovery[3]!.toUpperCase()), 303);
    await page.waitForURL((u) => u.pathname === '/dashboard/security');
    assert.match((await page.getByRole('status').first().textContent()) ?? '', /recovery code/);
    await page.context().close();
    const again = await passwordSignIn();
    assert.equal(await sendCode(again, recovery[3]!), 401, 'a recovery code works once');
    await again.context().close();
  });

  it('locks the account after five wrong codes, refusing even the right code while locked', async () => {
    // A success clears the count: since the last one, one wrong code (the used recovery code); 4 more lock.
    const page = await passwordSignIn();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push(await sendCode(page, wrongCode()));
    assert.deepEqual(statuses, [401, 401, 401, 429]);
    assert.match((await page.getByRole('alert').textContent()) ?? '', /locked for 15 minutes/);
    assert.equal(await sendCode(page, rfcTotp(secret, stepNow() + 2)), 429, 'locked: the right code is refused too');
    await page.context().close();
  });
});
