/**
 * A pool for a test's own queries against the harness's PostgreSQL (backends.ts).
 *
 * `pool.end()` resolves once its clients are told to end, before their connections have closed
 * (pg-pool's `_remove` does not wait for `client.end`). When the harness stops PostgreSQL right after
 * (`destroy`), the server sends those connections "terminating connection due to administrator command"
 * (57P01); the pool's listener on each idle client hands that to the pool's own `error` event, and a pool
 * with no listener there throws it: an uncaught exception that failed the `after` hook and the next file's
 * first hook. This pool listens (as the service's own pool does, storage/pg/connect.ts), and so does each
 * client once it is checked out; an error during a query still rejects that query.
 */
import pg from 'pg';

export function testPool(connectionString: string, max = 2): pg.Pool {
  const pool = new pg.Pool({ connectionString, max });
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}
