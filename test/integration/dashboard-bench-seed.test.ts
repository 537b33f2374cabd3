import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { OWNER_EMAIL, seedSqlite } from '../../bench/dashboardSeed';
import { signIn } from '../../bench/dashboardMeasure';
import { startServer } from '../helpers/server';

// The dashboard bench's seeding (bench/dashboardSeed.ts): exactly the keys and sessions asked for, every
// session counted once in the daily rollup, and the owner able to sign in through the real form.
describe('dashboard bench seeding (SQLite)', function () {
  this.timeout(120_000);

  it('seeds exact counts, a rollup holding every session once, and an owner who signs in', async () => {
    const env = { DICTEE_MASTER_KEY: `master_${randomBytes(24).toString('base64url')}` };
    const first = await startServer({ env });
    await first.stop();
    const counts = await seedSqlite(path.join(first.dataDir, 'dictee.sqlite'), { keys: 37, activeKeys: 7, sessions: 1234 });
    assert.equal(counts.keys, 37);
    assert.equal(counts.sessions, 1234);
    assert.equal(counts.rollupSessions, 1234);
    assert.ok(counts.rollupRows > 0 && counts.rollupRows <= 7 * 36 * 2, `rollup rows: ${counts.rollupRows}`);
    const service = await startServer({ dataDir: first.dataDir, env });
    try {
      const cookie = await signIn(service.url, OWNER_EMAIL);
      const res = await fetch(`${service.url}/dashboard/keys`, { headers: { cookie } });
      assert.equal(res.status, 200);
      assert.match(await res.text(), /bench 37/);
    } finally {
      await service.stop();
    }
  });
});
