/**
 * The People and projects page in real Chromium against the built service: an owner invites a person (the
 * one-time sign-up code shown once), the invitee joins at /dashboard/join and signs in, the code refused a
 * second time; roles changed (the last owner is not demoted; an admin cannot make an owner); a project
 * created, a member added and removed; an email already there refused in the page with what was typed kept;
 * axe-core and the CSP clean, in English and French. **Remove** by keyboard alone through its dialog (the
 * email typed; a wrong email removes nobody), which revokes the person's keys (their live session ends, its
 * pending words delivered as finals first), ends their dashboard sign-in and deletes their second factor,
 * recovery codes and invitation (audited `person.deleted`); its refusals (oneself, an owner by an admin);
 * **Reset second factor** by an owner only after a fresh sign-in, after which the person signs in with their
 * password alone (audited `person.second_factor_reset`). Skipped where Chromium is not installed.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { axeViolations, newPage, useChromium, person, signIn, sql, tabTo, type Seeded } from '../helpers/dashboardPages';
import { SECRET, postFrom, rowsOf, seedSecondFactor } from '../helpers/dashboardPeople';
import { framesOf, tone } from '../helpers/speech';
import { call } from '../helpers/team';
import { currentTotp } from '../helpers/totp';
import { WsProbe, useServer } from '../helpers/server';

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
    const status = await postFrom(a.page, '/dashboard/people/role', { person_id: admin.id, role: 'owner' });
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

  it('removes a person by keyboard alone, the email typed in the dialog: keys revoked, live session ended with its words, sign-ins and second factor gone', async () => {
    const bob = await person(server, 'Bob', 'member');
    seedSecondFactor(server, bob.id);
    sql(
      server,
      'INSERT INTO dashboard_invites (code_hash, person_id, org_id, created_by, created_at, expires_at) SELECT ?, id, org_id, ?, ?, ? FROM people WHERE id = ?',
      'f'.repeat(64),
      owner.id,
      new Date().toISOString(),
      new Date(Date.now() + 86_400_000).toISOString(),
      bob.id,
    );
    // Bob signed in (with his code), and dictating.
    const b = await newPage(suite.browser);
    await b.page.goto(`${server.url}/dashboard/sign-in`);
    await b.page.locator('#email').fill(bob.email);
    await b.page.locator('#password').fill(bob.password);
    await Promise.all([b.page.waitForURL(/\/sign-in\/code/), b.page.locator('form button[type=submit]').last().click()]);
    await b.page.locator('#code').fill(currentTotp(SECRET));
    await Promise.all([b.page.waitForURL(/\/dashboard\/keys/), b.page.locator('form button[type=submit]').last().click()]);
    const probe = new WsProbe(server.wsUrl, { header: bob.key });
    await probe.configure({ language: 'en' });
    for (const f of framesOf(tone(3000))) probe.sendAudio(f);
    await probe.roundTrip();
    await probe.waitFor((m) => m.type === 'transcript', 10_000, 'some text');
    const before = rowsOf(server, bob.id);
    assert.deepEqual(before, {
      people: 1,
      dashboard_sessions: 1,
      second_factors: 1,
      recovery_codes: 2,
      dashboard_invites: 1,
      live_keys: 1,
    });

    const { context, page, csp } = await newPage(suite.browser);
    await signIn(page, server, owner, '/dashboard/people');
    await tabTo(page, /^Remove\s+Bob$/);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Remove person' });
    assert.equal(await dialog.isVisible(), true);
    assert.equal(await dialog.locator('#remove-person-name').innerText(), bob.email);
    assert.deepEqual(await axeViolations(page), []);
    // A wrong email: nobody removed, said in the page, what was typed kept.
    await page.keyboard.type('someone@example.org');
    await Promise.all([page.waitForURL(/\/remove$/), page.keyboard.press('Enter')]);
    assert.equal(await page.getByRole('alert').innerText(), "The email typed is not the person's email: nobody was removed.");
    assert.equal(await page.locator('#remove-person-typed').inputValue(), 'someone@example.org');
    assert.equal(rowsOf(server, bob.id).people, 1);
    assert.deepEqual(await axeViolations(page), []);
    await page.locator('#remove-person-typed').fill(bob.email.toUpperCase());
    await Promise.all([page.waitForURL(/removed=1/), page.locator('#remove-person-typed').press('Enter')]);
    assert.equal(await page.getByRole('status').innerText(), 'Removed: their keys are revoked and their sign-ins ended.');
    assert.ok(!(await page.locator('main table').first().innerText()).includes(bob.email));

    assert.deepEqual(rowsOf(server, bob.id), {
      people: 0,
      dashboard_sessions: 0,
      second_factors: 0,
      recovery_codes: 0,
      dashboard_invites: 0,
      live_keys: 0,
    });
    const closed = await probe.closed;
    assert.equal(closed.code, 4001);
    const finalAt = probe.messages.findIndex((m) => m.type === 'transcript' && m.status === 'final');
    assert.ok(
      finalAt >= 0 && probe.messages.findIndex((m) => m.type === 'error') > finalAt,
      'the pending words came as finals, then the end',
    );
    assert.equal((await call(server.url, 'GET', '/v1/usage', bob.key)).status, 401, 'the key is revoked');
    await b.page.goto(`${server.url}/dashboard/keys`);
    assert.match(new URL(b.page.url()).pathname, /\/dashboard\/sign-in/, "Bob's dashboard sign-in ended");
    const audit = (await call(server.url, 'GET', '/v1/audit', server.masterKey)).json.entries as Array<Record<string, string>>;
    assert.equal(audit.filter((e) => e.action === 'person.deleted' && e.target === bob.id && e.actor === `person:${owner.id}`).length, 1);
    assert.equal(audit.filter((e) => e.action === 'key.revoked' && e.target === bob.keyId).length, 1);
    assert.deepEqual([...csp, ...b.csp], []);
    await Promise.all([context.close(), b.context.close()]);
  });

  it('a key an owner or an admin makes on the keys page is theirs: removing them revokes it', async () => {
    const otto = await person(server, 'Otto', 'owner');
    const ines = await person(server, 'Ines', 'admin');
    const made = new Map<string, string>();
    for (const who of [otto, ines]) {
      const { context, page, csp } = await newPage(suite.browser);
      await signIn(page, server, who, '/dashboard/keys');
      await page.locator('#key-name').fill(`${who.email} own admin`);
      await page.getByLabel('admin', { exact: true }).check();
      await page.locator('#key-expiry').selectOption('never');
      await Promise.all([page.waitForURL(/\/dashboard\/keys\/created\//), page.getByRole('button', { name: 'Create key' }).click()]);
      made.set(who.id, await page.locator('#new-key').inputValue());
      assert.deepEqual(csp, []);
      await context.close();
    }
    const keys = (await call(server.url, 'GET', '/v1/api-keys', server.masterKey)).json.keys as Array<Record<string, unknown>>;
    for (const who of [otto, ines]) {
      const k = keys.find((x) => x.name === `${who.email} own admin`);
      assert.equal(k?.person_id, who.id, `${who.email}: the key is theirs, not the organisation's`);
      assert.equal(k.expires_at, null);
      assert.equal((await call(server.url, 'GET', '/v1/api-keys', made.get(who.id))).status, 200);
    }
    const o = await newPage(suite.browser);
    await signIn(o.page, server, owner, '/dashboard/people');
    for (const who of [otto, ines]) {
      assert.equal(await postFrom(o.page, `/dashboard/people/${who.id}/remove`, { confirm_email: who.email }), 200);
      assert.deepEqual(rowsOf(server, who.id).live_keys, 0);
      const key = made.get(who.id)!;
      assert.equal((await call(server.url, 'GET', '/v1/api-keys', key)).status, 401, 'the key made on the keys page is revoked');
      const more = await fetch(`${server.url}/v1/api-keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'another', type: 'personal', permissions: ['admin'] }),
      });
      assert.equal(more.status, 401, 'and makes no more keys');
    }
    await o.context.close();
  });

  it('refuses to remove oneself, and an owner by an admin, saying why; nothing removed', async () => {
    const o = await newPage(suite.browser);
    await signIn(o.page, server, owner, '/dashboard/people');
    assert.equal(await o.page.locator(`a[href="/dashboard/people/${owner.id}/remove"]`).count(), 0, 'no Remove on one’s own row');
    assert.equal(await postFrom(o.page, `/dashboard/people/${owner.id}/remove`, { confirm_email: owner.email }), 409);
    await o.page.goto(`${server.url}/dashboard/people/${owner.id}/remove`);
    assert.equal(await o.page.getByRole('alert').innerText(), 'You cannot remove yourself: ask another owner or admin.');

    const alma = await person(server, 'Alma', 'admin');
    const a = await newPage(suite.browser, 'fr-FR');
    await signIn(a.page, server, alma, '/dashboard/people');
    assert.equal(
      await a.page.locator(`a[href="/dashboard/people/${owner.id}/remove"]`).count(),
      0,
      'an admin is not offered to remove an owner',
    );
    assert.equal(await postFrom(a.page, `/dashboard/people/${owner.id}/remove`, { confirm_email: owner.email }), 403);
    await a.page.goto(`${server.url}/dashboard/people/${owner.id}/remove`);
    assert.equal(await a.page.getByRole('alert').innerText(), 'Seul un propriétaire crée, modifie ou retire un propriétaire.');
    assert.deepEqual(await axeViolations(a.page), []);
    assert.equal(rowsOf(server, owner.id).people, 1);
    const audit = (await call(server.url, 'GET', '/v1/audit', server.masterKey)).json.entries as Array<Record<string, string>>;
    assert.ok(
      audit.some(
        (e) => e.action === 'person.deleted' && e.target === owner.id && e.actor === `person:${alma.id}` && e.outcome !== 'success',
      ),
    );
    await Promise.all([o.context.close(), a.context.close()]);
  });

  it('an owner resets another person’s second factor after a fresh sign-in; they then sign in with their password alone', async () => {
    const carla = await person(server, 'Carla', 'member');
    seedSecondFactor(server, carla.id);
    const { context, page, csp } = await newPage(suite.browser);
    await signIn(page, server, owner, '/dashboard/people');
    // Not offered to an admin (owners only), refused when forged.
    const alex = await person(server, 'Alex', 'admin');
    const a = await newPage(suite.browser);
    await signIn(a.page, server, alex, '/dashboard/people');
    assert.equal(await a.page.locator('a', { hasText: 'Reset second factor' }).count(), 0);
    assert.equal(await postFrom(a.page, `/dashboard/people/${carla.id}/second-factor`, {}), 403);
    await a.context.close();

    // A sign-in older than the fresh window: the password again first, then the confirmation.
    sql(server, "UPDATE dashboard_sessions SET auth_at = '2020-01-01T00:00:00.000Z' WHERE person_id = ?", owner.id);
    await tabTo(page, /^Reset second factor\s+Carla$/);
    await Promise.all([page.waitForURL(/\/dashboard\/sign-in\?reauth=1/), page.keyboard.press('Enter')]);
    await page.locator('#email').fill(owner.email);
    await page.locator('#password').fill(owner.password);
    await Promise.all([page.waitForURL((u) => u.pathname === `/dashboard/people/${carla.id}/second-factor`), page.keyboard.press('Enter')]);
    assert.deepEqual(await axeViolations(page), []);
    await tabTo(page, /^Reset second factor$/);
    await Promise.all([page.waitForURL(/reset=1/), page.keyboard.press('Enter')]);
    assert.match(await page.getByRole('status').innerText(), /Second factor reset/);
    assert.equal(await page.locator('a', { hasText: 'Reset second factor' }).count(), 0, 'nothing left to reset');
    const rows = rowsOf(server, carla.id);
    assert.equal(rows.second_factors + rows.recovery_codes, 0);
    assert.equal(rows.live_keys, 1, 'her keys are kept');
    const audit = (await call(server.url, 'GET', '/v1/audit', server.masterKey)).json.entries as Array<Record<string, string>>;
    assert.equal(audit.filter((e) => e.action === 'person.second_factor_reset' && e.target === carla.id).length, 1);

    // Carla: the password alone signs her in (no code asked).
    const c = await newPage(suite.browser);
    await signIn(c.page, server, carla, '/dashboard/security');
    assert.match(await c.page.locator('#second-factor-state').innerText(), /off/);
    assert.deepEqual([...csp, ...c.csp], []);
    await Promise.all([context.close(), c.context.close()]);
  });
});
