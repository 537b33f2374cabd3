/**
 * The voice-activity detectors (`--vad energy`, the default, and `--vad silero`) on real recorded speech
 * mixed with noise that sox generates, both in the same run:
 *
 * - the six recordings of Debian's pocketsphinx-testdata (five LibriVox sentences and goforward.raw),
 *   after 0.5 s of silence, each followed by a 3 s pause: six sentence ends to find;
 * - clean, then white and pink noise (`sox -n … synth D whitenoise|pinknoise`) over the whole stream,
 *   pauses included, at 20, 10 and 5 dB SNR (the speech's mean power over the recordings against the
 *   noise's), mixed with `sox -m`;
 * - each stream through the service's segmenter (default configuration: engine_endpointing 0.5 s,
 *   silence_threshold 2 s, proofreading on) with the simulated recognizer, 20 ms at a time, in audio time:
 *   the figures depend on the detector alone, not on the load of the machine.
 *
 * Measured: sentence ends found (a sentence end in the 3 s pause after a recording), false splits (a
 * sentence end anywhere else), chunk ends inside a recording (pauses of engine_endpointing heard within a
 * sentence), end of speech (the end of the recording) → its `final`, in audio time, and the CPU cost.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolveConfig } from '../src/protocol';
import { Segmenter } from '../src/server/engine/segmenter';
import { SileroVad, defaultSileroModel, loadVadAddon, verifySileroModel } from '../src/server/engine/sileroVad';
import { SimulatedRecognizer, tokenize } from '../src/server/engine/simulated';
import { VAD_WINDOW_MS, Vad, type VoiceDetector, levelDb, samplesOf } from '../src/server/engine/vad';
import { recordings } from '../test/helpers/recordings';
import { silence } from '../test/helpers/speech';

const RATE = 16000;
const LEAD_MS = 500;
const PAUSE_MS = 3000;
const WINDOW_BYTES = (RATE * VAD_WINDOW_MS * 2) / 1000;
const RAW = ['-t', 'raw', '-r', String(RATE), '-e', 'signed', '-b', '16', '-c', '1'];

interface Span {
  start: number;
  end: number;
}

interface Stream {
  pcm: Buffer;
  /** Where each recording lies, in ms of audio. */
  speech: Span[];
  /** Where its speech ends, in ms of audio (see {@link speechEndMs}). */
  speechEnds: number[];
}

/**
 * Where the speech of a clean recording ends (ms from its start): the end of its last 20 ms window within
 * 35 dB of its loudest one. The recordings fade out before their last sample; this reference depends on
 * neither detector.
 */
function speechEndMs(pcm: Buffer): number {
  const levels: number[] = [];
  for (let off = 0; off + WINDOW_BYTES <= pcm.length; off += WINDOW_BYTES) levels.push(levelDb(pcm, off, WINDOW_BYTES));
  const loudest = Math.max(...levels);
  let last = levels.length - 1;
  while (last > 0 && levels[last]! < loudest - 35) last--;
  return (last + 1) * VAD_WINDOW_MS;
}

function cleanStream(): Stream {
  const parts: Buffer[] = [silence(LEAD_MS)];
  const speech: Span[] = [];
  const speechEnds: number[] = [];
  let at = LEAD_MS;
  for (const r of recordings()) {
    const ms = (r.pcm.length / 2 / RATE) * 1000;
    speech.push({ start: at, end: at + ms });
    speechEnds.push(at + speechEndMs(r.pcm));
    parts.push(r.pcm, silence(PAUSE_MS));
    at += ms + PAUSE_MS;
  }
  return { pcm: Buffer.concat(parts), speech, speechEnds };
}

function meanSquare(pcm: Buffer): number {
  const s = samplesOf(pcm);
  let sum = 0;
  for (let i = 0; i < s.length; i++) sum += s[i]! * s[i]!;
  return sum / s.length;
}

