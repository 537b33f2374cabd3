/**
 * The Redis connection (ioredis): opened and checked at start, reconnected with backoff (ioredis's
 * `retryStrategy`) when lost. Commands fail at once while it is down (no offline queue), so a request
 * is refused with INTERNAL_ERROR and `retry_after_ms` instead of waiting; losing and regaining the
 * connection is logged once each.
 */
import { Redis } from 'ioredis';
import { errorMessage } from '../../../shared/errors';
import { BackendStartError, backoffMs, checkUrl, maskPassword, redactedUrl } from '../backend';
import type { ServerLogger } from '../../log';
import { BackendUnavailableError } from '../stores';

const REDIS_URL_EXAMPLE = 'redis://[:password@]host:6379[/db] or rediss://… (TLS)';

export interface RedisLink {
  readonly redis: Redis;
  /** Whether the connection is up (commands can run). */
  readonly up: boolean;
  /** How long a refused request should wait. */
  retryAfterMs(): number;
  /** A command's failure as the error a request reports: BackendUnavailableError while the connection is down. */
  failure(e: unknown): unknown;
  /** Closes the connection at shutdown: its loss is then not reported as one. */
  close(): void;
}

/** A connection to `url` (a duplicate of it for pub/sub) that logs its losses and recoveries under `role`. */
export function connectRedis(url: string, log: ServerLogger, role: string): Redis {
  return new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 5000,
    // No wait for a "ready" INFO poll beyond the connection itself.
    enableReadyCheck: true,
    retryStrategy: (times: number) => backoffMs(times - 1),
    connectionName: `dictee-${role}`,
  }).on('error', (e: Error) => log.debug('Redis connection error', { role, error: errorMessage(e) }));
}

/** Opens the connection and checks that the server answers; throws a BackendStartError naming what failed (never the password). */
export async function openRedis(url: string, log: ServerLogger): Promise<RedisLink> {
  checkUrl('--redis', url, ['redis:', 'rediss:'], REDIS_URL_EXAMPLE);
  const redis = connectRedis(url, log, 'limits');
  let cause: unknown;
  const onError = (e: unknown): void => {
    cause = e;
  };
  redis.on('error', onError);
  try {
    await redis.connect();
    await redis.ping();
  } catch (e) {
    redis.disconnect();
    // The connection's own error (ECONNREFUSED, WRONGPASS…) says more than "Connection is closed".
    throw new BackendStartError(`cannot connect to Redis at ${redactedUrl(url)}: ${maskPassword(errorMessage(cause ?? e), url)}`);
  } finally {
    redis.off('error', onError);
  }
  let up = true;
  let closing = false;
  let downSince = 0;
  redis.on('close', () => {
    if (!up || closing) return;
    up = false;
    downSince = Date.now();
    log.error(
      'Redis connection lost: new sessions are refused (INTERNAL_ERROR with retry_after_ms) until it is back; reconnecting with backoff',
    );
  });
  redis.on('ready', () => {
    if (up) return;
    up = true;
    log.info('Redis connection restored', { down_ms: Date.now() - downSince });
  });
  return {
    redis,
    get up() {
      return up && redis.status === 'ready';
    },
    retryAfterMs: () => 1000,
    failure(e) {
      return up && redis.status === 'ready' ? e : new BackendUnavailableError('Redis', 1000, { cause: e });
    },
    close() {
      closing = true;
      redis.disconnect();
    },
  };
}
