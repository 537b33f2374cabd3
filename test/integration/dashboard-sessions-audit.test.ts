/**
 * The Sessions and Audit log pages in real Chromium against the built service: a live session ended by
 * keyboard alone with **End session** (its pending words arrive as finals, then the administrator's end),
 * one session found by its id, a member's view (their own sessions only; another's id not found; no Audit
 * log nor People), a POST without the CSRF token refused with 403; the audit log filtered, its chain shown
 * verified then broken after an entry is altered, its export only after a fresh sign-in; axe-core and the
 * CSP clean, in English and German. Skipped where Chromium is not installed.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { CHROMIUM, axeViolations, launch, newPage, person, signIn, sql, tabTo, type Seeded } from '../helpers/dashboardPages';
import { WsProbe, useServer } from '../helpers/server';
import { framesOf, tone } from '../helpers/speech';
import { dictateFast } from '../helpers/team';

describe('dashboard: the Sessions and Audit log pages (Chromium)', function () {
  this.timeout(120_000);
  const server = useServer();
  let browser: Browser;
  let owner: Seeded;
  let member: Seeded;
  let memberSession: string;

  before(async function () {
    if (!existsSync(CHROMIUM)) this.skip();
    browser = await launch();
    owner = await person(server, 'Olivia', 'owner');
    member = await person(server, 'Mark', 'member');
    memberSession = (await dictateFast(server, member.key, 2)).id;
  });
  after(async () => browser?.close());

  it('ends a live session by keyboard alone; its pending words arrive as finals first', async () => {
    const probe = new WsProbe(server.wsUrl, { header: owner.key });
    const configured = await probe.configure({ language: 'en' });
    const id = String(configured.session_id);
    for (const f of framesOf(tone(3000))) probe.sendAudio(f);
    await probe.roundTrip();
    await probe.waitFor((m) => m.type === 'transcript', 10_000, 'some text');

    const { context, page, csp } = await newPage(browser);
    await signIn(page, server, owner, '/dashboard/sessions');
    assert.equal(await page.locator('h1').innerText(), 'Sessions');
    assert.ok(await page.locator('tbody tr', { hasText: id }).count(), 'the live session is listed');
    assert.deepEqual(await axeViolations(page), []);
    await tabTo(page, new RegExp(`End session\\s+${id}`));
    await Promise.all([page.waitForURL(/ended=/), page.keyboard.press('Enter')]);
    assert.match(await page.locator('[role=status]').innerText(), /ended; its pending words were delivered/);
    const closed = await probe.closed;
    assert.equal(closed.code, 4001);
    const finals = probe.messages.filter((m) => m.type === 'transcript' && m.status === 'final');
    assert.ok(finals.length > 0, 'the pending words came as finals');
    assert.ok(
      probe.messages.findIndex((m) => m.type === 'error') >
        probe.messages.findIndex((m) => m.type === 'transcript' && m.status === 'final'),
      'the finals came before the end',
    );
    assert.equal((await server.session(id)).state, 'stopped');
    assert.deepEqual(csp, []);
    await context.close();
  });

  it('finds one session by its id, in German; a member finds only their own', async () => {
    const { context, page, csp } = await newPage(browser, 'de-DE');
    await signIn(page, server, owner, '/dashboard/sessions');
    await page.locator('#session-id').fill(memberSession);
    await Promise.all([page.waitForURL(/id=/), page.locator('#session-id').press('Enter')]);
    assert.equal(await page.locator('#session-detail-title').innerText(), `Sitzung ${memberSession}`);
    assert.match(await page.locator('dl.record').innerText(), /Mark laptop/);
    assert.match(await page.locator('dl.record').innerText(), /\d{1,2}:\d{2} UTC/, 'its times said to be UTC');
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(csp, []);
    await context.close();

    const m = await newPage(browser);
    await signIn(m.page, server, member, '/dashboard/sessions');
    const listed = await m.page.locator('main').innerText();
    assert.ok(listed.includes(memberSession), 'their own session is listed');
    assert.ok(!listed.includes('Olivia laptop'), "another person's sessions are not");
    const res = await m.page.goto(
      `${server.url}/dashboard/sessions?id=${encodeURIComponent(memberSession.replace(/.$/, (c) => (c === 'a' ? 'b' : 'a')))}`,
    );
    assert.equal(res?.status(), 404);
    // Ending another person's session, with a valid token: not found.
    const ownerLive = new WsProbe(server.wsUrl, { header: owner.key });
    const ownerId = String((await ownerLive.configure({ language: 'en' })).session_id);
    await m.page.goto(`${server.url}/dashboard/sessions`);
    const status = await m.page.evaluate(async (sid) => {
      const doc = (globalThis as unknown as { document: { querySelector(s: string): { getAttribute(n: string): string | null } | null } })
        .document;
      const token = doc.querySelector('input[name=_csrf]')?.getAttribute('value') ?? '';
      const body = `_csrf=${encodeURIComponent(token)}&session_id=${encodeURIComponent(sid)}`;
      return (
        await fetch('/dashboard/sessions/end', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body })
      ).status;
    }, ownerId);
    assert.equal(status, 404);
    assert.equal((await server.session(ownerId)).state !== 'stopped', true, "the owner's session goes on");
    ownerLive.ws.close();
    // No Audit log nor People for a member: not in the navigation, 403 when asked.
    assert.equal(await m.page.locator('nav a', { hasText: 'Audit log' }).count(), 0);
    assert.equal(await m.page.locator('nav a', { hasText: 'People and projects' }).count(), 0);
    assert.equal((await m.page.goto(`${server.url}/dashboard/audit`))?.status(), 403);
    assert.equal((await m.page.goto(`${server.url}/dashboard/people`))?.status(), 403);
    await m.context.close();
  });

  it('refuses a POST without the CSRF token (403)', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, server, owner, '/dashboard/sessions');
    const status = await page.evaluate(async (sid) => {
      const body = `session_id=${encodeURIComponent(sid)}`;
      return (
        await fetch('/dashboard/sessions/end', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body })
      ).status;
    }, memberSession);
    assert.equal(status, 403);
    await context.close();
  });

  it('the audit log: filtered, its chain verified, export after a fresh sign-in, an altered entry found', async () => {
    const { context, page, csp } = await newPage(browser);
    await signIn(page, server, owner, '/dashboard/audit');
    assert.match(await page.locator('#audit-chain').innerText(), /^Hash chain verified: \d+ entries, intact\.$/);
    assert.deepEqual(await axeViolations(page), []);
    await page.locator('#audit-action').fill('session.ended');
    await Promise.all([page.waitForURL(/action=session.ended/), page.locator('#audit-action').press('Enter')]);
    const rows = page.locator('main table tbody tr');
    assert.equal(await rows.count(), 1);
    assert.match(await rows.first().innerText(), new RegExp(`person:${owner.id}`));
    assert.match(await rows.first().innerText(), /\d{1,2}:\d{2}( [AP]M)? UTC/, 'its time said to be UTC');

    const csv = await page.request.get(`${server.url}/dashboard/audit/export?action=session.ended&format=csv`);
    assert.equal(csv.status(), 200);
    assert.match(await csv.text(), /^org_id,seq,at,actor,action,target,ip,outcome,prev_hash,hash\r\n.*session\.ended/s);

    // A sign-in older than the fresh window: the export asks for the password again, then comes back.
    sql(server, "UPDATE dashboard_sessions SET auth_at = '2020-01-01T00:00:00.000Z' WHERE person_id = ?", owner.id);
    await page.goto(`${server.url}/dashboard/audit`);
    const jsonl = page.locator('a', { hasText: 'Export JSON lines' });
    await jsonl.click();
    await page.waitForURL(/\/dashboard\/sign-in\?reauth=1/);
    await page.locator('#password').fill(owner.password);
    if (await page.locator('#email').isEditable()) await page.locator('#email').fill(owner.email);
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('form button[type=submit]').last().click()]);
    const lines = (await download.path().then((p) => require('node:fs').readFileSync(p!, 'utf8') as string)).trim().split('\n');
    assert.ok(lines.length >= 3 && lines.every((l) => typeof JSON.parse(l).hash === 'string'));

    sql(server, "UPDATE audit_log SET target = 'someone-else' WHERE seq = 1");
    await page.goto(`${server.url}/dashboard/audit`);
    assert.match(await page.locator('#audit-chain').innerText(), /^Hash chain broken at entry 1: entry 1 was altered/);
    assert.deepEqual(csp, []);
    await context.close();
    // The reason in the reader's language too.
    const fr = await newPage(browser, 'fr-FR');
    await signIn(fr.page, server, owner, '/dashboard/audit');
    assert.match(
      await fr.page.locator('#audit-chain').innerText(),
      /^Chaîne de hachage rompue à l’entrée 1 : l’entrée 1 a été modifiée \(son empreinte ne correspond pas à ses champs\)$/,
    );
    await fr.context.close();
  });
});
