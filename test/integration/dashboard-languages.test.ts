/**
 * Every page of the dashboard in each of its four languages, in real Chromium against the built service:
 * the sign-in, API keys (Create and the created key shown once, Roll's three steps, Revoke as a dialog and
 * as a page), Usage (a custom period typed in the page's language, and a wrong one), Sessions (live, recent,
 * one by its id), Audit log, People and projects (Remove as a dialog and as a page), Security (setting up a
 * second factor), the join page, an error page, the sign-out — first in the browser's language
 * (Accept-Language), then one page in the language the person chooses in the menu. On each: the right
 * `<html lang>`, no English text of the catalogue left untranslated, no serious or critical axe-core
 * violation, no CSP violation, no `<input type="date">`; dates, numbers and day fields as Intl writes them
 * in that language. Skipped where Chromium is not installed; `ONLY_LANG=fr` (en, es, de) runs one language.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { type Lang, languageContext, pageProblems } from '../helpers/dashboardLanguages';
import { CHROMIUM, launch, person, signIn, sql, type Seeded } from '../helpers/dashboardPages';
import { WsProbe, useServer } from '../helpers/server';
import { dictateFast } from '../helpers/team';

/** Each language: its browser locale, the language then chosen in the menu, how it writes a day, and some of its words. */
interface Language {
  lang: Lang;
  locale: string;
  next: Lang;
  day: (iso: string) => string;
  hint: string;
  /** A key used once in 7 days, one live session, the Usage page's totals (singular and plural as the language says). */
  spark: string;
  live: string;
  summary: string;
}

const ALL_LANGS: readonly Language[] = [
  {
    lang: 'fr',
    locale: 'fr-FR',
    next: 'en',
    day: (d) => d.split('-').reverse().join('/'),
    hint: 'JJ/MM/AAAA',
    spark: '1 session en 7 jours',
    live: '1 session en cours',
    summary: '2 sessions, 0,2 minute d’audio, 0 erreur',
  },
  {
    lang: 'en',
    locale: 'en-GB',
    next: 'es',
    day: (d) => d,
    hint: 'YYYY-MM-DD',
    spark: '1 session in 7 days',
    live: '1 live session',
    summary: '2 sessions, 0.2 audio minutes, 0 errors',
  },
  {
    lang: 'es',
    locale: 'es-ES',
    next: 'de',
    day: (d) => d.split('-').reverse().join('/'),
    hint: 'DD/MM/AAAA',
    spark: '1 sesión en 7 días',
    live: '1 sesión en curso',
    summary: '2 sesiones, 0,2 minutos de audio, 0 errores',
  },
  {
    lang: 'de',
    locale: 'de-DE',
    next: 'fr',
    day: (d) => d.split('-').reverse().join('.'),
    hint: 'TT.MM.JJJJ',
    spark: '1 Sitzung in 7 Tagen',
    live: '1 laufende Sitzung',
    summary: '2 Sitzungen, 0,2 Audiominuten, 0 Fehler',
  },
];

const LANGS = process.env.ONLY_LANG ? ALL_LANGS.filter((l) => l.lang === process.env.ONLY_LANG) : ALL_LANGS;
const isoDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

