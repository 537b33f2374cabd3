/**
 * The People page's actions on a person in real Chromium against the built service: **Remove** by keyboard
 * alone through its dialog (the email typed; a wrong email removes nobody), which revokes the person's keys
 * (their live session ends, its pending words delivered as finals first), ends their dashboard sign-in and
 * deletes their second factor, recovery codes and invitation (audited `person.deleted`); the refusals
 * (oneself, an owner by an admin); **Reset second factor** by an owner only after a fresh sign-in, after
 * which the person signs in with their password alone (audited `person.second_factor_reset`). axe-core on
 * the dialog and the pages, no CSP violation. Skipped where Chromium is not installed.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { axeViolations, newPage, useChromium, person, signIn, sql, tabTo, type Seeded } from '../helpers/dashboardPages';
import { WsProbe, useServer, type TestServer } from '../helpers/server';
import { framesOf, tone } from '../helpers/speech';
import { call } from '../helpers/team';
import { currentTotp } from '../helpers/totp';

const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

/** How many rows of each table hold something of this person. */
function rowsOf(s: TestServer, personId: string) {
  const db = new Database(path.join(s.dataDir, 'dictee.sqlite'), { readonly: true });
  const count = (table: string, column = 'person_id'): number =>
    (db.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${column} = ?`).get(personId) as { n: number }).n;
  const out = {
    people: count('people', 'id'),
    dashboard_sessions: count('dashboard_sessions'),
    second_factors: count('second_factors'),
    recovery_codes: count('recovery_codes'),
    dashboard_invites: count('dashboard_invites'),
    live_keys: (db.prepare('SELECT count(*) AS n FROM api_keys WHERE person_id = ? AND revoked_at IS NULL').get(personId) as { n: number })
      .n,
  };
  db.close();
  return out;
}

/** A confirmed second factor (the secret kept `plain:`: no --mfa-key-file) with two recovery codes, as the Security page leaves it. */
function seedSecondFactor(s: TestServer, personId: string): void {
  const at = new Date().toISOString();
  sql(
    s,
    'INSERT INTO second_factors (person_id, secret, confirmed_at, last_step, created_at) VALUES (?, ?, ?, 0, ?)',
    personId,
    `plain:${SECRET}`,
    at,
    at,
  );
  for (const n of [0, 1])
    sql(s, 'INSERT INTO recovery_codes (person_id, n, hash, used_at) VALUES (?, ?, ?, NULL)', personId, n, `hash-${n}`);
}

/** A POST of a dashboard form from the page, with its CSRF token: the answer's status. */
function postFrom(page: Page, action: string, fields: Record<string, string>): Promise<number> {
  return page.evaluate(
    async ({ action, fields }) => {
      const doc = (globalThis as unknown as { document: { querySelector(s: string): { getAttribute(n: string): string | null } | null } })
        .document;
      const body = new URLSearchParams({ ...fields, _csrf: doc.querySelector('input[name=_csrf]')?.getAttribute('value') ?? '' });
      const res = await fetch(action, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: String(body),
      });
      return res.status;
    },
    { action, fields },
  );
}

describe('dashboard: removing a person and resetting a second factor (Chromium)', function () {
  this.timeout(120_000);
  const server = useServer();
  const suite = useChromium(server, [
    ['Olivia', 'owner'],
    ['Adam', 'admin'],
  ]);
  let owner: Seeded;
  let admin: Seeded;
  before(() => ([owner, admin] = suite.people as [Seeded, Seeded]));

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

  it('refuses to remove oneself, and an owner by an admin, saying why; nothing removed', async () => {
    const o = await newPage(suite.browser);
    await signIn(o.page, server, owner, '/dashboard/people');
    assert.equal(await o.page.locator(`a[href="/dashboard/people/${owner.id}/remove"]`).count(), 0, 'no Remove on one’s own row');
    assert.equal(await postFrom(o.page, `/dashboard/people/${owner.id}/remove`, { confirm_email: owner.email }), 409);
    await o.page.goto(`${server.url}/dashboard/people/${owner.id}/remove`);
    assert.equal(await o.page.getByRole('alert').innerText(), 'You cannot remove yourself: ask another owner or admin.');

    const a = await newPage(suite.browser, 'fr-FR');
    await signIn(a.page, server, admin, '/dashboard/people');
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
        (e) => e.action === 'person.deleted' && e.target === owner.id && e.actor === `person:${admin.id}` && e.outcome !== 'success',
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
    const a = await newPage(suite.browser);
    await signIn(a.page, server, admin, '/dashboard/people');
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
