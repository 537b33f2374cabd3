import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteStore } from '../../src/server/storage/db';
import { createLogger } from '../../src/server/log';
import type { SegmenterCheckpoint } from '../../src/server/engine/segmenter';
import { SessionJournal } from '../../src/server/storage/sessionJournal';
import { MAX_GROUP_WAIT_MS } from '../../src/server/storage/sqliteJournal';
import type { CheckpointRow } from '../../src/server/storage/stores';
import { waitFor } from '../helpers/wait';

const tmp = (): string => mkdtempSync(path.join(os.tmpdir(), 'dictee-journal-'));

/**
 * A store whose journal groups every write of a turn whatever the time it takes: these tests ask for
 * `pendingWrites` after several writes, and a slow machine must not split their group.
 */
function groupingStore(dir = tmp()): SqliteStore {
  const store = new SqliteStore(dir);
  store.journal.groupTiming.now = () => 0;
  return store;
}

const cp = (sid: string, nextSeq: number, extra: Partial<CheckpointRow> = {}): CheckpointRow => ({
  session_id: sid,
  key_id: 'k',
  org_id: 'o',
  next_seq: nextSeq,
  next_index: nextSeq,
  audio_offset: nextSeq * 640,
  engine: '{}',
  config: '{}',
  total_frames: nextSeq,
  discarded_frames: 0,
  final_chunks: nextSeq,
  created_at: 'c',
  stopped_at: null,
  updated_at: `u${nextSeq}`,
  ...extra,
});

const final = (seq: number): string => JSON.stringify({ type: 'transcript', status: 'final', seq });

