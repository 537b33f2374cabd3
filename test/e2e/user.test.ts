/**
 * Dictée as a new user meets it, in real VS Code (code-server) in real Chromium: the walkthrough's
 * microphone test with its live level, the microphone picker with the PulseAudio sources, Escape to stop,
 * an audio file transcribed into the document with its progress, and a log that holds no dictated word
 * and no document name.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { speechPcm, silence } from '../helpers/speech';
import { waitFor } from '../helpers/wait';
import { assertScriptPrefix, between } from './lib/checks';
import { TEST_MIC_SOURCE } from './lib/pulse';
import {
  AFTER,
  BEFORE,
  ensureKey,
  extensionLog,
  findingsLine,
  keepFailure,
  openReportAtFindings,
  SECOND_SCRIPT,
  sentences,
  startDictation,
  stopAndSave,
  waitForState,
} from './lib/dictate';
import { firstPassWords, getWorld, SCRIPT, useWorld, type World } from './lib/world';
import { UI } from './lib/ui';

useWorld();

/** The PulseAudio sources that programs record from (not the virtual microphone's own remap stream). */
function recordingSources(w: World): string[] {
  const env = { ...process.env, ...w.mic.env };
  const outputs = spawnSync('pactl', ['-f', 'json', 'list', 'source-outputs'], { env, encoding: 'utf8' });
  const sources = spawnSync('pactl', ['-f', 'json', 'list', 'sources'], { env, encoding: 'utf8' });
  const byIndex = new Map((JSON.parse(sources.stdout) as { index: number; name: string }[]).map((s) => [s.index, s.name]));
  return (JSON.parse(outputs.stdout) as { source: number; driver: string }[])
    .filter((o) => o.driver === 'protocol-native.c')
    .map((o) => byIndex.get(o.source) ?? String(o.source));
}

