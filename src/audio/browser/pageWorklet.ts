/**
 * The AudioWorklet module of the capture page, as served (plain JavaScript, no import). It resamples the
 * context's rate (44.1 or 48 kHz, whatever the browser chose) to 16 kHz mono with a windowed-sinc
 * low-pass (so that what lies above 8 kHz does not fold back as noise), converts to s16le and posts
 * 100 ms frames to the page, and the input level with each. While not recording it converts nothing
 * and keeps nothing; told to stop, it posts what it holds and then `drained`.
 */
export const WORKLET_JS = String.raw`'use strict';
const OUT_RATE = 16000;
const FRAME = 1600;
const PHASES = 256;
function sinc(x) { return x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x); }
function blackman(t) { return t <= -1 || t >= 1 ? 0 : 0.42 + 0.5 * Math.cos(Math.PI * t) + 0.08 * Math.cos(2 * Math.PI * t); }
class DicteePcm extends AudioWorkletProcessor {
  constructor() {
    super();
    this.step = sampleRate / OUT_RATE;
    this.fc = 0.5 * Math.min(1, OUT_RATE / sampleRate) * 0.92;
    this.half = Math.ceil(6 / this.fc);
    this.table = this.kernel();
    this.reset();
    this.out = new Int16Array(FRAME);
    this.fill = 0;
    this.recording = false;
    this.peak = 0;
    this.levelCount = 0;
    this.port.onmessage = (e) => {
      if (e.data === 'record') { this.recording = true; this.reset(); }
      else if (e.data === 'stop') { this.recording = false; this.post(); this.reset(); this.port.postMessage({ drained: true }); }
    };
  }
  // The filter's taps for PHASES fractional positions, each row normalised to a gain of 1.
  kernel() {
    const n = 2 * this.half;
    const table = new Float32Array(PHASES * n);
    for (let p = 0; p < PHASES; p++) {
      let sum = 0;
      for (let j = 0; j < n; j++) {
        const d = p / PHASES + this.half - 1 - j;
        const w = 2 * this.fc * sinc(2 * this.fc * d) * blackman(d / this.half);
        table[p * n + j] = w;
        sum += w;
      }
      for (let j = 0; j < n; j++) table[p * n + j] /= sum;
    }
    return table;
  }
  // Silence before the first sample, so that the first output sample is the first input sample.
  reset() { this.buf = new Float32Array(this.half); this.pos = this.half; }
  post() {
    if (this.fill === 0) return;
    const pcm = this.out.slice(0, this.fill);
    this.fill = 0;
    this.port.postMessage({ pcm: pcm.buffer }, [pcm.buffer]);
  }
  sample(t) {
    const c = Math.floor(t);
    const n = 2 * this.half;
    const row = Math.min(PHASES - 1, Math.round((t - c) * PHASES)) * n;
    const first = c - this.half + 1;
    let acc = 0;
    for (let j = 0; j < n; j++) acc += this.buf[first + j] * this.table[row + j];
    return acc;
  }
  process(inputs) {
    const ch = inputs[0] && inputs[0][0];
    if (!ch) return true;
    for (let i = 0; i < ch.length; i++) { const a = Math.abs(ch[i]); if (a > this.peak) this.peak = a; }
    if (++this.levelCount >= 8) { this.port.postMessage({ level: this.peak }); this.peak = 0; this.levelCount = 0; }
    if (!this.recording) return true;
    const joined = new Float32Array(this.buf.length + ch.length);
    joined.set(this.buf);
    joined.set(ch, this.buf.length);
    this.buf = joined;
    while (this.pos + this.half < this.buf.length) {
      const v = Math.max(-1, Math.min(1, this.sample(this.pos)));
      this.out[this.fill++] = v < 0 ? Math.round(v * 32768) : Math.round(v * 32767);
      if (this.fill === FRAME) this.post();
      this.pos += this.step;
    }
    const drop = Math.max(0, Math.floor(this.pos) - this.half);
    if (drop > 0) { this.buf = this.buf.slice(drop); this.pos -= drop; }
    return true;
  }
}
registerProcessor('dictee-pcm', DicteePcm);
`;