describe('server storage: the SQLite journal, by group commit', () => {
  it('the finals of many sessions in one turn of the event loop are one transaction; each session is told when they are durable', async () => {
    const store = groupingStore();
    const before = store.journal.stats.transactions;
    for (let i = 0; i < 50; i++) store.persistEvent(`s${i}`, 1, final(1), cp(`s${i}`, 2));
    const waits = Array.from({ length: 50 }, (_, i) => store.pendingWrites(`s${i}`));
    assert.ok(
      waits.every((w) => w !== undefined),
      'every session has a write to wait for',
    );
    assert.equal(store.pendingWrites('other'), undefined, 'a session with nothing queued waits for nothing');
    assert.deepEqual(await Promise.all(waits), Array(50).fill('durable'));
    assert.equal(store.journal.stats.transactions - before, 1, 'one transaction for the 50 finals');
    assert.equal(store.pendingWrites('s0'), undefined, 'nothing left to wait for once written');
    assert.deepEqual(await store.eventsAfter('s7', 0), [{ seq: 1, json: final(1) }]);
    await store.close();
  });

  it('a group that has waited MAX_GROUP_WAIT_MS is written when the next write comes, without waiting for the end of the turn', async () => {
    const store = new SqliteStore(tmp());
    let now = 1000;
    store.journal.groupTiming.now = () => now;
    const before = store.journal.stats.transactions;
    store.persistEvent('a', 1, final(1), cp('a', 2));
    const a = store.pendingWrites('a');
    now += MAX_GROUP_WAIT_MS - 1;
    store.persistEvent('b', 1, final(1), cp('b', 2));
    const b = store.pendingWrites('b');
    assert.equal(store.journal.stats.transactions, before, 'within the bound: still one group, still queued');
    now += 1;
    store.persistEvent('c', 1, final(1), cp('c', 2));
    const c = store.pendingWrites('c');
    assert.equal(store.journal.stats.transactions, before + 1, 'the group of a and b was written at once, in this turn');
    assert.equal(store.pendingWrites('a'), undefined);
    assert.notEqual(c, undefined, 'the late write waits in the next group, and its writer can wait for it');
    assert.deepEqual(await Promise.all([a, b, c]), ['durable', 'durable', 'durable']);
    assert.equal(store.journal.stats.transactions, before + 2);
    assert.deepEqual(await store.eventsAfter('c', 0), [{ seq: 1, json: final(1) }]);
    await store.close();
  });

  it('the store reads what was queued before them (a read flushes first)', async () => {
    const store = new SqliteStore(tmp());
    store.persistEvent('s', 1, final(1), cp('s', 2));
    store.persistEvent('s', 2, final(2), cp('s', 3));
    // Same turn, no await in between: the writes are still queued.
    const row = await store.getCheckpoint('s');
    assert.equal(row?.next_seq, 3);
    assert.equal(await store.maxSeq('s'), 2);
    await store.close();
  });

  it('the rows end as with one write per op: a stop mark between checkpoints keeps its place', async () => {
    const store = new SqliteStore(tmp());
    store.persistEvent('a', 1, final(1), cp('a', 2));
    store.markStopped('a', 5, 'stopped-at');
    store.persistEvent('b', 1, final(1), cp('b', 2));
    store.saveCheckpoint(cp('b', 3));
    await store.pendingWrites('a');
    const a = await store.getCheckpoint('a');
    assert.equal(a?.stopped_at, 'stopped-at', 'the stop mark was written after the checkpoint before it');
    assert.equal(a?.next_seq, 5);
    assert.equal((await store.getCheckpoint('b'))?.next_seq, 3, 'the last checkpoint queued wins');
    // A checkpoint queued after a stop mark replaces the row, as it would written on its own.
    store.markStopped('b', 4, 'b-stopped');
    store.saveCheckpoint(cp('b', 6));
    assert.equal((await store.getCheckpoint('b'))?.stopped_at, null);
    await store.close();
  });

  it('a write that fails fails only its own session: the others are durable, the cause is kept for the log', async () => {
    const store = groupingStore();
    // What a full disk or a broken row does to one session's write, made to happen to session "bad" only.
    store.db.exec(`CREATE TRIGGER refuse_bad BEFORE INSERT ON session_events WHEN NEW.session_id = 'bad'
      BEGIN SELECT RAISE(ABORT, 'refused for the test'); END;`);
    store.persistEvent('good1', 1, final(1), cp('good1', 2));
    store.persistEvent('bad', 1, final(1), cp('bad', 2));
    store.persistEvent('good2', 1, final(1), cp('good2', 2));
    const [g1, b, g2] = await Promise.all([store.pendingWrites('good1'), store.pendingWrites('bad'), store.pendingWrites('good2')]);
    assert.deepEqual([g1, b, g2], ['durable', 'failed', 'durable']);
    assert.match(String(store.lastWriteError()), /refused for the test/);
    assert.equal(await store.maxSeq('good1'), 1);
    assert.equal(await store.maxSeq('good2'), 1);
    assert.equal(await store.maxSeq('bad'), 0, 'nothing of the failed session was half written');
    assert.equal(await store.getCheckpoint('bad'), undefined);
    await store.close();
  });

  it('close writes what is still queued', async () => {
    const dir = tmp();
    const store = new SqliteStore(dir);
    store.persistEvent('s', 1, final(1), cp('s', 2));
    await store.close();
    const again = new SqliteStore(dir);
    assert.equal(await again.maxSeq('s'), 1);
    await again.close();
  });
});

describe('server storage: a live session learns when its queued writes failed', () => {
  it('a checkpoint that fails in the group commit is logged, with its cause', async () => {
    const store = new SqliteStore(tmp());
    store.db.exec(`CREATE TRIGGER refuse_cp BEFORE INSERT ON session_checkpoints WHEN NEW.session_id = 's'
      BEGIN SELECT RAISE(ABORT, 'refused for the test'); END;`);
    const lines: string[] = [];
    const journal = new SessionJournal({
      id: 's',
      keyId: 'k',
      orgId: 'o',
      configJson: '{}',
      createdIso: 'c',
      store,
      log: createLogger({ level: 'info', write: (l) => lines.push(l) }),
      persistedSeq: 0,
      counters: () => ({ nextSeq: 1, totalFrames: 0, discardedFrames: 0, finalChunks: 0 }),
    });
    journal.saveCheckpoint({
      audioOffset: 0,
      engine: {},
      vad: { noiseFloorDb: -70 },
      silenceMs: 0,
      sentenceEnded: false,
      nextIndex: 0,
      sentence: [],
    } as unknown as SegmenterCheckpoint);
    assert.equal(await store.pendingWrites('s'), 'failed');
    await waitFor(() => lines.some((l) => l.includes('could not save the session checkpoint')), 2000, 'the failure in the log');
    assert.match(lines.join('\n'), /refused for the test/);
    await store.close();
  });
});
