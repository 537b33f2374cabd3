/**
 * The service's Redis connection (storage/redis/connect.ts) against a real redis-server started by the
 * harness: losing Redis is an error line (an operator must see it), closing it at shutdown is not.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createLogger } from '../../src/server/log';
import { openRedis } from '../../src/server/storage/redis/connect';
import { type TestRedis, startRedis } from '../helpers/backends';
import { waitFor } from '../helpers/wait';

describe('the Redis connection: a loss is logged as an error, a close at shutdown is not', function () {
  this.timeout(60_000);
  let redis: TestRedis | undefined;
  const lines: string[] = [];
  const log = createLogger({ level: 'debug', write: (l) => lines.push(l) });
  const errors = (): string[] => lines.filter((l) => /"level":"error"/.test(l));

  before(async () => {
    redis = await startRedis();
  });
  after(async () => {
    await redis?.destroy();
  });
  beforeEach(() => {
    lines.length = 0;
  });

  it('close(): the connection ends without "Redis connection lost"', async () => {
    const link = await openRedis(redis!.url(), log);
    assert.equal(link.up, true);
    const closed = once(link.redis, 'close');
    link.close();
    await closed;
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(errors(), []);
  });

  it('Redis stopped under a live connection: "Redis connection lost" is an error line', async () => {
    const link = await openRedis(redis!.url(), log);
    await redis!.stop();
    try {
      await waitFor(() => errors().some((l) => l.includes('Redis connection lost')), 10_000, 'the loss logged as an error');
      assert.equal(link.up, false);
    } finally {
      link.close();
      await redis!.start();
    }
  });
});
