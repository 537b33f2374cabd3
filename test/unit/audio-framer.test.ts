import assert from 'node:assert/strict';
import { PcmFramer } from '../../src/audio/framer';

function ramp(n: number, start = 0): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (start + i) % 251;
  return b;
}

describe('audio: PcmFramer', () => {
  it('frames any chunk sizes into 3200-byte frames, byte-exact and in order', () => {
    const input = ramp(3200 * 5 + 1234);
    for (const sizes of [[1], [7], [3199], [3200], [3201], [10000], [1, 2, 3, 5, 8, 13, 2000, 6399]]) {
      const f = new PcmFramer();
      const out: Buffer[] = [];
      let off = 0;
      let k = 0;
      while (off < input.length) {
        const n = Math.min(sizes[k++ % sizes.length]!, input.length - off);
        out.push(...f.push(input.subarray(off, off + n)));
        off += n;
      }
      assert.equal(out.length, 5, `sizes ${sizes.join(',')}`);
      for (const fr of out) assert.equal(fr.length, 3200);
      assert.equal(f.pending, 1234);
      const rest = f.flush();
      assert.equal(rest?.length, 1234);
      assert.deepEqual(Buffer.concat([...out, rest!]), input);
    }
  });

  it('keeps an odd trailing byte for the next push and never emits an odd-length frame', () => {
    const f = new PcmFramer(4);
    assert.deepEqual(f.push(Buffer.from([1, 2, 3])), []);
    const rest = f.flush();
    assert.deepEqual(rest, Buffer.from([1, 2]));
    assert.equal(f.pending, 1);
    const frames = f.push(Buffer.from([4, 5, 6]));
    assert.deepEqual(frames, [Buffer.from([3, 4, 5, 6])]);
    assert.equal(f.flush(), undefined);
  });

  it('returns frames that do not alias its internal buffer', () => {
    const f = new PcmFramer(4);
    const [a] = f.push(Buffer.from([1, 1, 1, 1]));
    f.push(Buffer.from([2, 2, 2, 2]));
    assert.deepEqual(a, Buffer.from([1, 1, 1, 1]));
  });

  it('rejects odd or non-positive frame sizes with a clear error', () => {
    assert.throws(() => new PcmFramer(3), /positive even number of bytes, got 3/);
    assert.throws(() => new PcmFramer(0), /positive even number/);
  });

  it('reset drops what is pending', () => {
    const f = new PcmFramer(4);
    f.push(Buffer.from([1, 2, 3]));
    f.reset();
    assert.equal(f.pending, 0);
    assert.deepEqual(f.push(Buffer.from([9, 9, 9, 9])), [Buffer.from([9, 9, 9, 9])]);
  });
});
