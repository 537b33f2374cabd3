/**
 * Where a played sound is in a longer recording: normalised cross-correlation, for the checks that what
 * Play Back plays is the audio of the words asked for (bench/playback.bench.ts, test/e2e).
 */

/** 16-bit little-endian PCM as samples in [-1, 1). */
export function samplesOf(pcm: Buffer): Float64Array {
  const out = new Float64Array(pcm.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = pcm.readInt16LE(i * 2) / 32768;
  return out;
}

/**
 * Normalised correlation of `a` with the part of `b` that starts at `at` (b is zero outside itself), on
 * every `step`th sample.
 */
export function correlationAt(a: ArrayLike<number>, b: ArrayLike<number>, at: number, step = 1): number {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i += step) {
    const x = a[i]!;
    const j = at + i;
    const y = j >= 0 && j < b.length ? b[j]! : 0;
    ab += x * y;
    aa += x * x;
    bb += y * y;
  }
  return aa > 0 && bb > 0 ? ab / Math.sqrt(aa * bb) : 0;
}

/**
 * The offset of `b` in [from, to] (samples) where `a` matches best, and the normalised correlation there:
 * every 4th offset on every 4th sample first, then every offset around the best one.
 */
export function bestMatch(a: ArrayLike<number>, b: ArrayLike<number>, from: number, to: number): { at: number; correlation: number } {
  let best = { at: from, correlation: -Infinity };
  for (let at = from; at <= to; at += 4) {
    const c = correlationAt(a, b, at, 4);
    if (c > best.correlation) best = { at, correlation: c };
  }
  const coarse = best.at;
  best = { at: coarse, correlation: -Infinity };
  for (let at = Math.max(from, coarse - 8); at <= Math.min(to, coarse + 8); at++) {
    const c = correlationAt(a, b, at);
    if (c > best.correlation) best = { at, correlation: c };
  }
  return best;
}
