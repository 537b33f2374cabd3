/**
 * Streaming downsampler for 16-bit mono PCM by a whole factor (16 kHz → 8 kHz for the 8 kHz French
 * pocketsphinx model): a windowed-sinc low-pass filter, then one sample kept in `factor`. Dropping
 * samples without the filter folds everything above the new Nyquist frequency back into the band the
 * model listens to (a 6 kHz hiss becomes a 2 kHz tone at 8 kHz); the linear interpolation of
 * remote/resample.ts only goes up for that reason.
 *
 * The filter: {@link TAPS} taps, a Blackman window (stop band below −70 dB), cut-off at
 * {@link CUTOFF} of the new Nyquist frequency (3.6 kHz at 8 kHz: pocketsphinx's French front end
 * stops at 3.7 kHz). It is causal: the output lags the input by (TAPS − 1) / 2 input samples
 * (1.9 ms at 16 kHz), which no word time notices. Stateful across frames: the samples are the same
 * whether the audio comes in one piece or in many, and after N input samples in all, exactly
 * floor(N / factor) have come out.
 */

/** Taps of the low-pass filter (odd: a whole-sample delay). */
const TAPS = 63;
/** The pass band's edge as a fraction of the output's Nyquist frequency (the −6 dB point). */
const CUTOFF = 0.9;

/** The filter's coefficients for `factor`, summing to 1 (a constant signal keeps its level). */
function lowPass(factor: number): Float64Array {
  const h = new Float64Array(TAPS);
  const fc = CUTOFF / (2 * factor); // cycles per input sample
  const mid = (TAPS - 1) / 2;
  let sum = 0;
  for (let i = 0; i < TAPS; i++) {
    const x = i - mid;
    const sinc = x === 0 ? 2 * fc : Math.sin(2 * Math.PI * fc * x) / (Math.PI * x);
    const w = 0.42 - 0.5 * Math.cos((2 * Math.PI * i) / (TAPS - 1)) + 0.08 * Math.cos((4 * Math.PI * i) / (TAPS - 1));
    h[i] = sinc * w;
    sum += h[i]!;
  }
  for (let i = 0; i < TAPS; i++) h[i]! /= sum;
  return h;
}

export class Downsampler {
  readonly factor: number;
  private readonly h: Float64Array;
  /** The last TAPS − 1 input samples, oldest first (zeros before the stream starts). */
  private readonly history = new Float64Array(TAPS - 1);
  /** Index, in the next frame, of the next input sample kept (0 ≤ phase < factor). */
  private phase: number;

  constructor(
    readonly from: number,
    readonly to: number,
  ) {
    if (!(Number.isInteger(from) && Number.isInteger(to) && from > 0 && to > 0)) {
      throw new RangeError(`sample rates must be positive whole numbers (${from} → ${to} Hz)`);
    }
    if (from % to !== 0) throw new RangeError(`${from} Hz cannot be brought to ${to} Hz by keeping one sample in a whole number`);
    this.factor = from / to;
    this.h = lowPass(this.factor);
    // Samples factor − 1, 2·factor − 1, … are kept: N samples in give floor(N / factor) out.
    this.phase = this.factor - 1;
  }

  /** Downsamples the next samples. */
  push(input: Int16Array): Int16Array {
    if (this.factor === 1) return input;
    const n = input.length;
    const hist = this.history;
    const keep = TAPS - 1;
    // The history, then this frame: input sample i is x[keep + i].
    const x = new Float64Array(keep + n);
    x.set(hist);
    x.set(input, keep);
    const count = n > this.phase ? Math.ceil((n - this.phase) / this.factor) : 0;
    const out = new Int16Array(count);
    for (let k = 0, i = this.phase; i < n; k++, i += this.factor) {
      // y[i] = Σ h[j] · x[i − j]
      let acc = 0;
      for (let j = 0; j < TAPS; j++) acc += this.h[j]! * x[keep + i - j]!;
      out[k] = Math.max(-32768, Math.min(32767, Math.round(acc)));
    }
    this.phase = (((this.phase - n) % this.factor) + this.factor) % this.factor;
    hist.set(x.subarray(n));
    return out;
  }
}
