/**
 * The People and projects page in real Chromium against the built service: an owner invites a person (the
 * one-time sign-up code shown once), the invitee joins at /dashboard/join and signs in, the code refused a
 * second time; roles changed (the last owner is not demoted; an admin cannot make an owner); a project
 * created, a member added and removed; an email already there refused in the page with what was typed kept;
 * axe-core and the CSP clean, in English and French. Skipped where Chromium is not installed.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { axeViolations, newPage, useChromium, person, signIn, type Seeded } from '../helpers/dashboardPages';
import { useServer } from '../helpers/server';

async function submit(page: Page, button: ReturnType<Page['locator']>): Promise<void> {
  await Promise.all([page.waitForLoadState('load'), button.click()]);
}

describe('dashboard: the People and projects page (Chromium)', function () {
  this.timeout(120_000);
  const server = useServer();
  const suite = useChromium(server, [
    ['Olivia', 'owner'],
    ['Adam', 'admin'],
  ]);
  let owner: Seeded;
  let admin: Seeded;
  before(() => ([owner, admin] = suite.people as [Seeded, Seeded]));

  it('invites a person; they join with the one-time code and sign in; the code works once', async () => {
    const { context, page, csp } = await newPage(suite.browser);
    await signIn(page, server, owner, '/dashboard/people');
    assert.deepEqual(await axeViolations(page), []);
    await page.locator('#invite-email').fill('nina@example.org');
    await page.locator('#invite-name').fill('Dr Nina');
    await page.locator('#invite-role').selectOption('member');
    await submit(page, page.locator('button', { hasText: /^Invite$/ }));
    const code = await page.locator('#invite-code').inputValue();
    assert.match(code, /^[A-Za-z0-9_-]{43}$/);
    assert.match(await page.locator('main table').first().innerText(), /nina@example\.org\s+member\s+invited, until/);
    assert.deepEqual(await axeViolations(page), []);
    // Not shown again.
    await page.goto(`${server.url}/dashboard/people`);
    assert.equal(await page.locator('#invite-code').count(), 0);
    assert.ok(!(await page.content()).includes(code));

    const anon = await newPage(suite.browser, 'fr-FR');
    await anon.page.goto(`${server.url}/dashboard/join`);
    assert.deepEqual(await axeViolations(anon.page), []);
    await anon.page.locator('#join-email').fill('Nina@Example.org');
    await anon.page.locator('#join-code').fill(code);
    await anon.page.locator('#join-password').fill('a long password for nina');
    await anon.page.locator('#join-password2').fill('a long password for nina');
    await Promise.all([anon.page.waitForURL(/\/dashboard\/sign-in/), anon.page.locator('main button[type=submit]').click()]);
    await signIn(anon.page, server, { id: '', email: 'nina@example.org', password: 'a long password for nina', key: '', keyId: '' });
    assert.equal(await anon.page.locator('h1').innerText(), 'Utilisation');
    // The same code again: refused, in the page.
    const again = await newPage(suite.browser);
    await again.page.goto(`${server.url}/dashboard/join`);
    await again.page.locator('#join-email').fill('nina@example.org');
    await again.page.locator('#join-code').fill(code);
    await again.page.locator('#join-password').fill('another long password');
    await again.page.locator('#join-password2').fill('another long password');
    await submit(again.page, again.page.locator('main button[type=submit]'));
    assert.match(await again.page.locator('#join-error').innerText(), /do not match an open invitation/);
    assert.deepEqual([...csp, ...anon.csp, ...again.csp], []);
    await Promise.all([context.close(), anon.context.close(), again.context.close()]);
  });

  it('an email already there is refused, what was typed kept (in French)', async () => {
    const { context, page } = await newPage(suite.browser, 'fr-FR');
    await signIn(page, server, owner, '/dashboard/people');
    await page.locator('#invite-email').fill(admin.email);
    await page.locator('#invite-name').fill('Adam again');
    await submit(page, page.locator('button', { hasText: /^Inviter$/ }));
    assert.equal(await page.locator('#invite-error').innerText(), 'Cette organisation a déjà une personne avec cet e-mail.');
    assert.equal(await page.locator('#invite-name').inputValue(), 'Adam again');
    await context.close();
  });

  it('roles: the last owner stays one; an admin cannot make an owner; an owner can', async () => {
    const { context, page } = await newPage(suite.browser);
    await signIn(page, server, owner, '/dashboard/people');
    await page.locator(`#role-${owner.id}`).selectOption('member');
    await submit(page, page.locator(`#role-${owner.id}`).locator('xpath=..').locator('button'));
    assert.match(await page.locator('main .error[role=alert]').innerText(), /Olivia is the organisation's last owner/);

    const a = await newPage(suite.browser);
    await signIn(a.page, server, admin, '/dashboard/people');
    assert.equal(await a.page.locator(`#role-${admin.id} option[value=owner]`).count(), 0, 'an admin is not offered owner');
    const status = await a.page.evaluate(async (id) => {
      const doc = (globalThis as unknown as { document: { querySelector(s: string): { getAttribute(n: string): string | null } | null } })
        .document;
      const token = doc.querySelector('input[name=_csrf]')?.getAttribute('value') ?? '';
      const body = `_csrf=${encodeURIComponent(token)}&person_id=${encodeURIComponent(id)}&role=owner`;
      return (
        await fetch('/dashboard/people/role', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body })
      ).status;
    }, admin.id);
    assert.equal(status, 403);
    await a.context.close();

    await page.locator(`#role-${admin.id}`).selectOption('owner');
    await submit(page, page.locator(`#role-${admin.id}`).locator('xpath=..').locator('button'));
    assert.match(await page.locator('main table').first().innerText(), /adam@example\.org\s+owner/);
    await context.close();
  });

  it('a project: created, a member added, then removed', async () => {
    const { context, page, csp } = await newPage(suite.browser);
    await signIn(page, server, owner, '/dashboard/people');
    await page.locator('#project-name').fill('Radiology');
    await submit(page, page.locator('button', { hasText: 'Create project' }));
    const section = page.locator('section.project', { hasText: 'Radiology' });
    assert.equal(await section.count(), 1);
    await section.locator('select[name=person_id]').selectOption({ label: 'Adam' });
    await section.locator('select[name=role]').selectOption('admin');
    await submit(page, section.locator('button', { hasText: 'Add member' }));
    assert.match(await page.locator('section.project', { hasText: 'Radiology' }).locator('table').innerText(), /Adam\s+project admin/);
    assert.deepEqual(await axeViolations(page), []);
    await submit(page, page.locator('section.project', { hasText: 'Radiology' }).locator('button', { hasText: 'Remove' }));
    assert.equal(await page.locator('section.project', { hasText: 'Radiology' }).locator('table').count(), 0);
    assert.deepEqual(csp, []);
    await context.close();
  });
});
