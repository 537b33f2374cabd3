/**
 * The PostgreSQL journal's close (src/server/storage/pg/journal.ts), against a real PostgreSQL: it waits for
 * the queued writes and returns in the turn the last one is durable, or the one the database is found lost:
 * woken by them, not by a poll.
 */
import assert from 'node:assert/strict';
import type pg from 'pg';
import { createLogger } from '../../src/server/log';
import { Availability } from '../../src/server/storage/backend';
import { openPool } from '../../src/server/storage/pg/connect';
import { Journal } from '../../src/server/storage/pg/journal';
import { prepareDatabase } from '../../src/server/storage/pg/migrations';
import { type TestPostgres, startPostgres } from '../helpers/backends';
import { checkpointAt, daysAgo } from '../helpers/store-retention';
import { waitFor } from '../helpers/wait';

/** Whether `p` has settled before the next turn of the event loop (before any timer could fire). */
async function settledThisTurn(p: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void p.then(() => (settled = true));
  await new Promise((r) => setImmediate(r));
  return settled;
}

describe('PostgreSQL journal: close waits for the queued writes (real PostgreSQL)', function () {
  this.timeout(60_000);
  let server: TestPostgres;
  let n = 0;
  const log = createLogger({ level: 'error', write: () => undefined });
  let pool: pg.Pool;
  let availability: Availability;
  let journal: Journal;
  let locker: pg.PoolClient | undefined;

  before(async () => {
    server = await startPostgres();
  });
  beforeEach(async () => {
    pool = await openPool(await server.createDatabase(`journal_${++n}`));
    await prepareDatabase(pool, `master_${'x1y2z3'.repeat(6)}`, () => undefined);
    availability = new Availability('PostgreSQL', async () => void (await pool.query('SELECT 1')), log);
    journal = new Journal(pool, availability, 'a', log, () => undefined);
  });
  afterEach(async () => {
    if (locker) {
      await locker.query('ROLLBACK').catch(() => undefined);
      locker.release();
      locker = undefined;
    }
    availability.close();
    await pool.end();
  });
  after(async () => {
    await server?.destroy();
  });

  /** The session's checkpoint row written, then locked by another transaction: the journal's next write waits on it. */
  async function blockWrites(id: string): Promise<void> {
    journal.enqueue(id, { kind: 'checkpoint', cp: checkpointAt(id, daysAgo(0)) });
    assert.equal(await journal.pending(id), 'durable');
    locker = await pool.connect();
    await locker.query('BEGIN');
    await locker.query('SELECT 1 FROM session_checkpoints WHERE session_id = $1 FOR UPDATE', [id]);
  }

  /** A final's write, queued; resolves once PostgreSQL holds it waiting on the lock, with the write's outcome to come. */
  async function queueBlockedWrite(id: string): Promise<{ outcome: Promise<string> }> {
    journal.enqueue(id, { kind: 'event', seq: 1, json: '{"seq":1}', cp: { ...checkpointAt(id, daysAgo(0), 1), next_seq: 2 } });
    const pending = journal.pending(id)!;
    await waitFor(
      async () =>
        (await pool.query("SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")).rowCount === 1,
      10_000,
      'the write waiting on the lock',
    );
    return { outcome: pending };
  }

  it('returns in the turn the last queued write is durable, having abandoned nothing', async () => {
    await blockWrites('s');
    const { outcome } = await queueBlockedWrite('s');
    const closing = journal.close(30_000);
    assert.equal(await settledThisTurn(closing), false, 'close waits while a write is queued');
    await locker!.query('COMMIT');
    assert.equal(await outcome, 'durable');
    assert.equal(await settledThisTurn(closing), true, 'close returns with the write, not at a later poll');
    assert.equal(await closing, 0);
  });

  it('returns in the turn the database is found lost (nothing more can be written), not at the end of its grace', async () => {
    await blockWrites('t');
    await queueBlockedWrite('t');
    const closing = journal.close(30_000);
    assert.equal(await settledThisTurn(closing), false, 'close waits while a write is queued');
    availability.lost(new Error('connection terminated (as another query of the store found it)'));
    assert.equal(await settledThisTurn(closing), true, 'close returns when the database is lost');
    await closing;
  });
});
