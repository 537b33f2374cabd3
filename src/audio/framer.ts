/**
 * PCM framing: any input chunk sizes in, fixed even-length frames out (100 ms = 3200 bytes of
 * 16 kHz mono s16le by default). An odd trailing byte is kept for the next push, so a 16-bit sample
 * is never split across frames.
 */
import { RECOMMENDED_FRAME_BYTES } from '../protocol/messages';

export class PcmFramer {
  private readonly buf: Buffer;
  private fill = 0;

  constructor(readonly frameBytes: number = RECOMMENDED_FRAME_BYTES) {
    if (!Number.isInteger(frameBytes) || frameBytes <= 0 || frameBytes % 2 !== 0) {
      throw new RangeError(`frame size must be a positive even number of bytes, got ${frameBytes}`);
    }
    this.buf = Buffer.alloc(frameBytes);
  }

  /** Bytes waiting for the next frame. */
  get pending(): number {
    return this.fill;
  }

  /** Adds audio; returns the complete frames (each a fresh Buffer of `frameBytes`). */
  push(chunk: Uint8Array): Buffer[] {
    const frames: Buffer[] = [];
    let off = 0;
    while (off < chunk.length) {
      const n = Math.min(this.frameBytes - this.fill, chunk.length - off);
      this.buf.set(chunk.subarray(off, off + n), this.fill);
      this.fill += n;
      off += n;
      if (this.fill === this.frameBytes) {
        frames.push(Buffer.from(this.buf));
        this.fill = 0;
      }
    }
    return frames;
  }

  /**
   * Returns what is pending as one shorter frame of even length (undefined if fewer than 2 bytes).
   * An odd last byte stays pending.
   */
  flush(): Buffer | undefined {
    const even = this.fill - (this.fill % 2);
    if (even === 0) return undefined;
    const out = Buffer.from(this.buf.subarray(0, even));
    if (this.fill % 2 === 1) this.buf[0] = this.buf[even]!;
    this.fill -= even;
    return out;
  }

  /** Drops whatever is pending. */
  reset(): void {
    this.fill = 0;
  }
}
