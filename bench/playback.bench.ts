/**
 * Play Back in real VS Code (code-server, headless Chromium), with the packaged extension recording a
 * PulseAudio virtual microphone through sox, as in test/e2e: how long the user waits from the command to
 * the first sound, and whether what plays is the audio of the words under the cursor.
 *
 * Method
 * - Five LibriVox recordings (Debian's pocketsphinx-testdata), 1.5 s of silence after each, are played
 *   into the virtual microphone; the simulated engine's script is their reference transcripts, one
 *   utterance per line, with word times (`details`). The sentences are the service's proofread ones.
 * - A transparent loopback proxy between the extension and the service (test/e2e/lib/tap.ts) keeps the
 *   audio the extension sent and the place of each proofread sentence (`batch.replace`) in it.
 * - Then Play Back runs PLAYS times, on each sentence in turn, the cursor inside it: every other time
 *   with the player closed first (it must open: the case the user meets first), else with the player
 *   open (the baseline, in the same run: the same command, the same audio, no webview to create).
 * - Command → first sound: the player stamps the moment its audio starts (its page's clock) and reports
 *   it with the time the command was run (the extension host's clock; both are this machine's wall
 *   clock). The extension logs it; the bench reads the log. The time until the extension hears of it
 *   (one more message back) is reported beside it.
 * - Where the time goes when the player opens: the page's navigation, its script, the sentence in it, read
 *   from the page (the same clock).
 * - What plays: the samples the player starts (its AudioBuffer, read from its page) are cross-correlated
 *   with the audio the extension sent to the service, at every lag within ±SEARCH_MS of where the service
 *   placed the sentence (its `batch.replace`'s `start_ms`); the peak's normalised correlation, its lag and the difference
 *   of length are reported: above MIN_CORRELATION, within MAX_LAG_MS.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Frame } from 'playwright-core';
import { bestMatch, samplesOf } from '../test/helpers/correlation';
import { recordings, recordingsAvailable } from '../test/helpers/recordings';
import { silence } from '../test/helpers/speech';
import { startServer } from '../test/helpers/server';
import { waitFor } from '../test/helpers/wait';
import { startCodeServer } from '../test/e2e/lib/codeServer';
import { extensionLogIn, settled } from '../test/e2e/lib/dictate';
import { killOnExit, stopAll } from '../test/e2e/lib/procs';
import { startVirtualMic } from '../test/e2e/lib/pulse';
import { startTap } from '../test/e2e/lib/tap';
import { launchBrowser, Workbench } from '../test/e2e/lib/workbench';
import { buildVsix, checkPrerequisites, dicteeSettings } from '../test/e2e/lib/world';
import type { BenchSection } from './run';

const PLAYS = Number(process.env.DICTEE_BENCH_PLAYBACK_PLAYS ?? 20);
const RATE = 16000;
const SEARCH_MS = 500;
const MAX_LAG_MS = 50;
const MIN_CORRELATION = 0.8;
const LINE = 3;
const FIRST_SOUND = /play back: first sound (\d+) ms after the command(?: \(heard (\d+) ms after\))?/g;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function stats(xs: number[]): { n: number; p50: number; p95: number; max: number } {
  const s = [...xs].sort((a, b) => a - b);
  return { n: s.length, p50: percentile(s, 50), p95: percentile(s, 95), max: s[s.length - 1] ?? NaN };
}

/** The frame of the Play Back player, if it is open. */
async function playerFrame(wb: Workbench): Promise<Frame | undefined> {
  for (const frame of wb.page.frames()) {
    const found = await frame.evaluate(`!!document.getElementById('words') && typeof acquireVsCodeApi === 'function'`).catch(() => false);
    if (found) return frame;
  }
  return undefined;
}

/** The samples the player plays: its AudioBuffer. A string, not a function: the bundler's helpers do not exist there. */
const PLAYED_SAMPLES = `typeof buffer === 'undefined' || !buffer ? null : { rate: buffer.sampleRate, samples: Array.from(buffer.getChannelData(0)) }`;