describe('Dictée for its users (code-server, Chromium, PulseAudio virtual microphone)', function () {
  this.timeout(240_000);
  let w: World;

  before(async function () {
    this.timeout(600_000);
    w = await getWorld();
    await ensureKey(w);
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && w) await keepFailure(w, this.currentTest.title);
  });

  it('12. the command palette shows the commands in the language of VS Code, findable without the accent', async () => {
    const { wb } = w;
    await wb.escapeQuickInput();
    await wb.page.keyboard.press('F1');
    await wb.page.locator('.quick-input-widget').waitFor({ state: 'visible' });
    await wb.page.keyboard.type('Dictee');
    // Each row: the French title, then the English one it is also found by.
    await waitFor(
      async () => (await wb.quickPickRows()).some((r) => /^Dictée: .+ Dictee: /u.test(r)),
      10_000,
      'Dictée\'s commands in the palette for "Dictee", in French with their English titles',
    );
    await wb.screenshot('12-command-palette');
    // The list shows a few rows at a time (the recently used first): each command is looked for with a
    // word of its English title.
    const input = wb.page.locator('.quick-input-widget input.input').first();
    for (const [title, word] of [
      [UI.startCommand, 'start'],
      [UI.selectMicrophoneCommand, 'microphone'],
      [UI.transcribeCommand, 'transcribe'],
    ] as const) {
      await input.fill(`>Dictee ${word}`);
      await waitFor(
        async () => (await wb.quickPickRows()).some((r) => r.includes(title)),
        10_000,
        `"${title}" in the palette for "Dictee ${word}"`,
      );
    }
    await wb.escapeQuickInput();
  });

  it("13. the walkthrough's microphone test shows the live level and says the microphone works", async () => {
    const { wb, mic } = w;
    await wb.runCommand(UI.getStartedCommand);
    // The recorder step shows its install commands as code, not between literal backticks.
    const recorder = wb.page.locator('.getting-started-step', { hasText: UI.recorderStepTitle }).first();
    await recorder.waitFor({ state: 'visible', timeout: 30_000 });
    await recorder.click();
    const codes = await waitFor(
      async () => {
        const c = await recorder.locator('code').allInnerTexts();
        return c.length > 0 ? c : undefined;
      },
      10_000,
      'the install commands of the recorder step as code',
    );
    assert.ok(codes.includes('sudo apt-get install sox'), JSON.stringify(codes));
    assert.doesNotMatch(await recorder.innerText(), /`/);
    await wb.screenshot('13-walkthrough-recorder-step');
    const step = wb.page.locator('.getting-started-step', { hasText: UI.micStepTitle }).first();
    await step.waitFor({ state: 'visible', timeout: 30_000 });
    await step.click();
    const button = step.locator('.button-link, button, a', { hasText: UI.testMicrophone }).first();
    await button.waitFor({ state: 'visible', timeout: 10_000 });
    await wb.screenshot('13-walkthrough-microphone-step');
    await button.click();
    await wb.waitForNotification(UI.micTestRunning, 15_000);
    // Speak while the test records: the meter in the notification rises.
    const speaking = mic.playPcm(Buffer.concat([silence(500), await speechPcm('Testing the microphone, one, two, three.')]));
    const loud = await waitFor(
      async () => (await wb.notifications()).map((n) => n.message).find((m) => UI.micTestRunning.test(m) && /█{6,}/.test(m)),
      15_000,
      'the level meter to rise while speech plays',
      100,
    );
    await wb.screenshot('13-microphone-test-level');
    await speaking;
    const ok = await wb.waitForNotification(UI.micWorks, 20_000);
    assert.match(ok.message, /-?\d+ dB/, `the level is given: ${ok.message}`);
    assert.ok(loud.includes('█'));
    await wb.screenshot('13-microphone-test-result');
    await wb.clearNotifications();
    await wb.closeAllEditorsDiscarding();
  });

  it('14. Select Microphone lists the PulseAudio sources; dictation then records the one picked', async () => {
    const { wb, mic } = w;
    await wb.runCommand(UI.selectMicrophoneCommand);
    await waitFor(
      async () => (await wb.quickPickRows()).some((r) => r.includes(TEST_MIC_SOURCE)),
      15_000,
      `${TEST_MIC_SOURCE} in the picker`,
    );
    const rows = await wb.quickPickRows();
    assert.ok(
      rows.some((r) => r.includes('virtmic.monitor')),
      `the monitor is listed too: ${JSON.stringify(rows)}`,
    );
    assert.ok(
      rows.some((r) => r.includes(UI.systemDefault)),
      `the system default is offered: ${JSON.stringify(rows)}`,
    );
    await wb.screenshot('14-select-microphone');
    await wb.pickQuickPickRow(TEST_MIC_SOURCE);
    await waitFor(
      () =>
        ['User', 'Machine'].some((f) =>
          readFileSync(path.join(w.codeServer.userDataDir, f, 'settings.json'), 'utf8').includes(
            `"dictee.audio.device": "${TEST_MIC_SOURCE}"`,
          ),
        ),
      10_000,
      'the choice stored in dictee.audio.device',
    );
    await waitFor(
      async () => (await wb.tooltipOf(wb.statusItem().first())).includes(TEST_MIC_SOURCE),
      10_000,
      'the device in the status tooltip',
    );
    // Dictation records that source, not the default one.
    await openReportAtFindings(w);
    await startDictation(w);
    assert.deepEqual(recordingSources(w), [TEST_MIC_SOURCE], 'sox records the microphone picked');
    await mic.playPcm(await sentences(SCRIPT.split('. ')[0] + '.'));
    await waitFor(async () => firstPassWords(await findingsLine(wb)).length >= 3, 20_000, 'words from the picked microphone');
    await stopAndSave(w);
    // Back to the system default for the other scenarios.
    await wb.runCommand(UI.selectMicrophoneCommand);
    await wb.pickQuickPickRow(UI.systemDefault);
    await waitFor(
      () =>
        ['User', 'Machine'].every(
          (f) =>
            !readFileSync(path.join(w.codeServer.userDataDir, f, 'settings.json'), 'utf8').includes(
              `"dictee.audio.device": "${TEST_MIC_SOURCE}"`,
            ),
        ),
      10_000,
      'the device back to the system default',
    );
  });

  it('15. Escape stops dictation while recording, with a selection and a notification on screen; what was said is written', async () => {
    const { wb, mic } = w;
    await openReportAtFindings(w);
    await startDictation(w);
    await mic.playPcm(await sentences(SCRIPT.split('. ').slice(0, 2).join('. ') + '.'));
    await waitFor(async () => firstPassWords(await findingsLine(wb)).length >= 4, 20_000, 'committed words');
    await wb.screenshot('15-before-escape');
    // A notification on screen (Read Last Dictated Sentence shows one) and a selection (as a template field
    // that Next Field selects): Escape stops dictation all the same, at the first press.
    await wb.clearNotifications();
    await wb.runCommand(UI.readLastSentenceCommand);
    await waitFor(async () => (await wb.notifications()).length > 0, 10_000, 'a notification on screen');
    await wb.focusEditor();
    await wb.gotoLineEnd(5);
    await wb.page.keyboard.press('Shift+Home');
    await waitFor(
      async () => /selected|sélectionné/u.test(await wb.page.locator('#status\\.editor\\.selection').innerText()),
      5_000,
      'a selection',
    );
    assert.ok((await wb.notifications()).length > 0, 'the notification still on screen');
    await wb.page.keyboard.press('Escape');
    await waitForState(wb, UI.idle, 30_000);
    await wb.screenshot('15-stopped-with-escape');
    await wb.save();
    const dictated = between(readFileSync(w.reportPath, 'utf8'), BEFORE, AFTER);
    assertScriptPrefix(dictated, SCRIPT, 4);
  });

  it('16. Transcribe Audio File: a WAV file goes into the document at the cursor, with progress, faster than it plays; "transcribing" to its end, never "stopping"', async () => {
    const { wb } = w;
    const text = SCRIPT.split('. ').slice(0, 3).join('. ') + '.';
    const pcm = await sentences(text, 1200);
    const raw = path.join(w.tmp, 'dictation.raw');
    writeFileSync(raw, pcm);
    const wav = path.join(w.workspace, 'dictation.wav');
    const r = spawnSync('sox', ['-t', 'raw', '-r', '16000', '-e', 'signed-integer', '-b', '16', '-c', '1', raw, '-r', '44100', wav], {
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    const seconds = pcm.length / 32000;
    await openReportAtFindings(w);
    await wb.runCommand(UI.transcribeCommand);
    // code-server's file dialog is a quick input: type the path.
    await wb.typeIntoFileDialog(UI.transcribeDialogTitle, wav);
    const statusTexts = await wb.watchStatusTexts();
    const started = Date.now();
    await wb.page.keyboard.press('Enter');
    const progress = await wb.waitForNotification(UI.transcribing, 20_000);
    await wb.screenshot('16-transcribe-progress');
    assert.match(progress.message, /dictation\.wav/);
    await waitForState(wb, UI.idle, 60_000);
    const tookS = (Date.now() - started) / 1000;
    await wb.screenshot('16-transcribed');
    await wb.focusEditor();
    await wb.save();
    const dictated = between(readFileSync(w.reportPath, 'utf8'), BEFORE, AFTER);
    const words = assertScriptPrefix(dictated, SCRIPT, 8, 'the transcribed file');
    assert.equal(words.length, firstPassWords(text).length, `every word of the file, once: ${dictated}`);
    assert.ok(tookS < seconds, `transcribed in ${tookS.toFixed(1)} s, faster than the ${seconds.toFixed(1)} s it plays`);
    // The file was not stopped: while its last words are written the status says so, not "stopping".
    const shown = await statusTexts();
    assert.ok(
      shown.some((t) => UI.finishingFileText.test(t)),
      `the status showed the last words being written: ${JSON.stringify(shown)}`,
    );
    assert.ok(!shown.some((t) => UI.stoppingText.test(t)), `the status never said "stopping": ${JSON.stringify(shown)}`);
  });

  it('17. the log of the whole run holds no dictated word and no document or file name', () => {
    const log = extensionLog(w);
    assert.ok(log.length > 1000, 'the log was read');
    assert.match(log, /committed chunk/, 'the log does record the commits (ids, lengths)');
    const words = [
      'radiograph',
      'pleural',
      'effusion',
      'mediastinum',
      'unremarkable',
      'juliet',
      'foxtrot',
      ...firstPassWords(SECOND_SCRIPT).slice(-3),
    ];
    const names = ['report.md', 'notes.md', 'dictation.wav', w.workspace];
    const hits = [...words, ...names].filter((x) => log.toLowerCase().includes(x.toLowerCase()));
    assert.deepEqual(hits, [], `the log holds no dictated word and no name: ${hits.join(', ')}`);
  });
});
