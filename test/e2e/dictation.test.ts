/**
 * Dictée in real VS Code (code-server) in real Chromium: the packaged .vsix, the built service, speech
 * played into a PulseAudio virtual microphone and recorded by sox in the extension host. Every assertion is
 * on what a user sees (the editor, the status bar, notifications) or gets (the saved file).
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { speechPcm } from '../helpers/speech';
import { assertScriptPrefix, between } from './lib/checks';
import { sleep, waitFor } from '../helpers/wait';
import { dicteeSettings, firstPassWords, getWorld, REPORT_INITIAL, SCRIPT, useWorld, type World } from './lib/world';
import {
  AFTER,
  audioSecondsAtService,
  BEFORE,
  ensureKey,
  extensionLog,
  FIRST_SENTENCE,
  findingsLine,
  framesAtService,
  keepFailure,
  openReportAtFindings,
  SECOND_SCRIPT,
  sentences,
  settled,
  startDictation,
  statusText,
  stopAndSave,
  waitForState,
} from './lib/dictate';
import { UI } from './lib/ui';
import { OUTPUT_DIR } from './lib/workbench';

useWorld();

describe('Dictée in VS Code (code-server, Chromium, PulseAudio virtual microphone)', function () {
  this.timeout(240_000);
  let w: World;

  before(async function () {
    this.timeout(600_000);
    w = await getWorld();
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && w) await keepFailure(w, this.currentTest.title);
  });

  it('1. Set API Key from the command palette, with a key created through the service HTTP API', async () => {
    const { wb } = w;
    await wb.runCommand(UI.setApiKeyCommand);
    const box = await wb.waitForInputBox();
    assert.ok(box.password, 'the key is typed into a password box');
    assert.match(`${box.placeholder} ${box.message}`, /svc_/);
    await wb.screenshot('1-set-api-key-prompt');
    await wb.typeIntoInputBox(w.apiKey);
    const n = await wb.waitForNotification(UI.keySaved);
    assert.ok(!n.message.includes(w.apiKey), 'the key itself is never shown');
    await wb.screenshot('1-set-api-key-saved');
    // The key is in SecretStorage, not in settings.
    for (const f of ['User', 'Machine']) {
      const settings = readFileSync(path.join(w.codeServer.userDataDir, f, 'settings.json'), 'utf8');
      assert.ok(!settings.includes(w.apiKey), `the key must not be written to ${f}/settings.json`);
    }
    await wb.clearNotifications();
  });

  it('2. dictates into report.md at the cursor: provisional text while speaking, committed text, saved file intact', async () => {
    const { wb, mic } = w;
    await openReportAtFindings(w);
    await startDictation(w);
    const speech = await sentences(SCRIPT.split('. ').slice(0, 3).join('. ') + '.');
    let sawProvisional = '';
    let sawCommitted = '';
    let sawBoth = false;
    const playing = mic.playPcm(speech);
    let done = false;
    void playing.finally(() => (done = true));
    while (!done) {
      const deco = (await wb.afterDecorations()).join(' ').trim();
      if (deco && !sawProvisional) {
        sawProvisional = deco;
        await wb.screenshot('2-provisional-while-speaking');
      }
      const line = await findingsLine(wb);
      if (line.trim() !== 'Findings:' && !sawCommitted) {
        sawCommitted = line;
        await wb.screenshot('2-committed-while-speaking');
      }
      if (line.trim() !== 'Findings:' && deco && !sawBoth && firstPassWords(line).length >= 6) {
        sawBoth = true;
        // Committed text and provisional text together: the picture of dictation in progress.
        await wb.screenshot('2-dictation-committed-and-provisional');
      }
      await sleep(50);
    }
    await playing;
    assert.ok(sawProvisional, 'provisional text was shown as a decoration while speech played');
    assert.ok(
      firstPassWords(sawProvisional).every((x) => firstPassWords(SCRIPT).includes(x)),
      `provisional text has words of the speech: ${sawProvisional}`,
    );
    // Committed text appears in the document while the run goes on.
    await waitFor(async () => (await findingsLine(wb)).trim() !== 'Findings:', 15_000, 'committed text in the document');
    await wb.screenshot('2-dictation-in-progress');
    const doc = await stopAndSave(w);
    const dictated = between(doc, BEFORE, AFTER);
    assertScriptPrefix(dictated, SCRIPT, 8);
    assert.ok(!dictated.includes('\n'), `no line break was dictated: ${JSON.stringify(dictated)}`);
    assert.deepEqual(await wb.afterDecorations(), [], 'no provisional text is left after stop');
  });

  it('2b. at the end of a long line the provisional text stays inside the editor: its newest words, after "…"', async () => {
    const { wb, mic } = w;
    // "Findings:" then 46 more characters: the insertion point at column 55 of an editor about 88 characters wide.
    const long = REPORT_INITIAL.replace('Findings: ', `Findings: ${'Two views of the chest were obtained at 9 am.'} `);
    await openReportAtFindings(w, long);
    await startDictation(w);
    const playing = mic.playPcm(await sentences('The heart size is within normal limits and the mediastinum is not widened.'));
    let done = false;
    void playing.finally(() => (done = true));
    let longest = { text: '', startPx: 0, overflowPx: -Infinity };
    let worst = { text: '', startPx: 0, overflowPx: -Infinity };
    while (!done) {
      // While the insertion point is on screen (the committed words then push it past the right edge of
      // this editor, which does not wrap lines and does not follow it sideways).
      for (const d of (await wb.afterDecorationOverflow()).filter((x) => x.startPx < 0)) {
        if (d.text.length > longest.text.length) longest = d;
        if (d.overflowPx > worst.overflowPx) worst = d;
      }
      await sleep(50);
    }
    await playing;
    await stopAndSave(w);
    assert.ok(longest.text.length > 20, `a provisional text of several words was shown: ${JSON.stringify(longest)}`);
    assert.ok(worst.overflowPx <= 0, `the provisional text stayed inside the editor: ${JSON.stringify(worst)}`);
  });

  it('3. the status-bar item starts, pauses, resumes and stops; its text and tooltip follow the state', async () => {
    const { wb, mic } = w;
    await openReportAtFindings(w);
    await waitForState(wb, UI.idle);
    assert.match(await wb.tooltipOf(wb.statusItem().first()), UI.idle);
    // Click: start.
    const sessionId = await startDictation(w, 'status');
    assert.match(await statusText(wb), /\d:\d\d/, 'recording shows the elapsed time');
    const recTip = await wb.tooltipOf(wb.statusItem().first());
    assert.match(recTip, UI.recording);
    assert.match(recTip, /report\.md/);
    await mic.playPcm(await sentences(FIRST_SENTENCE));
    await waitFor(async () => (await findingsLine(wb)).trim() !== 'Findings:', 15_000, 'committed text');
    await wb.screenshot('3-status-recording');
    // Pause from the tooltip's link.
    await wb.clickTooltipLink(wb.statusItem().first(), UI.pauseLink);
    await waitForState(wb, UI.paused);
    assert.match(await statusText(wb), UI.paused);
    assert.match(await wb.tooltipOf(wb.statusItem().first()), UI.paused);
    await wb.screenshot('3-status-paused');
    // What was said before the pause may still arrive; then nothing more while paused, whatever is said:
    // the microphone is off, so not one frame reaches the service while the speech plays.
    const frozen = await settled(() => findingsLine(wb));
    const framesBefore = await framesAtService(w, sessionId);
    await mic.playPcm(await speechPcm('this must not be written'));
    assert.equal(await framesAtService(w, sessionId), framesBefore, 'no audio reaches the service while paused');
    assert.equal(await findingsLine(wb), frozen, 'nothing is written while paused');
    assert.deepEqual(await wb.afterDecorations(), [], 'nothing is shown as provisional while paused');
    // Resume from the tooltip's link. "Recording" means the microphone records: a person who speaks as soon
    // as it shows loses nothing, although the restarted recorder takes a while (over a second) to open the
    // device. The audio the service gets from then on covers all the time since, less the recorder's and
    // the network's latency — a recorder still opening its device would leave a gap that never shrinks.
    await wb.clickTooltipLink(wb.statusItem().first(), UI.resumeLink);
    await waitForState(wb, UI.recording);
    const shownAt = Date.now();
    const audioAtShown = await audioSecondsAtService(w, sessionId);
    await mic.playPcm(await speechPcm('He might even have been made amiable himself.'));
    let gapMs = 0;
    await waitFor(
      async () => {
        const covered = ((await audioSecondsAtService(w, sessionId)) - audioAtShown) * 1000;
        gapMs = Date.now() - shownAt - covered;
        return gapMs < 500;
      },
      5000,
      'the audio since "recording" showed to reach the service',
      100,
    ).catch((e: Error) => assert.fail(`${Math.round(gapMs)} ms of the time since "recording" showed is missing: ${e.message}`));
    console.log(`      resume: the service has all but ${Math.round(gapMs)} ms of the audio since "recording" showed`);
    // Click: stop.
    await wb.statusItem().first().click();
    await waitForState(wb, UI.idle, 30_000);
    assert.match(await wb.tooltipOf(wb.statusItem().first()), UI.idle);
    await wb.screenshot('3-status-stopped');
    await wb.focusEditor();
    await wb.save();
    const dictated = between(readFileSync(w.reportPath, 'utf8'), BEFORE, AFTER);
    assertScriptPrefix(dictated, SCRIPT, 3);
  });

  it('4. batch.replace rewrites the committed words in place (capitalised, punctuated)', async () => {
    const { wb, mic } = w;
    await openReportAtFindings(w);
    const logMark = extensionLog(w).length;
    await startDictation(w);
    // What the user sees of the first sentence, sampled while it is dictated and proofread.
    const seen: string[] = [];
    const sample = async () => {
      const line = (await findingsLine(wb)).replace(/^Findings:\s*/, '');
      const deco = (await wb.afterDecorations()).join(' ');
      const v = `${line}|${deco}`;
      if (seen[seen.length - 1] !== v) seen.push(v);
    };
    const playing = mic.playPcm(await sentences(SCRIPT.split('. ').slice(0, 2).join('. ') + '.', 1500));
    let done = false;
    void playing.finally(() => (done = true));
    while (!done) {
      await sample();
      await sleep(30);
    }
    await playing;
    await waitFor(
      async () => {
        await sample();
        return (await findingsLine(wb)).includes(FIRST_SENTENCE);
      },
      20_000,
      `the first sentence rewritten as "${FIRST_SENTENCE}"`,
    );
    await wb.screenshot('4-batch-replace-proofread');
    assert.ok(
      seen.some((v) => /\b(chest|radiograph|shows|clear|lungs)\b/.test(v) && !v.includes('Chest radiograph shows clear lungs.')),
      `the words first appeared as the recogniser gave them (lower case, no punctuation); seen: ${JSON.stringify(seen)}`,
    );
    const doc = await stopAndSave(w);
    const dictated = between(doc, BEFORE, AFTER).trim();
    // After the proofreading pass every dictated word is the script's own token: capitals and punctuation.
    const tokens = SCRIPT.split(/\s+/);
    const n = dictated.split(/\s+/).length;
    assert.ok(n >= 5, `at least the first sentence was dictated: "${dictated}"`);
    assert.equal(dictated, tokens.slice(0, n).join(' '), 'the dictated text is the proofread script, word for word');
    // The rewrite replaced committed text (the extension's log, as "Dictée: Show Log" shows it).
    assert.match(extensionLog(w).slice(logMark), /replaced chunks/, 'a batch.replace rewrote committed chunks');
    // Read Last Dictated Sentence reads the last utterance as the document holds it (proofread: capitals and
    // punctuation), not as the recogniser gave it (lower case, no punctuation).
    await wb.clearNotifications();
    await wb.runCommand(UI.readLastSentenceCommand);
    const shown = await waitFor(
      async () => (await wb.notifications()).find((n) => n.message !== ''),
      10_000,
      'the last dictated sentence in a notification',
    );
    assert.ok(
      dictated.endsWith(shown.message) && /[A-Z.,]/.test(shown.message),
      `the last utterance as saved, proofread: "${shown.message}" (saved: "${dictated}")`,
    );
  });

  it('5. typing elsewhere in the document while dictating keeps both texts (the dictation grammar off)', async () => {
    const { wb, mic } = w;
    // The chunks as the service sent them, through the writer without the grammar.
    w.codeServer.writeSettings(dicteeSettings(w.service.url, { 'dictee.grammar.enabled': false }));
    await openReportAtFindings(w);
    const logMark = extensionLog(w).length;
    await startDictation(w).finally(() => w.codeServer.writeSettings(dicteeSettings(w.service.url)));
    assert.match(extensionLog(w).slice(logMark), /dictation grammar off/, 'VS Code read the setting before the run started');
    const playing = mic.playPcm(await sentences(SCRIPT.split('. ').slice(0, 2).join('. ') + '.'));
    await waitFor(async () => (await findingsLine(wb)).trim() !== 'Findings:', 20_000, 'the first committed words');
    // The user moves to the "Patient:" line (above the dictation) and types.
    await wb.gotoLineEnd(3);
    await wb.typeText(' Allergies: none known.');
    await wb.screenshot('5-typing-while-dictating');
    await playing;
    await waitFor(
      async () => firstPassWords((await findingsLine(wb)).replace(/^Findings:/, '')).length >= 5,
      20_000,
      'five committed words',
    );
    const doc = await stopAndSave(w);
    const before = BEFORE.replace('Patient: Jane Doe, 52.', 'Patient: Jane Doe, 52. Allergies: none known.');
    const dictated = between(doc, before, AFTER);
    assertScriptPrefix(dictated, SCRIPT, 5);
  });

  it('6. a wrong key: refused by Set API Key; a revoked key: the authentication message with its "Set API Key" action', async () => {
    const { wb, service } = w;
    // A key the service never issued is refused by "Set API Key" and not saved.
    const unknown = `svc_test_${'x'.repeat(40)}`;
    await wb.runCommand(UI.setApiKeyCommand);
    await wb.waitForInputBox();
    await wb.typeIntoInputBox(unknown);
    const refused = await wb.waitForNotification(UI.keyRefusedOnSet);
    assert.ok(!refused.message.includes(unknown), 'the key itself is never shown');
    await wb.screenshot('6-unknown-key-refused');
    await wb.clearNotifications();
    // A key that worked and was then revoked: starting dictation shows the authentication message.
    const doomed = await service.createKey({ name: 'e2e-revoked', type: 'personal', environment: 'test', permissions: ['read', 'write'] });
    await ensureKey(w, doomed.key);
    await service.revokeKey(doomed.key);
    await openReportAtFindings(w);
    await wb.runCommand(UI.startCommand);
    const n = await wb.waitForNotification(UI.keyRefusedOnRun, 30_000);
    assert.ok(n.buttons.includes(UI.setApiKeyButton), `the message offers "${UI.setApiKeyButton}": ${JSON.stringify(n)}`);
    assert.ok(!n.message.includes(doomed.key), 'the key itself is never shown');
    await wb.screenshot('6-auth-error');
    await waitForState(wb, UI.idleOrError, 20_000);
    // The action leads to the key prompt; the good key makes dictation work again.
    await wb.clickNotificationButton(UI.keyRefusedOnRun, UI.setApiKeyButton);
    const box = await wb.waitForInputBox();
    assert.ok(box.password);
    await wb.typeIntoInputBox(w.apiKey);
    await wb.waitForNotification(UI.keySaved);
    await wb.clearNotifications();
    const doc = readFileSync(w.reportPath, 'utf8');
    assert.equal(doc, REPORT_INITIAL, 'the document is untouched by the failed run');
  });

  it('7. the service killed and restarted mid-dictation: the run recovers, no committed text lost or duplicated', async () => {
    const { wb, mic, service } = w;
    const scriptFile = path.join(w.tmp, 'script.txt');
    await openReportAtFindings(w);
    const logMark = extensionLog(w).length;
    await startDictation(w);
    await mic.playPcm(await sentences(SCRIPT.split('. ').slice(0, 2).join('. ') + '.', 1500));
    await waitFor(async () => firstPassWords(await findingsLine(wb)).length >= 4, 20_000, 'committed words before the crash');
    const beforeCrash = (await findingsLine(wb)).trim();
    // The restarted service speaks other words, so that what each run wrote can be told apart.
    writeFileSync(scriptFile, SECOND_SCRIPT);
    await service.restart({ kill: true });
    await wb.screenshot('7-after-restart');
    await mic.playPcm(await sentences(SECOND_SCRIPT, 1500));
    const second = firstPassWords(SECOND_SCRIPT);
    await waitFor(
      async () => firstPassWords(await findingsLine(wb)).some((x) => second.includes(x)),
      45_000,
      'text from the restarted service',
    );
    await waitForState(wb, UI.recording, 30_000);
    await wb.screenshot('7-recovered');
    const doc = await stopAndSave(w);
    writeFileSync(scriptFile, SCRIPT);
    const words = firstPassWords(between(doc, BEFORE, AFTER));
    const cut = words.findIndex((x) => second.includes(x));
    assert.ok(cut > 0, `the restarted service's words follow the first ones: ${words.join(' ')}`);
    // Before the crash: the first service's words, in order, each once, all that was committed still there.
    const first = words.slice(0, cut);
    assertScriptPrefix(first.join(' '), SCRIPT, 1, 'text of the first service run');
    const committedBefore = firstPassWords(beforeCrash.replace(/^Findings:/, ''));
    assert.deepEqual(
      first.slice(0, committedBefore.length),
      committedBefore,
      `what was committed before the crash is intact: before "${beforeCrash}", after "${first.join(' ')}"`,
    );
    // After: a run of the restarted service's words (it resumes the session, or starts a new one), each once.
    const rest = words.slice(cut);
    const k = second.indexOf(rest[0]!);
    assert.deepEqual(rest, second.slice(k, k + rest.length), `the restarted service's words, in order, each once: ${rest.join(' ')}`);
    assert.ok(rest.length >= 3, `words were dictated after the restart: ${rest.join(' ')}`);
    assert.match(extensionLog(w).slice(logMark), /reconnect/i, 'the extension reconnected by itself');
    await service.restart(); // leave a fresh service with the original script for the next tests
  });
});
