/**
 * The PostgreSQL connection pool (node-postgres), opened and checked at start; which errors mean the
 * database is unreachable (the service then refuses new sessions and reconnects with backoff) rather
 * than a failed statement.
 */
import pg from 'pg';
import { errorMessage } from '../../../shared/errors';
import { BackendStartError, checkUrl, maskPassword, redactedUrl } from '../backend';

const DATABASE_URL_EXAMPLE = 'postgres://user:password@host:5432/database';

/** int8 (BIGINT: epochs, byte offsets, frame counts) as a JavaScript number: they stay far below 2^53. */
const INT8_OID = 20;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary'
      ? (v: string) => Number(v)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** Opens a pool on `url` and checks that the server answers; throws a BackendStartError naming what failed (never the password). */
export async function openPool(url: string): Promise<pg.Pool> {
  checkUrl('--database', url, ['postgres:', 'postgresql:'], DATABASE_URL_EXAMPLE);
  let pool: pg.Pool;
  try {
    pool = new pg.Pool({
      connectionString: url,
      max: 10,
      connectionTimeoutMillis: 5000,
      idleTimeoutMillis: 30_000,
      // A server that stops answering (a network partition without a reset) fails the query instead of hanging it.
      query_timeout: 10_000,
      keepAlive: true,
      application_name: 'dictee',
      types,
    });
  } catch (e) {
    throw new BackendStartError(`--database ${redactedUrl(url)}: ${safeMessage(e, url)}`);
  }
  // An idle client whose connection breaks emits here; without a listener that would end the process.
  pool.on('error', () => undefined);
  try {
    await pool.query('SELECT 1');
  } catch (e) {
    await pool.end().catch(() => undefined);
    throw new BackendStartError(`cannot connect to PostgreSQL at ${redactedUrl(url)}: ${safeMessage(e, url)}`);
  }
  return pool;
}

function safeMessage(e: unknown, url: string): string {
  return maskPassword(errorMessage(e), url);
}

/** SQLSTATE classes and codes that mean the connection, not the statement, failed. */
const CONNECTION_SQLSTATES = /^(08|57P0[123]|53300)/;

/**
 * Whether the error means the database could not be reached (the query may be tried again once it
 * answers): a socket error, a timeout, a closed connection, or a server shutting down. A server-side
 * error about the statement itself (with another SQLSTATE) is not.
 */
export function isConnectionError(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return CONNECTION_SQLSTATES.test(code);
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return true; // ECONNREFUSED, ECONNRESET, EPIPE, ETIMEDOUT…
  const m = errorMessage(e);
  return /Connection terminated|connection timeout|timeout exceeded|Query read timeout|not queryable|Connection ended|ended by the other party/i.test(
    m,
  );
}

/** A statement worth running again at once: a serialization failure or a deadlock. */
export function isRetryableError(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === '40001' || code === '40P01';
}
