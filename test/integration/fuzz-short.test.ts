/**
 * A short, bounded run of the fuzzing campaign (`npm run fuzz` runs the long one), so that the campaign
 * keeps working and the service keeps passing it: a few thousand generated and mutated inputs against the
 * built service, no finding allowed.
 */
import assert from 'node:assert/strict';
import { runCampaign } from '../fuzz/campaign';

describe('fuzzing campaign, short run (built service)', function () {
  this.timeout(120_000);

  it('8,000 inputs (WebSocket frames, HTTP requests, rapid and slow connections): no crash, no undocumented reply, nothing unanswered, no leak', async () => {
    const seed = Number(process.env.DICTEE_FUZZ_SEED ?? Date.now() % 1_000_000);
    const report = await runCampaign({ inputs: 8000, seconds: 50, seed, concurrency: 8 });
    assert.ok(report.inputs.total >= 1000, `only ${report.inputs.total} inputs in ${report.seconds} s`);
    assert.ok(report.inputs.wsFrames > 0 && report.inputs.httpRequests > 0 && report.inputs.rapidConnections > 0);
    assert.deepEqual(
      report.findings.map((f) => `${f.kind}: ${f.detail}${f.input ? ` (input ${f.input})` : ''}`),
      [],
      `seed ${seed} (replay with DICTEE_FUZZ_SEED=${seed})`,
    );
    assert.equal(report.sessionsLeft, 0, 'no live session left');
  });
});
