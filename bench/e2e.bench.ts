/**
 * End-to-end latency: from the service sending a `final` transcript to its text being rendered in the
 * editor of real VS Code (code-server, in headless Chromium), with the packaged extension recording its
 * audio in either of its two ways, in the same run: the recorder (sox, a PulseAudio virtual microphone, as in
 * test/e2e) and the capture page (Chromium's fake microphone playing a WAV file, as in
 * test/e2e/browser-capture.test.ts). code-server is VS Code for the Web, where `dictee.audio.source: auto`
 * records through the capture page: each phase sets the source explicitly (`recorder`, `browser`).
 *
 * Method
 * - The service's words come from a `--script` of unique tokens (`tok001 tok002 …`). The audio is a pattern of
 *   320 ms tones and 80 ms gaps: each tone releases one word of the simulated engine, and with
 *   `engine_endpointing` 0.05 s and `max_buffer_size` 1 each new word makes the previous chunk `final`
 *   (proofreading off), so one `final` of one word every ~400 ms. The recorder's phases play it into the
 *   virtual microphone; the capture page's hear it from Chromium's fake microphone (the same pattern in a
 *   WAV file, which Chromium loops; the run is stopped after the pattern's length).
 * - A transparent loopback proxy between the extension and the service (test/e2e/lib/tap.ts) stamps each
 *   `final` as it forwards it (t0).
 * - In the page, a MutationObserver on the editor's rendered lines stamps the first time each token is in
 *   the committed text of the document (decorations are CSS `::after` content, not text, so provisional
 *   text does not count) (t1). Both clocks are this machine's wall clock (`performance.timeOrigin +
 *   performance.now()` in Node and in Chromium).
 * - Baseline, in the same run, at the same time: a bare `ws` client streams the same audio pattern in real
 *   time through the same proxy to the same service; its latency is the time from the proxy forwarding a
 *   `final` to the client's `message` handler.
 * - The dictation grammar (src/dictation/) off and on: for each source four phases of CHUNKS / 2 finals
 *   each, the recorder's off, on, on, off, then the capture page's on, off, off, on (so that a drift of the
 *   machine's load over the run weighs on both alike), each with its own baseline client, in a document of
 *   its own. The grammar's cost is the ratio of the two.
 * - A path without a final rendered fails the bench (bench/guard.ts): nothing is written.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { startServer } from '../test/helpers/server';
import { silence, tone } from '../test/helpers/speech';
import { startCodeServer } from '../test/e2e/lib/codeServer';
import { killOnExit, stopAll } from '../test/e2e/lib/procs';
import { sleep, waitFor } from '../test/helpers/wait';
import { extensionLogIn } from '../test/e2e/lib/dictate';
import { startVirtualMic, type VirtualMic } from '../test/e2e/lib/pulse';
import { startTap, type Tap } from '../test/e2e/lib/tap';
import { Workbench, launchBrowser } from '../test/e2e/lib/workbench';
import { buildVsix, checkPrerequisites } from '../test/e2e/lib/world';
import { wavOf } from '../src/shared/wavFile';
import { CONFIG, baselineClient, stats, type Stats } from './e2eBaseline';
import type { BenchSection } from './run';
import { section } from './e2eSection';
import { profileHost } from './e2eHostProfile';
import { PAGE_PROBE, committedTimes, logStages, whereTimeGoes, profilePage, readProbe, stagesOf, type FinalStages } from './e2eStages';

/** Finals per two phases (eight phases: the bench stays within 10 minutes); DICTEE_BENCH_E2E_CHUNKS sets another count. */
const CHUNKS = Number(process.env.DICTEE_BENCH_E2E_CHUNKS ?? 160);
const PULSE_LATENCY = process.env.DICTEE_BENCH_PULSE_LATENCY_MSEC;
type Source = 'recorder' | 'browser';
/** Per source, the grammar off, on, on, off (the page's reversed): a drift of the load weighs on all alike. */
const ALL_PHASES: Array<{ source: Source; grammar: boolean }> = [
  ...[false, true, true, false].map((grammar) => ({ source: 'recorder' as const, grammar })),
  ...[true, false, false, true].map((grammar) => ({ source: 'browser' as const, grammar })),
];
/** DICTEE_BENCH_E2E_PHASES (e.g. `recorder:off,browser:on`): only these phases, for a look at one path; nothing is written. */
const ONLY = process.env.DICTEE_BENCH_E2E_PHASES;
const PHASES = ONLY
  ? ONLY.split(',').map((p) => {
      const [source, g] = p.split(':');
      if ((source !== 'recorder' && source !== 'browser') || (g !== 'on' && g !== 'off')) throw new Error(`DICTEE_BENCH_E2E_PHASES: ${p}?`);
      return { source: source as Source, grammar: g === 'on' };
    })
  : ALL_PHASES;
