import assert from 'node:assert/strict';
import { Downsampler } from '../../src/server/engine/downsample';

const RATE = 16000;

function sine(freq: number, amplitude: number, n: number, rate = RATE): Int16Array {
  return Int16Array.from({ length: n }, (_, i) => Math.round(amplitude * Math.sin((2 * Math.PI * freq * i) / rate)));
}

/** Root mean square of the samples after the first `skip` (the filter's start). */
function rms(x: Int16Array, skip = 64): number {
  let s = 0;
  for (let i = skip; i < x.length; i++) s += x[i]! * x[i]!;
  return Math.sqrt(s / (x.length - skip));
}

/** Amplitude of the `freq` component of `x` (a single-bin DFT), the filter's start left out. */
function amplitudeAt(x: Int16Array, freq: number, rate: number, skip = 64): number {
  let re = 0;
  let im = 0;
  for (let i = skip; i < x.length; i++) {
    re += x[i]! * Math.cos((2 * Math.PI * freq * i) / rate);
    im += x[i]! * Math.sin((2 * Math.PI * freq * i) / rate);
  }
  return (2 * Math.hypot(re, im)) / (x.length - skip);
}

const db = (ratio: number): number => 20 * Math.log10(ratio);

describe('engines: the 16 → 8 kHz downsampler', () => {
  it('keeps speech-band tones at their level (within 0.5 dB up to 3 kHz)', () => {
    for (const f of [200, 1000, 2000, 3000]) {
      const out = new Downsampler(16000, 8000).push(sine(f, 10000, 16000));
      assert.equal(out.length, 8000);
      const gain = amplitudeAt(out, f, 8000) / 10000;
      assert.ok(Math.abs(db(gain)) < 0.5, `${f} Hz: ${db(gain).toFixed(2)} dB`);
    }
  });

  it('removes what lies above 4 kHz instead of folding it into the band (≥ 60 dB down)', () => {
    for (const f of [4600, 5000, 6000, 7000, 7900]) {
      const out = new Downsampler(16000, 8000).push(sine(f, 10000, 16000));
      // Dropping every other sample would turn f into a tone at 8000 − f of the same level.
      const alias = 8000 - f;
      const left = amplitudeAt(out, alias, 8000);
      assert.ok(db(left / 10000) < -60, `${f} Hz folded to ${alias} Hz at ${db(left / 10000).toFixed(1)} dB`);
      assert.ok(rms(out) < 10, `${f} Hz: rms ${rms(out).toFixed(1)} left`);
    }
  });

  it('without the filter, the same tone would fold in at full level (the check can fail)', () => {
    const input = sine(6000, 10000, 16000);
    const naive = Int16Array.from({ length: 8000 }, (_, k) => input[2 * k + 1]!);
    assert.ok(db(amplitudeAt(naive, 2000, 8000) / 10000) > -1);
  });

  it('gives the same samples whatever the frame sizes, and floor(N / 2) in all', () => {
    const input = Int16Array.from({ length: 3203 }, (_, i) => Math.round(9000 * Math.sin(i / 5) + 4000 * Math.sin(i / 1.3)));
    const whole = new Downsampler(16000, 8000).push(input);
    assert.equal(whole.length, 1601);
    const d = new Downsampler(16000, 8000);
    const parts: number[] = [];
    let off = 0;
    for (const size of [0, 1, 1, 2, 3, 5, 62, 63, 64, 160, 317, 1, 500, 2024]) {
      parts.push(...d.push(input.subarray(off, off + size)));
      off += size;
    }
    assert.equal(off, input.length);
    assert.deepEqual(parts, Array.from(whole));
  });

  it('keeps a constant level, clips nothing at full scale, and delays by 31 input samples', () => {
    const dc = new Downsampler(16000, 8000).push(new Int16Array(1000).fill(12345));
    assert.ok(dc.slice(40).every((s) => Math.abs(s - 12345) <= 1));
    const full = new Downsampler(16000, 8000).push(new Int16Array(1000).fill(-32768));
    assert.ok(full.every((s) => s >= -32768 && s <= 32767));
    // An impulse at input sample 2 peaks at input time 2 + 31 = 33, which is kept (samples 2k + 1 are): output 16.
    const impulse = new Int16Array(200);
    impulse[2] = 30000;
    const out = Array.from(new Downsampler(16000, 8000).push(impulse));
    assert.equal(out.indexOf(Math.max(...out)), 16);
  });

  it('refuses rates it cannot bring down by a whole factor; passes 1:1 through', () => {
    assert.throws(() => new Downsampler(16000, 6000), /whole number/);
    assert.throws(() => new Downsampler(8000, 16000), /whole number/);
    assert.throws(() => new Downsampler(0, 8000), /positive/);
    const same = new Int16Array([1, 2, 3]);
    assert.equal(new Downsampler(8000, 8000).push(same), same);
  });

  it('is fast enough for many live sessions (a minute of audio in under 5 s, a loaded machine included)', () => {
    const minute = sine(440, 8000, 60 * RATE);
    const d = new Downsampler(16000, 8000);
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < minute.length; i += 1600) d.push(minute.subarray(i, i + 1600));
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    assert.ok(ms < 5000, `${ms.toFixed(0)} ms`);
  });
});