/** The player's page: when its navigation started, its script ran, the sentence arrived (this machine's clock). */
const PAGE_TIMING = `typeof timing === 'undefined' ? null : { ...timing, navigatedAt: performance.timeOrigin }`;

interface PageTiming {
  navigatedAt: number;
  loadedAt: number;
  contextAt: number;
  askedAt: number;
  receivedAt: number;
  firstSoundAt: number;
}

interface Play {
  opened: boolean;
  /** Command → the page's navigation, its script, the sentence in it (ms), when the player opens. */
  steps?: { navigated: number; loaded: number; context: number; received: number };
  firstSoundMs: number;
  heardMs: number | undefined;
  correlation: number;
  lagMs: number;
  lengthErrorMs: number;
}

export async function run(): Promise<BenchSection> {
  checkPrerequisites();
  if (!recordingsAvailable()) throw new Error('the playback bench needs the LibriVox recordings of pocketsphinx-testdata (Debian package)');
  const recs = recordings().filter((r) => r.name !== 'goforward');
  const sentencesText = recs.map((r) => r.reference.charAt(0).toUpperCase() + r.reference.slice(1) + '.');
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'dictee-bench-playback-'));
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  try {
    const vsix = buildVsix();
    const script = path.join(tmp, 'script.txt');
    writeFileSync(script, ['#utterances', ...sentencesText].join('\n'));
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
    writeFileSync(path.join(workspace, 'playback.md'), '# Play back\n\n');
    const cs = await startCodeServer({
      vsix,
      folder: workspace,
      env: mic.env,
      settings: dicteeSettings(tap.url, {
        'dictee.proofreading.threshold': 0.6,
        'dictee.advanced.engineEndpointing': 0.6,
        'dictee.advanced.silenceThreshold': 1,
        // One line of text per line of the document: the sentences are found in it.
        'editor.wordWrap': 'off',
        '[markdown]': { 'editor.wordWrap': 'off' },
      }),
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

    // Dictation: the five recordings, once the recorder's audio reaches the service.
    await wb.openFile('playback.md');
    await wb.gotoLineEnd(LINE);
    const conns = tap.audio.length;
    await wb.runCommand('Dictée: Start Dictation');
    const sent = await waitFor(
      () => tap.audio.slice(conns).find((a) => a.conn === 'client' && a.frames.length > 0),
      30_000,
      "the recorder's audio to reach the service",
      50,
    );
    const speech = Buffer.concat([silence(300), ...recs.flatMap((r) => [r.pcm, silence(1500)])]);
    await mic.playPcm(speech);
    const lastWords = sentencesText[sentencesText.length - 1]!.split(' ').slice(-2).join(' ');
    await waitFor(async () => (await wb.editorLines()).join('\n').includes(lastWords), 60_000, 'the last sentence in the editor', 200);
    await wb.runCommand('Dictée: Stop Dictation');
    // The sentences, as the service placed them: its proofread sentences (`batch.replace`), once they stop
    // coming (the simulated engine gives a recording's pauses their own utterances: a sentence is not always
    // a recording).
    const placed = () =>
      tap.sentences
        .filter((x) => x.conn === 'client' && x.startMs !== undefined && x.endMs !== undefined)
        .map((x) => ({ startMs: x.startMs!, endMs: x.endMs!, head: x.text.trim().split(/\s+/).slice(0, 4).join(' ') }));
    await settled(async () => placed().length);
    const sentences = placed();
    if (sentences.length < 2) throw new Error(`the proofread sentences: ${JSON.stringify(tap.sentences)}`);
    const sentPcm = samplesOf(Buffer.concat(sent.frames));
    const line = (await wb.editorLines())[LINE - 1] ?? '';

    const plays: Play[] = [];
    const failures: string[] = [];
    for (let i = 0; i < PLAYS; i++) {
      const sentence = sentences[i % sentences.length]!;
      const opened = i % 2 === 0;
      if (opened) {
        const tab = wb.page.locator('.tab', { hasText: 'Play Back' });
        if (await tab.count()) {
          await tab.first().locator('.codicon-close').click();
          await waitFor(async () => (await tab.count()) === 0 && !(await playerFrame(wb)), 10_000, 'the player closed');
        }
      }
      // The cursor in the sentence: its first words in the line.
      const head = sentence.head;
      const at = line.toLowerCase().indexOf(head.toLowerCase().replace(/[.,]/g, ''));
      if (at < 0) throw new Error(`the sentence "${head}" is not in the editor's line: ${line}`);
      await wb.gotoPosition(LINE, at + 3);
      const mark = (extensionLogIn(cs.userDataDir).match(FIRST_SOUND) ?? []).length;
      await wb.runCommand('Dictée: Play Back');
      const logged = await waitFor(
        () => [...extensionLogIn(cs.userDataDir).matchAll(FIRST_SOUND)][mark],
        15_000,
        'the first sound logged',
        20,
      );
      const frame = await waitFor(() => playerFrame(wb), 10_000, 'the player');
      const t = (await frame.evaluate(PAGE_TIMING).catch(() => null)) as PageTiming | null;
      const steps =
        t && opened
          ? {
              navigated: t.navigatedAt - t.askedAt,
              loaded: t.loadedAt - t.askedAt,
              context: t.contextAt - t.askedAt,
              received: t.receivedAt - t.askedAt,
            }
          : undefined;
      const played = (await frame.evaluate(PLAYED_SAMPLES)) as { rate: number; samples: number[] } | null;
      if (!played || played.rate !== RATE) throw new Error(`the player's samples: ${played ? played.rate : 'none'}`);
      const expectedAt = Math.round((sentence.startMs * RATE) / 1000);
      const search = (SEARCH_MS * RATE) / 1000;
      const best = bestMatch(played.samples, sentPcm, expectedAt - search, expectedAt + search);
      const match = { correlation: best.correlation, lagMs: ((best.at - expectedAt) * 1000) / RATE };
      // The right span: found where the service placed the sentence, and as long.
      const lengthErrorMs = (played.samples.length * 1000) / RATE - (sentence.endMs - sentence.startMs);
      if (!(match.correlation > MIN_CORRELATION && Math.abs(match.lagMs) <= MAX_LAG_MS && Math.abs(lengthErrorMs) <= MAX_LAG_MS)) {
        const span = (await frame.evaluate('span').catch(() => null)) as { startMs: number; endMs: number } | null;
        const anywhere = bestMatch(played.samples, sentPcm, 0, sentPcm.length);
        failures.push(
          `play ${i + 1}: correlation ${match.correlation.toFixed(3)} at ${match.lagMs.toFixed(1)} ms from the sentence's start ` +
            `and ${lengthErrorMs.toFixed(0)} ms longer (the sentence ${sentence.startMs}–${sentence.endMs} ms, the player's span ${span?.startMs}–${span?.endMs} ms, ` +
            `best anywhere ${anywhere.correlation.toFixed(3)} at ${((anywhere.at * 1000) / RATE).toFixed(0)} ms; cursor at column ${at + 3})`,
        );
      }
      plays.push({
        opened,
        steps,
        firstSoundMs: Number(logged[1]),
        heardMs: logged[2] === undefined ? undefined : Number(logged[2]),
        ...match,
        lengthErrorMs,
      });
      console.log(
        `  play ${i + 1} (${opened ? 'player opened' : 'player open'}): first sound ${logged[1]} ms` +
          `${logged[2] ? ` (heard ${logged[2]} ms)` : ''}` +
          `${steps ? ` [page ${steps.navigated.toFixed(0)}, script ${steps.loaded.toFixed(0)}, audio ${steps.context.toFixed(0)}, sentence ${steps.received.toFixed(0)} ms]` : ''}, correlation ${match.correlation.toFixed(3)} at ${match.lagMs.toFixed(1)} ms`,
      );
    }
    await wb.screenshot('bench-playback');
    if (failures.length) throw new Error(`what played is not the audio of the sentence: ${failures.join('; ')}`);

    const fmt = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : 'n/a');
    const ratio = (x: number, y: number) => (y > 0 && Number.isFinite(x) ? (x / y).toFixed(1) : 'n/a');
    const row = (name: string, x: ReturnType<typeof stats>) => `| ${name} | ${x.n} | ${fmt(x.p50)} | ${fmt(x.p95)} | ${fmt(x.max)} |`;
    const opening = plays.filter((p) => p.opened);
    const reopened = stats(opening.slice(1).map((p) => p.firstSoundMs));
    const open = stats(plays.filter((p) => !p.opened).map((p) => p.firstSoundMs));
    const all = stats(plays.map((p) => p.firstSoundMs));
    const heard = stats(plays.flatMap((p) => (p.heardMs === undefined || p.opened ? [] : [p.heardMs])));
    const step = (f: (s: NonNullable<Play['steps']>) => number) => fmt(stats(opening.flatMap((p) => (p.steps ? [f(p.steps)] : []))).p50);
    const corr = plays.map((p) => p.correlation);
    const worst = (f: (p: Play) => number) => Math.max(...plays.map((p) => Math.abs(f(p)))).toFixed(1);
    const markdown = `
Play Back in real VS Code (code-server 4.100.3 / VS Code 1.100, headless Chromium), the packaged extension
recording a PulseAudio virtual microphone through sox: five LibriVox recordings (${(speech.length / 2 / RATE).toFixed(1)} s, 1.5 s
pauses) dictated (the simulated engine, their transcripts as its script, with word times; ${sentences.length}
proofread sentences), then ${PLAYS} Play Backs, each sentence in turn with the cursor in it, every other one with the player
closed first, so that it must open. Command → first sound: from the command reaching the extension to the
player's audio starting (the page's audio clock past the first sample), on this machine's clock
(extension host and page). Baseline, in the same run: the same command with the player already open.

| Play Back: command → first sound | plays | p50 (ms) | p95 (ms) | max (ms) |
|---|---:|---:|---:|---:|
| the player opens, the first time in the window | 1 | ${fmt(opening[0]?.firstSoundMs ?? NaN)} | | |
${row('the player opens again, after it was closed', reopened)}
${row('baseline: the player open', open)}
${row('all', all)}
${row('the player open: until the extension hears of it', heard)}
| the player opens again / open | | ${ratio(reopened.p50, open.p50)}× | ${ratio(reopened.p95, open.p95)}× | |

Where the time goes when the player opens (p50 over the ${opening.length} openings, ms after the command): VS Code
has made the webview and its page starts loading at ${step((x) => x.navigated)}; the page's script runs at ${step((x) => x.loaded)} (in between, VS Code's webview host
loads a blank page through its service worker and writes the player into it); its AudioContext is made at ${step((x) => x.context)}; the sentence is in the player's code at ${step((x) => x.received)} (it comes
with the page); the first sound follows.

What plays: the samples the player starts (its AudioBuffer, read from its page) cross-correlated with the
audio the extension sent to the service (kept by a loopback proxy), at every lag within ±${SEARCH_MS} ms of where
the service placed the sentence (the \`start_ms\` of its proofread sentence, \`batch.replace\`):
peak normalised correlation ${Math.min(...corr).toFixed(3)} to ${Math.max(...corr).toFixed(3)} over the ${PLAYS} plays (must be above
${MIN_CORRELATION}), at most ${worst((p) => p.lagMs)} ms from the sentence's start, and at most ${worst((p) => p.lengthErrorMs)} ms longer or shorter than
the sentence (both must be within ${MAX_LAG_MS} ms).
`;
    return { title: 'Play Back: command → first sound, and what plays', markdown };
  } finally {
    for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => undefined);
    await stopAll();
    rmSync(tmp, { recursive: true, force: true });
  }
}
