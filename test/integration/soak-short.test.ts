/**
 * A short run of the soak (`npm run soak` runs 500 sessions for 10 minutes): 40 real-time sessions for 20 s
 * against the built service, with drops and resumes, revocations, clean stops and new sessions mixed in, so
 * that the harness and its checks keep working (that the word check fails on a dropped or duplicated word is
 * shown by test/unit/soak-check.test.ts). Every word once and in order, nothing left in the service once every
 * session has stopped, the client in real time. RSS growth is not judged on a run this short.
 */
import assert from 'node:assert/strict';
import { runSoak } from '../fuzz/soak/run';

describe('soak, short run (built service)', function () {
  this.timeout(150_000);

  it('40 sessions × 20 s with drops, resumes, revocations and stops: every word once, no handle or descriptor left', async () => {
    const seed = Number(process.env.DICTEE_SOAK_SEED ?? Date.now() % 1_000_000);
    // Generous lag limits: CI machines are shared; the full run keeps the strict ones.
    const r = await runSoak({ sessions: 40, durationS: 20, seed, maxLagP99Ms: 500, maxLagMs: 5000 });
    const replay = `seed ${seed} (replay with DICTEE_SOAK_SEED=${seed})`;
    assert.deepEqual(r.failures, [], replay);
    assert.ok(r.actions.reconnect > 0 && r.actions.stop > 0 && r.actions.revoke > 0, `actions ${JSON.stringify(r.actions)}; ${replay}`);
    assert.ok(r.generations.revoked > 0 && r.generations.stopped > 0, JSON.stringify(r.generations));
    assert.ok(r.words.released >= 40 * 4, `only ${r.words.released} words released`);
    assert.equal(r.words.received, r.words.released);
    // GET /v1/status counts the service's active handles: its listening socket and its timers at least.
    assert.ok((r.resources.before.TCPServerWrap ?? 0) >= 1 && (r.resources.before.Timeout ?? 0) >= 1, JSON.stringify(r.resources.before));
    // One descriptor per connected session (some are between two sessions at any moment).
    assert.ok(r.fds.peak >= r.fds.before + 20, `descriptors: ${r.fds.before} before, ${r.fds.peak} at the peak`);
  });
});
