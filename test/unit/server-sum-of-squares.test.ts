import assert from 'node:assert/strict';
import { stageSamples, sumOfSquares, sumOfSquaresBySimd, sumOfSquaresJs } from '../../src/server/engine/sumOfSquares';

/** The plain definition: one square at a time, in order. */
function plain(samples: Int16Array, start: number, n: number): number {
  let s = 0;
  for (let i = start; i < start + n; i++) s += samples[i]! * samples[i]!;
  return s;
}

/** Deterministic pseudo-random samples over the whole 16-bit range. */
function samples(n: number, seed: number): Int16Array {
  const out = new Int16Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out[i] = (x & 0xffff) - 32768;
  }
  return out;
}

describe('sum of squares of 16-bit samples (the energy VAD)', () => {
  it('is done by WebAssembly SIMD on this machine', () => {
    // Node 20 on x86-64 and arm64 has WebAssembly SIMD: without it the service still works, only slower.
    assert.equal(sumOfSquaresBySimd, true);
  });

  it('equals the plain sum for every length, offset and the extreme samples', () => {
    const random = samples(2000, 7);
    const lowest = new Int16Array(1000).fill(-32768);
    const highest = new Int16Array(1000).fill(32767);
    for (const arr of [random, lowest, highest]) {
      for (let n = 0; n <= 700; n += n < 40 ? 1 : 37) {
        for (const start of [0, 1, 3, 8, 17]) {
          const want = plain(arr, start, n);
          assert.equal(sumOfSquares(arr, start, n), want, `n ${n}, start ${start}`);
          assert.equal(sumOfSquaresJs(arr, start, n), want, `JavaScript loop: n ${n}, start ${start}`);
        }
      }
    }
  });

  it('takes views at any offset of a buffer and windows longer than the module holds', () => {
    const long = samples(40_000, 3);
    const view = new Int16Array(long.buffer, 2 * 101, 40_000 - 101);
    assert.equal(sumOfSquares(view, 5, 640), plain(view, 5, 640));
    // Past the module's memory (32768 samples): summed in JavaScript, the same.
    assert.equal(sumOfSquares(long, 0, 40_000), plain(long, 0, 40_000));
    // A window after a longer one: the module's copy is of this window only.
    assert.equal(sumOfSquares(long, 100, 320), plain(long, 100, 320));
  });

  it('reads the windows of a staged frame from its one copy, and any other array as before', () => {
    const frame = samples(1600, 11);
    const other = samples(700, 5);
    stageSamples(frame);
    for (let start = 0; start < 1600; start += 320) assert.equal(sumOfSquares(frame, start, 320), plain(frame, start, 320));
    // Another array between two windows of the frame: its own window is summed, then the frame's windows still are.
    assert.equal(sumOfSquares(other, 3, 320), plain(other, 3, 320));
    assert.equal(sumOfSquares(frame, 640, 320), plain(frame, 640, 320));
    assert.equal(sumOfSquares(frame, 1280, 320), plain(frame, 1280, 320));
    // A window past the staged samples is not read from the copy.
    const view = new Int16Array(frame.buffer, 0, 800);
    stageSamples(view);
    assert.equal(sumOfSquares(view, 700, 100), plain(view, 700, 100));
    assert.equal(sumOfSquares(frame, 700, 320), plain(frame, 700, 320));
    // A frame longer than the module holds: summed in JavaScript.
    const long = samples(40_000, 13);
    stageSamples(long);
    assert.equal(sumOfSquares(long, 39_000, 320), plain(long, 39_000, 320));
  });
});
