/**
 * The SQLite store kept safe: the online backup (`node dist/server.js backup FILE`) taken while the service
 * runs, restored into a fresh data dir as docs/server.md says (the file copied into place as
 * `<data-dir>/dictee.sqlite`, the service stopped), and read back; and a data dir of the version before
 * schema versions were kept (user_version 0), upgraded by logged migrations without loss.
 */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { redactKey } from '../../src/protocol';
import { generateKey } from '../../src/server/storage/keys';
import { generateMasterKey } from '../../src/server/storage/masterKey';
import { sha256Hex } from '../../src/server/storage/digest';
import { DICTATED, LiveDictation, clusterScript } from '../helpers/cluster';
import { SERVER_JS, withServer } from '../helpers/server';
import { startOnce } from '../helpers/startOnce';

const tmpDir = (): string => mkdtempSync(path.join(os.tmpdir(), 'dictee-backup-'));

/** Runs `node dist/server.js backup …` (asynchronously: the service under test goes on meanwhile). */
function backup(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('DICTEE_')));
    const child = spawn(process.execPath, [SERVER_JS, 'backup', ...args], { env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

async function keyIds(url: string, master: string): Promise<string[]> {
  const res = await fetch(`${url}/v1/api-keys`, { headers: { authorization: `Bearer ${master}` } });
  const body = (await res.json()) as { keys: Array<{ id: string }> };
  return body.keys.map((k) => k.id);
}

async function sessionInitStatus(url: string, key: string): Promise<number> {
  const res = await fetch(`${url}/api/v1/live/sessions`, { method: 'POST', headers: { 'x-svc-key': key } });
  await res.arrayBuffer();
  return res.status;
}

describe('SQLite backup, restore and migrations (built service)', function () {
  this.timeout(90_000);

  it('a backup taken while the service runs (mode 0600, never over a file unless --force), restored into a fresh data dir, reads the session and keys back', async () => {
    const dataDir = tmpDir();
    const out = tmpDir();
    const file = path.join(out, 'dictee-backup.sqlite');
    let sessionId = '';
    let keyId = '';
    let key = '';
    let master = '';
    await withServer({ dataDir, script: clusterScript() }, async (server) => {
      master = server.masterKey;
      ({ key, id: keyId } = await server.createKey());
      const done = await LiveDictation.start(server, key);
      done.send(0);
      assert.deepEqual(await done.stop(), DICTATED);
      sessionId = done.sessionId;
      // Another session dictating while the backup is taken.
      const live = await LiveDictation.start(server, key);
      live.send(0, 60);
      const taken = await backup([file, '--data-dir', dataDir]);
      assert.equal(taken.code, 0, taken.stderr);
      assert.match(
        taken.stdout,
        /^backup written: .*dictee-backup\.sqlite \(\d+ bytes, schema version 7, 1 API keys, 2 session records\)\n$/,
      );
      assert.equal(statSync(file).mode & 0o777, 0o600, 'the copy holds dictated text: private');
      const again = await backup([file, '--data-dir', dataDir]);
      assert.equal(again.code, 2);
      assert.match(again.stderr, /dictee-backup\.sqlite exists: choose another file, or add --force to replace it/);
      const forced = await backup([file, '--data-dir', dataDir, '--force']);
      assert.equal(forced.code, 0, forced.stderr);
      assert.equal(statSync(file).mode & 0o777, 0o600);
      live.send(60);
      assert.deepEqual(await live.stop(), DICTATED, 'the live session lost nothing to the backups');
    });
    const copy = new Database(file, { readonly: true });
    const events = copy
      .prepare<[string], { json: string }>('SELECT json FROM session_events WHERE session_id = ? ORDER BY seq')
      .all(sessionId);
    assert.ok(
      events
        .map((e) => e.json)
        .join(' ')
        .includes('w40'),
      'the finals of the stopped session are in the copy',
    );
    assert.equal(copy.pragma('user_version', { simple: true }), 7);
    copy.close();

    // Restore (docs/server.md): the service stopped, the file copied into place in a fresh data dir.
    const restored = tmpDir();
    copyFileSync(file, path.join(restored, 'dictee.sqlite'));
    chmodSync(path.join(restored, 'dictee.sqlite'), 0o600);
    await withServer({ dataDir: restored, env: { DICTEE_MASTER_KEY: master } }, async (server) => {
      const record = await server.session(sessionId);
      assert.equal(record.final_chunks, 4);
      assert.equal(record.key_id, keyId);
      assert.ok(record.ended_at);
      assert.deepEqual(await keyIds(server.url, master), [keyId]);
      assert.equal(await sessionInitStatus(server.url, key), 200, 'the key works on the restored store');
    });
    // The restored data dir keeps its master key: another one is refused.
    const other = await startOnce(['--data-dir', restored], { DICTEE_MASTER_KEY: generateMasterKey() });
    assert.equal(other.code, 2, other.stderr);
  });

  it('backup: with --database, says to use pg_dump (exit 2); no database in the data dir, exit 2', async () => {
    const pg = await backup([path.join(tmpDir(), 'x.sqlite'), '--database', 'postgres://dictee:secret@db.invalid/dictee']);
    assert.equal(pg.code, 2);
    assert.match(pg.stderr, /with --database \(PostgreSQL\) use pg_dump/);
    assert.ok(!pg.stderr.includes('secret'));
    const fromEnv = await backup([path.join(tmpDir(), 'x.sqlite')], { DICTEE_DATABASE_URL: 'postgres://dictee:secret@db.invalid/dictee' });
    assert.equal(fromEnv.code, 2);
    assert.match(fromEnv.stderr, /use pg_dump/);
    const empty = tmpDir();
    const none = await backup([path.join(tmpDir(), 'x.sqlite'), '--data-dir', empty]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /no database in the data dir .* \(no dictee\.sqlite\)/);
    const usage = await backup([]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /backup takes one FILE/);
  });

  it('a data dir of the schema before versions (user_version 0) upgrades by logged migrations, losing nothing', async () => {
    const dataDir = tmpDir();
    chmodSync(dataDir, 0o700);
    const db = new Database(path.join(dataDir, 'dictee.sqlite'));
    db.pragma('journal_mode = WAL');
    db.exec(readFileSync(path.join(__dirname, '..', 'fixtures', 'sqlite', 'schema-user-version-0.sql'), 'utf8'));
    const key = generateKey('svc_live_');
    const at = new Date().toISOString();
    db.prepare("INSERT INTO orgs VALUES ('org_old', 'default', ?)").run(at);
    db.prepare("INSERT INTO meta VALUES ('org_id', 'org_old')").run();
    db.prepare(
      `INSERT INTO api_keys VALUES ('key_old', ?, ?, 'old', 'personal', NULL, '["read","write"]', 'live', 'org_old', ?, NULL)`,
    ).run(sha256Hex(key), redactKey(key), at);
    db.prepare("INSERT INTO sessions VALUES ('ses_old', 'key_old', 'org_old', 'ws', ?, ?, ?, 12.5, 400, 3, 'client stop')").run(at, at, at);
    db.prepare(
      "INSERT INTO session_checkpoints VALUES ('ses_old', 'key_old', 'org_old', 4, 3, 128000, '{}', '{}', 400, 0, 3, ?, ?, ?)",
    ).run(at, at, at);
    for (let seq = 1; seq <= 3; seq++) db.prepare("INSERT INTO session_events VALUES ('ses_old', ?, ?)").run(seq, `{"seq":${seq}}`);
    assert.equal(db.pragma('user_version', { simple: true }), 0);
    db.close();
    // The master key as the version before kept it: its hash in a file of the data dir.
    const master = generateMasterKey();
    writeFileSync(path.join(dataDir, 'master-key.sha256'), `${sha256Hex(master)}\n`, { mode: 0o600 });

    const run = await startOnce(['--data-dir', dataDir], {}, async (port) => {
      const url = `http://127.0.0.1:${port}`;
      assert.deepEqual(await keyIds(url, master), ['key_old'], 'the master key of the older version, and its key');
      assert.equal(await sessionInitStatus(url, key), 200);
      const res = await fetch(`${url}/v1/sessions/ses_old`, { headers: { authorization: `Bearer ${master}` } });
      const { session } = (await res.json()) as { session: Record<string, unknown> };
      assert.equal(session.final_chunks, 3);
      assert.equal(session.end_reason, 'client stop');
    });
    assert.equal(run.listened, true, run.stderr);
    assert.doesNotMatch(run.stdout, /master key \(shown once\)/, 'no new master key');
    const lines = run.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const applied = lines.filter((l) => l.msg === 'SQLite migration applied');
    assert.deepEqual(
      applied.map((l) => [l.version, l.user_version]),
      [
        [1, 1],
        [2, 2],
        [3, 3],
        [4, 4],
        [5, 5],
        [6, 6],
        [7, 7],
      ],
    );
    assert.ok(lines.some((l) => l.msg === 'SQLite schema upgraded' && l.from_user_version === 0 && l.user_version === 7));
    const after = new Database(path.join(dataDir, 'dictee.sqlite'), { readonly: true });
    assert.equal(after.pragma('user_version', { simple: true }), 7);
    assert.equal((after.prepare("SELECT count(*) AS n FROM session_events WHERE session_id = 'ses_old'").get() as { n: number }).n, 3);
    assert.equal(
      (after.prepare("SELECT final_chunks FROM session_checkpoints WHERE session_id = 'ses_old'").get() as { final_chunks: number })
        .final_chunks,
      3,
    );
    after.close();

    // A second start applies nothing.
    const second = await startOnce(['--data-dir', dataDir], {});
    assert.equal(second.listened, true, second.stderr);
    assert.doesNotMatch(second.stderr, /SQLite migration applied/);
  });
});
