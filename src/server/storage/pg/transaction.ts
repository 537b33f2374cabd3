/**
 * A transaction on PostgreSQL for what must read and write as one (a person's removal, checked against the
 * organisation's owners under the organisation's row lock): BEGIN, the work on one client, COMMIT; ROLLBACK
 * when the work throws or returns `rollback: true`.
 */
import type pg from 'pg';

/** Runs `work` in one transaction; rolled back (its result still returned) when it says so, or when it throws. */
export type Transact = <T>(work: (c: pg.PoolClient) => Promise<{ value: T; rollback?: boolean }>) => Promise<T>;

/** `Transact` on a pool; `connect` defaults to the pool's (the service's store passes one that checks availability). */
export function poolTransaction(pool: pg.Pool, connect: () => Promise<pg.PoolClient> = () => pool.connect()): Transact {
  return async <T>(work: (c: pg.PoolClient) => Promise<{ value: T; rollback?: boolean }>): Promise<T> => {
    const c = await connect();
    try {
      await c.query('BEGIN');
      const out = await work(c);
      await c.query(out.rollback ? 'ROLLBACK' : 'COMMIT');
      return out.value;
    } catch (e) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      c.release();
    }
  };
}
