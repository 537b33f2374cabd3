/**
 * Dictation through a remote recogniser in real VS Code: the suite's service restarted with `--engine
 * realtime` against the loopback FAKE realtime server of test/helpers/fakeRealtime.ts (vLLM's dialect, its
 * credential from DICTEE_ENGINE_API_KEY; no real recogniser can run here). The fake recognises nothing: it
 * releases the reference words of two LibriVox recordings as their voiced audio comes (test/helpers/
 * remote.ts), and those recordings are what plays into the virtual microphone. Then the simulated engine
 * and its script again, for the scenarios that follow.
 */
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import { FakeRealtime } from '../helpers/fakeRealtime';
import { normalizeWords } from '../helpers/recordings';
import { sentenceDictation } from '../helpers/remote';
import { silence } from '../helpers/speech';
import { sleep, waitFor } from '../helpers/wait';
import { between } from './lib/checks';
import {
  AFTER,
  BEFORE,
  ensureKey,
  extensionLog,
  findingsLine,
  keepFailure,
  openReportAtFindings,
  startDictation,
  stopAndSave,
  waitForState,
} from './lib/dictate';
import { UI } from './lib/ui';
import { getWorld, useServiceEngine, useWorld, type World } from './lib/world';

useWorld();

/** The sentences of `text`, each up to its stop. */
function sentencesOf(text: string): string[] {
  return text.trim().split(/(?<=\.)\s+/u);
}

/** Each sentence of `text` proofread: a capital first, a stop last. */
function isProofread(text: string): boolean {
  return text.trim() !== '' && sentencesOf(text).every((s) => /^\p{Lu}[^.]*\.$/u.test(s));
}

/** The log lines of the last run, from its "state: connecting" on. */
function runLog(log: string): string {
  const lines = log.split('\n');
  const from = lines.map((l) => l.includes('state: connecting')).lastIndexOf(true);
  return lines.slice(Math.max(0, from)).join('\n');
}

const MODEL = 'voxtral-fake';
/** The upstream's credential: the fake refuses any other; it must never show in the service's log. */
const UPSTREAM_KEY = 'upstream-secret-e2e';

describe('Dictée in VS Code through a remote recogniser (--engine realtime, fake upstream)', function () {
  this.timeout(120_000);
  // "He was not an ill disposed young man." "Unless to be rather cold hearted and rather selfish is to be ill disposed."
  const d = sentenceDictation(['sense_and_sensibility_01_austen_64kb-0880', 'sense_and_sensibility_01_austen_64kb-0890']);
  /** Without --proofread-url a sentence's proofread form is the upstream's words with a capital and a stop. */
  const proofread = d.references.map((r) => `${r.charAt(0).toUpperCase()}${r.slice(1)}.`).join(' ');
  let w: World | undefined;
  let fake: FakeRealtime | undefined;

  before(async function () {
    this.timeout(600_000);
    w = await getWorld();
    fake = await new FakeRealtime({ dialect: 'vllm', words: d.words, msPerWord: d.msPerWord, model: MODEL, key: UPSTREAM_KEY }).start();
    await useServiceEngine(w, {
      args: ['--engine', 'realtime', '--engine-url', fake.url, '--engine-model', MODEL],
      env: { DICTEE_ENGINE_API_KEY: UPSTREAM_KEY },
    });
    await ensureKey(w);
  });

  after(async function () {
    this.timeout(60_000);
    if (w) await useServiceEngine(w);
    await fake?.stop();
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && w) await keepFailure(w, this.currentTest.title);
  });

  it('21. two LibriVox recordings dictated through the realtime engine: their words at the cursor, once, in order; the status bar shows the run', async () => {
    const { wb, mic, service } = w!;
    const upstream = fake!;
    await openReportAtFindings(w!);
    await waitForState(wb, UI.idle);
    const statusTexts = await wb.watchStatusTexts();
    const connectionsBefore = upstream.connections;
    await startDictation(w!);
    assert.ok(upstream.connections > connectionsBefore, 'the run opened a connection to the upstream');
    // While recording: the elapsed time in the item; its tooltip names the document and, the engine
    // recognising speech, no longer warns of the simulated engine's script.
    const tip = await wb.tooltipOf(wb.statusItem().first());
    assert.match(tip, UI.recording);
    assert.match(tip, /report\.md/);
    assert.doesNotMatch(tip, /simulé/);

    const playing = mic.playPcm(Buffer.concat([silence(300), d.pcm]));
    let done = false;
    void playing.finally(() => (done = true));
    let shot = false;
    while (!done && !shot) {
      // The recogniser's words arrive while the recordings play: provisional, then committed.
      const deco = (await wb.afterDecorations()).join(' ').trim();
      if (deco || (await findingsLine(wb)).trim() !== 'Findings:') {
        shot = true;
        await wb.screenshot('21-realtime-words-while-speaking');
      } else await sleep(100);
    }
    await playing;
    assert.ok(shot, 'words showed while the recordings played');
    // Every word once, in order, each sentence proofread (a capital, a stop), once the last pause has
    // ended the last sentence. The sentences should be the recordings' own: over 80 alignments of the
    // 20 ms windows on the file's samples, the energy detector's longest "unvoiced" run inside the second
    // recording is 120 ms (860 ms before its noise floor's rise was capped, more than this suite's 0.8 s
    // silence_threshold). The audio reaches the service through PulseAudio and the browser's capture, not
    // as the file's samples, so a sentence ended elsewhere, with the same words, is told, not failed.
    let line = '';
    const dictatedIn = (l: string): string => l.replace(/^Findings:/u, '');
    await waitFor(
      async () => {
        line = await findingsLine(wb);
        return isProofread(dictatedIn(line)) && isDeepStrictEqual(normalizeWords(dictatedIn(line)), d.words);
      },
      30_000,
      'every word once, in order, in proofread sentences',
    ).catch((e: Error) => assert.fail(`${e.message}; the line: ${line}`));
    if (line !== `Findings: ${proofread}`) {
      console.log(`      the sentences ended elsewhere than the recordings': ${JSON.stringify(sentencesOf(dictatedIn(line)))}`);
      console.log(`      the extension's log of the run (it holds no dictated word):\n${runLog(extensionLog(w!))}`);
    }
    await wb.screenshot('21-realtime-dictated');
    const doc = await stopAndSave(w!);
    const dictated = between(doc, BEFORE, AFTER);
    assert.deepEqual(normalizeWords(dictated), d.words, `the recorded words once, in order: ${dictated}`);
    assert.equal(dictated, dictatedIn(line), 'the saved document holds what the editor showed');
    assert.deepEqual(await wb.afterDecorations(), [], 'no provisional text is left after stop');
    await wb.screenshot('21-realtime-saved');

    // The status bar showed the run: recording with its elapsed time, then ready again.
    const texts = await statusTexts();
    assert.ok(
      texts.some((t) => /Dictée\s+0:1\d/.test(t)),
      `the elapsed time while recording: ${JSON.stringify(texts)}`,
    );
    await waitForState(wb, UI.idle);
    // The upstream heard the microphone's audio (16 kHz for vLLM), and the credential stayed out of the log.
    const playedMs = (d.pcm.length / 2 / 16000) * 1000;
    assert.ok(upstream.audioMs >= playedMs * 0.9, `the upstream heard ${Math.round(upstream.audioMs)} ms of the ${playedMs} ms played`);
    assert.doesNotMatch(service.logs(), new RegExp(UPSTREAM_KEY));
  });
});