/** The stream with sox's noise of `kind` mixed in at `snrDb`. */
function noisy(clean: Stream, speechPower: number, kind: 'whitenoise' | 'pinknoise', snrDb: number, dir: string): Stream {
  const speechFile = path.join(dir, 'speech.raw');
  const noiseFile = path.join(dir, 'noise.raw');
  const mixed = path.join(dir, 'mixed.raw');
  writeFileSync(speechFile, clean.pcm);
  const seconds = (clean.pcm.length / 2 / RATE).toFixed(3);
  // -R: the same noise at every run.
  execFileSync('sox', ['-R', '-n', ...RAW, noiseFile, 'synth', seconds, kind, 'vol', '0.3']);
  const gain = Math.sqrt(speechPower / 10 ** (snrDb / 10) / meanSquare(readFileSync(noiseFile)));
  // -v on every input: sox -m would otherwise scale each input by 1/2. Clipping at 5 dB is reported, kept.
  execFileSync('sox', ['-m', '-v', '1', ...RAW, speechFile, '-v', gain.toFixed(6), ...RAW, noiseFile, ...RAW, mixed], {
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  return { ...clean, pcm: readFileSync(mixed) };
}

interface Result {
  found: number;
  falseSplits: number;
  /** Sentences closed after 16 final chunks: no pause was heard. */
  forced: number;
  innerChunkEnds: number;
  /** End of each recording → its first final, ms of audio, for the sentence ends found. */
  latencies: number[];
  cpuMs: number;
}

function measure(stream: Stream, detector: () => VoiceDetector): Result {
  const config = resolveConfig({ language: 'en' });
  let windows = 0;
  const inner = detector();
  const counting: VoiceDetector = {
    windowOf: (s, start, n) => {
      windows++;
      return inner.windowOf(s, start, n);
    },
    state: () => inner.state(),
  };
  // Enough words for every voiced window of the stream (one per 300 ms).
  const seg = new Segmenter(config, new SimulatedRecognizer(tokenize('word '.repeat(2000))), { detector: counting });
  /** Sentence ends after a pause of silence_threshold (the finals and the batch.replace of that window). */
  const ends: number[] = [];
  let forced = 0;
  const chunkEnds: number[] = [];
  const c0 = process.cpuUsage();
  for (let off = 0; off < stream.pcm.length; off += WINDOW_BYTES) {
    for (const e of seg.push(stream.pcm.subarray(off, off + WINDOW_BYTES))) {
      const at = windows * VAD_WINDOW_MS;
      // A pause ended the sentence when the segmenter now waits for speech; else 16 finals closed it.
      if (e.type === 'batch.replace') seg.checkpoint().sentenceEnded ? ends.push(at) : forced++;
      else if (e.status === 'interim') chunkEnds.push(at);
    }
  }
  const c = process.cpuUsage(c0);
  const pauses = stream.speech.map((s, i) => ({ start: s.end, end: stream.speech[i + 1]?.start ?? Number.POSITIVE_INFINITY }));
  const inPause = (t: number): number => pauses.findIndex((p) => t > p.start && t <= p.end);
  const firstIn = new Map<number, number>();
  for (const t of ends) if (inPause(t) >= 0 && !firstIn.has(inPause(t))) firstIn.set(inPause(t), t);
  const latencies = [...firstIn].map(([i, t]) => Math.round(t - stream.speechEnds[i]!)).sort((a, b) => a - b);
  return {
    found: firstIn.size,
    forced,
    falseSplits: ends.filter((t) => inPause(t) < 0).length,
    innerChunkEnds: chunkEnds.filter((t) => stream.speech.some((s) => t > s.start && t <= s.end)).length,
    latencies,
    cpuMs: (c.user + c.system) / 1000,
  };
}

const median = (xs: number[]): number => (xs.length ? xs[Math.floor((xs.length - 1) / 2)]! : NaN);

export async function run(): Promise<{ title: string; markdown: string }> {
  const model = verifySileroModel(defaultSileroModel());
  const addon = loadVadAddon();
  const clean = cleanStream();
  const speechPower = meanSquare(Buffer.concat(recordings().map((r) => r.pcm)));
  const audioS = clean.pcm.length / 2 / RATE;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-bench-vad-'));
  const conditions: Array<{ name: string; stream: Stream }> = [{ name: 'clean', stream: clean }];
  try {
    for (const kind of ['whitenoise', 'pinknoise'] as const) {
      for (const snr of [20, 10, 5])
        conditions.push({
          name: `${kind === 'whitenoise' ? 'white' : 'pink'} noise, ${snr} dB SNR`,
          stream: noisy(clean, speechPower, kind, snr, dir),
        });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const rows: string[] = [];
  const totals = { energy: { found: 0, cpu: 0, lat: [] as number[] }, silero: { found: 0, cpu: 0, lat: [] as number[] } };
  for (const c of conditions) {
    const e = measure(c.stream, () => new Vad());
    const s = measure(c.stream, () => new SileroVad(addon, model));
    totals.energy.found += e.found;
    totals.silero.found += s.found;
    totals.energy.cpu += e.cpuMs;
    totals.silero.cpu += s.cpuMs;
    totals.energy.lat.push(...e.latencies);
    totals.silero.lat.push(...s.latencies);
    const lat = (r: Result): string => (r.latencies.length ? `${median(r.latencies)} / ${r.latencies[r.latencies.length - 1]}` : '–');
    const ratio = median(s.latencies) / median(e.latencies);
    rows.push(
      `| ${c.name} | ${e.found} / ${s.found} | ${e.falseSplits} / ${s.falseSplits} | ${e.forced} / ${s.forced} | ${e.innerChunkEnds} / ${s.innerChunkEnds} | ${lat(e)} | ${lat(s)} | ${Number.isFinite(ratio) ? ratio.toFixed(2) : '–'} |`,
    );
  }
  const n = conditions.length * clean.speech.length;
  totals.energy.lat.sort((a, b) => a - b);
  totals.silero.lat.sort((a, b) => a - b);
  const markdown = [
    `Real recorded English (Debian's pocketsphinx-testdata: the ${clean.speech.length} recordings, ${audioS.toFixed(1)} s with the pauses), after ${LEAD_MS} ms of`,
    `silence, each followed by a ${PAUSE_MS / 1000} s pause: ${clean.speech.length} sentence ends to find per stream. Noise from sox (\`sox -R -n … synth whitenoise\` or`,
    "`pinknoise`) over the whole stream, pauses included, scaled so that the speech's mean power over the recordings is 20, 10 or 5 dB",
    "above the noise's, mixed with `sox -m`. Each stream goes through the service's segmenter (default configuration:",
    'engine_endpointing 0.5 s, silence_threshold 2 s, proofreading on; the simulated recognizer) 20 ms at a time, once with each',
    'detector; times are audio time (to a 20 ms window), so they do not depend on the load of the machine. Silero: the pinned',
    '`silero_vad_16k_op15.onnx` run by sherpa-onnx-node, as `--vad silero` runs it.',
    '',
    '- **found**: the pauses after a recording in which a pause of silence_threshold ends a sentence (its finals and',
    '  `batch.replace`); **false splits**: such sentence ends outside those pauses (inside a recording: the sentence cut in two);',
    '  **closed without a pause**: sentences closed because they reached 16 final chunks (no pause was heard);',
    '- **chunk ends inside a recording**: `interim` events while a recording plays (a pause of engine_endpointing heard within',
    '  a sentence; the readers do pause, so the clean energy figure is the reference, not zero);',
    '- **end of speech → final**: from the end of the speech (the last 20 ms of the clean recording within 35 dB of its loudest:',
    '  the recordings fade out) to the sentence end in the pause after it: silence_threshold (2 s) by design, plus the time the',
    '  detector takes to hear the pause; median / max over the ends found.',
    '',
    `**Sentence ends found: energy ${totals.energy.found} / ${n}, Silero ${totals.silero.found} / ${n}. End of speech → final, median over all ends found: energy ${median(totals.energy.lat)} ms, Silero ${median(totals.silero.lat)} ms (ratio ${(median(totals.silero.lat) / median(totals.energy.lat)).toFixed(2)}). CPU: energy ${((totals.energy.cpu / 1000 / (audioS * conditions.length)) * 1000).toFixed(2)} ms, Silero ${((totals.silero.cpu / 1000 / (audioS * conditions.length)) * 1000).toFixed(2)} ms per second of audio, segmenter included (ratio ${(totals.silero.cpu / totals.energy.cpu).toFixed(1)}).**`,
    '',
    '| stream | found, energy / Silero | false splits, energy / Silero | closed without a pause, energy / Silero | chunk ends inside a recording, energy / Silero | end of speech → final ms, energy: median / max | Silero: median / max | ratio of medians, Silero / energy |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
  ].join('\n');
  return { title: 'Voice-activity detection: energy and Silero VAD on recorded speech in noise', markdown };
}
