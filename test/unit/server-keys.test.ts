import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KEY_PATTERN } from '../../src/protocol';
import { SqliteStore as Store } from '../../src/server/storage/db';
import { SqliteKeyStore as KeyStore, generateKey } from '../../src/server/storage/keys';
import { generateMasterKey } from '../../src/server/storage/masterKey';
import { hashesEqual, sha256Hex } from '../../src/server/storage/digest';
import { LEGACY_MASTER_KEY_FILE, MasterKeyConflictError } from '../../src/server/storage/masterKey';

function tmp(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'dictee-keys-'));
}

describe('server API keys', () => {
  it('generates svc_live_/svc_test_/svc_proj_ + 43 base64url characters', () => {
    for (const p of ['svc_live_', 'svc_test_', 'svc_proj_'] as const) {
      const k = generateKey(p);
      assert.ok(k.startsWith(p));
      assert.equal(k.length, p.length + 43);
      assert.match(k, KEY_PATTERN);
    }
    assert.notEqual(generateKey('svc_live_'), generateKey('svc_live_'));
  });

  it('hashes with SHA-256 and compares in constant time', () => {
    assert.equal(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    assert.ok(hashesEqual(sha256Hex('x'), sha256Hex('x')));
    assert.ok(!hashesEqual(sha256Hex('x'), sha256Hex('y')));
    assert.ok(!hashesEqual('', ''));
  });

  it('stores only hashes; authenticates, lists without secrets, revokes', async () => {
    const dir = tmp();
    const store = new Store(dir);
    const keys = new KeyStore(store, dir, 'master-secret', () => assert.fail('no announce with an env master key'));
    const created = await keys.create({ name: 'dev', type: 'personal' });
    assert.deepEqual(created.permissions, ['read', 'write']);
    assert.equal(created.environment, 'live');
    assert.ok(created.key.startsWith('svc_live_'));
    const test = await keys.create({ name: 't', type: 'personal', environment: 'test', permissions: ['read'] });
    assert.ok(test.key.startsWith('svc_test_'));
    const proj = await keys.create({ name: 'p', type: 'project', project_id: 'radiology-team' });
    assert.ok(proj.key.startsWith('svc_proj_'));
    assert.equal(proj.project_id, 'radiology-team');
    assert.deepEqual([created.org_id, proj.org_id], [store.orgId, store.orgId], "keys belong to the service's organisation");

    const auth = await keys.authenticate(created.key);
    assert.ok(auth.ok && auth.key.id === created.id);
    assert.deepEqual(await keys.authenticate(undefined), { ok: false, reason: 'missing' });
    assert.deepEqual(await keys.authenticate('nope'), { ok: false, reason: 'malformed' });
    assert.deepEqual(await keys.authenticate(generateKey('svc_live_')), { ok: false, reason: 'unknown' });

    const listed = JSON.stringify(await keys.list());
    for (const k of [created.key, test.key, proj.key]) assert.ok(!listed.includes(k), 'listing holds no key');
    await store.close();
    const raw = readFileSync(path.join(dir, 'dictee.sqlite')).toString('latin1');
    assert.ok(!raw.includes(created.key), 'the database file holds no key');

    const store2 = new Store(dir);
    const keys2 = new KeyStore(store2, dir, 'master-secret', () => undefined);
    assert.ok((await keys2.revoke(created.key))?.revokedAt);
    assert.deepEqual(await keys2.authenticate(created.key), { ok: false, reason: 'revoked' });
    assert.ok((await keys2.revoke(proj.id))?.revokedAt, 'revocable by id');
    assert.equal(await keys2.revoke('key_unknown'), undefined);
    assert.ok(keys2.isMaster('master-secret'));
    assert.ok(!keys2.isMaster('master-secreT'));
    await store2.close();
  });

  it('rejects project keys without project_id and personal keys with one', async () => {
    const dir = tmp();
    const store = new Store(dir);
    const keys = new KeyStore(store, dir, 'm', () => undefined);
    await assert.rejects(keys.create({ name: 'p', type: 'project' }), /project_id is required/);
    await assert.rejects(keys.create({ name: 'p', type: 'personal', project_id: 'x' }), /project_id is only for project keys/);
    await assert.rejects(keys.create({ name: 'p', type: 'project', project_id: 'x', environment: 'test' }), /environment/);
    await store.close();
  });

  it('generates a master key once, keeps only its hash (in the database, mode 0600), never shows it again', async () => {
    const dir = tmp();
    const shown: string[] = [];
    const s1 = new Store(dir);
    const k1 = new KeyStore(s1, dir, undefined, (k: string) => shown.push(k));
    assert.equal(shown.length, 1);
    assert.equal(s1.getMeta('master_key_sha256'), sha256Hex(shown[0]!));
    assert.equal(s1.getMeta('master_key_origin'), 'generated');
    assert.equal(statSync(path.join(dir, 'dictee.sqlite')).mode & 0o777, 0o600);
    assert.ok(!readFileSync(path.join(dir, 'dictee.sqlite')).includes(shown[0]!), 'the key itself is not stored');
    assert.ok(k1.isMaster(shown[0]));
    await s1.close();
    const s2 = new Store(dir);
    const k2 = new KeyStore(s2, dir, undefined, (k: string) => shown.push(k));
    assert.equal(shown.length, 1, 'not shown at the second start');
    assert.ok(k2.isMaster(shown[0]));
    assert.equal(s2.orgId, s1.orgId, 'the default organisation persists');
    await s2.close();
  });

  it('a data dir started with a master key records it: a start without it, or with another, is refused; none is generated', async () => {
    const dir = tmp();
    const key = generateMasterKey();
    const shown: string[] = [];
    const s1 = new Store(dir);
    assert.ok(new KeyStore(s1, dir, key, (k: string) => shown.push(k)).isMaster(key));
    assert.equal(s1.getMeta('master_key_origin'), 'given');
    await s1.close();
    const s2 = new Store(dir);
    assert.throws(
      () => new KeyStore(s2, dir, undefined, (k: string) => shown.push(k)),
      (e: unknown) => e instanceof MasterKeyConflictError && /has a master key that was given/.test(e.message),
    );
    const other = generateMasterKey();
    assert.throws(
      () => new KeyStore(s2, dir, other, (k: string) => shown.push(k)),
      (e: unknown) =>
        e instanceof MasterKeyConflictError &&
        /DICTEE_MASTER_KEY does not match/.test(e.message) &&
        !e.message.includes(other) &&
        !e.message.includes(key) &&
        !e.message.includes(sha256Hex(key)),
    );
    assert.deepEqual(shown, [], 'no master key generated');
    assert.equal(s2.getMeta('master_key_sha256'), sha256Hex(key), 'the recorded hash is unchanged');
    assert.ok(new KeyStore(s2, dir, key, () => undefined).isMaster(key), 'the same key still starts');
    await s2.close();
  });

  it('a generated master key: a start without a key uses it, a start with another is refused', async () => {
    const dir = tmp();
    const shown: string[] = [];
    const s1 = new Store(dir);
    new KeyStore(s1, dir, undefined, (k: string) => shown.push(k));
    assert.throws(() => new KeyStore(s1, dir, generateMasterKey(), () => undefined), MasterKeyConflictError);
    assert.ok(new KeyStore(s1, dir, shown[0], () => undefined).isMaster(shown[0]), 'the generated key given explicitly');
    assert.equal(s1.getMeta('master_key_origin'), 'generated');
    await s1.close();
  });

  it('imports the hash an older version kept in master-key.sha256 (then removes the file)', async () => {
    const dir = tmp();
    const key = generateMasterKey();
    writeFileSync(path.join(dir, LEGACY_MASTER_KEY_FILE), sha256Hex(key) + '\n', { mode: 0o600 });
    const shown: string[] = [];
    const s = new Store(dir);
    assert.ok(new KeyStore(s, dir, undefined, (k: string) => shown.push(k)).isMaster(key));
    assert.deepEqual(shown, []);
    assert.equal(s.getMeta('master_key_sha256'), sha256Hex(key));
    assert.ok(!existsSync(path.join(dir, LEGACY_MASTER_KEY_FILE)));
    await s.close();
  });
});
