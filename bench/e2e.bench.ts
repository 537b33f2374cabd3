/**
 * End-to-end latency: from the service sending a `final` transcript to its text being rendered in the
 * editor of real VS Code (code-server, in headless Chromium), with the packaged extension recording a
 * PulseAudio virtual microphone through sox, as in test/e2e.
 *
 * Method
 * - The service's words come from a `--script` of unique tokens (`tok001 tok002 …`). The audio played into
 *   the virtual microphone is a pattern of 320 ms tones and 80 ms gaps: each tone releases one word of the
 *   simulated engine, and with `engine_endpointing` 0.05 s and `max_buffer_size` 1 each new word makes the
 *   previous chunk `final` (proofreading off), so one `final` of one word every ~400 ms.
 * - A transparent loopback proxy between the extension and the service (test/e2e/lib/tap.ts) stamps each
 *   `final` as it forwards it (t0).
 * - In the page, a MutationObserver on the editor's rendered lines stamps the first time each token is in
 *   the committed text of the document (decorations are CSS `::after` content, not text, so provisional
 *   text does not count) (t1). Both clocks are this machine's wall clock (`performance.timeOrigin +
 *   performance.now()` in Node and in Chromium).
 * - Baseline, in the same run, at the same time: a bare `ws` client streams the same audio pattern in real
 *   time through the same proxy to the same service; its latency is the time from the proxy forwarding a
 *   `final` to the client's `message` handler.
 * - The dictation grammar (src/dictation/) off and on, in the same run: four phases of CHUNKS / 2 finals
 *   each, off, on, on, off (so that a drift of the machine's load over the run weighs on both alike), each
 *   with its own baseline client, in a document of its own. The grammar's cost is the ratio of the two.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { startServer } from '../test/helpers/server';
import { silence, tone } from '../test/helpers/speech';
import { startCodeServer } from '../test/e2e/lib/codeServer';
import { killOnExit, stopAll } from '../test/e2e/lib/procs';
import { sleep, waitFor } from '../test/helpers/wait';
import { extensionLogIn } from '../test/e2e/lib/dictate';
import { startVirtualMic, type VirtualMic } from '../test/e2e/lib/pulse';
import { now, startTap, type Tap } from '../test/e2e/lib/tap';
import { launchBrowser, Workbench } from '../test/e2e/lib/workbench';
import { buildVsix, checkPrerequisites } from '../test/e2e/lib/world';
import type { BenchSection } from './run';

const CHUNKS = Number(process.env.DICTEE_BENCH_E2E_CHUNKS ?? 200);
const PULSE_LATENCY = process.env.DICTEE_BENCH_PULSE_LATENCY_MSEC;
/** The dictation grammar off, on, on, off: a drift of the machine's load over the run weighs on both alike. */
const PHASES = [false, true, true, false];
const TONE_MS = 320;
const GAP_MS = 80;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

function stats(xs: number[]): { n: number; p50: number; p95: number; p99: number; max: number; mean: number } {
  const s = [...xs].sort((a, b) => a - b);
  return {
    n: s.length,
    p50: percentile(s, 50),
    p95: percentile(s, 95),
    p99: percentile(s, 99),
    max: s[s.length - 1] ?? NaN,
    mean: s.reduce((a, b) => a + b, 0) / (s.length || 1),
  };
}

const CONFIG = {
  language: 'en',
  specialty: 'general',
  sample_rate: 16000,
  encoding: 'pcm_s16le',
  engine_endpointing: 0.05,
  silence_threshold: 2,
  max_buffer_size: 1,
  flush_timeout: 10,
  enable_final_proofreading: false,
  stop_delay: 0.5,
};

