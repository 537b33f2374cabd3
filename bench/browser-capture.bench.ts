/**
 * The capture page beside the recorder (SoX), in the same run and at the same time: frame cadence and
 * end of speech → final through a real service on loopback (simulated engine).
 *
 * Method
 * - Audio: espeak-ng speech followed by silence, CYCLES times. The page path: real headless Chromium with
 *   `--use-fake-device-for-media-stream --use-file-for-fake-audio-capture=FILE.wav` (it loops the file)
 *   opens the real capture page (src/audio/browser/pageServer.ts, served from this process); its
 *   AudioWorklet resamples to 16 kHz and its WebSocket brings 100 ms frames to the page server. The SoX
 *   path: the same audio played by paplay into a private PulseAudio virtual microphone, recorded by
 *   MicrophoneCapture (sox), framed into 100 ms frames as the page server frames the page's.
 * - Each path feeds its frames to its own DictationSession (the extension's client) to the same service.
 * - Frame cadence: the interval between two frames' arrivals in this process (the extension host's
 *   side), minus the nominal 100 ms; p50 and p99 of its absolute value, after the first second of each path.
 * - End of speech → final: each path's own audio clock places the end of each utterance (the last loud
 *   sample, found in the audio as received; the clock is the frames' arrivals less their audio position,
 *   at its earliest). The latency of a final is its arrival less that time. The constant latency of the
 *   capture before this process (the browser's or PulseAudio's buffers) is in neither: no shared clock
 *   with the microphone exists here.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CapturePageServer } from '../src/audio/browser/pageServer';
import { ENGLISH_PAGE_STRINGS } from '../src/audio/browser/pageAssets';
import { MicrophoneCapture } from '../src/audio/capture';
import { PcmFramer } from '../src/audio/framer';
import { DictationSession } from '../src/client/session';
import { startServer } from '../test/helpers/server';
import { silence, speechPcm } from '../test/helpers/speech';
import { startVirtualMic } from '../test/e2e/lib/pulse';
import { waitFor } from '../test/helpers/wait';
import type { BenchSection } from './run';
import { wavOf } from '../src/shared/wavFile';

const CYCLES = Number(process.env.DICTEE_BENCH_BROWSER_CYCLES ?? 12);
const CHROMIUM = process.env.DICTEE_E2E_CHROMIUM ?? '/usr/bin/chromium';
const RATE = 16000;
const FRAME_MS = 100;
const SILENCE_MS = 2500;
/** Frames left out of the cadence at the start of each path (the recorder's and the page's start). */
const WARM_UP_FRAMES = 10;

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

/** What one path received: each frame's arrival (ms, this process's clock) and the finals' arrivals. */
class PathRecord {
  readonly arrivals: number[] = [];
  readonly frames: Buffer[] = [];
  readonly finals: number[] = [];

  frame(f: Buffer): void {
    this.arrivals.push(performance.now());
    this.frames.push(f);
  }

  /** |interval − 100 ms| of successive frames. */
  jitter(): number[] {
    const out: number[] = [];
    for (let i = WARM_UP_FRAMES + 1; i < this.arrivals.length; i++)
      out.push(Math.abs(this.arrivals[i]! - this.arrivals[i - 1]! - FRAME_MS));
    return out;
  }

  /** The audio clock: the arrival of the stream's sample 0, at its earliest (ms). */
  private origin(): number {
    let o = Infinity;
    this.arrivals.forEach((a, k) => (o = Math.min(o, a - (k + 1) * FRAME_MS)));
    return o;
  }

  /**
   * Ends of utterances on the audio clock: the last loud sample (over 5 % of the path's peak, as the
   * browser's gain control may change the level) before at least 1 s of quiet.
   */
  speechEnds(): number[] {
    const pcm = Buffer.concat(this.frames);
    const ends: number[] = [];
    let peak = 0;
    for (let i = 0; i < pcm.length / 2; i++) peak = Math.max(peak, Math.abs(pcm.readInt16LE(i * 2)));
    const loud = peak * 0.05;
    let lastLoud = -1;
    const quiet = RATE;
    for (let i = 0; i < pcm.length / 2; i++) {
      if (Math.abs(pcm.readInt16LE(i * 2)) > loud) {
        lastLoud = i;
      } else if (lastLoud >= 0 && i - lastLoud === quiet) {
        ends.push(this.origin() + ((lastLoud + 1) / RATE) * 1000);
        lastLoud = -1;
      }
    }
    return ends;
  }

  /** For each final, the time since the end of speech before it (one final per utterance: the first after each end). */
  latencies(): number[] {
    const ends = this.speechEnds();
    const out: number[] = [];
    for (let i = 0; i < ends.length; i++) {
      const next = ends[i + 1] ?? Infinity;
      const f = this.finals.find((t) => t >= ends[i]! && t < next);
      if (f !== undefined) out.push(f - ends[i]!);
    }
    return out;
  }
}

async function session(url: string, key: string, rec: PathRecord): Promise<DictationSession> {
  const s = new DictationSession({ serverUrl: url, apiKey: key, config: { language: 'en' } });
  s.on('message', (m) => {
    if (m.type === 'transcript' && m.status === 'final') rec.finals.push(performance.now());
  });
  await s.start();
  return s;
}

