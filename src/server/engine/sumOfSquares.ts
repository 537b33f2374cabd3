/**
 * The sum of the squares of 16-bit samples, the energy voice-activity detector's work on every 20 ms
 * window of every session: by a WebAssembly SIMD loop (8 samples an instruction; about 3× less CPU than the
 * JavaScript loop), else by that loop. Both are exact (integers below 2^53), so the result is the same.
 */

import { endianness } from 'node:os';

/*
 * The module, assembled by hand (the bytes below):
 *
 * (module
 *   (memory (export "memory") 1)
 *   (func (export "sumsq") (param $p i32) (param $n i32) (result f64)
 *     (local $acc v128) (local $v v128) (local $i i32) (local $end8 i32) (local $end i32) (local $s i64) (local $x i32)
 *     (local.set $i (local.get $p))
 *     (local.set $end (i32.add (local.get $p) (i32.shl (local.get $n) (i32.const 1))))
 *     (local.set $end8 (i32.add (local.get $p) (i32.shl (i32.and (local.get $n) (i32.const -8)) (i32.const 1))))
 *     (block (loop
 *       (br_if 1 (i32.ge_u (local.get $i) (local.get $end8)))
 *       ;; each i32 lane: a*a + b*b of two samples, at most 2^31: read unsigned
 *       (local.set $v (i32x4.dot_i16x8_s (local.tee $v (v128.load (local.get $i))) (local.get $v)))
 *       (local.set $acc (i64x2.add (i64x2.add (local.get $acc) (i64x2.extend_low_i32x4_u (local.get $v)))
 *                                  (i64x2.extend_high_i32x4_u (local.get $v))))
 *       (local.set $i (i32.add (local.get $i) (i32.const 16)))
 *       (br 0)))
 *     (local.set $s (i64.add (i64x2.extract_lane 0 (local.get $acc)) (i64x2.extract_lane 1 (local.get $acc))))
 *     (block (loop
 *       (br_if 1 (i32.ge_u (local.get $i) (local.get $end)))
 *       (local.set $s (i64.add (i64.extend_i32_u (i32.mul (local.tee $x (i32.load16_s (local.get $i))) (local.get $x)))
 *                              (local.get $s)))
 *       (local.set $i (i32.add (local.get $i) (i32.const 2)))
 *       (br 0)))
 *     (f64.convert_i64_u (local.get $s))))
 */
const MODULE =
  'AGFzbQEAAAABBwFgAn9/AXwDAgEABQMBAAEHEgIFc3Vtc3EAAAZtZW1vcnkCAAqXAQGUAQQCewN/AX4BfyAAIQQgACABQQF0aiEGIAAgAUF4cUEBdGohBQJA' +
  'A0AgBCAFTw0BIAT9AAAAIgMgA/26ASEDIAIgA/3JAf3OASAD/coB/c4BIQIgBEEQaiEEDAALCyAC/R0AIAL9HQF8IQcCQANAIAQgBk8NASAELgEAIgggCGyt' +
  'IAd8IQcgBEECaiEEDAALCyAHugs=';

/** Samples summed by the JavaScript loop (also where WebAssembly SIMD is not available). */
export function sumOfSquaresJs(samples: Int16Array, start: number, n: number): number {
  // Four partial sums: the additions do not wait on each other. Each square is an integer below 2^30,
  // so every sum is exact in a double whatever the order.
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  const end = start + n;
  const end4 = start + (n & ~3);
  let i = start;
  for (; i < end4; i += 4) {
    const a = samples[i]!;
    const b = samples[i + 1]!;
    const c = samples[i + 2]!;
    const d = samples[i + 3]!;
    s0 += a * a;
    s1 += b * b;
    s2 += c * c;
    s3 += d * d;
  }
  for (; i < end; i++) {
    const a = samples[i]!;
    s0 += a * a;
  }
  return s0 + s1 + s2 + s3;
}

/** Windows longer than this (in samples) are summed in JavaScript: the module's memory stays one page. */
const WASM_MAX_SAMPLES = 32 * 1024;

interface Simd {
  sumsq(ptr: number, n: number): number;
  view: Int16Array;
}

/** What this file uses of WebAssembly (the compiler's libraries here do not declare it). */
interface Wasm {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: Record<string, unknown> };
}

function load(): Simd | undefined {
  // The module reads its memory little-endian; a typed array writes in the machine's order.
  const wasm = (globalThis as { WebAssembly?: Wasm }).WebAssembly;
  if (!wasm || endianness() !== 'LE') return undefined;
  try {
    const bytes = Buffer.from(MODULE, 'base64');
    if (!wasm.validate(bytes)) return undefined;
    const { exports } = new wasm.Instance(new wasm.Module(bytes));
    const memory = exports.memory as { buffer: ArrayBuffer };
    return { sumsq: exports.sumsq as Simd['sumsq'], view: new Int16Array(memory.buffer, 0, WASM_MAX_SAMPLES) };
  } catch {
    return undefined;
  }
}

const simd = load();

/** Whether the WebAssembly loop is in use (tests). */
export const sumOfSquaresBySimd = simd !== undefined;

/** The samples whose copy is in the module's memory from offset 0, from {@link stageSamples} (undefined: none). */
let staged: Int16Array | undefined;

/**
 * Copies all of `samples` (a frame's) into the module's memory, for the {@link sumOfSquares} of its windows that
 * follow: one copy and no view per frame, instead of a view and a copy per window. The caller does not change
 * `samples` while it reads its windows. Any other array given to {@link sumOfSquares} meanwhile has its window
 * copied over this one, as without staging, and the frame's next windows are then copied one by one.
 */
export function stageSamples(samples: Int16Array): void {
  if (!simd || samples.length > WASM_MAX_SAMPLES) {
    staged = undefined;
    return;
  }
  simd.view.set(samples);
  staged = samples;
}

/** The sum of the squares of `n` samples from `start` of `samples` (exact). */
export function sumOfSquares(samples: Int16Array, start: number, n: number): number {
  if (!simd || n > WASM_MAX_SAMPLES) return sumOfSquaresJs(samples, start, n);
  if (samples === staged && start >= 0 && start + n <= samples.length) return simd.sumsq(start * 2, n);
  staged = undefined;
  simd.view.set(samples.subarray(start, start + n));
  return simd.sumsq(0, n);
}
