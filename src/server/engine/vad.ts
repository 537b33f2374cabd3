/**
 * Energy voice-activity detector on fixed 20 ms windows with an adaptive noise floor.
 * Pure: feed one window of s16le samples at a time, get `voiced` or not.
 *
 * A window is voiced when its RMS level (dBFS) is above both an absolute floor (-50 dBFS) and the
 * running noise floor plus 12 dB. The noise floor drops at once to any quieter window, follows unvoiced
 * windows, and rises by 7.5 dB/s during voiced ones, so steady background noise stops counting as
 * speech after a few seconds while speech, with its short dips, keeps the floor low.
 *
 * The floor never rises faster than 7.5 dB/s, voiced window or not. A soft passage of speech (less
 * than 12 dB above the floor, so unvoiced) used to pull the floor up by a tenth of the gap every
 * window; the floor then caught up with the speech and made up to 0.8 s of continuous speech "silence"
 * in clean recordings and 2.6 s under -42 dBFS of background noise, enough to end a sentence in the
 * middle of it (docs/engines.md, "The energy detector's noise floor").
 */

import { endianness } from 'node:os';
import { stageSamples, sumOfSquares } from './sumOfSquares';

export const VAD_WINDOW_MS = 20;
const VAD_ABSOLUTE_MIN_DB = -50;
const VAD_MARGIN_DB = 12;
const FLOOR_MIN_DB = -90;
const FLOOR_MAX_DB = -25;
const SILENT_DB = -100;
/** The fastest the noise floor rises (dB per 20 ms window, i.e. 7.5 dB/s): during voiced windows, and at most while following unvoiced ones. */
const FLOOR_RISE_DB = 0.15;

const LITTLE_ENDIAN = endianness() === 'LE';

export interface VadState {
  noiseFloorDb: number;
}

/** RMS level of s16le samples in dBFS (-100 for digital silence). */
export function levelDb(buf: Buffer, offset = 0, length = buf.length - offset): number {
  const n = Math.floor(length / 2);
  if (n === 0) return SILENT_DB;
  const start = buf.byteOffset + offset;
  if (LITTLE_ENDIAN && start % 2 === 0) return samplesLevelDb(new Int16Array(buf.buffer, start, n), 0, n);
  let sum = 0;
  for (let i = 0, o = offset; i < n; i++, o += 2) {
    const s = ((buf[o]! | (buf[o + 1]! << 8)) << 16) >> 16;
    sum += s * s;
  }
  return dbOf(sum, n);
}

/**
 * RMS level in dBFS of `n` samples from `start` of a view in the machine's order: the segmenter takes
 * one view of a frame for its five windows instead of one per window.
 */
export function samplesLevelDb(samples: Int16Array, start: number, n: number): number {
  if (n === 0) return SILENT_DB;
  return dbOf(sumOfSquares(samples, start, n), n);
}

function dbOf(sum: number, n: number): number {
  const rms = Math.sqrt(sum / n);
  if (rms < 1e-3) return SILENT_DB;
  return Math.max(SILENT_DB, 20 * Math.log10(rms / 32768));
}

/**
 * The samples of s16le `pcm` as an Int16Array in the machine's order: a view when the bytes are
 * aligned on a little-endian machine, else a copy.
 */
export function samplesOf(pcm: Buffer): Int16Array {
  const n = pcm.length >> 1;
  if (LITTLE_ENDIAN && pcm.byteOffset % 2 === 0) return new Int16Array(pcm.buffer, pcm.byteOffset, n);
  const out = new Int16Array(n);
  for (let i = 0; i < n; i++) out[i] = pcm.readInt16LE(i * 2);
  return out;
}

/**
 * What the segmenter asks of a voice-activity detector: one decision per 20 ms window, in audio order.
 * {@link Vad} (energy, the default) and `SileroVad` (sileroVad.ts, `--vad silero`) implement it.
 */
export interface VoiceDetector {
  /** Classifies `n` samples from `start` of a view from {@link samplesOf} (one 20 ms window). */
  windowOf(samples: Int16Array, start: number, n: number): boolean;
  /**
   * The samples whose windows {@link windowOf} gets next, in order, before the first (a frame's; unchanged until
   * its windows are read). Optional: a detector reads each window as it comes all the same.
   */
  frame?(samples: Int16Array): void;
  /** What a checkpoint keeps of the detector (see each detector). */
  state(): VadState;
  /**
   * The detector's whole state as a number, where it is one ({@link Vad}: `state()` is `{ noiseFloorDb }`):
   * read without making an object (the segmenter reads it before every window of a pause).
   */
  readonly noiseFloorDb?: number;
}

export class Vad implements VoiceDetector {
  noiseFloorDb: number;

  constructor(state?: VadState) {
    this.noiseFloorDb = state?.noiseFloorDb ?? -70;
  }

  /** Bytes of one 20 ms window at `sampleRate` (s16le mono). */
  static windowBytes(sampleRate: number): number {
    return Math.round((sampleRate * VAD_WINDOW_MS) / 1000) * 2;
  }

  /** Classifies one window (given as its level in dBFS) and updates the noise floor. */
  classify(db: number): boolean {
    const voiced = db > VAD_ABSOLUTE_MIN_DB && db > this.noiseFloorDb + VAD_MARGIN_DB;
    if (db < this.noiseFloorDb) {
      this.noiseFloorDb = Math.max(FLOOR_MIN_DB, db); // fast down
    } else if (!voiced) {
      // Follow the noise, no faster than the floor rises under speech.
      this.noiseFloorDb = Math.min(FLOOR_MAX_DB, this.noiseFloorDb + FLOOR_RISE_DB, this.noiseFloorDb * 0.9 + db * 0.1);
    } else {
      this.noiseFloorDb = Math.min(FLOOR_MAX_DB, this.noiseFloorDb + FLOOR_RISE_DB); // rise slowly: steady noise stops counting
    }
    return voiced;
  }

  window(buf: Buffer, offset: number, length: number): boolean {
    return this.classify(levelDb(buf, offset, length));
  }

  /** The frame's samples copied once for the sums of its windows (sumOfSquares.ts), not once per window. */
  frame(samples: Int16Array): void {
    stageSamples(samples);
  }

  /** {@link window} over `n` samples of a view from {@link samplesOf}. */
  windowOf(samples: Int16Array, start: number, n: number): boolean {
    return this.classify(samplesLevelDb(samples, start, n));
  }

  state(): VadState {
    return { noiseFloorDb: this.noiseFloorDb };
  }
}