export async function run(): Promise<BenchSection> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM} (DICTEE_E2E_CHROMIUM)`);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-bench-page-'));
  const utterance = await speechPcm('The lungs are clear. No pleural effusion is seen.');
  const cycle = Buffer.concat([utterance, silence(SILENCE_MS)]);
  const cycleMs = (cycle.length / 2 / RATE) * 1000;
  const file = path.join(dir, 'cycle.wav');
  writeFileSync(file, wavOf(cycle, RATE));
  const script = path.join(dir, 'script.txt');
  writeFileSync(script, Array.from({ length: CYCLES * 4 }, () => 'The lungs are clear.').join(' '));
  const mic = await startVirtualMic();
  const saved = { PULSE_SERVER: process.env.PULSE_SERVER, XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR };
  Object.assign(process.env, mic.env);
  const server = await startServer({ script });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--autoplay-policy=no-user-gesture-required',
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-audio-capture=${file}`,
    ],
  });
  const pageServer = new CapturePageServer();
  const cap = new MicrophoneCapture({ recorder: 'sox', sampleRate: RATE });
  const pageRec = new PathRecord();
  const soxRec = new PathRecord();
  try {
    const { key } = await server.createKey();
    const pageSession = await session(server.url, key, pageRec);
    const soxSession = await session(server.url, key, soxRec);
    await pageServer.listen();
    pageServer.configure({ mode: 'toggle', key: 'Space', lang: 'en', strings: ENGLISH_PAGE_STRINGS });
    let connected = false;
    pageServer.on('page', (p) => (connected = p === 'connected'));
    pageServer.on('data', (f) => {
      pageRec.frame(f);
      pageSession.sendAudio(f);
    });
    const framer = new PcmFramer();
    cap.on('data', (pcm) => {
      for (const f of framer.push(pcm)) {
        soxRec.frame(f);
        soxSession.sendAudio(f);
      }
    });
    const page = await browser.newPage();
    await page.goto(pageServer.newPageUrl());
    await waitFor(() => connected, 10000, 'the page connected');
    cap.start();
    await waitFor(() => soxRec.frames.length > 0, 5000, 'the recorder records');
    pageServer.start();
    pageServer.setState('recording');
    await waitFor(() => pageRec.frames.length > 0, 10000, 'the page records');
    // Both paths at the same time: the page loops its file; paplay plays the same cycles into the virtual microphone.
    const began = performance.now();
    await mic.playPcm(Buffer.concat(Array.from({ length: CYCLES }, () => cycle)));
    await waitFor(() => performance.now() - began >= CYCLES * cycleMs, CYCLES * cycleMs + 5000, 'the cycles played');
    await pageServer.stop();
    await cap.stop();
    await pageSession.stop();
    await soxSession.stop();
    pageSession.dispose();
    soxSession.dispose();
    await page.close();
  } finally {
    await browser.close();
    await pageServer.close();
    await cap.stop();
    await server.stop();
    await mic.stop();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    rmSync(dir, { recursive: true, force: true });
  }
  const row = (name: string, r: PathRecord): { name: string; j50: number; j99: number; l50: number; l99: number; n: number; u: number } => {
    const j = r.jitter();
    const l = r.latencies();
    return {
      name,
      j50: percentile(j, 50),
      j99: percentile(j, 99),
      l50: percentile(l, 50),
      l99: percentile(l, 99),
      n: j.length,
      u: l.length,
    };
  };
  const p = row('capture page (Chromium, WebSocket)', pageRec);
  const s = row('SoX (PulseAudio virtual microphone) — baseline', soxRec);
  const f = (x: number): string => (Number.isFinite(x) ? x.toFixed(1) : '–');
  const ratio = (a: number, b: number): string => (b > 0 && Number.isFinite(a) ? (a / b).toFixed(2) : '–');
  const markdown = `Frame cadence and end of speech → final, the capture page beside SoX in the same run and at the same time (${CYCLES} utterances of ${(utterance.length / 2 / RATE).toFixed(1)} s, each followed by ${SILENCE_MS / 1000} s of silence; a real service on loopback, simulated engine; each path its own session). Cadence: |interval between two 100 ms frames − 100 ms| where the extension host takes them, after each path's first second. End of speech → final: from the end of each utterance (its last sample over 5 % of the path's peak) on the path's own audio clock (its frames' arrivals less their audio position, at the earliest) to its final (the constant capture latency before the extension host is in neither path: nothing here shares a clock with the microphone). Chromium plays the WAV through \`--use-file-for-fake-audio-capture\`; no real microphone, and no dictation microphone.

| Path | frames | cadence p50 (ms) | cadence p99 (ms) | utterances | end of speech → final p50 (ms) | p99 (ms) |
| --- | ---: | ---: | ---: | ---: | ---: | ---: |
| ${p.name} | ${p.n} | ${f(p.j50)} | ${f(p.j99)} | ${p.u} | ${f(p.l50)} | ${f(p.l99)} |
| ${s.name} | ${s.n} | ${f(s.j50)} | ${f(s.j99)} | ${s.u} | ${f(s.l50)} | ${f(s.l99)} |

- Cadence p99, page / SoX: **${ratio(p.j99, s.j99)}** (goal for the page: p99 < 20 ms; measured ${f(p.j99)} ms).
- End of speech → final p50, page / SoX: **${ratio(p.l50, s.l50)}**; p99: **${ratio(p.l99, s.l99)}** (goal: the page adds at most 10 %, a ratio ≤ 1.10).
`;
  return { title: 'Capture page beside SoX: frame cadence and end of speech → final', markdown };
}
