/**
 * The input level of 16-bit little-endian PCM, for a level meter: the RMS of a stretch of samples in
 * dBFS, mapped onto 0–1 over the range a voice covers (−60 dBFS → 0, 0 dBFS → 1). Pure.
 */

/** dBFS at and below which the meter shows nothing. */
export const FLOOR_DBFS = -60;

/** RMS of the samples in `pcm` (an odd trailing byte is ignored), in dBFS; −Infinity for silence. */
export function rmsDbfs(pcm: Uint8Array): number {
  const n = pcm.length >> 1;
  if (n === 0) return -Infinity;
  const view = new DataView(pcm.buffer, pcm.byteOffset, n * 2);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const s = view.getInt16(i * 2, true) / 32768;
    sum += s * s;
  }
  const rms = Math.sqrt(sum / n);
  return rms === 0 ? -Infinity : 20 * Math.log10(rms);
}

/** A level in dBFS as 0–1 on the meter's scale. */
export function meterLevel(dbfs: number): number {
  if (!Number.isFinite(dbfs) || dbfs <= FLOOR_DBFS) return 0;
  return Math.min(1, (dbfs - FLOOR_DBFS) / -FLOOR_DBFS);
}

/**
 * Follows the level of a stream of PCM chunks: the meter level of the loudest recent chunk, decaying
 * (as meters do) so that a syllable stays visible for a moment. `peakDbfs` is the loudest seen so far.
 */
export class LevelMeter {
  private current = 0;
  private at = 0;
  peakDbfs = -Infinity;

  constructor(private readonly decayPerSecond = 1.5) {}

  /** Feeds a chunk; returns the level to show now. */
  push(pcm: Uint8Array, now = Date.now()): number {
    const db = rmsDbfs(pcm);
    if (db > this.peakDbfs) this.peakDbfs = db;
    const decayed = Math.max(0, this.current - ((now - this.at) / 1000) * this.decayPerSecond);
    this.current = Math.max(decayed, meterLevel(db));
    this.at = now;
    return this.current;
  }

  reset(): void {
    this.current = 0;
    this.at = 0;
    this.peakDbfs = -Infinity;
  }
}
