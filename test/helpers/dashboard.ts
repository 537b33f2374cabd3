/**
 * The dashboard in a real browser: Chromium through playwright-core (the system's /usr/bin/chromium, or
 * DICTEE_E2E_CHROMIUM), a person added with `users add` (the built service's subcommand, as an operator
 * would), a sign-in through the page's form, axe-core run in the page (no serious or critical WCAG 2.1 AA
 * violation), and the Content-Security-Policy violations the page reports.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type BrowserContext, type Page, chromium } from 'playwright-core';
import { SERVER_JS, type TestServer } from './server';

export const CHROMIUM = process.env.DICTEE_E2E_CHROMIUM ?? '/usr/bin/chromium';

export function haveChromium(): boolean {
  return existsSync(CHROMIUM);
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
}

/** `node dist/server.js users add …` with the password on standard input; resolves with its exit code and output. */
export function usersAdd(
  dataDirOrArgs: string | string[],
  o: { email: string; role: string; password: string; name?: string; org?: string },
): Promise<{ code: number | null; out: string; err: string }> {
  const where = typeof dataDirOrArgs === 'string' ? ['--data-dir', dataDirOrArgs] : dataDirOrArgs;
  const args = ['users', 'add', '--email', o.email, '--role', o.role, '--password-stdin', ...where];
  if (o.name) args.push('--name', o.name);
  if (o.org) args.push('--org', o.org);
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [SERVER_JS, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('close', (code) => resolve({ code, out, err }));
    p.stdin.end(`${o.password}\n`);
  });
}

/** A browser context in a language, which records the CSP violations of its pages (window.__csp). */
export async function newContext(browser: Browser, locale = 'en-GB'): Promise<BrowserContext> {
  const context = await browser.newContext({ locale });
  // Init scripts run in the page's world before its own (not subject to its CSP): they only listen.
  await context.addInitScript(
    "window.__csp = []; document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));",
  );
  return context;
}

/** The CSP violations reported so far by the page (its console's too). */
export async function cspViolations(page: Page): Promise<string[]> {
  return page.evaluate<string[]>('window.__csp || []');
}

export async function signIn(
  page: Page,
  server: TestServer,
  email: string,
  password: string,
  labels = { email: 'Email', password: 'Password', button: 'Sign in' },
): Promise<void> {
  await page.goto(`${server.url}/dashboard/sign-in`);
  await page.getByLabel(labels.email, { exact: true }).fill(email);
  await page.getByLabel(labels.password, { exact: true }).fill(password);
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: labels.button, exact: true }).click()]);
}

const AXE = readFileSync(path.resolve(__dirname, '..', '..', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

/** axe-core's serious and critical violations of WCAG 2.1 A and AA on the page, as readable lines. */
export async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated through the debugging protocol, not as a page script: the page's CSP does not apply.
  await page.evaluate(AXE);
  const found = await page.evaluate<Array<{ id: string; impact: string; help: string; targets: string[] }>>(`
    axe.run({ runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } }).then((r) =>
      r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')).slice(0, 3) })))`);
  return found
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.targets.join(', ')}`);
}
