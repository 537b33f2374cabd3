/**
 * BackendProbe (storage/health.ts): what GET /readyz and the metrics ask of a backend. The backend is a
 * stand-in here (a function that answers, fails or hangs as told), so that what is asked, and when, can be
 * counted; the real PostgreSQL and Redis are in test/integration/server-readiness.test.ts.
 */
import assert from 'node:assert/strict';
import { BackendProbe } from '../../src/server/storage/health';

/** A stand-in backend: counts its pings; each answers as `next` says. */
function fakeBackend(): { pings: number; next: 'answer' | 'fail' | 'hang'; release(): void; ping(): Promise<void> } {
  let hung: (() => void) | undefined;
  const b = {
    pings: 0,
    next: 'answer' as 'answer' | 'fail' | 'hang',
    release: () => hung?.(),
    ping(): Promise<void> {
      b.pings++;
      if (b.next === 'fail') return Promise.reject(new Error('ECONNREFUSED'));
      if (b.next === 'hang') return new Promise((resolve) => (hung = resolve));
      return Promise.resolve();
    },
  };
  return b;
}

describe('BackendProbe: whether a backend answers, asked at most once per freshMs', () => {
  it('many checks at once ask once; the answer stands for freshMs', async () => {
    const b = fakeBackend();
    const probe = new BackendProbe('postgresql', { known: () => true, ping: () => b.ping(), freshMs: 60_000 });
    assert.deepEqual(await Promise.all(Array.from({ length: 5 }, () => probe.up())), [true, true, true, true, true]);
    assert.equal(b.pings, 1);
    b.next = 'fail';
    assert.equal(await probe.up(), true, 'still fresh');
    assert.equal(b.pings, 1);
  });

  it('a backend that fails is down; asked again once the answer is stale', async () => {
    const b = fakeBackend();
    b.next = 'fail';
    const probe = new BackendProbe('redis', { known: () => true, ping: () => b.ping(), freshMs: 0 });
    assert.equal(await probe.up(), false);
    b.next = 'answer';
    assert.equal(await probe.up(), true);
    assert.equal(b.pings, 2);
  });

  it('known down (a reconnection under way): down without asking', async () => {
    const b = fakeBackend();
    let known = false;
    const probe = new BackendProbe('postgresql', { known: () => known, ping: () => b.ping(), freshMs: 0 });
    assert.equal(await probe.up(), false);
    assert.equal(b.pings, 0);
    known = true;
    assert.equal(await probe.up(), true);
    assert.equal(b.pings, 1);
  });

  it('a ping that hangs: down after timeoutMs, not asked again while it hangs, up once it answers', async () => {
    const b = fakeBackend();
    b.next = 'hang';
    const probe = new BackendProbe('redis', { known: () => true, ping: () => b.ping(), freshMs: 0, timeoutMs: 50 });
    const started = Date.now();
    assert.equal(await probe.up(), false);
    assert.ok(Date.now() - started >= 45, 'it waited for the timeout');
    assert.equal(await probe.up(), false);
    assert.equal(b.pings, 1, 'no second ping beside the one that hangs');
    b.next = 'answer';
    b.release();
    await new Promise((r) => setImmediate(r));
    assert.equal(await probe.up(), true);
  });
});