const TONE_MS = 320;
const GAP_MS = 80;

/** The audio of one phase: the tone pattern for `chunks` finals. */
function phasePcm(): Buffer {
  const chunks = Math.ceil(CHUNKS / 2);
  return Buffer.concat([
    silence(200),
    ...Array.from({ length: chunks + 2 }, () => Buffer.concat([tone(TONE_MS, 16000, 220, 8000), silence(GAP_MS)])),
    silence(500),
  ]);
}

interface PhaseResult {
  /** Latency of each final the extension was sent, to its text rendered in the editor (ms). */
  e2e: number[];
  /** Latency of each final to the bare client (ms). */
  base: number[];
  /** Finals sent to the extension but never rendered. */
  missing: number;
  elapsedS: number;
  /** Each rendered final's stages (e2eStages.ts). */
  stages: FinalStages[];
}

interface Bench {
  wb: Workbench;
  mic: VirtualMic;
  tap: Tap;
  key: string;
  userDataDir: string;
  /** Every page the browser opened (the capture pages among them), in order. */
  pages: Page[];
}

async function statusLabel(wb: Workbench): Promise<string> {
  return (
    (await wb
      .statusItem()
      .first()
      .locator('[aria-label]')
      .first()
      .getAttribute('aria-label')
      .catch(() => '')) ?? ''
  );
}

const CAPTURE_PAGE_LOG = 'audio: the capture page in the browser';

/**
 * Starts a run that records from `source` with the grammar as asked. VS Code reads the settings when a run
 * starts: the run's log says whether the grammar was on and whether the capture page was its source, and
 * the run starts again until both are as asked.
 */
async function startRun({ wb, userDataDir, pages }: Bench, source: Source, grammar: boolean): Promise<Page | undefined> {
  const want = grammar ? 'on' : 'off';
  let capture: Page | undefined;
  await waitFor(
    async () => {
      const mark = extensionLogIn(userDataDir).length;
      const pagesBefore = pages.length;
      await wb.runCommand('Dictée: Start Dictation');
      const line = await waitFor(
        () => /dictation grammar (on|off)/.exec(extensionLogIn(userDataDir).slice(mark))?.[1],
        20_000,
        'the run in the log',
      );
      let page: Page | undefined;
      if (source === 'browser') {
        // The capture page opens a moment after the run starts (asExternalUri, openExternal).
        page = await waitFor(() => pages.slice(pagesBefore).find((pg) => pg.url().includes('/d/')), 20_000, 'the capture page').catch(
          () => undefined,
        );
        if (page) {
          await page.waitForLoadState();
          // Chromium may hold the sound back until the user acts in the page.
          await page.click('h1');
          if (await page.isEnabled('#start')) await page.click('#start');
        }
      }
      const viaPage = extensionLogIn(userDataDir).slice(mark).includes(CAPTURE_PAGE_LOG);
      if (line === want && viaPage === (source === 'browser') && (source === 'recorder' || page)) {
        await waitFor(async () => /recording/i.test(await statusLabel(wb)), 30_000, 'recording');
        // Back to the editor, as a person goes back once the page records: Chromium renders a tab in the
        // background late (its frames throttled), which would be measured instead of the extension.
        if (page) await wb.page.bringToFront();
        capture = page;
        return true;
      }
      // VS Code had not read the new settings yet.
      await wb.runCommand('Dictée: Stop Dictation');
      await waitFor(async () => /ready|error/i.test(await statusLabel(wb)), 30_000, 'ready');
      await page?.close().catch(() => undefined);
      return false;
    },
    120_000,
    `a run from the ${source} with the grammar ${want}`,
    500,
  );
  return capture;
}

