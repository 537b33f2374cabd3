/**
 * The Usage page in real Chromium against the built service: sessions dictated over the WebSocket show in
 * its tables and charts (drawn by the bundled uPlot script) in English, French, Spanish and German; the
 * period and grouping chosen by keyboard alone; the CSV export (a key's name that starts with `=` comes out
 * neutralised); axe-core finds no serious or critical violation; no CSP violation; a member sees only their
 * own key's usage. Skipped where Chromium is not installed.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { CHROMIUM, axeViolations, launch, newPage, person, signIn, tabTo, type Seeded } from '../helpers/dashboardPages';
import { useServer } from '../helpers/server';
import { dictateFast } from '../helpers/team';

const HEADINGS: Record<string, [string, string]> = {
  'en-GB': ['Usage', 'Audio minutes'],
  'fr-FR': ['Utilisation', 'Minutes d’audio'],
  'es-ES': ['Uso', 'Minutos de audio'],
  'de-DE': ['Nutzung', 'Audiominuten'],
};

describe('dashboard: the Usage page (Chromium)', function () {
  this.timeout(120_000);
  const server = useServer();
  let browser: Browser;
  let owner: Seeded;
  let member: Seeded;

  before(async function () {
    if (!existsSync(CHROMIUM)) this.skip();
    browser = await launch();
    owner = await person(server, 'Olivia', 'owner', '=cmd|calc');
    member = await person(server, 'Mark', 'member');
    await dictateFast(server, owner.key, 6);
    await dictateFast(server, member.key, 3);
    await dictateFast(server, member.key, 3);
  });
  after(async () => browser?.close());

  for (const locale of Object.keys(HEADINGS)) {
    it(`shows the figures, a table beside each chart, in ${locale}; axe and CSP clean`, async () => {
      const { context, page, csp } = await newPage(browser, locale);
      await signIn(page, server, owner);
      const [title, minutes] = HEADINGS[locale]!;
      assert.equal(await page.locator('h1').innerText(), title);
      assert.equal(await page.locator('#chart-minutes-title').innerText(), minutes);
      // The charts are drawn by the external script from the JSON blocks (no inline script).
      await page.locator('#chart-sessions-title ~ .chart .uplot canvas').first().waitFor();
      const totals = page.locator('section[aria-labelledby=usage-groups-title] tbody tr');
      assert.equal(await totals.count(), 2);
      const mark = await page
        .locator('section[aria-labelledby=usage-groups-title] tbody tr', { hasText: 'Mark laptop' })
        .locator('td')
        .first()
        .innerText();
      assert.equal(mark, '2');
      assert.deepEqual(await axeViolations(page), []);
      assert.deepEqual(csp, []);
      await context.close();
    });
  }

  it('chooses 24 hours and grouping by person by keyboard alone; exports CSV', async () => {
    const { context, page, csp } = await newPage(browser);
    await signIn(page, server, owner);
    // A radio group takes one Tab (its checked radio: 7 days); the arrows choose within it.
    await tabTo(page, /^7d$/);
    await page.keyboard.press('ArrowUp');
    await tabTo(page, /Key.*Project.*Person/s);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await tabTo(page, /^Show$/);
    await Promise.all([page.waitForURL(/range=24h/), page.keyboard.press('Enter')]);
    assert.match(page.url(), /group=person/);
    const rows = page.locator('section[aria-labelledby=usage-groups-title] tbody th');
    assert.deepEqual((await rows.allInnerTexts()).sort(), ['Mark', 'Olivia']);
    assert.equal(await page.locator('section[aria-labelledby=chart-minutes-title] table.figures tbody tr').count(), 24);

    const href = await page.locator('a', { hasText: 'Export CSV' }).getAttribute('href');
    const csv = await page.request.get(`${server.url}${href!}`);
    assert.equal(csv.status(), 200);
    assert.match(csv.headers()['content-type'] ?? '', /^text\/csv/);
    assert.match(csv.headers()['content-disposition'] ?? '', /^attachment; filename="usage-person-/);
    const text = await csv.text();
    assert.match(text, /^period,group_id,group,sessions,audio_minutes,errors\r\n/);
    assert.match(text, new RegExp(`,${member.id},Mark,2,`));

    await page.goto(`${server.url}/dashboard/usage?range=7d&group=key`);
    const byKey = await page.request.get(`${server.url}/dashboard/usage.csv?range=7d&group=key`);
    assert.ok((await byKey.text()).includes(`,${owner.keyId},'=cmd|calc (`), 'a formula-like name is neutralised');
    assert.deepEqual(csp, []);
    await context.close();
  });

  it('a custom period that is wrong is refused in the page, what was typed kept', async () => {
    const { context, page } = await newPage(browser, 'fr-FR');
    await signIn(page, server, owner);
    const res = await page.goto(`${server.url}/dashboard/usage?range=custom&from=2026-13-01&to=2026-01-01&group=key`);
    assert.equal(res?.status(), 400);
    const today = new Date().toISOString().slice(0, 10).split('-').reverse().join('/');
    assert.equal(
      await page.locator('#usage-error').innerText(),
      `Le premier jour n’est pas une date : écrivez-le JJ/MM/AAAA, par exemple ${today}.`,
    );
    assert.equal(await page.locator('#usage-from').getAttribute('value'), '2026-13-01');
    await context.close();
  });

  it("a member sees only their own key's usage", async () => {
    const { context, page } = await newPage(browser, 'de-DE');
    await signIn(page, server, member);
    const rows = await page.locator('section[aria-labelledby=usage-groups-title] tbody th').allInnerTexts();
    assert.equal(rows.length, 1);
    assert.match(rows[0]!, /^Mark laptop/);
    const csv = await (await page.request.get(`${server.url}/dashboard/usage.csv?range=30d&group=key`)).text();
    assert.ok(!csv.includes(owner.keyId), "the owner's key is not in a member's export");
    await context.close();
  });
});
