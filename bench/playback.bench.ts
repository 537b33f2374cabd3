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
 * - Then Play Back runs PLAYS times, on each sentence in turn, the cursor inside it. The player is a view
 *   of the bottom panel: the first Play Back in the window makes it (VS Code resolves the view: the case
 *   the user meets first, once per window); then every other time the panel is hidden first (the player,
 *   kept while hidden, must show again), else the player is in view (the baseline, in the same run: the
 *   same command, the same audio, nothing to show).
 * - Each time, the editor keeps the keyboard and is not split, and the player is in the panel; after the
 *   first, it is the same page (kept, not made again).
 * - Command → first sound: the player stamps the moment its audio starts (its page's clock) and reports
 *   it with the time the command was run (the extension host's clock; both are this machine's wall
 *   clock). The extension logs it; the bench reads the log. The time until the extension hears of it
 *   (one more message back) is reported beside it.
 * - Where the time goes when the player is made: the page's navigation, its script, the sentence in it,
 *   read from the page (the same clock).
 * - What plays: the samples the player starts (its AudioBuffer, read from its page) are cross-correlated
 *   with the audio the extension sent to the service, at every lag within ±SEARCH_MS of where the service
 *   placed the sentence (its `batch.replace`'s `start_ms`); the peak's normalised correlation, its lag and the difference
 *   of length are reported: above MIN_CORRELATION, within MAX_LAG_MS.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
/** The issue's goal: command → first sound under this, p95. */
const GOAL_MS = 300;
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

/** Found in the Play Back player's page (its frame). */
const PLAYER = `!!document.getElementById('words') && typeof acquireVsCodeApi === 'function'`;

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

/** The player made by this Play Back (the first in the window), shown again after the panel was hidden, or in view. */
type Case = 'made' | 'hidden' | 'visible';

interface Play {
  case: Case;
  /** Command → the page's navigation, its script, the sentence in it (ms), when the player is made. */
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
    const groups = await wb.editorGroups();
    /** The player's page, once made, and when its script ran. */
    let player: { frame: Awaited<ReturnType<Workbench['webviewFrame']>>; loadedAt: number } | undefined;
    for (let i = 0; i < PLAYS; i++) {
      const sentence = sentences[i % sentences.length]!;
      const kind: Case = i === 0 ? 'made' : i % 2 === 1 ? 'hidden' : 'visible';
      if (kind === 'hidden') {
        await wb.runCommand('View: Hide Panel');
        await waitFor(async () => !(await wb.frameBox(player!.frame!)).inPanel, 10_000, 'the panel hidden');
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
      const frame = player?.frame ?? (await waitFor(() => wb.webviewFrame(PLAYER), 10_000, 'the player'));
      await waitFor(async () => (await wb.frameBox(frame)).inPanel, 10_000, 'the player in the panel');
      if (!(await wb.editorHasFocus())) throw new Error(`play ${i + 1}: the keyboard left the editor`);
      if ((await wb.editorGroups()) !== groups) throw new Error(`play ${i + 1}: the editor was split`);
      const t = (await frame.evaluate(PAGE_TIMING).catch(() => null)) as PageTiming | null;
      if (!t) throw new Error(`play ${i + 1}: the player's page has no timing`);
      if (!player) player = { frame, loadedAt: t.loadedAt };
      else if (t.loadedAt !== player.loadedAt) throw new Error(`play ${i + 1}: the player was made again`);
      const steps =
        kind === 'made'
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
        case: kind,
        steps,
        firstSoundMs: Number(logged[1]),
        heardMs: logged[2] === undefined ? undefined : Number(logged[2]),
        ...match,
        lengthErrorMs,
      });
      console.log(
        `  play ${i + 1} (${kind === 'made' ? 'player made' : kind === 'hidden' ? 'panel hidden' : 'player in view'}): first sound ${logged[1]} ms` +
          `${logged[2] ? ` (heard ${logged[2]} ms)` : ''}` +
          `${steps ? ` [page ${steps.navigated.toFixed(0)}, script ${steps.loaded.toFixed(0)}, audio ${steps.context.toFixed(0)}, sentence ${steps.received.toFixed(0)} ms]` : ''}, correlation ${match.correlation.toFixed(3)} at ${match.lagMs.toFixed(1)} ms`,
      );
    }
    await wb.screenshot('bench-playback');
    if (failures.length) throw new Error(`what played is not the audio of the sentence: ${failures.join('; ')}`);

    const fmt = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : 'n/a');
    const ratio = (x: number, y: number) => (y > 0 && Number.isFinite(x) ? (x / y).toFixed(1) : 'n/a');
    const row = (name: string, x: ReturnType<typeof stats>) => `| ${name} | ${x.n} | ${fmt(x.p50)} | ${fmt(x.p95)} | ${fmt(x.max)} |`;
    const made = plays.filter((p) => p.case === 'made');
    const of = (c: Case) => stats(plays.filter((p) => p.case === c).map((p) => p.firstSoundMs));
    const first = of('made');
    const hidden = of('hidden');
    const visible = of('visible');
    const all = stats(plays.map((p) => p.firstSoundMs));
    const heard = stats(plays.flatMap((p) => (p.heardMs === undefined || p.case !== 'visible' ? [] : [p.heardMs])));
    const step = (f: (s: NonNullable<Play['steps']>) => number) => fmt(stats(made.flatMap((p) => (p.steps ? [f(p.steps)] : []))).p50);
    const corr = plays.map((p) => p.correlation);
    const worst = (f: (p: Play) => number) => Math.max(...plays.map((p) => Math.abs(f(p)))).toFixed(1);
    const goal = (x: ReturnType<typeof stats>) => (x.p95 < GOAL_MS ? 'yes' : 'no');
    const markdown = `
Play Back in real VS Code (code-server 4.100.3 / VS Code 1.100, headless Chromium), the packaged extension
recording a PulseAudio virtual microphone through sox: five LibriVox recordings (${(speech.length / 2 / RATE).toFixed(1)} s, 1.5 s
pauses) dictated (the simulated engine, their transcripts as its script, with word times; ${sentences.length}
proofread sentences), then ${PLAYS} Play Backs, each sentence in turn with the cursor in it. The player is a view of
the bottom panel: the first Play Back in the window makes it (VS Code resolves the view; once per window, so one
play per run); then every other one with the panel hidden first (the player, kept while hidden, shows again),
else with the player in view. Each time the editor kept the keyboard and was not split, and after the first the
player was the same page. Command → first sound: from the command reaching the extension to the player's audio
starting (the page's audio clock past the first sample), on this machine's clock (extension host and page).
Baseline, in the same run: the same command with the player in view. Goal: under ${GOAL_MS} ms, p95.

| Play Back: command → first sound | plays | p50 (ms) | p95 (ms) | max (ms) | p95 under ${GOAL_MS} ms |
|---|---:|---:|---:|---:|---|
${row('the player made: the first Play Back in the window', first)} ${goal(first)} |
${row('the panel hidden, then Play Back', hidden)} ${goal(hidden)} |
${row('baseline: the player in view', visible)} ${goal(visible)} |
${row('all', all)} ${goal(all)} |
${row('the player in view: until the extension hears of it', heard)} |
| the panel hidden / in view | | ${ratio(hidden.p50, visible.p50)}× | ${ratio(hidden.p95, visible.p95)}× | | |
| the player made / in view | | ${ratio(first.p50, visible.p50)}× | | | |

Where the time goes when the player is made (ms after the command): VS Code has made the webview and its page
starts loading at ${step((x) => x.navigated)}; the page's script runs at ${step((x) => x.loaded)} (in between, VS Code's webview host loads a blank page
through its service worker and writes the player into it); its AudioContext is made at ${step((x) => x.context)}; the sentence is in
the player's code at ${step((x) => x.received)} (it comes with the page); the first sound follows.

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
