/**
 * The neural part of `npm run bench -- capacity`: Nemotron 3.5 streaming (560 ms) at its REAL size with
 * RANDOM int8 weights (`npm run models -- synth NAME --size real`, cached under .cache/synth-real/ and reused
 * while its lock verifies and the generator's digest is the same), run by the real sherpa-onnx-node addon
 * with the catalogue's own configuration (loadModel + onlineConfig), in this process, as one decoder thread
 * of the service runs it (batcher.ts: every stream's new audio accepted, then one decodeStreams of the ready
 * ones). It measures cost only: the weights are random, no accuracy is claimed.
 *
 * - Real-time factor: one stream, decode time per second of audio, on one thread.
 * - Sessions per thread: n streams each given a 100 ms frame every 100 ms on a real-time clock; latency from
 *   the arrival of the frame that completes a chunk to the end of the decode that consumed it; a step passes
 *   with p99 < 200 ms. The service runs one decoder thread per core, so this is sessions per core.
 */
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { MANIFEST_FILE, generatorDigest, synthModel } from '../src/models/synth';
import { loadSherpa } from '../src/server/engine/sherpa/addon';
import { RECOMMENDED_STREAMING_MODEL } from '../src/server/engine/sherpa/catalogue';
import { loadModel, onlineConfig } from '../src/server/engine/sherpa/load';
import { LOCK_FILE } from '../src/server/engine/sherpa/model';

const P99_LIMIT_MS = 200;
const pct = (s: number[], p: number): number => (s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : NaN);

/** The real-size model: from .cache/synth-real/<generator digest>/ (checked by loadModel), made there once. */
export async function realSizeModel(): Promise<{ dir: string; madeNowS?: number }> {
  const root = path.resolve(__dirname, '..', '.cache', 'synth-real', generatorDigest());
  const dir = path.join(root, RECOMMENDED_STREAMING_MODEL);
  if (existsSync(path.join(dir, LOCK_FILE)) && existsSync(path.join(dir, MANIFEST_FILE))) return { dir };
  const t0 = performance.now();
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  await synthModel(RECOMMENDED_STREAMING_MODEL, tmp, { size: 'real' });
  renameSync(tmp, dir);
  return { dir, madeNowS: (performance.now() - t0) / 1000 };
}

export interface NeuralStep {
  sessions: number;
  chunks: number;
  p50: number;
  p99: number;
  max: number;
  /** CPU of this process over the step, in cores. */
  cores: number;
  load: number;
}

export interface NeuralResult {
  dir: string;
  madeNowS?: number;
  loadS: number;
  /** Decode seconds (wall) per second of audio, one stream, one thread: what the loaded machine gave. */
  rtf: number;
  /** CPU seconds per second of audio, the same run: what a core free of other work would need. */
  cpuRtf: number;
  rtfLoad: number;
  steps: NeuralStep[];
  capacity: number;
}

const toFloat = (b: Buffer): Float32Array => {
  const f = new Float32Array(b.length / 2);
  for (let i = 0; i < f.length; i++) f[i] = b.readInt16LE(i * 2) / 32768;
  return f;
};

