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
import { startVirtualMic } from '../test/e2e/lib/pulse';
import { now, startTap } from '../test/e2e/lib/tap';
import { launchBrowser, Workbench } from '../test/e2e/lib/workbench';
import { buildVsix, checkPrerequisites } from '../test/e2e/lib/world';
import type { BenchSection } from './run';

const CHUNKS = Number(process.env.DICTEE_BENCH_E2E_CHUNKS ?? 200);
const PULSE_LATENCY = process.env.DICTEE_BENCH_PULSE_LATENCY_MSEC;
const TONE_MS = 320;
const GAP_MS = 80;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

function stats(xs: number[]): { n: number; p50: number; p95: number; p99: number; max: number; mean: number } {
  const s = [...xs].sort((a, b) => a - b);
  return { n: s.length, p50: percentile(s, 50), p95: percentile(s, 95), p99: percentile(s, 99), max: s[s.length - 1] ?? NaN, mean: s.reduce((a, b) => a + b, 0) / (s.length || 1) };
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
    writeFileSync(path.join(workspace, 'bench.md'), '# Bench\n\n');
    const cs = await startCodeServer({
      vsix,
      folder: workspace,
      // DICTEE_BENCH_PULSE_LATENCY_MSEC: another PulseAudio latency than the extension's 50 ms default.
      env: { ...mic.env, ...(PULSE_LATENCY ? { PULSE_LATENCY_MSEC: PULSE_LATENCY } : {}) },
      settings: {
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
      },
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
    await wb.openFile('bench.md');
    await wb.gotoLineEnd(3);

    // Stamp the first time each token is in the editor's rendered (committed) text.
    // (A string, not a function: the bundler's name helpers do not exist in the page.)
    await wb.page.evaluate(`(() => {
      window.__seen = {};
      const root = document.querySelector('.editor-group-container.active .monaco-editor .view-lines');
      new MutationObserver(() => {
        const t = performance.timeOrigin + performance.now();
        for (const m of (root.textContent || '').matchAll(/tok\\d{3}/g)) if (!(m[0] in window.__seen)) window.__seen[m[0]] = t;
      }).observe(root, { childList: true, subtree: true, characterData: true });
    })()`);

    const pcm = Buffer.concat([silence(200), ...Array.from({ length: CHUNKS + 2 }, () => Buffer.concat([tone(TONE_MS, 16000, 220, 8000), silence(GAP_MS)])), silence(500)]);
    await wb.runCommand('Dictée: Start Dictation');
    await waitFor(async () => /recording/i.test((await wb.statusItem().first().locator('[aria-label]').first().getAttribute('aria-label').catch(() => '')) ?? ''), 20_000, 'recording');
    await sleep(2500); // the recorder's stream is set up (see docs/testing.md)
    const startedAt = Date.now();
    const [baseline] = await Promise.all([baselineClient(tap.url.replace('http', 'ws') + '/api/v1/audio/live', key, pcm), mic.playPcm(pcm)]);
    // The last chunk becomes final after `silence_threshold` of silence.
    await sleep(CONFIG.silence_threshold * 1000 + 1000);
    const vscodeFinals = () => tap.finals.filter((f) => f.conn === 'client');
    // Wait until every final the extension was sent is rendered (or 20 s).
    await waitFor(
      async () => {
        const seen = (await wb.page.evaluate('window.__seen')) as Record<string, number>;
        return vscodeFinals().every((f) => f.text.split(/\s+/).pop()! in seen) ? seen : undefined;
      },
      20_000,
      'every final in the editor',
    ).catch(() => undefined);
    const seen = (await wb.page.evaluate('window.__seen')) as Record<string, number>;
    const measured = vscodeFinals(); // finals forwarded up to now; any later one is not counted
    const elapsedS = (Date.now() - startedAt) / 1000;
    await wb.screenshot('bench-e2e');
    await wb.runCommand('Dictée: Stop Dictation').catch(() => undefined);
    await sleep(1500);

    const e2e: number[] = [];
    let missing = 0;
    for (const f of measured) {
      const last = f.text.trim().split(/\s+/).pop() ?? '';
      const t1 = seen[last];
      if (t1 === undefined) missing++;
      else e2e.push(t1 - f.t);
    }
    const base: number[] = [];
    for (const f of tap.finals.filter((x) => x.conn === 'baseline')) {
      const t1 = baseline.get(f.id);
      if (t1 !== undefined) base.push(t1 - f.t);
    }
    const a = stats(e2e);
    const b = stats(base);
    const fmt = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');
    const ratio = (x: number, y: number) => (y > 0 ? (x / y).toFixed(0) : 'n/a');
    const markdown = `
Time from the service's \`final\` (stamped by a loopback proxy as it forwards it) to the chunk's text being
rendered in the editor of real VS Code (code-server 4.100.3 / VS Code 1.100, headless Chromium), with the
packaged extension recording a PulseAudio virtual microphone through sox. Baseline, in the same run and at
the same time: the same proxy to a bare \`ws\` client streaming the same audio. One-word \`final\`s about
every 400 ms of audio (320 ms tone, 80 ms gap; \`engine_endpointing\` 0.05 s, \`max_buffer_size\` 1,
proofreading off); ${fmt(elapsedS)} s of audio. The editor is read by a MutationObserver on its rendered lines
(provisional text is a decoration, not text, so it does not count).

| path | finals | p50 (ms) | p95 (ms) | p99 (ms) | max (ms) | mean (ms) |
|---|---:|---:|---:|---:|---:|---:|
| service → extension → editor (rendered) | ${a.n} | ${fmt(a.p50)} | ${fmt(a.p95)} | ${fmt(a.p99)} | ${fmt(a.max)} | ${fmt(a.mean)} |
| baseline: service → bare ws client | ${b.n} | ${fmt(b.p50)} | ${fmt(b.p95)} | ${fmt(b.p99)} | ${fmt(b.max)} | ${fmt(b.mean)} |
| ratio | | ${ratio(a.p50, b.p50)}× | ${ratio(a.p95, b.p95)}× | ${ratio(a.p99, b.p99)}× | | |

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
