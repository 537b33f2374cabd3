import assert from 'node:assert/strict';
import { Resampler } from '../../src/server/engine/remote/resample';

function pcmOf(samples: number[]): Buffer {
  const b = Buffer.alloc(samples.length * 2);
  samples.forEach((s, i) => b.writeInt16LE(s, i * 2));
  return b;
}

function samples(b: Buffer): number[] {
  return Array.from({ length: b.length / 2 }, (_, i) => b.readInt16LE(i * 2));
}

describe('remote engines: the 16 → 24 kHz resampler', () => {
  it('interpolates linearly: every third output is an input sample, the others lie between', () => {
    const out = samples(new Resampler(16000, 24000).push(pcmOf([0, 300, 600, 900, 1200])));
    // positions 0, 2/3, 4/3, 2, 8/3, 10/3, 4
    assert.deepEqual(out, [0, 200, 400, 600, 800, 1000, 1200]);
  });

  it('gives the same samples whatever the frame sizes (state kept across frames)', () => {
    const input = Array.from({ length: 1601 }, (_, i) => Math.round(8000 * Math.sin(i / 7)));
    const whole = samples(new Resampler(16000, 24000).push(pcmOf(input)));
    const r = new Resampler(16000, 24000);
    const parts: number[] = [];
    let off = 0;
    for (const size of [1, 2, 3, 160, 317, 500, 618]) {
      parts.push(...samples(r.push(pcmOf(input.slice(off, off + size)))));
      off += size;
    }
    assert.equal(off, input.length);
    assert.deepEqual(parts, whole);
    // 1601 input samples span positions 0…1600: outputs at k × 2/3 up to 1600 → 2401 samples.
    assert.equal(whole.length, 2401);
  });

  it('keeps a tone a tone: a 440 Hz sine at 24 kHz stays within 1 % of the ideal samples', () => {
    const n = 16000;
    const input = Array.from({ length: n }, (_, i) => Math.round(10000 * Math.sin((2 * Math.PI * 440 * i) / 16000)));
    const out = samples(new Resampler(16000, 24000).push(pcmOf(input)));
    let worst = 0;
    for (let k = 0; k < out.length; k++) worst = Math.max(worst, Math.abs(out[k]! - 10000 * Math.sin((2 * Math.PI * 440 * k) / 24000)));
    assert.ok(worst < 100, `worst error ${worst}`);
  });

  it('passes audio through at the same rate and refuses to go down', () => {
    const pcm = pcmOf([1, 2, 3]);
    assert.equal(new Resampler(16000, 16000).push(pcm), pcm);
    assert.throws(() => new Resampler(24000, 16000), /down/);
  });
});
