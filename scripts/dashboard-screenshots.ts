/**
 * The dashboard's screenshots for README.md and docs/dashboard.md (`npm run docs:screenshots`, after
 * `npm run build`): the built service on loopback with a fresh temporary data directory, an owner made with
 * `users add`, realistic but invented data (keys, people, a project, 30 days of usage, sessions, audit
 * entries), then each page in headless Chromium (playwright-core; /usr/bin/chromium or DICTEE_E2E_CHROMIUM)
 * at 1280×800, saved as PNG in docs/images/dashboard/. `--phone` and `--locale de-DE` also save a 390-px-wide
 * and a German set in a temporary folder, for looking at them (not committed).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { type Browser, type Page, chromium } from 'playwright-core';
import { startServer, type TestServer, WsProbe } from '../test/helpers/server';
import { usersAdd } from '../test/helpers/dashboard';
import { dictateFast } from '../test/helpers/team';

const CHROMIUM = process.env.DICTEE_E2E_CHROMIUM ?? '/usr/bin/chromium';
const OUT = path.resolve(__dirname, '..', 'docs', 'images', 'dashboard');
const OWNER = { email: 'it-admin@clinic.example', password: 'screenshot only, not a real one', name: 'Alex Durand' };

async function api(s: TestServer, method: string, p: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${s.url}${p}`, {
    method,
    headers: { authorization: `Bearer ${s.masterKey}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${method} ${p}: ${JSON.stringify(json)}`);
  return json;
}

const day = (offset: number): string => new Date(Date.now() + offset * 86_400_000).toISOString();

/** People, a project, keys, sessions and 30 days of usage; returns a live session's probe (closed at the end). */
async function seed(s: TestServer): Promise<{ live: WsProbe }> {
  const person = async (email: string, display_name: string, role: string): Promise<string> =>
    String(((await api(s, 'POST', '/v1/people', { email, display_name, role })).person as { id: string }).id);
  const martin = await person('c.martin@clinic.example', 'Dr Claire Martin', 'member');
  const bernard = await person('h.bernard@clinic.example', 'Hugo Bernard', 'admin');
  await person('s.okafor@clinic.example', 'Dr Sam Okafor', 'member');
  const proj = String(((await api(s, 'POST', '/v1/projects', { name: 'Radiology reports' })).project as { id: string }).id);
  await api(s, 'POST', `/v1/projects/${proj}/members`, { person_id: martin, role: 'member' });
  await api(s, 'POST', `/v1/projects/${proj}/members`, { person_id: bernard, role: 'admin' });
  const key = async (body: Record<string, unknown>): Promise<{ id: string; key: string }> => {
    const k = await api(s, 'POST', '/v1/api-keys', { type: 'personal', permissions: ['read', 'write'], ...body });
    return { id: String(k.id), key: String(k.key) };
  };
  const pacs = await key({ name: 'PACS integration', type: 'project', project_id: proj });
  const laptop = await key({ name: 'Dr Martin — laptop', person_id: martin, expires_in_days: 5 });
  const ward = await key({ name: 'Ward 4 workstation', expires_in_days: 90 });
  await key({ name: 'Reporting room spare', expires_in_days: 365 });
  const pilot = await key({ name: 'Dictation pilot (2025)', expires_in_days: 1 });
  const typist = await key({ name: 'Typing pool', person_id: bernard });
  await api(s, 'DELETE', `/v1/api-keys/${typist.id}`);

  for (const [k, secs] of [
    [pacs, 8],
    [laptop, 5],
    [ward, 4],
    [pacs, 3],
  ] as const)
    await dictateFast(s, k.key, secs);
  const live = new WsProbe(s.wsUrl, { header: laptop.key });
  await live.configure({ language: 'en' });

  const db = new Database(path.join(s.dataDir, 'dictee.sqlite'));
  db.pragma('busy_timeout = 5000');
  db.prepare('UPDATE api_keys SET expires_at = ? WHERE id = ?').run(day(-3), pilot.id);
  const org = (db.prepare('SELECT org_id FROM api_keys WHERE id = ?').get(pacs.id) as { org_id: string }).org_id;
  const put = db.prepare(
    `INSERT INTO usage_daily (org_id, day, key_id, code, sessions, audio_seconds) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (org_id, day, key_id, code) DO UPDATE SET sessions = sessions + excluded.sessions, audio_seconds = audio_seconds + excluded.audio_seconds`,
  );
  // A working week's rhythm: weekdays busy, weekends quiet; a decoder failure now and then, the pilot's key refused once it expired.
  for (let d = 29; d >= 1; d--) {
    const date = new Date(Date.now() - d * 86_400_000);
    const weekday = date.getUTCDay() % 6 !== 0;
    const iso = date.toISOString().slice(0, 10);
    const n = (base: number): number => (weekday ? base : Math.round(base / 5)) + ((d * 7) % 5);
    put.run(org, iso, pacs.id, '', n(38), n(38) * 95);
    put.run(org, iso, laptop.id, '', n(14), n(14) * 140);
    put.run(org, iso, ward.id, '', n(9), n(9) * 70);
    if (d % 6 === 0) put.run(org, iso, pacs.id, 'INTERNAL_ERROR', 1, 12);
    if (d <= 3) put.run(org, iso, pilot.id, 'AUTH_ERROR', 2, 0);
    else put.run(org, iso, pilot.id, '', n(3), n(3) * 60);
  }
  db.close();
  return { live };
}

