/**
 * The single sign-on options (src/server/ssoOptions.ts) and the role a person's groups give
 * (src/server/dashboard/ssoPerson.ts): each wrong option refused with a message naming it; the highest role
 * of several groups.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from '../../src/shared/args';
import { parseSsoOptions, readClientSecret } from '../../src/server/ssoOptions';
import { roleOfGroups } from '../../src/server/dashboard/ssoPerson';
import { decodePending, encodePending, groupsOf } from '../../src/server/dashboard/oidcClient';

const dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-sso-'));
const secretFile = path.join(dir, 'secret');
writeFileSync(secretFile, 'the-client-secret\n');

const base = {
  'public-url': 'https://dictee.hospital.example',
  'oidc-issuer': 'https://login.hospital.example/realms/staff',
  'oidc-client-id': 'dictee',
  'oidc-client-secret-file': secretFile,
  'oidc-role-map': 'radiology-admins=admin, radiology=member',
};

function refused(v: Record<string, string | boolean | undefined>, message: RegExp): void {
  assert.throws(
    () => parseSsoOptions(v),
    (e: unknown) => e instanceof UsageError && message.test(e.message),
  );
}

describe('dashboard single sign-on options', () => {
  it('reads the options, with their defaults', () => {
    const o = parseSsoOptions(base);
    assert.equal(o.publicUrl, 'https://dictee.hospital.example');
    assert.deepEqual(
      [...o.oidc!.roleMap],
      [
        ['radiology-admins', 'admin'],
        ['radiology', 'member'],
      ],
    );
    assert.equal(o.oidc!.groupsClaim, 'groups');
    assert.equal(o.oidc!.scopes, 'openid email profile');
    assert.equal(o.oidc!.trustEmail, false);
    assert.equal(o.oidc!.orgId, undefined);
    assert.deepEqual(parseSsoOptions({}), {});
    assert.equal(parseSsoOptions({ 'public-url': 'http://127.0.0.1:8080/' }).publicUrl, 'http://127.0.0.1:8080');
  });

  it('takes the role map from a JSON file (group names with commas and "=")', () => {
    const file = path.join(dir, 'roles.json');
    writeFileSync(file, JSON.stringify({ 'CN=Radiology,OU=Groups,DC=hospital': 'member', 'CN=Dictee Admins,OU=Groups': 'owner' }));
    const o = parseSsoOptions({ ...base, 'oidc-role-map': undefined, 'oidc-role-map-file': file });
    assert.equal(o.oidc!.roleMap.get('CN=Radiology,OU=Groups,DC=hospital'), 'member');
    assert.equal(o.oidc!.roleMap.get('CN=Dictee Admins,OU=Groups'), 'owner');
    writeFileSync(file, '["radiology"]');
    refused({ ...base, 'oidc-role-map': undefined, 'oidc-role-map-file': file }, /JSON object/);
    writeFileSync(file, '{"radiology": "chief"}');
    refused(
      { ...base, 'oidc-role-map': undefined, 'oidc-role-map-file': file },
      /"radiology" must be one of owner, admin, member \(got "chief"\)/,
    );
  });

  it('refuses what cannot work, saying which option', () => {
    refused({ ...base, 'public-url': undefined }, /--oidc-issuer needs --public-url/);
    refused({ ...base, 'oidc-client-id': undefined }, /needs --oidc-client-id/);
    refused({ ...base, 'oidc-client-secret-file': undefined }, /needs --oidc-client-secret-file/);
    refused({ ...base, 'oidc-role-map': undefined }, /one of --oidc-role-map or --oidc-role-map-file/);
    refused({ ...base, 'oidc-role-map': 'radiology' }, /"radiology" is not GROUP=ROLE/);
    refused({ ...base, 'oidc-role-map': 'radiology=boss' }, /must be one of owner, admin, member/);
    refused({ ...base, 'oidc-role-map': 'a=member,a=admin' }, /given twice/);
    refused({ ...base, 'oidc-issuer': 'http://login.hospital.example' }, /--oidc-issuer must be https/);
    refused({ ...base, 'oidc-issuer': 'not a url' }, /--oidc-issuer must be a URL/);
    refused({ ...base, 'public-url': 'https://dictee.example/sub' }, /origin only/);
    refused({ ...base, 'public-url': 'http://dictee.example' }, /--public-url must be https/);
    refused({ ...base, 'oidc-scopes': 'email profile' }, /must include openid/);
    refused({ 'oidc-client-id': 'x' }, /--oidc-client-id goes with --oidc-issuer/);
  });

  it('reads the client secret from its file, never saying it', () => {
    assert.equal(readClientSecret(secretFile), 'the-client-secret');
    assert.throws(() => readClientSecret(path.join(dir, 'missing')), /cannot be read \(ENOENT\)/);
    const two = path.join(dir, 'two');
    writeFileSync(two, 'line-one\nline-two\n');
    assert.throws(
      () => readClientSecret(two),
      (e: unknown) => e instanceof UsageError && /one line/.test(e.message) && !e.message.includes('line-one'),
    );
  });

  it('gives the highest role of the groups that map, none for unmapped groups', () => {
    const map = new Map([
      ['radiology', 'member'],
      ['radiology-admins', 'admin'],
      ['it', 'owner'],
    ] as const);
    assert.equal(roleOfGroups(['staff', 'radiology'], map), 'member');
    assert.equal(roleOfGroups(['radiology', 'radiology-admins'], map), 'admin');
    assert.equal(roleOfGroups(['radiology-admins', 'it'], map), 'owner');
    assert.equal(roleOfGroups(['cardiology'], map), undefined);
    assert.equal(roleOfGroups([], map), undefined);
    assert.deepEqual(groupsOf('radiology'), ['radiology']);
    assert.deepEqual(groupsOf(['a', 1, 'b']), ['a', 'b']);
    assert.deepEqual(groupsOf(undefined), []);
  });

  it('keeps a begun sign-in in a cookie value that reads back, and ignores one that is not', () => {
    const p = { state: 's', nonce: 'n', verifier: 'v', at: 1, next: '/dashboard/usage' };
    assert.deepEqual(decodePending(encodePending(p)), p);
    assert.equal(decodePending('garbage'), undefined);
    assert.equal(decodePending(Buffer.from('{"state":1}').toString('base64url')), undefined);
    assert.equal(decodePending(undefined), undefined);
  });
});
