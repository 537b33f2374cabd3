import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { DB_FILE, SqliteStore, dataDirWarning } from '../../src/server/storage/db';
import { masterKeyWeakness } from '../../src/server/storage/keys';
import { checkRetention } from '../helpers/store-retention';

const tmp = (): string => mkdtempSync(path.join(os.tmpdir(), 'dictee-store-'));

describe('server storage: retention, migrations, data dir', () => {
  it('pruneBefore deletes old records and their events, keeps recent and still-live sessions', async () => {
    const store = new SqliteStore(tmp());
    await checkRetention(store);
    await store.close();
  });

  it('opens a data dir of an older version: adds the columns it lacks, keeps the data', async () => {
    const dir = tmp();
    const db = new Database(path.join(dir, DB_FILE));
    db.exec(`CREATE TABLE session_checkpoints (
      session_id TEXT PRIMARY KEY, key_id TEXT NOT NULL, org_id TEXT NOT NULL, next_seq INTEGER NOT NULL,
      next_index INTEGER NOT NULL, audio_offset INTEGER NOT NULL, engine TEXT NOT NULL, config TEXT NOT NULL,
      total_frames INTEGER NOT NULL DEFAULT 0, discarded_frames INTEGER NOT NULL DEFAULT 0,
      created_at TEXT NOT NULL, stopped_at TEXT, updated_at TEXT NOT NULL);
      INSERT INTO session_checkpoints VALUES ('s', 'k', 'o', 4, 2, 640, '{}', '{}', 7, 1, 'c', NULL, 'u');`);
    db.close();
    const store = new SqliteStore(dir);
    assert.equal((await store.getCheckpoint('s'))?.final_chunks, 0);
    assert.equal((await store.getCheckpoint('s'))?.total_frames, 7);
    await store.close();
  });

  it('the WAL is checkpointed by a thread of its own, never inside a commit; closing leaves no -wal', async () => {
    const dir = tmp();
    // Its timer far away: the one checkpoint of the test is the one asked for.
    const store = new SqliteStore(dir, { checkpointEveryMs: 600_000 });
    const text = 'x'.repeat(2000);
    const cp = (i: number): Parameters<SqliteStore['saveCheckpoint']>[0] => ({
      session_id: `s${i % 50}`,
      key_id: 'k',
      org_id: 'o',
      next_seq: i + 1,
      next_index: i,
      audio_offset: 0,
      engine: text,
      config: '{}',
      total_frames: 0,
      discarded_frames: 0,
      final_chunks: 0,
      created_at: 'c',
      stopped_at: null,
      updated_at: 'u',
    });
    // Far more than SQLite's automatic checkpoint (1000 pages): a commit on the event loop would have
    // copied the log back (and waited for the disk) and restarted it.
    for (let i = 0; i < 1500; i++) {
      store.persistEvent(`s${i % 50}`, i, JSON.stringify({ text }), cp(i));
      store.journal.flush(); // a commit each
    }
    const r = await store.checkpointer.checkpointNow();
    assert.ok(r, 'the checkpoint thread answered');
    assert.ok(r.log > 1000, `every commit stayed in the log for the thread (${r.log} frames)`);
    assert.equal(r.checkpointed, r.log, 'the thread copied the whole log back');
    // The data is there for a reader that opens the database anew.
    const reader = new Database(path.join(dir, DB_FILE), { readonly: true });
    assert.equal((reader.prepare('SELECT count(*) AS n FROM session_events').get() as { n: number }).n, 1500);
    reader.close();
    await store.close();
    assert.equal(existsSync(path.join(dir, `${DB_FILE}-wal`)), false);
  });

  it('dataDirWarning: only for a dir others can read or enter', () => {
    const dir = tmp();
    assert.equal(dataDirWarning(dir), undefined);
    chmodSync(dir, 0o750);
    assert.match(dataDirWarning(dir) ?? '', /readable by other users \(mode 0750\)/);
  });

  it('masterKeyWeakness: length, repetition and runs; never quotes the key', () => {
    for (const weak of [
      'k3y!',
      'a'.repeat(40),
      'passwordpasswordpasswordpassword',
      'abcdefghijklmnopqrstuvwxyz0123456789',
      'zyxwvutsrqponmlkjihgfedcbazyxwvut',
    ]) {
      const why = masterKeyWeakness(weak);
      assert.ok(why, weak);
      assert.ok(!why.includes(weak), 'the key is not in the message');
    }
    for (const ok of [
      'c3ab8ff13720e8ad9047dd39466b3c8974e592c2fa383d4a3960714caef0c4f2',
      'Zq3+9vKx/Lm2Pw8RtYe5Ud1Hn7Gb4Jc6Af0Ss=',
      'correct horse battery staple, then a tangerine',
    ]) {
      assert.equal(masterKeyWeakness(ok), undefined, ok);
    }
  });
});
