import assert from 'node:assert/strict';
import { Vad, levelDb, samplesLevelDb, samplesOf } from '../../src/server/engine/vad';
import { silence, tone } from '../helpers/speech';

function noise(ms: number, amplitude: number, seed = 1): Buffer {
  const n = Math.round(ms * 16);
  const buf = Buffer.alloc(n * 2);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    buf.writeInt16LE(Math.round(((x / 0x7fffffff) * 2 - 1) * amplitude), i * 2);
  }
  return buf;
}

function classify(vad: Vad, pcm: Buffer): boolean[] {
  const wb = Vad.windowBytes(16000);
  const out: boolean[] = [];
  for (let off = 0; off + wb <= pcm.length; off += wb) out.push(vad.window(pcm, off, wb));
  return out;
}

describe('server VAD (energy, adaptive noise floor)', () => {
  it('uses 20 ms windows at every supported rate', () => {
    assert.equal(Vad.windowBytes(16000), 640);
    assert.equal(Vad.windowBytes(8000), 320);
    assert.equal(Vad.windowBytes(44100), 1764);
    assert.equal(Vad.windowBytes(48000), 1920);
  });

  it('measures levels in dBFS', () => {
    assert.equal(levelDb(silence(20)), -100);
    const full = tone(20, 16000, 1000, 32767);
    assert.ok(Math.abs(levelDb(full) - -3.01) < 0.1, `full-scale sine ≈ -3 dBFS, got ${levelDb(full)}`);
  });

  it('reads samples the same from aligned and unaligned buffers', () => {
    const t = noise(20, 12000, 7);
    const unaligned = Buffer.concat([Buffer.alloc(1), t]).subarray(1);
    assert.equal(unaligned.byteOffset % 2, 1);
    assert.equal(levelDb(unaligned), levelDb(t));
    assert.equal(levelDb(t, 2, 300), levelDb(Buffer.from(t.subarray(2, 302))));
  });

  it('one view of a frame for its windows: the same levels and decisions as reading each window', () => {
    const frame = Buffer.concat([noise(40, 9000, 3), silence(20), noise(40, 300, 5)]);
    const unaligned = Buffer.concat([Buffer.alloc(1), frame]).subarray(1);
    const wb = Vad.windowBytes(16000);
    for (const buf of [frame, unaligned]) {
      const view = samplesOf(buf);
      assert.equal(view.length, buf.length / 2);
      // Aligned: the frame's own memory, no copy; unaligned: a copy with the same samples.
      assert.equal(view.buffer === buf.buffer, buf.byteOffset % 2 === 0);
      assert.equal(view[7], buf.readInt16LE(14));
      const a = new Vad();
      const b = new Vad();
      for (let off = 0; off + wb <= buf.length; off += wb) {
        assert.equal(samplesLevelDb(view, off / 2, wb / 2), levelDb(buf, off, wb));
        assert.equal(b.windowOf(view, off / 2, wb / 2), a.window(buf, off, wb));
      }
      assert.deepEqual(b.state(), a.state());
    }
    assert.equal(samplesLevelDb(new Int16Array(4), 0, 0), -100);
  });

  it('the level of any run of samples is the plain sum of squares: every length, every offset, full scale', () => {
    const plainDb = (v: Int16Array, start: number, n: number): number => {
      let sum = 0;
      for (let i = start; i < start + n; i++) sum += v[i]! * v[i]!;
      const rms = Math.sqrt(sum / n);
      return rms < 1e-3 ? -100 : Math.max(-100, 20 * Math.log10(rms / 32768));
    };
    let seed = 11;
    const rand = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 65536 - 32768;
    const v = Int16Array.from({ length: 1000 }, () => Math.round(rand()));
    v.fill(-32768, 0, 9); // the extremes, where a sum of squares is largest
    v.fill(32767, 500, 507);
    for (const start of [0, 1, 2, 3, 5])
      for (let n = 1; n <= 13; n++) assert.equal(samplesLevelDb(v, start, n), plainDb(v, start, n), `start ${start}, ${n} samples`);
    for (const n of [320, 321, 322, 323, 960, 995]) assert.equal(samplesLevelDb(v, 3, n), plainDb(v, 3, n), `${n} samples`);
  });

  it('digital silence is never voiced, a tone always is', () => {
    const vad = new Vad();
    assert.ok(classify(vad, silence(500)).every((v) => !v));
    assert.ok(classify(vad, tone(500)).every((v) => v));
    assert.ok(classify(vad, silence(500)).every((v) => !v));
  });

  it('adapts to steady background noise, then still hears speech above it', () => {
    const vad = new Vad();
    const first = classify(vad, noise(5000, 1500)); // ≈ -31 dBFS hiss
    assert.ok(
      first.slice(-50).every((v) => !v),
      'after 4 s the steady noise is no longer speech',
    );
    assert.ok(vad.noiseFloorDb > -40, `noise floor followed the noise (${vad.noiseFloorDb})`);
    const speech = classify(vad, tone(400, 16000, 220, 16000)); // ≈ -9 dBFS
    assert.ok(
      speech.every((v) => v),
      'a tone 20 dB above the noise is voiced',
    );
  });

  it('the floor rises no faster than 7.5 dB/s under soft speech, so louder speech after it is still voiced', () => {
    const vad = new Vad();
    classify(vad, noise(1000, 1000)); // room noise: the floor settles on its quieter windows
    const floor = vad.noiseFloorDb;
    const sine = (ms: number, db: number): Buffer => tone(ms, 16000, 220, Math.round(32768 * 10 ** (db / 20) * Math.SQRT2));
    // A soft stretch 8 dB above the floor, for 400 ms: unvoiced (under the 12 dB margin).
    assert.ok(
      classify(vad, sine(400, floor + 8)).every((v) => !v),
      'the soft stretch is under the margin',
    );
    // The earlier rule followed it a tenth of the way each window: 7 dB up in 0.4 s, and the next
    // syllable, 17 dB above the old floor, was unvoiced.
    assert.ok(vad.noiseFloorDb - floor <= 0.4 * 7.5 + 1e-9, `the floor rose ${(vad.noiseFloorDb - floor).toFixed(2)} dB in 0.4 s`);
    assert.ok(
      classify(vad, sine(200, floor + 17)).every((v) => v),
      'the next syllable, 17 dB above where the floor was, is voiced',
    );
  });

  it('quiet sounds under the absolute floor are not speech', () => {
    const vad = new Vad();
    assert.ok(classify(vad, tone(400, 16000, 220, 50)).every((v) => !v)); // ≈ -59 dBFS
  });

  it('snapshots and restores its state', () => {
    const a = new Vad();
    classify(a, noise(500, 1500));
    const b = new Vad(a.state());
    assert.equal(b.noiseFloorDb, a.noiseFloorDb);
  });
});
