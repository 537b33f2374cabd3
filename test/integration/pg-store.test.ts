/**
 * The PostgreSQL store (src/server/pg/) against a real PostgreSQL started by the test harness: what the
 * SQLite store's unit tests check (retention, records, the checkpoint's counters), so that both stores mean
 * the same; and the journal's ownership: a claim fences the instance that had the session.
 */
import assert from 'node:assert/strict';
import type pg from 'pg';
import { createLogger } from '../../src/server/log';
import { openPool } from '../../src/server/pg/connect';
import { prepareDatabase } from '../../src/server/pg/migrations';
import { PgStore } from '../../src/server/pg/store';
import type { CheckpointRow } from '../../src/server/stores';
import { type TestPostgres, startPostgres } from '../helpers/backends';
import { waitFor } from '../helpers/wait';

const daysAgo = (d: number): string => new Date(Date.now() - d * 86_400_000).toISOString();
const cp = (id: string, updated: string, finals = 0): CheckpointRow => ({
  session_id: id, key_id: 'k', org_id: 'o', next_seq: 1, next_index: 0, audio_offset: 0, engine: '{}', config: '{}',
  total_frames: 0, discarded_frames: 0, final_chunks: finals, created_at: updated, stopped_at: null, updated_at: updated,
});

describe('PostgreSQL store (real PostgreSQL)', function () {
  this.timeout(60_000);
  let server: TestPostgres;
  let n = 0;
  const open: Array<{ store: PgStore; pool: pg.Pool }> = [];
  const log = createLogger({ level: 'error' });

  before(async () => {
    server = await startPostgres();
  });
  afterEach(async () => {
    for (const o of open.splice(0)) await o.store.close();
  });
  after(async () => {
    await server?.destroy();
  });

  async function storeOn(url: string, instanceId: string): Promise<PgStore> {
    const pool = await openPool(url);
    const prepared = await prepareDatabase(pool, `master_${'x1y2z3'.repeat(6)}`, () => undefined);
    const store = new PgStore({ pool, orgId: prepared.orgId, instanceId, log });
    open.push({ store, pool });
    return store;
  }

  /** The session's queued writes are done and durable (nothing pending is as good). */
  async function written(store: PgStore, id: string): Promise<void> {
    assert.equal((await store.pendingWrites(id)) ?? 'durable', 'durable');
  }

  it('pruneBefore deletes old records and their events, keeps recent and still-live sessions (as SQLite does)', async () => {
    const store = await storeOn(await server.createDatabase(`store_${++n}`), 'a');
    await store.recordSession('old', 'k', 'o', 'ws', daysAgo(40));
    await store.sessionEnded('old', { at: daysAgo(39), duration: 1, totalFrames: 1, finals: 1, reason: 'client stop' });
    store.persistEvent('old', 1, '{"text":"old words"}', cp('old', daysAgo(39)));
    await store.recordSession('recent', 'k', 'o', 'ws', daysAgo(2));
    store.persistEvent('recent', 1, '{"text":"recent words"}', cp('recent', daysAgo(2)));
    await store.recordSession('long-live', 'k', 'o', 'ws', daysAgo(40));
    store.persistEvent('long-live', 1, '{"text":"still dictating"}', cp('long-live', daysAgo(0), 3));
    await store.recordSession('unused-init', 'k', 'o', 'http', daysAgo(31));
    for (const id of ['old', 'recent', 'long-live']) await written(store, id);
    const r = await store.pruneBefore(daysAgo(30));
    assert.deepEqual(r, { sessions: 2, events: 1 });
    assert.equal(await store.getSession('old'), undefined);
    assert.equal(await store.getSession('unused-init'), undefined);
    assert.ok(await store.getSession('recent'));
    assert.ok(await store.getSession('long-live'), 'a session still live keeps its record');
    assert.equal((await store.eventsAfter('old', 0)).length, 0);
    assert.equal((await store.eventsAfter('recent', 0)).length, 1);
    assert.equal((await store.eventsAfter('long-live', 0)).length, 1);
    assert.equal((await store.getCheckpoint('long-live'))?.final_chunks, 3, 'the checkpoint keeps its counters');
    assert.equal((await store.getSession('recent'))?.project_id, null, 'a session of an unknown key has no project');
  });

  it('a claim by another instance fences the one that had the session: its next write is refused and it is told', async () => {
    const url = await server.createDatabase(`store_${++n}`);
    const a = await storeOn(url, 'a');
    const b = await storeOn(url, 'b');
    const lost: string[] = [];
    a.onTakenOver((id) => lost.push(id));
    a.saveCheckpoint(cp('s', daysAgo(0)));
    a.persistEvent('s', 1, '{"seq":1}', { ...cp('s', daysAgo(0), 1), next_seq: 2 });
    await written(a, 's');
    const claimed = await b.claim('s');
    assert.equal(claimed?.next_seq, 2, 'the claim reads the checkpoint as written');
    assert.equal(await a.stillOwned('s'), false);
    assert.equal(await b.stillOwned('s'), true);
    a.persistEvent('s', 2, '{"seq":2,"from":"a"}', { ...cp('s', daysAgo(0), 2), next_seq: 3 });
    assert.equal(await a.pendingWrites('s'), 'abandoned');
    await waitFor(() => lost.includes('s'), 5000, 'A told of the take-over');
    b.persistEvent('s', 2, '{"seq":2,"from":"b"}', { ...cp('s', daysAgo(0), 2), next_seq: 3 });
    await written(b, 's');
    assert.deepEqual((await b.eventsAfter('s', 0)).map((e) => e.json), ['{"seq":1}', '{"seq":2,"from":"b"}'], 'only the owner wrote');
    assert.equal(await b.maxSeq('s'), 2);
  });
});
