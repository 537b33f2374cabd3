import assert from 'node:assert/strict';
import { SilenceDetector, type SilenceEvent } from '../../src/audio/silence';

const RATE = 16000;
const zeros = (ms: number): Buffer => Buffer.alloc((RATE * 2 * ms) / 1000);
function noise(ms: number): Buffer {
  const b = Buffer.alloc((RATE * 2 * ms) / 1000);
  for (let i = 0; i < b.length / 2; i++) b.writeInt16LE(((i * 7919) % 2001) - 1000, i * 2);
  return b;
}

function feed(d: SilenceDetector, pcm: Buffer, chunk = 3200): SilenceEvent[] {
  const ev: SilenceEvent[] = [];
  for (let o = 0; o < pcm.length; o += chunk) ev.push(...d.push(pcm.subarray(o, o + chunk)));
  return ev;
}

describe('audio: SilenceDetector (muted microphone)', () => {
  it('warns once after 3 s of all-zero samples, not before', () => {
    const d = new SilenceDetector();
    assert.deepEqual(feed(d, zeros(2900)), []);
    const ev = feed(d, zeros(200));
    assert.equal(ev.length, 1);
    assert.equal(ev[0]!.kind, 'muted');
    assert.deepEqual(feed(d, zeros(10000)), [], 'one warning only');
    assert.equal(d.muted, true);
  });

  it('re-arms when sound returns, and warns again after another 3 s', () => {
    const d = new SilenceDetector();
    feed(d, zeros(3100));
    assert.deepEqual(feed(d, noise(100)), [{ kind: 'sound' }]);
    assert.equal(d.muted, false);
    assert.deepEqual(feed(d, zeros(2000)), []);
    assert.equal(feed(d, zeros(1100)).filter((e) => e.kind === 'muted').length, 1);
  });

  it('never warns on speech-like audio with short silences', () => {
    const d = new SilenceDetector();
    for (let i = 0; i < 10; i++) {
      assert.deepEqual(feed(d, noise(500)), []);
      assert.deepEqual(feed(d, zeros(2500)), []);
    }
  });

  it('a single non-zero sample resets the count, with odd chunk sizes', () => {
    const d = new SilenceDetector({ seconds: 1 });
    const pcm = zeros(900);
    pcm[pcm.length - 1] = 1;
    assert.deepEqual(feed(d, Buffer.concat([pcm, zeros(900)]), 333), []);
    assert.equal(feed(d, zeros(200), 777).length, 1);
  });

  it('honours another rate and duration', () => {
    const d = new SilenceDetector({ sampleRate: 8000, seconds: 0.5 });
    assert.deepEqual(d.push(Buffer.alloc(7990)), []);
    assert.equal(d.push(Buffer.alloc(20)).length, 1);
  });
});
