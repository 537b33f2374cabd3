import assert from 'node:assert/strict';
import { FLOOR_DBFS, LevelMeter, meterLevel, rmsDbfs } from '../../src/audio/level';

function sine(amplitude: number, samples = 1600): Buffer {
  const b = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) b.writeInt16LE(Math.round(amplitude * 32767 * Math.sin((2 * Math.PI * 440 * i) / 16000)), i * 2);
  return b;
}

describe('input level', () => {
  it('a full-scale sine is −3 dBFS, half scale −9 dBFS, silence −∞', () => {
    assert.ok(Math.abs(rmsDbfs(sine(1)) - -3.01) < 0.1, String(rmsDbfs(sine(1))));
    assert.ok(Math.abs(rmsDbfs(sine(0.5)) - -9.03) < 0.1);
    assert.equal(rmsDbfs(Buffer.alloc(3200)), -Infinity);
    assert.equal(rmsDbfs(Buffer.alloc(1)), -Infinity);
  });

  it('maps −60…0 dBFS onto 0…1', () => {
    assert.equal(meterLevel(-Infinity), 0);
    assert.equal(meterLevel(FLOOR_DBFS - 5), 0);
    assert.equal(meterLevel(-30), 0.5);
    assert.equal(meterLevel(3), 1);
  });

  it('the meter holds a loud moment and decays from it; the peak is kept', () => {
    const m = new LevelMeter(1);
    const loud = m.push(sine(0.5), 1000);
    assert.ok(loud > 0.8);
    const after = m.push(Buffer.alloc(3200), 1500);
    assert.ok(Math.abs(after - (loud - 0.5)) < 1e-9, `${after}`);
    assert.equal(m.push(Buffer.alloc(3200), 5000), 0);
    assert.ok(Math.abs(m.peakDbfs - -9.03) < 0.1);
    m.reset();
    assert.equal(m.peakDbfs, -Infinity);
  });
});