describe('dashboard: every page in French, English, Spanish and German (Chromium)', function () {
  this.timeout(180_000);
  const server = useServer();
  let browser: Browser;
  let owner: Seeded;
  let member: Seeded;
  let recentSession: string;
  let live: WsProbe;

  before(async function () {
    if (!existsSync(CHROMIUM)) this.skip();
    browser = await launch();
    owner = await person(server, 'Olivia', 'owner');
    member = await person(server, 'Mark', 'member');
    recentSession = (await dictateFast(server, owner.key, 6)).id;
    await dictateFast(server, member.key, 6);
    live = new WsProbe(server.wsUrl, { header: member.key });
    await live.configure({ language: 'en' });
    const project = await fetch(`${server.url}/v1/projects`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.masterKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Radiologie' }),
    });
    assert.equal(project.status, 201);
  });
  after(async () => {
    live?.ws.close();
    await browser?.close();
  });

  it('every page: its language, nothing left in English, axe and CSP clean, Intl dates and numbers, day fields', async () => {
    const problems: string[] = [];
    const keys = (await (
      await fetch(`${server.url}/v1/api-keys`, { headers: { authorization: `Bearer ${server.masterKey}` } })
    ).json()) as {
      keys: Array<{ id: string; created_at: string }>;
    };
    const ownerKeyCreated = keys.keys.find((k) => k.id === owner.keyId)!.created_at;
    const started = Date.now();
    for (const { lang, locale, next, day, hint, spark, live: liveCaption, summary } of LANGS) {
      const { context, page, csp } = await languageContext(browser, locale);
      const check = async (where: string, as: Lang = lang): Promise<void> => {
        problems.push(...(await pageProblems(page, as, csp, where)));
      };
      const go = async (p: string, status = 200): Promise<void> => {
        const res = await page.goto(`${server.url}${p}`);
        assert.equal(res?.status(), status, `${lang} ${p}`);
      };
      const submit = (form: string, url: RegExp | ((u: URL) => boolean), p: Page = page): Promise<unknown> =>
        Promise.all([p.waitForURL(url), p.locator(`${form} button[type=submit]`).first().click()]);
      // A form answered on the same address (POST-redirect-GET back to the page).
      const post = (form: string): Promise<unknown> =>
        Promise.all([page.waitForNavigation(), page.locator(`${form} button[type=submit]`).first().click()]);
      const dateOf = (iso: string): string => new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(iso));

      await go('/dashboard/sign-in');
      await check('sign-in');
      await go('/dashboard/join');
      await check('join');
      await signIn(page, server, owner, '/dashboard/keys');
      await check('keys');
      // The owner's key: its creation day as Intl writes it in this language.
      const created = await page.locator('tbody tr', { hasText: 'Olivia laptop' }).locator('td').nth(5).innerText();
      assert.equal(created, dateOf(ownerKeyCreated), `${lang}: the key's creation day`);
      const used = page.locator('tbody tr', { hasText: 'Olivia laptop' }).locator('svg.spark');
      assert.equal(await used.getAttribute('aria-label'), spark, `${lang}: one session, in the singular`);

      // Create key, then the key shown once.
      const name = `Dictaphone ${lang}`;
      await page.locator('#key-name').fill(name);
      await submit('#create-key', /\/dashboard\/keys\/created\//);
      await check('key created');
      // Roll it: the wizard's first step, the new key, the old key watched, then revoked (the page without script).
      const id = (await (
        await fetch(`${server.url}/v1/api-keys`, { headers: { authorization: `Bearer ${server.masterKey}` } })
      ).json()) as {
        keys: Array<{ id: string; name: string; revoked_at: string | null }>;
      };
      const made = id.keys.find((k) => k.name === name && !k.revoked_at)!;
      await go(`/dashboard/keys/${made.id}/roll`);
      await check('roll');
      await submit(`form[action="/dashboard/keys/${made.id}/roll"]`, /\/dashboard\/keys\/created\//);
      await check('roll: the new key');
      await Promise.all([page.waitForURL(/\/watch$/), page.locator('a[href$="/watch"]').click()]);
      await check('roll: watch');
      await Promise.all([page.waitForURL(/\/revoke$/), page.locator('main a.danger').click()]);
      await check('revoke (page)');
      await page.locator('#revoke-typed').fill(name);
      await submit('main form', /\/revoked$/);
      await check('revoked');
      // Revoke the rolled key through the dialog of the keys page.
      await go('/dashboard/keys');
      await page.locator('a.revoke', { hasText: name }).click();
      await page.locator('#revoke-dialog').waitFor();
      await check('revoke (dialog)');
      await page.locator('#revoke-confirm').fill(name);
      await submit('#revoke-form', /\/revoked$/);

      // Usage: the last 7 days, then a custom period typed as the page writes days, then a wrong day.
      await go('/dashboard/usage');
      await check('usage');
      assert.equal(await page.locator('p.summary').innerText(), summary, `${lang}: the totals, 0.2 minutes as Intl writes it`);
      const firstDay = isoDay(Date.now() - 2 * 86_400_000);
      assert.equal(
        await page.locator('section[aria-labelledby=chart-sessions-title] table.figures tbody th').first().innerText(),
        dateOf(`${isoDay(Date.now() - 6 * 86_400_000)}T00:00:00Z`),
        `${lang}: the first day of the period`,
      );
      assert.equal(await page.locator('#usage-from').getAttribute('type'), 'text');
      assert.equal(await page.locator('#usage-from').getAttribute('placeholder'), hint);
      await page.locator('input[name=range][value=custom]').check();
      await page.locator('#usage-from').fill(day(firstDay));
      await page.locator('#usage-to').fill(day(isoDay(Date.now())));
      await submit('form.filters', /range=custom/);
      await check('usage, custom period');
      assert.equal(
        await page.locator('section[aria-labelledby=chart-sessions-title] table.figures tbody tr').count(),
        3,
        `${lang}: three days`,
      );
      assert.equal(await page.locator('#usage-from').inputValue(), day(firstDay), `${lang}: the day kept as written`);
      const csv = await page.locator('a[download]').getAttribute('href');
      assert.ok(csv?.includes(`from=${firstDay}`), `${lang}: the export asks for ISO days (${csv})`);
      await page.locator('#usage-from').fill('31/02/2026');
      await submit('form.filters', /from=31/);
      await check('usage, a wrong day');
      const error = await page.locator('#usage-error').innerText();
      assert.ok(error.includes(hint) && error.includes(day(isoDay(Date.now()))), `${lang}: the format and an example in "${error}"`);
      assert.equal(await page.locator('#usage-from').inputValue(), '31/02/2026', 'what was typed is kept');

      // Sessions: the live and recent ones, then one by its id.
      await go('/dashboard/sessions');
      assert.equal(await page.locator('main table caption').first().innerText(), liveCaption, `${lang}: the live session listed`);
      await check('sessions');
      await go(`/dashboard/sessions?id=${recentSession}`);
      await check('one session');
      // Audit log, with the days of a filter written in this language.
      await go(`/dashboard/audit?from=${encodeURIComponent(day(firstDay))}`);
      await check('audit');
      assert.equal(await page.locator('#audit-from').inputValue(), day(firstDay));
      // People and projects, Remove as a dialog and as a page.
      await go('/dashboard/people');
      await check('people');
      await page.locator('a.remove-person', { hasText: 'Mark' }).click();
      await page.locator('#remove-person-dialog').waitFor();
      await check('remove person (dialog)');
      await go(`/dashboard/people/${member.id}/remove`);
      await check('remove person (page)');
      // Security: the second factor being set up, then cancelled.
      await go('/dashboard/security');
      await check('security');
      await post('form[action$="/second-factor/begin"]');
      await page.locator('#totp-secret').waitFor();
      await check('security, second factor being set up');
      await post('form[action$="/second-factor/off"]');
      await go('/dashboard/no-such-page', 404);
      await check('an error page');

      // The person's own choice, over the browser's language.
      await go('/dashboard/keys');
      await page.locator('#locale-select').selectOption(next);
      await post('form[action="/dashboard/locale"]');
      await check(`keys, ${next} chosen in the menu`, next);
      await go('/dashboard/usage');
      await check(`usage, ${next} chosen in the menu`, next);
      sql(server, 'UPDATE people SET locale = NULL WHERE id = ?', owner.id);
      await submit('form[action="/dashboard/sign-out"]', /signed_out=1/);
      await check('signed out');
      await context.close();
    }
    assert.deepEqual(problems, []);
    console.log(`      (${LANGS.length} languages, every page, in ${((Date.now() - started) / 1000).toFixed(1)} s)`);
  });
});
