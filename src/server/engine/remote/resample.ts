/**
 * Streaming linear-interpolation resampler for s16le mono PCM (a remote recogniser that wants 24 kHz
 * while the client sends 16 kHz). Stateful across frames: the output is the same whether the audio
 * comes in one piece or in many. Output sample k is the input interpolated at position k × from / to.
 * Linear interpolation is enough for speech going *up* in rate (no aliasing can appear); going down it
 * would alias, so only rates that go up or stay are accepted.
 */
export class Resampler {
  /** Input position (global sample index) of the next output sample. */
  private next = 0;
  /** Global index of the first sample of the next frame. */
  private base = 0;
  /** The last input sample of the previous frame. */
  private prev = 0;
  private readonly step: number;

  constructor(
    readonly from: number,
    readonly to: number,
  ) {
    if (!(from > 0 && to > 0)) throw new RangeError('sample rates must be positive');
    if (to < from) throw new RangeError(`resampling down (${from} → ${to} Hz) is not supported`);
    this.step = from / to;
  }

  /** Resamples the next frame (even length). */
  push(pcm: Buffer): Buffer {
    if (this.from === this.to) return pcm;
    const n = pcm.length >> 1;
    const base = this.base;
    const last = base + n - 1; // global index of this frame's last sample
    const sample = (g: number): number => (g < base ? this.prev : pcm.readInt16LE((g - base) * 2));
    const out: number[] = [];
    let p = this.next;
    // Output at p needs x[floor(p)] and, unless p is whole, x[floor(p) + 1].
    for (;;) {
      const i = Math.floor(p);
      const frac = p - i;
      if (i > last || (frac > 0 && i + 1 > last)) break;
      const a = sample(i);
      out.push(frac === 0 ? a : Math.round(a + (sample(i + 1) - a) * frac));
      p = (out.length + this.emitted) * this.step;
    }
    this.emitted += out.length;
    this.next = p;
    if (n > 0) this.prev = pcm.readInt16LE((n - 1) * 2);
    this.base = base + n;
    const buf = Buffer.alloc(out.length * 2);
    for (let k = 0; k < out.length; k++) buf.writeInt16LE(out[k]!, k * 2);
    return buf;
  }

  /** Output samples produced so far. */
  private emitted = 0;
}
