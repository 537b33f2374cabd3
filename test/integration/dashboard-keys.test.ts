/**
 * The API keys page in real Chromium against the built service: Create key (the key shown once, never
 * again after a reload; a double submission makes one key; a name taken said in the page with the form
 * kept), Revoke (the dialog asking for the name; a wrong name revokes nothing; two administrators at once:
 * one revocation), Roll (the new key, the old key watched, then revoked), a member's scope, axe-core and
 * the CSP on each page.
 */
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { useServer } from '../helpers/server';
import { call } from '../helpers/team';
import { waitFor } from '../helpers/wait';
import { axeViolations, cspViolations, haveChromium, launchChromium, newContext, signIn, usersAdd } from '../helpers/dashboard';

const PASSWORD = 'correct horse battery staple';

describe('dashboard: the API keys page (Chromium)', function () {
  this.timeout(120_000);
  const server = useServer();
  let browser: Browser | undefined;
  let owner: Page;

  before(async function () {
    if (!haveChromium()) return this.skip();
    for (const [email, role] of [
      ['owner@example.org', 'owner'],
      ['member@example.org', 'member'],
    ] as const)
      assert.equal((await usersAdd(server.dataDir, { email, role, password: PASSWORD })).code, 0);
    browser = await launchChromium();
    owner = await (await newContext(browser)).newPage();
    await signIn(owner, server, 'owner@example.org', PASSWORD);
  });
  after(async () => {
    await browser?.close();
  });

  async function clean(p: Page): Promise<void> {
    assert.deepEqual(await axeViolations(p), []);
    assert.deepEqual(await cspViolations(p), []);
  }

  async function keysNamed(name: string): Promise<Array<{ id: string; revoked_at: string | null }>> {
    const r = await call(server.url, 'GET', '/v1/api-keys', server.masterKey);
    return (r.json.keys as Array<{ id: string; name: string; revoked_at: string | null }>).filter((k) => k.name === name);
  }

  async function create(p: Page, name: string): Promise<string> {
    await p.goto(`${server.url}/dashboard/keys`);
    await p.getByLabel('Name', { exact: true }).fill(name);
    await Promise.all([p.waitForNavigation(), p.getByRole('button', { name: 'Create key' }).click()]);
    return p.locator('#new-key').inputValue();
  }

  it('creates a key with the defaults, shows it once with a copy button, never after a reload', async () => {
    await owner.goto(`${server.url}/dashboard/keys`);
    await clean(owner);
    assert.equal(await owner.getByLabel('personal').isChecked(), true);
    assert.equal(await owner.getByLabel('read', { exact: true }).isChecked(), true);
    assert.equal(await owner.getByLabel('write', { exact: true }).isChecked(), true);
    assert.equal(await owner.getByLabel('Expires').inputValue(), '90');
    const key = await create(owner, 'radiology laptop');
    assert.match(key, /^svc_live_/);
    assert.equal(await owner.getByRole('heading', { level: 1 }).innerText(), 'Key created');
    assert.equal(await owner.getByRole('button', { name: 'Copy' }).count(), 1);
    await clean(owner);
    await owner.reload();
    assert.equal(await owner.getByRole('heading', { level: 1 }).innerText(), 'Key already shown');
    assert.ok(!(await owner.content()).includes(key), 'the key is not in the page after a reload');
    await owner.goto(`${server.url}/dashboard/keys`);
    const row = owner.getByRole('row', { name: /radiology laptop/ });
    assert.match(await row.innerText(), /never used/);
    assert.ok(!(await owner.content()).includes(key));
    // Used once, it is no longer "never used" (last_used_at is written off the request path: the page catches up).
    const works = await call(server.url, 'GET', '/v1/usage', key);
    assert.equal(works.status, 200, 'the key shown works');
    await waitFor(
      async () => {
        await owner.goto(`${server.url}/dashboard/keys`);
        return !/never used/.test(await row.innerText());
      },
      10_000,
      'the key used once loses its "never used" badge',
      200,
    );
  });

  it("names a project key's project, and fits a phone's width (the table scrolls inside itself)", async () => {
    const post = async (path: string, body: unknown): Promise<Record<string, unknown>> => {
      const res = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.masterKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.ok(res.ok, `${path}: ${res.status}`);
      return (await res.json()) as Record<string, unknown>;
    };
    const project = (await post('/v1/projects', { name: 'Radiology reports' })).project as { id: string };
    await post('/v1/api-keys', { name: 'PACS integration', type: 'project', project_id: project.id });
    await owner.goto(`${server.url}/dashboard/keys`);
    const row = owner.getByRole('row', { name: /PACS integration/ });
    assert.match(await row.innerText(), /Radiology reports/);
    assert.ok(!(await row.innerText()).includes(project.id), 'the project by its name, not its id');
    const phone = await (await newContext(browser!)).newPage();
    await phone.setViewportSize({ width: 390, height: 800 });
    await signIn(phone, server, 'owner@example.org', PASSWORD);
    await phone.goto(`${server.url}/dashboard/keys`);
    assert.ok((await phone.evaluate<number>('document.documentElement.scrollWidth')) <= 390, 'no sideways scroll of the page');
    await clean(phone);
    await phone.context().close();
  });

  it('makes one key of a double submission, and says a name is taken with the form kept', async () => {
    await owner.goto(`${server.url}/dashboard/keys`);
    const csrf = await owner.locator('#create-key input[name="_csrf"]').inputValue();
    const idem = await owner.locator('#create-key input[name="_idem"]').inputValue();
    const form = { _csrf: csrf, _idem: idem, type: 'personal', name: 'double click', permissions: 'read', expiry: '30' };
    const [a, b] = await Promise.all([0, 1].map(() => owner.request.post(`${server.url}/dashboard/keys`, { form, maxRedirects: 0 })));
    assert.deepEqual([a!.status(), b!.status()], [303, 303]);
    assert.equal(a!.headers().location, b!.headers().location);
    assert.equal((await keysNamed('double click')).length, 1);
    await owner.goto(`${server.url}${a!.headers().location}`);
    assert.match(await owner.locator('#new-key').inputValue(), /^svc_live_/);
    // The same name again: refused in the page, the form as it was typed.
    await owner.goto(`${server.url}/dashboard/keys`);
    await owner.getByLabel('Name', { exact: true }).fill('double click');
    await owner.getByLabel('Expires').selectOption('180');
    await Promise.all([owner.waitForNavigation(), owner.getByRole('button', { name: 'Create key' }).click()]);
    assert.equal(await owner.getByRole('alert').innerText(), 'A key named "double click" exists already here: choose another name.');
    assert.equal(await owner.getByLabel('Name', { exact: true }).inputValue(), 'double click');
    assert.equal(await owner.getByLabel('Expires').inputValue(), '180');
    assert.equal((await keysNamed('double click')).length, 1);
    await clean(owner);
  });

  it('revokes through the dialog once the name is typed; a wrong name revokes nothing', async () => {
    const key = await create(owner, 'to revoke');
    await owner.goto(`${server.url}/dashboard/keys`);
    await owner.getByRole('link', { name: 'Revoke to revoke' }).click();
    const dialog = owner.getByRole('dialog', { name: 'Revoke key' });
    assert.equal(await dialog.isVisible(), true);
    const ends = 'A revoked key stops working at once, and each of its live sessions ends after its pending words are delivered.';
    assert.match(await dialog.innerText(), new RegExp(ends));
    await clean(owner);
    await dialog.getByRole('textbox').fill('not the name');
    await Promise.all([owner.waitForNavigation(), dialog.getByRole('button', { name: 'Revoke' }).click()]);
    assert.equal(await owner.getByRole('alert').innerText(), "The name typed is not the key's name: nothing was revoked.");
    assert.equal((await keysNamed('to revoke'))[0]!.revoked_at, null);
    await clean(owner);
    assert.match(await owner.locator('main').innerText(), new RegExp(ends), 'the page says it too');
    await owner.getByLabel(/Type the name of the key/).fill('to revoke');
    await Promise.all([owner.waitForNavigation(), owner.getByRole('button', { name: 'Revoke' }).click()]);
    assert.equal(await owner.getByRole('status').innerText(), 'The key "to revoke" is revoked.');
    assert.equal((await call(server.url, 'GET', '/v1/usage', key)).status, 401);
  });

  it('two administrators revoking the same key at once: one revocation recorded, both told', async () => {
    await create(owner, 'raced');
    const { id } = (await keysNamed('raced'))[0]!;
    await owner.goto(`${server.url}/dashboard/keys/${id}/revoke`);
    const csrf = await owner.locator('input[name="_csrf"]').first().inputValue();
    const answers = await Promise.all(
      [0, 1].map(() =>
        owner.request.post(`${server.url}/dashboard/keys/${id}/revoke`, { form: { _csrf: csrf, confirm_name: 'raced' }, maxRedirects: 0 }),
      ),
    );
    assert.deepEqual(answers.map((a) => a.status()).sort(), [303, 409]);
    const told = await answers.find((a) => a.status() === 409)!.text();
    assert.match(told, /was already revoked/);
    const audit = await call(server.url, 'GET', '/v1/audit', server.masterKey);
    const entries = audit.json.entries as Array<{ action: string; target: string }>;
    assert.equal(entries.filter((e) => e.action === 'key.revoked' && e.target === id).length, 1);
  });

  it('rolls a key: the new key once, the old key watched until quiet, then the offer to revoke it', async () => {
    await create(owner, 'rolled');
    const { id: oldId } = (await keysNamed('rolled'))[0]!;
    await owner.goto(`${server.url}/dashboard/keys`);
    await Promise.all([owner.waitForNavigation(), owner.getByRole('link', { name: 'Roll rolled' }).click()]);
    await clean(owner);
    await Promise.all([owner.waitForNavigation(), owner.getByRole('button', { name: 'Roll' }).click()]);
    assert.equal(await owner.getByRole('heading', { level: 1 }).innerText(), 'Roll: the new key');
    assert.match(await owner.locator('#new-key').inputValue(), /^svc_live_/);
    await Promise.all([owner.waitForNavigation(), owner.getByRole('link', { name: /watch the old key/ }).click()]);
    assert.equal(new URL(owner.url()).pathname, `/dashboard/keys/${oldId}/watch`);
    assert.match(await owner.locator('#quiet').innerText(), /^Quiet/);
    await clean(owner);
    await Promise.all([owner.waitForNavigation(), owner.getByRole('link', { name: 'Revoke the old key' }).click()]);
    assert.equal(new URL(owner.url()).pathname, `/dashboard/keys/${oldId}/revoke`);
    assert.equal((await keysNamed('rolled')).length, 2);
    // Later (the one-time page gone), the keys list leads back to the old key's watch; the new key has none.
    await owner.goto(`${server.url}/dashboard/keys`);
    const watch = owner.getByRole('link', { name: /^Watch rolled / });
    assert.equal(await watch.count(), 1);
    await Promise.all([owner.waitForNavigation(), watch.click()]);
    assert.equal(new URL(owner.url()).pathname, `/dashboard/keys/${oldId}/watch`);
  });

  it("tells a roll's old and new keys apart in Revoke's dialog and page: hint, creation and expiry", async () => {
    await create(owner, 'rotating');
    const { id: oldId } = (await keysNamed('rotating'))[0]!;
    const rolled = await fetch(`${server.url}/v1/api-keys/${oldId}/roll`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.masterKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ overlap_hours: 24 }),
    });
    assert.ok(rolled.ok, String(rolled.status));
    const listed = (await call(server.url, 'GET', '/v1/api-keys', server.masterKey)).json.keys as Array<{
      id: string;
      name: string;
      hint: string;
      created_at: string;
      expires_at: string;
    }>;
    const day = (iso: string): string => new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(iso));
    // The old key expires at the end of the 24-hour overlap: within 48 hours, so with its time (UTC).
    const time = (iso: string): string =>
      `${new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(new Date(iso))} UTC`;
    const expiry = (k: (typeof listed)[number]): string => (k.id === oldId ? time(k.expires_at) : day(k.expires_at));
    const detailsOf = (k: (typeof listed)[number]): string => `Hint ${k.hint}, created ${day(k.created_at)}, expires ${expiry(k)}.`;
    const both = listed.filter((k) => k.name === 'rotating');
    assert.equal(both.length, 2);
    assert.notEqual(detailsOf(both[0]!), detailsOf(both[1]!));
    await owner.goto(`${server.url}/dashboard/keys`);
    const rows = owner.getByRole('row', { name: /^rotating/ });
    assert.equal(await rows.count(), 2);
    for (let i = 0; i < 2; i++) {
      const row = rows.nth(i);
      const hint = await row.locator('code').innerText();
      assert.ok((await row.innerText()).includes(expiry(both.find((k) => k.hint === hint)!)), 'the table shows the same expiry');
      await row.getByRole('link', { name: 'Revoke rotating' }).click();
      const dialog = owner.getByRole('dialog', { name: 'Revoke key' });
      assert.equal(await dialog.locator('#revoke-details').innerText(), detailsOf(both.find((k) => k.hint === hint)!));
      assert.equal(await dialog.getByRole('textbox').getAttribute('aria-describedby'), 'revoke-details', 'read with the field');
      await clean(owner);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
    }
    // The page (without script, or after a wrong name) says the same.
    await owner.goto(`${server.url}/dashboard/keys/${oldId}/revoke`);
    assert.equal(await owner.locator('#revoke-details').innerText(), detailsOf(both.find((k) => k.id === oldId)!));
    assert.equal(await owner.getByLabel(/Type the name of the key/).getAttribute('aria-describedby'), 'revoke-details');
    await clean(owner);
  });

  it('offers no Roll for an expired or a revoked key: its roll page says it cannot be rolled', async () => {
    const soon = new Date(Date.now() + 2_000).toISOString();
    const made = await fetch(`${server.url}/v1/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.masterKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'run out', type: 'personal', expires_at: soon }),
    });
    assert.equal(made.status, 201);
    const { id } = (await made.json()) as { id: string };
    await new Promise((resolve) => setTimeout(resolve, Date.parse(soon) - Date.now() + 100));
    await owner.goto(`${server.url}/dashboard/keys`);
    const row = owner.getByRole('row', { name: /run out/ });
    assert.match(await row.innerText(), /expired/);
    assert.equal(await row.getByRole('link', { name: /^Roll/ }).count(), 0, 'no Roll link on an expired key');
    await owner.goto(`${server.url}/dashboard/keys/${id}/roll`);
    assert.match(
      await owner.getByRole('status').innerText(),
      /The key "run out" has expired: it cannot be rolled\. Create a new key instead\./,
    );
    assert.equal(await owner.getByRole('button', { name: 'Roll' }).count(), 0);
    assert.ok(!(await owner.content()).includes('keeps working'), 'no promise of an overlap');
    await Promise.all([owner.waitForNavigation(), owner.getByRole('link', { name: 'Create a new key' }).click()]);
    assert.equal(new URL(owner.url()).pathname, '/dashboard/keys');
    await clean(owner);
    await create(owner, 'revoked roll');
    const revoked = (await keysNamed('revoked roll'))[0]!.id;
    assert.equal((await call(server.url, 'DELETE', `/v1/api-keys/${revoked}`, server.masterKey)).status, 200);
    await owner.goto(`${server.url}/dashboard/keys/${revoked}/roll`);
    assert.match(await owner.getByRole('status').innerText(), /The key "revoked roll" is revoked: it cannot be rolled\./);
    assert.equal(await owner.getByRole('button', { name: 'Roll' }).count(), 0);
  });

  it('shows a member only their own keys, and not the People and projects page', async () => {
    const p = await (await newContext(browser!)).newPage();
    await signIn(p, server, 'member@example.org', PASSWORD);
    await create(p, 'member key');
    await p.goto(`${server.url}/dashboard/keys`);
    const names = await p.locator('tbody th[scope="row"]').allInnerTexts();
    assert.deepEqual(names, ['member key']);
    assert.equal(await p.getByRole('link', { name: 'People and projects' }).count(), 0);
    const { id } = (await keysNamed('double click'))[0]!;
    assert.equal((await p.request.get(`${server.url}/dashboard/keys/${id}/revoke`)).status(), 404, "another person's key is not reachable");
    assert.equal((await p.request.get(`${server.url}/dashboard/people`)).status(), 403);
    await p.context().close();
  });
  it("says whose key each is: the signed-in person's for a key made here, the organisation's, none for a project key", async () => {
    await create(owner, 'whose key');
    const keys = (await call(server.url, 'GET', '/v1/api-keys', server.masterKey)).json.keys as Array<Record<string, unknown>>;
    const people = (await call(server.url, 'GET', '/v1/people', server.masterKey)).json.people as Array<Record<string, unknown>>;
    const ownerId = people.find((p) => p.email === 'owner@example.org')?.id;
    assert.equal(keys.find((k) => k.name === 'whose key')?.person_id, ownerId, "a key made by an owner is the owner's");
    const org = await fetch(`${server.url}/v1/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.masterKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'organisation key', type: 'personal' }),
    });
    assert.equal(org.status, 201);
    await owner.goto(`${server.url}/dashboard/keys`);
    assert.equal(await owner.getByRole('columnheader', { name: 'Person' }).count(), 1);
    const person = (name: string): Promise<string> => owner.getByRole('row', { name }).locator('td').nth(2).innerText();
    assert.equal(await person('whose key'), 'owner@example.org');
    assert.equal(await person('organisation key'), 'organisation');
    assert.equal(await person('PACS integration'), '—');
    await clean(owner);
  });

  it('shows 100 keys a page, with Previous and Next by keyboard (here last: it adds 120 keys)', async () => {
    for (let i = 0; i < 120; i += 20) {
      await Promise.all(
        Array.from({ length: 20 }, async (_, j) => {
          const res = await fetch(`${server.url}/v1/api-keys`, {
            method: 'POST',
            headers: { authorization: `Bearer ${server.masterKey}`, 'content-type': 'application/json' },
            body: JSON.stringify({ name: `bulk ${String(i + j).padStart(3, '0')}`, type: 'personal' }),
          });
          assert.equal(res.status, 201, await res.text());
        }),
      );
    }
    const total = (
      (await call(server.url, 'GET', '/v1/api-keys', server.masterKey)).json.keys as Array<{ revoked_at: string | null }>
    ).filter((k) => !k.revoked_at).length;
    await owner.goto(`${server.url}/dashboard/keys`);
    assert.equal(await owner.locator('table.keys tbody tr').count(), 100);
    assert.match(await owner.locator('table.keys caption').innerText(), new RegExp(`^1–100 of ${total.toLocaleString('en')} keys$`));
    assert.equal(await owner.getByRole('link', { name: 'Previous page' }).count(), 0);
    const next = owner.getByRole('navigation', { name: 'Pages of keys' }).getByRole('link', { name: 'Next page' });
    await next.focus();
    await Promise.all([owner.waitForNavigation(), owner.keyboard.press('Enter')]);
    assert.equal(new URL(owner.url()).searchParams.get('page'), '2');
    assert.equal(await owner.locator('table.keys tbody tr').count(), Math.min(100, total - 100));
    assert.match(await owner.getByRole('navigation', { name: 'Pages of keys' }).innerText(), /Page 2 of 2/);
    assert.deepEqual(await axeViolations(owner), []);
    await owner.goto(`${server.url}/dashboard/keys?page=999`);
    assert.match(await owner.locator('table.keys caption').innerText(), /^101–/, 'a page past the end shows the last one');
  });
});
