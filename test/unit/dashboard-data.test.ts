/**
 * The dashboard's reads on a real SQLite database migrated to the current schema: usage by day (the rollup)
 * and by hour (the records), grouped by key, project and person, in each person's view (a member their own
 * keys, a project admin their projects' too, an owner the organisation); the session listings and the
 * lookup by id in the same views; the audit log filtered by actor, action and key.
 */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { DashboardData, type ViewScope, viewScope, viewSees } from '../../src/server/storage/dashboardData';
import { migrateSqlite } from '../../src/server/storage/sqliteMigrations';
import { SqliteAuditRows } from '../../src/server/storage/sqliteAudit';

function seeded(): { db: Database.Database; data: DashboardData } {
  const db = new Database(':memory:');
  migrateSqlite(db);
  const key = db.prepare(
    `INSERT INTO api_keys (id, hash, hint, name, type, project_id, permissions, environment, org_id, created_at, person_id)
     VALUES (?, ?, ?, ?, ?, ?, '["read","write"]', 'live', ?, '2026-11-01T00:00:00Z', ?)`,
  );
  key.run('k_ann', 'h1', 'svc_…aaaa', 'Ann laptop', 'personal', null, 'org1', 'p_ann');
  key.run('k_bob', 'h2', 'svc_…bbbb', 'Bob laptop', 'personal', null, 'org1', 'p_bob');
  key.run('k_rad', 'h3', 'svc_…cccc', 'Radiology PACS', 'project', 'radiology', 'org1', null);
  key.run('k_other', 'h4', 'svc_…dddd', 'Elsewhere', 'personal', null, 'org2', 'p_zed');
  const session = db.prepare(
    `INSERT INTO sessions (id, key_id, org_id, origin, created_at, started_at, ended_at, duration, final_chunks, end_reason, audio_seconds)
     VALUES (?, ?, ?, 'ws', ?, ?, ?, 60, 3, ?, ?)`,
  );
  const s = (id: string, k: string, org: string, at: string, secs: number, reason: string | null = 'client stop', ended = true): void => {
    session.run(id, k, org, at, at, ended ? at : null, reason, ended ? secs : null);
  };
  s('s1', 'k_ann', 'org1', '2026-11-27T10:15:00.000Z', 120);
  s('s2', 'k_ann', 'org1', '2026-11-27T11:15:00.000Z', 60, 'key revoked');
  s('s3', 'k_bob', 'org1', '2026-11-26T09:00:00.000Z', 30);
  s('s4', 'k_rad', 'org1', '2026-11-27T10:45:00.000Z', 600, 'decoder failure');
  s('s5', 'k_other', 'org2', '2026-11-27T10:00:00.000Z', 999);
  s('s6', 'k_bob', 'org1', '2026-11-28T04:00:00.000Z', 0, null, false);
  return {
    db,
    data: new DashboardData({ all: async <T>(sql: string, p: unknown[]) => db.prepare(sql).all(...p) as T[], placeholder: () => '?' }),
  };
}

const owner: ViewScope = viewScope({ id: 'p_own', org_id: 'org1', role: 'owner' }, []);
const ann: ViewScope = viewScope({ id: 'p_ann', org_id: 'org1', role: 'member' }, [{ project_id: 'radiology', role: 'member' }]);
const annAdmin: ViewScope = viewScope({ id: 'p_ann', org_id: 'org1', role: 'member' }, [{ project_id: 'radiology', role: 'admin' }]);