async function phase(bench: Bench, file: string, source: Source, grammar: boolean): Promise<PhaseResult> {
  const { wb, mic, tap, key } = bench;
  // Quick open may miss its first try on a loaded machine (its tab not there within 15 s): once more.
  await wb.openFile(file).catch(() => wb.openFile(file));
  await wb.gotoLineEnd(3);
  // Stamp the first time each token is in the editor's rendered (committed) text (the grammar writes the
  // first one with a capital), and what the page did meanwhile (e2eStages.ts).
  await wb.page.evaluate(PAGE_PROBE);
  const logMark = extensionLogIn(bench.userDataDir).length;
  const capture = await startRun(bench, source, grammar);
  const stopProfile = await profilePage(wb.page, `${source}-grammar-${grammar ? 'on' : 'off'}`);
  const stopHostProfile = await profileHost(`${source}-grammar-${grammar ? 'on' : 'off'}`);
  const pcm = phasePcm();
  const from = tap.finals.length;
  const startedAt = Date.now();
  const baselineUrl = tap.url.replace('http', 'ws') + '/api/v1/audio/live';
  let baseline: Map<string, number>;
  if (source === 'recorder') {
    await sleep(2500); // the recorder's stream is set up (see docs/testing.md)
    [baseline] = await Promise.all([baselineClient(baselineUrl, key, pcm), mic.playPcm(pcm)]);
    // The last chunk becomes final after `silence_threshold` of silence.
    await sleep(CONFIG.silence_threshold * 1000 + 1000);
  } else {
    // Chromium's fake microphone loops the pattern: the run is stopped after the pattern's length.
    baseline = await baselineClient(baselineUrl, key, pcm);
  }
  const finals = () => tap.finals.slice(from);
  const vscodeFinals = () => finals().filter((f) => f.conn === 'client');
  if (source === 'browser') {
    // The page's own Stop button: typing into the editor's command palette while finals still arrive
    // would put the palette's work (seconds on a loaded machine) in front of them on the page's thread.
    const stopped = await capture
      ?.click('#stop', { timeout: 10_000 })
      .then(() => true)
      .catch(() => false);
    if (!stopped) await wb.runCommand('Dictée: Stop Dictation').catch(() => undefined);
    await sleep(CONFIG.stop_delay * 1000 + 1000);
  }
  // Wait until every final the extension was sent is rendered (or 20 s).
  await waitFor(
    async () => {
      const seen = (await wb.page.evaluate('window.__seen')) as Record<string, number>;
      return vscodeFinals().every((f) => f.text.split(/\s+/).pop()!.toLowerCase() in seen) ? seen : undefined;
    },
    20_000,
    'every final in the editor',
  ).catch(() => undefined);
  await stopProfile();
  await stopHostProfile();
  const probe = await readProbe(wb.page);
  const seen = probe.seen;
  const measured = vscodeFinals(); // finals forwarded up to now; any later one is not counted
  const elapsedS = (Date.now() - startedAt) / 1000;
  await wb.screenshot(`bench-e2e-${source}-grammar-${grammar ? 'on' : 'off'}`);
  await wb.runCommand('Dictée: Stop Dictation').catch(() => undefined);
  await waitFor(async () => /ready|error/i.test(await statusLabel(wb)), 30_000, 'the run to end').catch(() => undefined);
  await capture?.close().catch(() => undefined);
  const e2e: number[] = [];
  const stages: FinalStages[] = [];
  const logged = committedTimes(extensionLogIn(bench.userDataDir).slice(logMark));
  let missing = 0;
  for (const f of measured) {
    const last = (f.text.trim().split(/\s+/).pop() ?? '').toLowerCase();
    const t1 = seen[last];
    if (t1 === undefined) missing++;
    else {
      e2e.push(t1 - f.t);
      stages.push(stagesOf(f.t, t1, logged.get(f.id), probe.long));
    }
  }
  logStages(`${source}, grammar ${grammar ? 'on' : 'off'}`, stages, probe);
  const base: number[] = [];
  for (const f of finals().filter((x) => x.conn === 'baseline')) {
    const t1 = baseline.get(f.id);
    if (t1 !== undefined) base.push(t1 - f.t);
  }
  return { e2e, base, missing, elapsedS, stages };
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
    // What Chromium's fake microphone plays (looped) for the capture page's phases.
    const wav = path.join(tmp, 'pattern.wav');
    writeFileSync(wav, wavOf(phasePcm(), 16000));
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
      settings: { ...settings, 'dictee.audio.source': 'recorder' },
    });
    cleanups.push(() => cs.stop());
    // The capture page's microphone: the tone pattern, looped.
    const browser = await launchBrowser([
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-audio-capture=${wav}`,
    ]);
    cleanups.push(() => browser.close());
    const wb = await Workbench.open(browser, cs.folderUrl);
    const pages: Page[] = [];
    wb.page.context().on('page', (pg) => pages.push(pg));
    await wb.statusItem().first().waitFor({ state: 'visible', timeout: 60_000 });
    await wb.runCommand('Dictée: Set API Key');
    await wb.waitForInputBox();
    await wb.typeIntoInputBox(key);
    await wb.waitForNotification(/API key verified and saved/);
    await wb.clearNotifications();
    // Each phase dictates into a document of its own, from the source it names.
    const phases: Array<{ source: Source; grammar: boolean } & PhaseResult> = [];
    for (const [k, { source, grammar }] of PHASES.entries()) {
      cs.writeSettings({ ...settings, 'dictee.audio.source': source, 'dictee.grammar.enabled': grammar });
      const bench = { wb, mic, tap, key, userDataDir: cs.userDataDir, pages };
      phases.push({ source, grammar, ...(await phase(bench, `bench-${k + 1}.md`, source, grammar)) });
      console.log(
        `  ${source}, grammar ${grammar ? 'on' : 'off'}: ${phases.at(-1)!.e2e.length} finals rendered, ${phases.at(-1)!.missing} missing`,
      );
    }
    const pick = (source: Source, grammar: boolean): number[] =>
      phases.filter((p) => p.source === source && p.grammar === grammar).flatMap((p) => p.e2e);
    const off = stats(pick('recorder', false));
    const on = stats(pick('recorder', true));
    const pageOff = stats(pick('browser', false));
    const pageOn = stats(pick('browser', true));
    const base = stats(phases.flatMap((p) => p.base));
    const missing = (source: Source) => phases.filter((p) => p.source === source).reduce((n, p) => n + p.missing, 0);
    const elapsedS = phases.reduce((n, p) => n + p.elapsedS, 0);
    const where = whereTimeGoes(phases);
    return section({
      pulseLatency: PULSE_LATENCY,
      where,
      off,
      on,
      pageOff,
      pageOn,
      base,
      missingRecorder: missing('recorder'),
      missingPage: missing('browser'),
      elapsedS,
    });
  } finally {
    for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => undefined);
    await stopAll();
    rmSync(tmp, { recursive: true, force: true });
  }
}