/** The bare client: streams `pcm` in real time (100 ms frames) and stamps each `final` it receives. */
async function baselineClient(wsUrl: string, key: string, pcm: Buffer): Promise<Map<string, number>> {
  const got = new Map<string, number>();
  const ws = new WebSocket(wsUrl, { headers: { authorization: `Bearer ${key}`, 'x-dictee-tap': 'baseline' } });
  ws.on('message', (data, isBinary) => {
    if (isBinary) return;
    const t = now();
    const m = JSON.parse(data.toString()) as { type: string; status?: string; id?: string };
    if (m.type === 'transcript' && m.status === 'final' && m.id) got.set(m.id, t);
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const configured = new Promise<void>((resolve) =>
    ws.on('message', (d, bin) => {
      if (!bin && (JSON.parse(d.toString()) as { type: string }).type === 'configured') resolve();
    }),
  );
  ws.send(JSON.stringify({ type: 'configure', config: CONFIG }));
  await configured;
  ws.send(JSON.stringify({ type: 'control', action: 'start' }));
  const start = Date.now();
  for (let off = 0, i = 0; off < pcm.length; off += 3200, i++) {
    ws.send(pcm.subarray(off, Math.min(off + 3200, pcm.length)));
    const wait = start + (i + 1) * 100 - Date.now();
    if (wait > 0) await sleep(wait);
  }
  await sleep(1500);
  const stopped = new Promise<void>((resolve) => ws.once('close', () => resolve()));
  ws.send(JSON.stringify({ type: 'control', action: 'stop' }));
  await Promise.race([stopped, sleep(5000)]);
  ws.close();
  return got;
}

interface PhaseResult {
  /** Latency of each final the extension was sent, to its text rendered in the editor (ms). */
  e2e: number[];
  /** Latency of each final to the bare client (ms). */
  base: number[];
  /** Finals sent to the extension but never rendered. */
  missing: number;
  elapsedS: number;
}

/**
 * One phase: dictation into `file` with the grammar on or off, the baseline client streaming the same
 * audio at the same time. The grammar's setting is read when a run starts: the run's first log line says
 * whether it was on, and the run starts again until it is as asked.
 */
interface Bench {
  wb: Workbench;
  mic: VirtualMic;
  tap: Tap;
  key: string;
  userDataDir: string;
}

async function phase({ wb, mic, tap, key, userDataDir }: Bench, file: string, grammar: boolean): Promise<PhaseResult> {
  await wb.openFile(file);
  await wb.gotoLineEnd(3);
  // Stamp the first time each token is in the editor's rendered (committed) text (the grammar writes the
  // first one with a capital). A string, not a function: the bundler's name helpers do not exist in the page.
  await wb.page.evaluate(`(() => {
    window.__seen = {};
    const root = document.querySelector('.editor-group-container.active .monaco-editor .view-lines');
    new MutationObserver(() => {
      const t = performance.timeOrigin + performance.now();
      for (const m of (root.textContent || '').matchAll(/tok\\d{3}/gi)) { const k = m[0].toLowerCase(); if (!(k in window.__seen)) window.__seen[k] = t; }
    }).observe(root, { childList: true, subtree: true, characterData: true });
  })()`);
  const want = grammar ? 'on' : 'off';
  await waitFor(
    async () => {
      const mark = extensionLogIn(userDataDir).length;
      await wb.runCommand('Dictée: Start Dictation');
      await waitFor(
        async () =>
          /recording/i.test(
            (await wb
              .statusItem()
              .first()
              .locator('[aria-label]')
              .first()
              .getAttribute('aria-label')
              .catch(() => '')) ?? '',
          ),
        20_000,
        'recording',
      );
      const line = await waitFor(
        () => /dictation grammar (on|off)/.exec(extensionLogIn(userDataDir).slice(mark))?.[1],
        10_000,
        'the run in the log',
      );
      if (line === want) return true;
      // VS Code had not read the new setting yet.
      await wb.runCommand('Dictée: Stop Dictation');
      await waitFor(
        async () =>
          /ready/i.test(
            (await wb
              .statusItem()
              .first()
              .locator('[aria-label]')
              .first()
              .getAttribute('aria-label')
              .catch(() => '')) ?? '',
          ),
        20_000,
        'ready',
      );
      return false;
    },
    60_000,
    `a run with the grammar ${want}`,
    500,
  );
  const chunks = Math.ceil(CHUNKS / 2);
  const pcm = Buffer.concat([
    silence(200),
    ...Array.from({ length: chunks + 2 }, () => Buffer.concat([tone(TONE_MS, 16000, 220, 8000), silence(GAP_MS)])),
    silence(500),
  ]);
  await sleep(2500); // the recorder's stream is set up (see docs/testing.md)
  const from = tap.finals.length;
  const startedAt = Date.now();
  const [baseline] = await Promise.all([baselineClient(tap.url.replace('http', 'ws') + '/api/v1/audio/live', key, pcm), mic.playPcm(pcm)]);
  // The last chunk becomes final after `silence_threshold` of silence.
  await sleep(CONFIG.silence_threshold * 1000 + 1000);
  const finals = () => tap.finals.slice(from);
  const vscodeFinals = () => finals().filter((f) => f.conn === 'client');
  // Wait until every final the extension was sent is rendered (or 20 s).
  await waitFor(
    async () => {
      const seen = (await wb.page.evaluate('window.__seen')) as Record<string, number>;
      return vscodeFinals().every((f) => f.text.split(/\s+/).pop()!.toLowerCase() in seen) ? seen : undefined;
    },
    20_000,
    'every final in the editor',
  ).catch(() => undefined);
  const seen = (await wb.page.evaluate('window.__seen')) as Record<string, number>;
  const measured = vscodeFinals(); // finals forwarded up to now; any later one is not counted
  const elapsedS = (Date.now() - startedAt) / 1000;
  await wb.screenshot(`bench-e2e-grammar-${want}`);
  await wb.runCommand('Dictée: Stop Dictation').catch(() => undefined);
  await waitFor(
    async () =>
      /ready|error/i.test(
        (await wb
          .statusItem()
          .first()
          .locator('[aria-label]')
          .first()
          .getAttribute('aria-label')
          .catch(() => '')) ?? '',
      ),
    30_000,
    'the run to end',
  ).catch(() => undefined);
  const e2e: number[] = [];
  let missing = 0;
  for (const f of measured) {
    const last = (f.text.trim().split(/\s+/).pop() ?? '').toLowerCase();
    const t1 = seen[last];
    if (t1 === undefined) missing++;
    else e2e.push(t1 - f.t);
  }
  const base: number[] = [];
  for (const f of finals().filter((x) => x.conn === 'baseline')) {
    const t1 = baseline.get(f.id);
    if (t1 !== undefined) base.push(t1 - f.t);
  }
  return { e2e, base, missing, elapsedS };
}

export async function run(): Promise<BenchSection> {
  checkPrerequisites();
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'dictee-bench-e2e-'));
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  try {
    const vsix = buildVsix();
    const tokens = Array.from({ length: CHUNKS + 40 }, (_, i) => `tok${String(i + 1).padStart(3, '0')}`);
    const script = path.join(tmp, 'script.txt');
    writeFileSync(script, tokens.join(' '));
    const mic = await startVirtualMic();
    cleanups.push(() => mic.stop());
    const service = await startServer({ script });
    const forget = killOnExit(() => service.process().kill('SIGKILL'));
    cleanups.push(async () => {
      await service.kill();
      forget();
      rmSync(service.dataDir, { recursive: true, force: true });
    });
    const tap = await startTap(service.url);
    cleanups.push(() => tap.close());
    const key = (await service.createKey({ name: 'bench', type: 'personal', environment: 'test', permissions: ['read', 'write'] })).key;
    const workspace = path.join(tmp, 'workspace');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(workspace);
    // One document per phase, there from the start (quick open finds them).
    for (const k of PHASES.keys()) writeFileSync(path.join(workspace, `bench-${k + 1}.md`), '# Bench\n\n');
    const settings = {
      'dictee.serverUrl': tap.url,
      'dictee.language': 'en',
      'dictee.specialty': 'general',
      'dictee.advanced.engineEndpointing': CONFIG.engine_endpointing,
      'dictee.advanced.silenceThreshold': CONFIG.silence_threshold,
      'dictee.advanced.maxBufferSize': CONFIG.max_buffer_size,
      'dictee.advanced.flushTimeout': CONFIG.flush_timeout,
      'dictee.advanced.enableFinalProofreading': false,
      'dictee.advanced.stopDelay': CONFIG.stop_delay,
      'editor.wordWrap': 'on',
      '[markdown]': { 'editor.wordWrap': 'on' },
    };
    const cs = await startCodeServer({
      vsix,
      folder: workspace,
      // DICTEE_BENCH_PULSE_LATENCY_MSEC: another PulseAudio latency than the extension's 50 ms default.
      env: { ...mic.env, ...(PULSE_LATENCY ? { PULSE_LATENCY_MSEC: PULSE_LATENCY } : {}) },
      settings,
    });
    cleanups.push(() => cs.stop());
    const browser = await launchBrowser();
    cleanups.push(() => browser.close());
    const wb = await Workbench.open(browser, cs.folderUrl);
    await wb.statusItem().first().waitFor({ state: 'visible', timeout: 60_000 });
    await wb.runCommand('Dictée: Set API Key');
    await wb.waitForInputBox();
    await wb.typeIntoInputBox(key);
    await wb.waitForNotification(/API key verified and saved/);
    await wb.clearNotifications();
    // Phases: the grammar off, on, on, off. Each dictates into a document of its own.
    const phases: Array<{ grammar: boolean } & PhaseResult> = [];
    for (const [k, grammar] of PHASES.entries()) {
      const file = `bench-${k + 1}.md`;
      cs.writeSettings({ ...settings, 'dictee.grammar.enabled': grammar });
      phases.push({ grammar, ...(await phase({ wb, mic, tap, key, userDataDir: cs.userDataDir }, file, grammar)) });
    }
    const pick = (grammar: boolean, f: (p: PhaseResult) => number[]): number[] => phases.filter((p) => p.grammar === grammar).flatMap(f);
    const off = stats(pick(false, (p) => p.e2e));
    const on = stats(pick(true, (p) => p.e2e));
    const base = stats(pick(false, (p) => p.base).concat(pick(true, (p) => p.base)));
    const missing = phases.reduce((n, p) => n + p.missing, 0);
    const elapsedS = phases.reduce((n, p) => n + p.elapsedS, 0);
    const fmt = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');
    const ratio = (x: number, y: number) => (y > 0 ? (x / y).toFixed(0) : 'n/a');
    const ratio2 = (x: number, y: number) => (y > 0 ? (x / y).toFixed(2) : 'n/a');
    const row = (name: string, x: ReturnType<typeof stats>) =>
      `| ${name} | ${x.n} | ${fmt(x.p50)} | ${fmt(x.p95)} | ${fmt(x.p99)} | ${fmt(x.max)} | ${fmt(x.mean)} |`;
    const markdown = `
Time from the service's \`final\` (stamped by a loopback proxy as it forwards it) to the chunk's text being
rendered in the editor of real VS Code (code-server 4.100.3 / VS Code 1.100, headless Chromium), with the
packaged extension recording a PulseAudio virtual microphone through sox. Baseline, in the same run and at
the same time: the same proxy to a bare \`ws\` client streaming the same audio. One-word \`final\`s about
every 400 ms of audio (320 ms tone, 80 ms gap; \`engine_endpointing\` 0.05 s, \`max_buffer_size\` 1,
proofreading off); ${fmt(elapsedS)} s of audio in four phases, the dictation grammar off, on, on, off
(\`dictee.grammar.enabled\`), each into a document of its own. The editor is read by a MutationObserver on
its rendered lines (provisional text is a decoration, not text, so it does not count).

| path | finals | p50 (ms) | p95 (ms) | p99 (ms) | max (ms) | mean (ms) |
|---|---:|---:|---:|---:|---:|---:|
${row('service → extension → editor, grammar off', off)}
${row('service → extension → editor, grammar on', on)}
${row('baseline: service → bare ws client', base)}
| grammar on / off | | ${ratio2(on.p50, off.p50)} | ${ratio2(on.p95, off.p95)} | ${ratio2(on.p99, off.p99)} | | ${ratio2(on.mean, off.mean)} |
| grammar on / baseline | | ${ratio(on.p50, base.p50)}× | ${ratio(on.p95, base.p95)}× | ${ratio(on.p99, base.p99)}× | | |

Finals sent to the extension but never rendered within 20 s: ${missing}.
${
  PULSE_LATENCY
    ? `Run with PULSE_LATENCY_MSEC=${PULSE_LATENCY} for the recorder: audio reaches the service steadily.`
    : "The recorder asks PulseAudio for 50 ms fragments (`PULSE_LATENCY_MSEC=50`, the extension's default), so audio\nreaches the service steadily; `DICTEE_BENCH_PULSE_LATENCY_MSEC` sets another value for the run."
}
`;
    return { title: 'End-to-end: service final → text in the VS Code editor', markdown };
  } finally {
    for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => undefined);
    await stopAll();
    rmSync(tmp, { recursive: true, force: true });
  }
}
