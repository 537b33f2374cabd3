/**
 * The PostgreSQL store (src/server/storage/pg/) against a real PostgreSQL started by the test harness: what the
 * SQLite store's unit tests check (retention, records, the checkpoint's counters), so that both stores mean
 * the same; and the journal's ownership: a claim fences the instance that had the session.
 */
import assert from 'node:assert/strict';
import type pg from 'pg';
import { createLogger } from '../../src/server/log';
import { openPool } from '../../src/server/storage/pg/connect';
import { prepareDatabase } from '../../src/server/storage/pg/migrations';
import { PgStore } from '../../src/server/storage/pg/store';
import { type TestPostgres, startPostgres } from '../helpers/backends';
import { checkRetention, checkpointAt, daysAgo } from '../helpers/store-retention';
import { waitFor } from '../helpers/wait';

const cp = checkpointAt;

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
    await checkRetention(store, (id) => written(store, id));
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
    assert.deepEqual(
      (await b.eventsAfter('s', 0)).map((e) => e.json),
      ['{"seq":1}', '{"seq":2,"from":"b"}'],
      'only the owner wrote',
    );
    assert.equal(await b.maxSeq('s'), 2);
  });
});