/**
 * The page's height to shoot, at most `cap`: where the page is longer, the lowest line above the cap that
 * crosses no content (no text, field or table row sliced in two). Boxes are those of elements with text
 * of their own or no element children (cells, labels, fields, a chart's canvas); a string, so that the
 * browser runs it as written.
 */
const cutAt = (cap: number): string => `(() => {
  const full = document.documentElement.scrollHeight;
  if (full <= ${cap}) return full;
  const boxes = [];
  for (const el of document.body.querySelectorAll('*')) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim() !== '');
    if (el.children.length && !own) continue;
    const r = el.getBoundingClientRect();
    if (r.height > 0 && r.width > 0) boxes.push([r.top + window.scrollY, r.bottom + window.scrollY]);
  }
  let cut = 0;
  for (const [, y] of boxes) {
    if (y > cut && y <= ${cap} && !boxes.some(([t, b]) => t < y - 0.5 && b > y + 0.5)) cut = y;
  }
  return Math.round(cut) || ${cap};
})()`;

async function shot(page: Page, dir: string, name: string, width: number): Promise<void> {
  const height = await page.evaluate<number>(cutAt(width < 600 ? 1600 : 1000));
  const file = path.join(dir, `${name}.png`);
  // fullPage: the clip may reach below the 800-px viewport.
  await page.screenshot({ path: file, fullPage: true, clip: { x: 0, y: 0, width, height } });
  console.log(file);
}

async function pages(browser: Browser, s: TestServer, locale: string, dir: string, width: number, which: string[]): Promise<void> {
  const context = await browser.newContext({ locale, viewport: { width, height: 800 }, colorScheme: 'light' });
  const page = await context.newPage();
  const go = (p: string): Promise<unknown> => page.goto(`${s.url}${p}`);
  const tag = (n: string): string => (locale.startsWith('en') ? n : `${n}-${locale.slice(0, 2)}`);
  await go('/dashboard/sign-in');
  if (which.includes('sign-in')) await shot(page, dir, tag('sign-in'), width);
  await page.locator('input[type=email], input[name=email]').first().fill(OWNER.email);
  await page.locator('input[type=password]').first().fill(OWNER.password);
  await Promise.all([page.waitForNavigation(), page.locator('form button[type=submit]').first().click()]);
  if (which.includes('keys')) {
    await go('/dashboard/keys');
    await shot(page, dir, tag('keys'), width);
  }
  if (which.includes('key-created')) {
    await go('/dashboard/keys');
    await page.locator('#key-name').fill('Front desk tablet');
    await Promise.all([page.waitForNavigation(), page.locator('#create-key button[type=submit]').click()]);
    await shot(page, dir, tag('key-created'), width);
  }
  if (which.includes('revoke')) {
    await go('/dashboard/keys');
    await page.locator('a.revoke').first().click();
    await page.locator('#revoke-confirm').waitFor({ state: 'visible' });
    // The key's name typed, as the dialog asks.
    await page.locator('#revoke-confirm').fill(await page.locator('#revoke-name').innerText());
    // The viewport (the dialog is centred in it), cut above the first line of the page that it would slice.
    const height = await page.evaluate<number>(cutAt(800));
    await page.screenshot({ path: path.join(dir, `${tag('revoke')}.png`), clip: { x: 0, y: 0, width, height } });
    console.log(path.join(dir, `${tag('revoke')}.png`));
    await page.keyboard.press('Escape');
  }
  if (which.includes('roll')) {
    await go('/dashboard/keys');
    const roll = await page.locator('a[href$="/roll"]').first().getAttribute('href');
    if (roll) {
      await go(roll);
      await shot(page, dir, tag('roll'), width);
    }
  }
  for (const [name, p] of [
    ['usage', '/dashboard/usage?range=30d'],
    ['sessions', '/dashboard/sessions'],
    ['audit', '/dashboard/audit'],
    ['people', '/dashboard/people'],
    ['security', '/dashboard/security'],
  ] as const) {
    if (!which.includes(name)) continue;
    await go(p);
    if (name === 'usage') await page.locator('.uplot canvas').first().waitFor();
    await shot(page, dir, tag(name), width);
  }
  await context.close();
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const data = mkdtempSync(path.join(os.tmpdir(), 'dictee-shots-'));
  const s = await startServer({ dataDir: data });
  let browser: Browser | undefined;
  try {
    const made = await usersAdd(data, { email: OWNER.email, role: 'owner', password: OWNER.password, name: OWNER.name });
    if (made.code !== 0) throw new Error(`users add: ${made.err}`);
    const { live } = await seed(s);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
    const all = ['sign-in', 'keys', 'key-created', 'revoke', 'roll', 'usage', 'sessions', 'audit', 'people', 'security'];
    if (argv.includes('--look')) {
      // For looking only: every page in German and on a phone, in a temporary folder.
      const look = mkdtempSync(path.join(os.tmpdir(), 'dictee-look-'));
      await pages(browser, s, 'de-DE', look, 1280, all);
      console.log(look);
      await pages(browser, s, 'en-GB', look, 390, all);
      await pages(browser, s, 'de-DE', look, 390, ['keys', 'usage', 'people']);
      console.log(`look at ${look}`);
    } else {
      mkdirSync(OUT, { recursive: true });
      await pages(browser, s, 'en-GB', OUT, 1280, all);
      await pages(browser, s, 'fr-FR', OUT, 1280, ['keys', 'usage']);
    }
    live.close();
  } finally {
    await browser?.close();
    await s.stop();
    rmSync(data, { recursive: true, force: true });
  }
}

void main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
