import assert from 'node:assert/strict';
import { bestMatch, correlationAt, samplesOf } from '../helpers/correlation';
import { silence, speechPcm } from '../helpers/speech';

/** A deterministic noise, `n` samples. */
function noise(n: number, seed = 1): Float64Array {
  let x = seed;
  return Float64Array.from({ length: n }, () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 30 - 1;
  });
}

describe('Play Back checks: where a played sound is in a recording (cross-correlation)', () => {
  it('finds a slice of noise at its offset, correlation 1, and not elsewhere', () => {
    const rec = noise(16000);
    const slice = rec.slice(5000, 9000);
    const m = bestMatch(slice, rec, 3000, 8000);
    assert.equal(m.at, 5000);
    assert.ok(Math.abs(m.correlation - 1) < 1e-9, String(m.correlation));
    assert.ok(correlationAt(slice, rec, 5100) < 0.1);
    assert.ok(bestMatch(slice, noise(16000, 7), 0, 12000).correlation < 0.2);
  });

  it('finds one spoken phrase among others, past silence around it', async function () {
    this.timeout(30_000);
    const [a, b] = [await speechPcm('chest radiograph'), await speechPcm('pleural effusion')];
    const rec = samplesOf(Buffer.concat([silence(200), a, silence(500), b, silence(300)]));
    const played = samplesOf(Buffer.concat([b, silence(100)]));
    const at = (200 + 500) * 16 + a.length / 2;
    const m = bestMatch(played, rec, 0, rec.length - played.length);
    assert.equal(m.at, at);
    assert.ok(m.correlation > 0.99, String(m.correlation));
  });
});