describe('dashboard data (SQLite)', () => {
  it('a view: owners and admins see the organisation, others their keys and their admin projects', () => {
    assert.equal(viewScope({ id: 'x', org_id: 'o', role: 'admin' }, []).all, true);
    assert.deepEqual(annAdmin.projectIds, ['radiology']);
    assert.deepEqual(ann.projectIds, []);
    assert.equal(viewSees(ann, { org_id: 'org1', project_id: null, person_id: 'p_ann' }), true);
    assert.equal(viewSees(ann, { org_id: 'org1', project_id: null, person_id: 'p_bob' }), false);
    assert.equal(viewSees(ann, { org_id: 'org1', project_id: 'radiology', person_id: null }), false);
    assert.equal(viewSees(annAdmin, { org_id: 'org1', project_id: 'radiology', person_id: null }), true);
    assert.equal(viewSees(owner, { org_id: 'org2', project_id: null, person_id: null }), false);
  });

  it('usage by day from the rollup, by key, in each view', async () => {
    const { data } = seeded();
    const q = { bucket: 'day', from: '2026-11-20', to: '2026-11-28', groupBy: 'key' } as const;
    const all = await data.usage(owner, q);
    const sum = (ps: typeof all, key: string): number => ps.filter((p) => p.group === key).reduce((a, p) => a + p.audio_seconds, 0);
    assert.equal(sum(all, 'k_ann'), 180);
    assert.equal(sum(all, 'k_bob'), 30);
    assert.equal(sum(all, 'k_rad'), 600);
    assert.equal(sum(all, 'k_other'), 0, 'another organisation is never counted');
    assert.deepEqual(
      all
        .filter((p) => p.code !== '')
        .map((p) => [p.group, p.code, p.sessions])
        .sort(),
      [
        ['k_ann', 'AUTH_ERROR', 1],
        ['k_rad', 'INTERNAL_ERROR', 1],
      ],
    );
    const mine = await data.usage(ann, q);
    assert.deepEqual([...new Set(mine.map((p) => p.group))], ['k_ann']);
    const adm = await data.usage(annAdmin, q);
    assert.deepEqual([...new Set(adm.map((p) => p.group))].sort(), ['k_ann', 'k_rad']);
  });

  it('usage by hour from the records, grouped by project and by person', async () => {
    const { data } = seeded();
    const q = { bucket: 'hour', from: '2026-11-27T05:00:00.000Z', to: '2026-11-28T05:00:00.000Z' } as const;
    const byProject = await data.usage(owner, { ...q, groupBy: 'project' });
    assert.deepEqual(
      byProject.map((p) => [p.bucket, p.group, p.code, p.sessions, p.audio_seconds]).sort(),
      [
        ['2026-11-27T10', 'radiology', 'INTERNAL_ERROR', 1, 600],
        ['2026-11-27T10', null, '', 1, 120],
        ['2026-11-27T11', null, 'AUTH_ERROR', 1, 60],
      ].sort(),
    );
    const byPerson = await data.usage(owner, { ...q, groupBy: 'person' });
    assert.deepEqual([...new Set(byPerson.map((p) => p.group))].sort(), [null, 'p_ann'].sort());
  });

  it('sessions: live and ended in the view, one by id only when in the view', async () => {
    const { data } = seeded();
    assert.deepEqual(
      (await data.sessions(owner, { state: 'live', limit: 50 })).map((s) => s.session_id),
      ['s6'],
    );
    assert.deepEqual(
      (await data.sessions(ann, { state: 'live', limit: 50 })).map((s) => s.session_id),
      [],
    );
    const ended = await data.sessions(owner, { state: 'ended', since: '2026-11-20T00:00:00Z', limit: 50 });
    assert.deepEqual(
      ended.map((s) => s.session_id),
      ['s2', 's4', 's1', 's3'],
    );
    assert.equal(ended[0]!.key_name, 'Ann laptop');
    assert.equal(ended[0]!.audio_seconds, 60);
    assert.deepEqual(
      (await data.sessions(ann, { state: 'ended', limit: 50 })).map((s) => s.session_id),
      ['s2', 's1'],
    );
    assert.equal(await data.session(ann, 's3'), undefined, "another person's session is not found");
    assert.equal(await data.session(ann, 's5'), undefined);
    assert.equal((await data.session(annAdmin, 's4'))?.state, 'ended');
    assert.equal((await data.session(owner, 's6'))?.state, 'live');
  });

  it('keys in the view', async () => {
    const { data } = seeded();
    assert.deepEqual(
      (await data.keys(owner)).map((k) => k.id),
      ['k_ann', 'k_bob', 'k_rad'],
    );
    assert.deepEqual(
      (await data.keys(annAdmin)).map((k) => k.id),
      ['k_ann', 'k_rad'],
    );
  });

  it('the audit log filtered by actor, action and key, newest first, one organisation', async () => {
    const { db, data } = seeded();
    const rows = new SqliteAuditRows(db);
    const e = (i: number, actor: string, action: string, target: string) => ({
      at: `2026-11-2${i}T00:00:00.000Z`,
      actor,
      action,
      target,
      ip: '127.0.0.1',
      outcome: 'success',
    });
    await rows.append('org1', [
      e(1, 'p_own', 'key.created', 'k_ann'),
      e(2, 'k_ann', 'session.ended', 's1'),
      e(3, 'p_own', 'person.created', 'p_bob'),
    ]);
    await rows.append('org2', [e(4, 'master', 'key.created', 'k_other')]);
    const q = { orgId: 'org1', from: '2026-11-01T00:00:00Z', to: '2026-12-01T00:00:00Z', limit: 100 };
    assert.deepEqual(
      (await data.audit(q)).map((r) => r.seq),
      [3, 2, 1],
    );
    assert.deepEqual(
      (await data.audit({ ...q, actor: 'p_own' })).map((r) => r.seq),
      [3, 1],
    );
    assert.deepEqual(
      (await data.audit({ ...q, action: 'person.created' })).map((r) => r.target),
      ['p_bob'],
    );
    assert.deepEqual(
      (await data.audit({ ...q, keyId: 'k_ann' })).map((r) => r.seq),
      [2, 1],
    );
    assert.deepEqual(
      (await data.audit({ ...q, from: '2026-11-22T00:00:00.000Z', to: '2026-11-23T00:00:00.000Z' })).map((r) => r.seq),
      [2],
    );
  });
});
