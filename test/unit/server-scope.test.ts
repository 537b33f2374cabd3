/** What a key reaches and may do (http/scope.ts), and the RFC 3339 instants a key's expiry takes (protocol). */
import assert from 'node:assert/strict';
import { parseRfc3339 } from '../../src/protocol';
import { MASTER, can, inScope, managesKey, scopeOf } from '../../src/server/http/scope';
import type { ApiKey } from '../../src/server/storage/stores';

function key(o: Partial<ApiKey>): ApiKey {
  return {
    id: 'key_1',
    name: 'k',
    type: 'personal',
    projectId: null,
    permissions: ['read', 'write'],
    environment: 'live',
    orgId: 'org_a',
    createdAt: '2026-01-01T00:00:00.000Z',
    revokedAt: null,
    hint: 'svc_live_…abcd',
    personId: null,
    personRole: null,
    expiresAt: null,
    rolledFrom: null,
    ...o,
  };
}

describe('key scope and permissions', () => {
  it('scopeOf: a project key its project; a person key its person, unless an owner/admin admin key; a test key test sessions only', () => {
    assert.deepEqual(scopeOf(key({ type: 'project', projectId: 'ct' })), { orgId: 'org_a', projectId: 'ct' });
    assert.deepEqual(scopeOf(key({ personId: 'p1', personRole: 'member', permissions: ['admin'] })), { orgId: 'org_a', personId: 'p1' });
    assert.deepEqual(
      scopeOf(key({ personId: 'p1', personRole: 'owner' })),
      { orgId: 'org_a', personId: 'p1' },
      'an owner key without admin',
    );
    assert.deepEqual(scopeOf(key({ personId: 'p1', personRole: 'admin', permissions: ['admin'] })), { orgId: 'org_a' });
    assert.deepEqual(scopeOf(key({})), { orgId: 'org_a' }, "the organisation's own key");
    assert.deepEqual(scopeOf(key({ environment: 'test' })), { orgId: 'org_a', testOnly: true });
  });

  it('can: write dictates; read or admin reads; admin manages keys (never a test key); owners own the organisation', () => {
    assert.ok(can(key({ permissions: ['write'] }), 'dictate'));
    assert.ok(!can(key({ permissions: ['read'] }), 'dictate'));
    assert.ok(can(key({ permissions: ['read'] }), 'read'));
    assert.ok(can(key({ permissions: ['admin'] }), 'read'));
    assert.ok(!can(key({ permissions: ['write'] }), 'read'));
    assert.ok(can(key({ permissions: ['admin'] }), 'manage_keys'));
    assert.ok(!can(key({ permissions: ['admin'], environment: 'test' }), 'manage_keys'));
    assert.ok(!can(key({ permissions: ['read', 'write'] }), 'manage_keys'));
    assert.ok(can(key({ permissions: ['admin'], personId: 'p', personRole: 'admin' }), 'manage_org'));
    assert.ok(!can(key({ permissions: ['admin'], personId: 'p', personRole: 'admin' }), 'own_org'));
    assert.ok(can(key({ permissions: ['admin'], personId: 'p', personRole: 'owner' }), 'own_org'));
    assert.ok(!can(key({ type: 'project', projectId: 'ct', permissions: ['admin'] }), 'manage_org'));
    assert.ok(can(MASTER, 'own_org'));
  });

  it('inScope and managesKey: nothing of another organisation, project or person', () => {
    const project = scopeOf(key({ type: 'project', projectId: 'ct' }));
    assert.ok(inScope(project, { org_id: 'org_a', project_id: 'ct', environment: 'live' }));
    assert.ok(!inScope(project, { org_id: 'org_a', project_id: 'mri' }));
    assert.ok(!inScope(project, { org_id: 'org_b', project_id: 'ct' }));
    assert.ok(!inScope(scopeOf(key({ environment: 'test' })), { org_id: 'org_a', environment: 'live' }));
    const projectAdmin = key({ type: 'project', projectId: 'ct', permissions: ['admin'] });
    assert.ok(managesKey(projectAdmin, { orgId: 'org_a', projectId: 'ct', personId: null }));
    assert.ok(!managesKey(projectAdmin, { orgId: 'org_a', projectId: 'mri', personId: null }));
    assert.ok(!managesKey(projectAdmin, { orgId: 'org_a', projectId: null, personId: null }));
    const member = key({ personId: 'p1', personRole: 'member', permissions: ['admin'] });
    assert.ok(managesKey(member, { orgId: 'org_a', projectId: null, personId: 'p1' }));
    assert.ok(!managesKey(member, { orgId: 'org_a', projectId: null, personId: 'p2' }));
    assert.ok(managesKey(member, { orgId: 'org_a', projectId: 'ct', personId: null }, new Set(['ct'])), 'a project admin');
    assert.ok(!managesKey(key({ permissions: ['admin'] }), { orgId: 'org_b', projectId: null, personId: null }));
  });

  it('parseRfc3339: date-times with an offset; not dates alone, impossible days or hours', () => {
    assert.equal(parseRfc3339('2027-01-31T18:00:00Z'), Date.UTC(2027, 0, 31, 18));
    assert.equal(parseRfc3339('2027-01-31T19:00:00+01:00'), Date.UTC(2027, 0, 31, 18));
    assert.equal(parseRfc3339('2027-01-31t18:00:00.250z'), Date.UTC(2027, 0, 31, 18, 0, 0, 250));
    for (const bad of [
      '2027-01-31',
      '2027-02-29T00:00:00Z',
      '2027-01-31T24:00:00Z',
      '2027-01-31T18:00:00',
      'tomorrow',
      '2027-01-31T18:00:00+25:00',
    ]) {
      assert.equal(parseRfc3339(bad), undefined, bad);
    }
    assert.equal(parseRfc3339('2028-02-29T00:00:00Z'), Date.UTC(2028, 1, 29), 'a leap day');
  });
});
