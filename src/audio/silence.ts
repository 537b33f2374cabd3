/**
 * Muted-microphone detection: N seconds (default 3) of all-zero samples raise ONE warning; the
 * detector re-arms as soon as a non-zero sample arrives (and reports that sound is back).
 *
 * A sample is zero exactly when both of its bytes are zero, so the detector counts runs of zero
 * bytes; this needs no alignment and works with any chunk sizes.
 */

import { DEFAULT_SAMPLE_RATE } from '../protocol/config';

export type SilenceEvent = { kind: 'muted'; silentMs: number } | { kind: 'sound' };

interface SilenceDetectorOptions {
  sampleRate?: number;
  channels?: number;
  /** Seconds of all-zero samples before the warning. */
  seconds?: number;
}

export class SilenceDetector {
  private zeroRun = 0;
  private warned = false;
  private readonly thresholdBytes: number;
  private readonly bytesPerMs: number;

  constructor(options: SilenceDetectorOptions = {}) {
    const rate = options.sampleRate ?? DEFAULT_SAMPLE_RATE;
    const channels = options.channels ?? 1;
    const seconds = options.seconds ?? 3;
    this.bytesPerMs = (rate * channels * 2) / 1000;
    this.thresholdBytes = Math.max(2, Math.round(seconds * 1000 * this.bytesPerMs));
  }

  /** Whether the warning is currently raised. */
  get muted(): boolean {
    return this.warned;
  }

  /** Feeds audio; returns the events it causes (at most one `muted`, or one `sound`, per call is typical). */
  push(chunk: Uint8Array): SilenceEvent[] {
    const events: SilenceEvent[] = [];
    let i = 0;
    const n = chunk.length;
    while (i < n) {
      // Find the next non-zero byte.
      let j = i;
      while (j < n && chunk[j] === 0) j++;
      this.zeroRun += j - i;
      if (!this.warned && this.zeroRun >= this.thresholdBytes) {
        this.warned = true;
        events.push({ kind: 'muted', silentMs: Math.round(this.zeroRun / this.bytesPerMs) });
      }
      if (j < n) {
        this.zeroRun = 0;
        if (this.warned) {
          this.warned = false;
          events.push({ kind: 'sound' });
        }
        j++;
      }
      i = j;
    }
    return events;
  }

  reset(): void {
    this.zeroRun = 0;
    this.warned = false;
  }
}