export async function neuralCapacity(frames: Buffer[], steps: readonly number[], stepFrames: number): Promise<NeuralResult> {
  const { dir, madeNowS } = await realSizeModel();
  const model = await loadModel(dir, 'model', {});
  const addon = loadSherpa();
  const t0 = performance.now();
  const rec = new addon.OnlineRecognizer(onlineConfig(model));
  const loadS = (performance.now() - t0) / 1000;
  const pcm = frames.map(toFloat);
  // real-time factor: as fast as it goes, one stream
  const rtfLoad = os.loadavg()[0]!;
  const s1 = rec.createStream();
  const r0 = performance.now();
  const rc0 = process.cpuUsage();
  for (const f of pcm) {
    s1.acceptWaveform({ samples: f, sampleRate: 16000 });
    while (rec.isReady(s1)) rec.decode(s1);
  }
  const rtf = (performance.now() - r0) / 1000 / (pcm.length / 10);
  const rc = process.cpuUsage(rc0);
  const cpuRtf = (rc.user + rc.system) / 1e6 / (pcm.length / 10);
  const out: NeuralStep[] = [];
  let capacity = 0;
  for (const n of steps) {
    const streams = Array.from({ length: n }, () => rec.createStream());
    const lat: number[] = [];
    const c0 = process.cpuUsage();
    const w0 = performance.now();
    const load = os.loadavg()[0]!;
    const start = performance.now() + 50;
    for (let i = 0; i < stepFrames; i++) {
      const due = start + i * 100;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      for (const s of streams) s.acceptWaveform({ samples: pcm[i % pcm.length]!, sampleRate: 16000 });
      let ready = streams.filter((s) => rec.isReady(s));
      const completing = ready.length;
      while (ready.length) {
        if (rec.decodeStreams) rec.decodeStreams(ready);
        else for (const s of ready) rec.decode(s);
        ready = ready.filter((s) => rec.isReady(s));
      }
      // Skip the first second (the first chunk needs 650 ms of audio).
      if (i >= 10) for (let k = 0; k < completing; k++) lat.push(performance.now() - due);
    }
    const cpu = process.cpuUsage(c0);
    const wallS = (performance.now() - w0) / 1000;
    lat.sort((a, b) => a - b);
    const step: NeuralStep = {
      sessions: n,
      chunks: lat.length,
      p50: pct(lat, 50),
      p99: pct(lat, 99),
      max: lat[lat.length - 1] ?? NaN,
      cores: (cpu.user + cpu.system) / 1e6 / wallS,
      load,
    };
    out.push(step);
    console.log(`  neural ${n} sessions: p50 ${step.p50.toFixed(0)} ms, p99 ${step.p99.toFixed(0)} ms, load ${load.toFixed(1)}`);
    if (!(step.p99 < P99_LIMIT_MS)) break;
    capacity = n;
  }
  return { dir, ...(madeNowS !== undefined ? { madeNowS } : {}), loadS, rtf, cpuRtf, rtfLoad, steps: out, capacity };
}

/** The section's markdown for the neural part. */
export function neuralMarkdown(r: NeuralResult, cores: number, stepFrames: number): string[] {
  const f1 = (n: number): string => (Number.isFinite(n) ? n.toFixed(1) : '–');
  return [
    `**Neural (Nemotron 3.5 streaming 560 ms at its real size, RANDOM weights): ${r.capacity} real-time sessions per decoder thread, i.e. per core (${(r.capacity * cores).toFixed(0)} per ${cores}-core process); real-time factor ${r.rtf.toFixed(2)} wall, ${r.cpuRtf.toFixed(2)} in CPU seconds per audio second (one stream, one thread, load average ${r.rtfLoad.toFixed(1)} on ${cores} cores). The weights are random: this is what the runtime costs, no accuracy is claimed.**`,
    '',
    'The model is made by `npm run models -- synth ' +
      RECOMMENDED_STREAMING_MODEL +
      ' --size real` (scripts/synth/nemotron_real.py: 24 layers, d_model 1024, 8 heads, feed-forward 4096, attention over 70 cached',
    'frames, convolution kernel 9, 2-layer LSTM 640, joint to 13,088 outputs, 65-frame window / 56-frame shift; every matmul int8 as',
    "onnxruntime's dynamic quantisation writes it; the sources of each number are in the script), cached under `.cache/synth-real/`",
    `(${r.madeNowS !== undefined ? `made in this run in ${r.madeNowS.toFixed(0)} s` : 'reused'}), loaded through the catalogue's configuration code`,
    `by the real sherpa-onnx-node addon (${r.loadS.toFixed(1)} s to load), in the bench process, one thread, as one decoder thread of the`,
    'service drives it (each 100 ms every stream accepts its frame, then one `decodeStreams` of the ready streams). Latency: from',
    "the frame that completes a 560 ms chunk to the end of that chunk's decode (the first second not counted); a step passes with",
    `p99 < ${P99_LIMIT_MS} ms. ${stepFrames / 10} s a step, the LibriVox recording above as audio. The joint's blank is biased up so that,`,
    'as with real speech, most frames emit nothing (a random joint would emit a token at each step). Not measured: the service',
    "around it (WebSocket, segmenter, events), the proofreading pass (Parakeet), the real weights' effect on decoding (token count).",
    '',
    '| sessions | chunks | p50 ms | p99 ms | max ms | process CPU, cores | load avg |',
    '|---:|---:|---:|---:|---:|---:|---:|',
    ...r.steps.map(
      (s) => `| ${s.sessions} | ${s.chunks} | ${f1(s.p50)} | ${f1(s.p99)} | ${f1(s.max)} | ${s.cores.toFixed(2)} | ${f1(s.load)} |`,
    ),
  ];
}
