/**
 * What the browser tests of the dashboard's pages share: headless Chromium (playwright-core), people made
 * with the master key (`POST /v1/people`) whose password is set in the service's database as the dashboard
 * sets it (argon2id), their keys, a sign-in through the real form, axe-core run in the page (through the
 * DevTools protocol, so the page's CSP is not loosened), and the CSP violations a page reports.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { type Browser, type BrowserContext, type Page, chromium } from 'playwright-core';
import { hashPassword } from '../../src/server/dashboard/passwords';
import type { TestServer } from './server';

export const CHROMIUM = process.env.DICTEE_E2E_CHROMIUM ?? '/usr/bin/chromium';
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}

export interface Seeded {
  id: string;
  email: string;
  password: string;
  key: string;
  keyId: string;
}

async function api(s: TestServer, method: string, p: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${s.url}${p}`, {
    method,
    headers: { authorization: `Bearer ${s.masterKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  assert.ok(res.ok, `${method} ${p}: ${JSON.stringify(json)}`);
  return json;
}

/** A person of the service's organisation with a password and a personal key (read, write, admin). */
export async function person(s: TestServer, name: string, role: 'owner' | 'admin' | 'member', keyName = `${name} laptop`): Promise<Seeded> {
  const email = `${name.toLowerCase()}@example.org`;
  const p = (await api(s, 'POST', '/v1/people', { email, display_name: name, role })).person as { id: string };
  const password = `correct horse ${name} battery`;
  const db = new Database(path.join(s.dataDir, 'dictee.sqlite'));
  db.pragma('busy_timeout = 5000');
  db.prepare('UPDATE people SET password_hash = ? WHERE id = ?').run(await hashPassword(password), p.id);
  db.close();
  const key = await api(s, 'POST', '/v1/api-keys', {
    name: keyName,
    type: 'personal',
    person_id: p.id,
    permissions: ['read', 'write', 'admin'],
  });
  return { id: p.id, email, password, key: String(key.key), keyId: String(key.id) };
}

/**
 * A browser suite's hooks: before its tests, Chromium launched (the suite skipped where it is not installed)
 * and these people seeded, in this order; after them, Chromium closed.
 */
export function useChromium(
  s: TestServer,
  people: ReadonlyArray<[name: string, role: 'owner' | 'admin' | 'member']>,
): { browser: Browser; people: Seeded[] } {
  const suite = { browser: undefined as unknown as Browser, people: [] as Seeded[] };
  before(async function () {
    if (!existsSync(CHROMIUM)) this.skip();
    suite.browser = await launch();
    for (const [name, role] of people) suite.people.push(await person(s, name, role));
  });
  after(async () => suite.browser?.close());
  return suite;
}

/** Runs SQL on the service's database (a test's own change: an old sign-in, an altered audit entry). */
export function sql(s: TestServer, text: string, ...params: unknown[]): void {
  const db = new Database(path.join(s.dataDir, 'dictee.sqlite'));
  db.pragma('busy_timeout = 5000');
  db.prepare(text).run(...params);
  db.close();
}

/** A page whose CSP violations are collected (Chromium reports each on the console). */
export async function newPage(browser: Browser, locale = 'en-GB'): Promise<{ context: BrowserContext; page: Page; csp: string[] }> {
  const context = await browser.newContext({ locale });
  const page = await context.newPage();
  const csp: string[] = [];
  page.on('console', (m) => {
    if (/Content[- ]Security[- ]Policy/i.test(m.text())) csp.push(m.text());
  });
  return { context, page, csp };
}

/** Signs in through the form (the fields labelled Email and Password, in whatever language). */
export async function signIn(page: Page, s: TestServer, who: Seeded, next = '/dashboard/usage'): Promise<void> {
  await page.goto(`${s.url}/dashboard/sign-in?next=${encodeURIComponent(next)}`);
  await page.locator('#email').fill(who.email);
  await page.locator('#password').fill(who.password);
  await Promise.all([page.waitForURL((u) => u.pathname === next), page.locator('form button[type=submit]').last().click()]);
}

/** axe-core's serious and critical WCAG 2.1 A/AA violations of the page (none expected). */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const found = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run(
            ctx: unknown,
            opts: unknown,
          ): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }>;
        };
      }
    ).axe;
    const r = await axe.run({ exclude: [] }, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, where: v.nodes.map((n) => n.target.join(' ')).slice(0, 3) }));
  });
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.where.join(', ')}`);
}

/** Presses Tab until the focused element's text or label matches, then returns (fails after `max` presses). */
export async function tabTo(page: Page, match: RegExp, max = 80): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const text = await page.evaluate(() => {
      const el = (
        globalThis as unknown as {
          document: { activeElement: { textContent: string | null; getAttribute(n: string): string | null } | null };
        }
      ).document.activeElement;
      return el ? `${el.textContent ?? ''} ${el.getAttribute('aria-label') ?? ''} ${el.getAttribute('value') ?? ''}`.trim() : '';
    });
    if (match.test(text)) return;
  }
  assert.fail(`no element matching ${String(match)} reached by Tab`);
}
