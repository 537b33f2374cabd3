/**
 * Proofreading in real VS Code, with the simulated engine's details (docs/protocol.md: word k of the
 * script has confidence 0.3 when k is a multiple of 5, and each doubtful word gives one alternative, the
 * chunk without it): the doubtful words are marked and counted in the status bar, Next Doubtful Word
 * selects one, Correct That offers the engine's other reading and applies it in one undo step, Check
 * Report lists what is left in the Problems panel, Play Back plays in its player in the bottom panel (the editor
 * keeps the keyboard and is not split; the panel closed, the same player shows again); and the same by voice
 * ("correct lungs", "choose one"). Skipped against a service
 * that does not send details.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { WsProbe } from '../helpers/server';
import { framesOf, silence, speechPcm } from '../helpers/speech';
import { waitFor } from '../helpers/wait';
import { bestMatch, samplesOf } from '../helpers/correlation';
import { dicteeSettings, getWorld, SCRIPT, useWorld, type World } from './lib/world';
import { ensureKey, extensionLog, keepFailure, openReportAtFindings, sentences, startDictation, stopDictation } from './lib/dictate';

useWorld();

/** Dictée's words in the suite's display language (package.nls.fr.json, l10n/bundle.l10n.fr.json). */
const FR = {
  nextDoubtful: 'Dictée: Mot douteux suivant',
  correctThat: 'Dictée: Corriger',
  correctThatTitle: /Dictée\s:\sCorriger/,
  useTyped: /^Utiliser\s:\sfields/u,
  deleteWords: '(supprimer ces mots)',
  checkReport: 'Dictée: Vérifier le compte rendu',
  checkSummary: /1 point\(s\) à vérifier dans le compte rendu \(champs à remplir\s:\s0, mots douteux\s:\s1, textes à compléter\s:\s0\)/,
  seenProblem: /Mot douteux, non vérifié\s:\sle moteur était sûr à 30\s%\sde «\sseen\s»/,
  playBack: 'Dictée: Réécouter',
  panelTitle: /^Dictée$/i,
};

/** Whether the service's transcripts carry words with confidences when asked (`details`). */
async function serviceSendsDetails(w: World): Promise<boolean> {
  const p = new WsProbe(w.service.wsUrl, { header: w.apiKey });
  try {
    await p.configure({ language: 'en', silence_threshold: 0.8, engine_endpointing: 0.3, stop_delay: 0.5, details: true });
    for (const f of framesOf(Buffer.concat([silence(300), await speechPcm('chest'), silence(1200)]), 3200)) p.sendAudio(f);
    p.send({ type: 'control', action: 'stop' });
    await p.waitFor((m) => m.type === 'status' && m.state === 'stopped', 30_000, 'the probe session to stop');
    return p.messages.some((m) => m.type === 'transcript' && Array.isArray(m.words));
  } catch {
    return false;
  } finally {
    p.close();
  }
}

/** The service restarted with this script (same port, same keys). */
async function useScript(w: World, text: string): Promise<void> {
  writeFileSync(path.join(w.tmp, 'script.txt'), text);
  await w.service.restart();
}

/** One utterance (its words as said), then a pause that ends it (longer than silence_threshold). */
async function say(w: World, line: string): Promise<void> {
  const words = line.toLowerCase().replace(/[.,]/gu, '').trim();
  await w.mic.playPcm(Buffer.concat([silence(200), await speechPcm(words), silence(1500)]));
}

async function editorText(w: World): Promise<string> {
  return (await w.wb.editorLines()).join('\n');
}

/** Found in the Play Back player's page (its frame). */
const PLAYER = `!!document.getElementById('words') && typeof acquireVsCodeApi === 'function'`;

/** The keyboard is still the editor's: what is typed goes into the document (and is undone). */
async function keyboardInEditor(w: World): Promise<void> {
  assert.ok(await w.wb.editorHasFocus(), 'the keyboard in the editor');
  const before = await editorText(w);
  await w.wb.page.keyboard.type('§');
  await waitFor(async () => (await editorText(w)).includes('§'), 5_000, 'what is typed, in the document');
  await w.wb.page.keyboard.press('Control+Z');
  await waitFor(async () => (await editorText(w)) === before, 5_000, 'the typing undone');
}

describe('Proofreading in VS Code: doubtful words, Correct That, Check Report, Play Back', function () {
  this.timeout(240_000);
  let w: World;

  before(async function () {
    this.timeout(600_000);
    w = await getWorld();
    await ensureKey(w);
    if (!(await serviceSendsDetails(w))) this.skip();
    w.codeServer.writeSettings(dicteeSettings(w.service.url, { 'dictee.proofreading.threshold': 0.6 }));
  });

  after(async function () {
    this.timeout(60_000);
    if (!w) return;
    // The Play Back player is in the panel (it does not take the keyboard): the panel hidden, the editors closed.
    await w.wb.runCommand('View: Hide Panel');
    await w.wb.closeAllEditorsDiscarding();
    w.codeServer.writeSettings(dicteeSettings(w.service.url));
    await useScript(w, SCRIPT);
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && w) await keepFailure(w, this.currentTest.title);
  });

  it('18. marks the doubtful words, goes to one, corrects it from the alternatives in one undo step, checks the report, plays a sentence back', async () => {
    const { wb } = w;
    await openReportAtFindings(w);
    await startDictation(w);
    // "Chest radiograph shows clear lungs. No pleural effusion is seen.": words 5 and 10 are doubtful.
    const [first, second] = SCRIPT.split('. ').slice(0, 2);
    const spoken = await sentences(`${first!}. ${second!}.`);
    await w.mic.playPcm(spoken);
    await waitFor(async () => (await editorText(w)).includes('seen.'), 30_000, 'the two sentences proofread');
    await stopDictation(w);
    const item = await waitFor(
      async () => (await wb.statusItems()).find((i) => i.id.endsWith('dictee.doubtful')),
      15_000,
      'the doubtful-words item',
    );
    assert.equal(item.text, '2', JSON.stringify(item));
    assert.match(item.label, /2 mots douteux/);
    await wb.screenshot('18-doubtful-words-marked');

    // Next Doubtful Word selects "lungs"; Correct That offers the engine's other reading (without it).
    await wb.focusEditor();
    await wb.runCommand(FR.nextDoubtful);
    await waitFor(
      async () => /\(5 selected\)/.test(await wb.page.locator('#status\\.editor\\.selection').innerText()),
      5_000,
      '"lungs" selected',
    );
    await wb.runCommand(FR.correctThat);
    await waitFor(async () => FR.correctThatTitle.test(await wb.quickInputTitle()), 10_000, 'the Correct That list');
    const rows = await wb.quickPickRows();
    assert.ok(rows[0]?.startsWith(`1. ${FR.deleteWords}`), JSON.stringify(rows));
    await wb.screenshot('18-correct-that');
    await wb.page.keyboard.press('Enter');
    await waitFor(async () => (await editorText(w)).includes('Chest radiograph shows clear. No pleural'), 10_000, 'the reading applied');
    await waitFor(
      async () => (await wb.statusItems()).find((i) => i.id.endsWith('dictee.doubtful'))?.text === '1',
      5_000,
      'one doubtful word left',
    );
    // One undo step takes the correction back, whole.
    await wb.focusEditor();
    await wb.page.keyboard.press('Control+Z');
    await waitFor(
      async () => (await editorText(w)).includes('Chest radiograph shows clear lungs. No pleural'),
      5_000,
      'the correction undone in one step',
    );
    await wb.page.keyboard.press('Control+Shift+Z');
    await waitFor(async () => (await editorText(w)).includes('Chest radiograph shows clear. No pleural'), 5_000, 'redone');

    // Check Report: the one doubtful word not reviewed, in the Problems panel.
    await wb.clearNotifications();
    await wb.runCommand(FR.checkReport);
    await wb.waitForNotification(FR.checkSummary);
    await waitFor(
      async () =>
        FR.seenProblem.test(
          await wb.page
            .locator('.markers-panel')
            .innerText()
            .catch(() => ''),
        ),
      10_000,
      'the problem listed',
    );
    await wb.screenshot('18-check-report');

    // Play Back: the sentence at the cursor, in the player in the bottom panel; the editor keeps the keyboard.
    await wb.focusEditor();
    await wb.gotoLineEnd(5);
    const groups = await wb.editorGroups();
    await wb.runCommand(FR.playBack);
    // The extension logs how long the user waited for the first sound (the page's clock, this loaded machine).
    const delays = async (n: number, what: string): Promise<string> =>
      waitFor(async () => [...extensionLog(w).matchAll(/play back: first sound (\d+) ms after the command/g)][n]?.[1], 10_000, what);
    const delay = await delays(0, 'the first sound logged');
    const frame = await waitFor(() => wb.webviewFrame(PLAYER), 10_000, 'the player');
    await waitFor(async () => (await wb.frameBox(frame)).inPanel, 5_000, 'the player in the panel');
    // The panel shows Dictée's view (its tab is the active one).
    assert.match(await wb.page.locator('.part.panel .composite-bar .action-item.checked').first().innerText(), FR.panelTitle);
    assert.equal(await wb.editorGroups(), groups, 'the editor not split');
    await keyboardInEditor(w);
    // The player (in the webview's frame) plays the sentence's audio, the words shown beside it.
    const played = await waitFor(
      async () =>
        (await frame
          .evaluate(
            `(() => typeof buffer === 'undefined' || !buffer ? null : {
                duration: buffer.duration, rate: buffer.sampleRate, samples: Array.from(buffer.getChannelData(0)), span,
                lastWordEndMs: words.length ? words[words.length - 1].endMs : 0, text: document.getElementById('words').textContent })()`,
          )
          .catch(() => null)) as {
          duration: number;
          rate: number;
          samples: number[];
          span: { startMs: number; endMs: number };
          lastWordEndMs: number;
          text: string;
        } | null,
      10_000,
      'the sentence in the player',
    );
    const { samples, ...shown } = played;
    const about = JSON.stringify({ ...shown, samples: samples.length });
    assert.ok(played.duration > 0.3 && played.duration < 10, about);
    assert.match(played.text, /seen/, about);
    // What plays is the span the words were said in: its length is the span's, the last word ends at its end…
    assert.ok(Math.abs(played.span.endMs - played.span.startMs - played.duration * 1000) <= 1, about);
    assert.ok(Math.abs(played.lastWordEndMs - played.duration * 1000) <= 1, about);
    // …and its samples are those of the second sentence spoken into the microphone (cross-correlation).
    const mic = samplesOf(spoken);
    const secondAt = (300 + 1500) * 16 + (await speechPcm(first!.toLowerCase())).length / 2;
    const match = bestMatch(samples, mic, 0, mic.length);
    assert.ok(match.correlation > 0.8, `correlation ${match.correlation} at ${match.at}`);
    assert.ok(
      match.at > secondAt - 0.4 * played.rate && match.at < secondAt + 0.1 * played.rate,
      `the audio played starts at ${match.at / 16} ms of what was spoken, the second sentence at ${secondAt / 16} ms`,
    );
    await wb.screenshot('18-play-back');
    const loadedAt = await frame.evaluate('timing.loadedAt');
    // Again, the player in view.
    await wb.gotoLineEnd(5);
    await wb.runCommand(FR.playBack);
    const again = await delays(1, 'the second first sound logged');
    // The panel hidden, then Play Back: the same player (kept while hidden) shows again and plays.
    await wb.runCommand('View: Hide Panel');
    await waitFor(async () => !(await wb.frameBox(frame)).inPanel, 5_000, 'the panel hidden');
    await wb.gotoLineEnd(5);
    await wb.runCommand(FR.playBack);
    const hidden = await delays(2, 'the third first sound logged');
    await waitFor(async () => (await wb.frameBox(frame)).inPanel, 5_000, 'the player shown again in the panel');
    assert.equal(await frame.evaluate('timing.loadedAt'), loadedAt, 'the same page, kept while the panel was hidden');
    assert.equal(await wb.editorGroups(), groups, 'the editor not split');
    await keyboardInEditor(w);
    console.log(
      `      play back: first sound ${delay} ms after the command (player made), ${again} ms (in view), ${hidden} ms (panel hidden); ` +
        `the sentence's audio found in what was spoken with correlation ${match.correlation.toFixed(3)}`,
    );
    await wb.screenshot('18-play-back-again');
  });

  it('19. corrects by voice: "correct lungs" selects the word and opens its readings, "choose one" applies the first', async () => {
    const { wb } = w;
    // One utterance per line (docs/protocol.md): word 5, "lungs", is doubtful; its reading is the chunk without it.
    const lines = ['Chest radiograph shows clear lungs.', 'Correct lungs.', 'Choose one.'];
    await useScript(w, ['#utterances', ...lines].join('\n'));
    await openReportAtFindings(w);
    await startDictation(w);
    await say(w, lines[0]!);
    await waitFor(async () => (await editorText(w)).includes('clear lungs.'), 30_000, 'the sentence proofread');
    await say(w, lines[1]!);
    await waitFor(async () => FR.correctThatTitle.test(await wb.quickInputTitle()), 30_000, 'the readings of "lungs", opened by voice');
    const rows = await wb.quickPickRows();
    assert.ok(rows[0]?.startsWith(`1. ${FR.deleteWords}`), JSON.stringify(rows));
    await wb.screenshot('19-correct-by-voice');
    await say(w, lines[2]!);
    await waitFor(
      async () => (await editorText(w)).includes('Chest radiograph shows clear.'),
      30_000,
      'the first reading applied by voice',
    );
    await stopDictation(w);
    const text = await editorText(w);
    assert.ok(!/correct|choose/i.test(text), `the commands wrote nothing: ${text}`);
    await wb.screenshot('19-corrected-by-voice');
  });

  it('20. spells by voice: "correct lungs" then "spell that l u n g" writes the letters over the word', async () => {
    const { wb } = w;
    const lines = ['Chest radiograph shows clear lungs.', 'Correct lungs.', 'Spell that l u n g.'];
    await useScript(w, ['#utterances', ...lines].join('\n'));
    await openReportAtFindings(w);
    await startDictation(w);
    await say(w, lines[0]!);
    await waitFor(async () => (await editorText(w)).includes('clear lungs.'), 30_000, 'the sentence proofread');
    await say(w, lines[1]!);
    await waitFor(async () => FR.correctThatTitle.test(await wb.quickInputTitle()), 30_000, 'the readings of "lungs", opened by voice');
    await say(w, lines[2]!);
    await waitFor(async () => (await editorText(w)).includes('Chest radiograph shows clear lung.'), 30_000, 'the spelled word written');
    await stopDictation(w);
    assert.ok(!/spell|correct/i.test(await editorText(w)), 'the commands wrote nothing');
    await wb.screenshot('20-spelled-by-voice');
  });

  it("21. Correct That takes the user's own words typed in its box; the palette finds Play Back by its name alone", async () => {
    const { wb } = w;
    const line = 'Chest radiograph shows clear lungs.';
    await useScript(w, ['#utterances', line].join('\n'));
    await openReportAtFindings(w);
    await startDictation(w);
    await say(w, line);
    await waitFor(async () => (await editorText(w)).includes('clear lungs.'), 30_000, 'the sentence proofread');
    await stopDictation(w);
    // "lungs" selected; no reading is right: the words are typed in the list's box, offered first, and written.
    await wb.focusEditor();
    await wb.runCommand(FR.nextDoubtful);
    await waitFor(
      async () => /\(5 selected\)/.test(await wb.page.locator('#status\\.editor\\.selection').innerText()),
      5_000,
      '"lungs" selected',
    );
    await wb.runCommand(FR.correctThat);
    await waitFor(async () => FR.correctThatTitle.test(await wb.quickInputTitle()), 10_000, 'the Correct That list');
    await wb.page.keyboard.type('fields');
    await waitFor(async () => FR.useTyped.test((await wb.quickPickRows())[0] ?? ''), 5_000, 'the typed words offered first');
    await wb.screenshot('21-correct-that-typed');
    await wb.page.keyboard.press('Enter');
    await waitFor(async () => (await editorText(w)).includes('Chest radiograph shows clear fields.'), 10_000, 'the typed words written');
    // The palette, typed the command's name: the command is the first row (not the player view's "Focus on … View").
    await wb.escapeQuickInput();
    await wb.page.keyboard.press('F1');
    await wb.page.keyboard.type(FR.playBack);
    const rows = await waitFor(
      async () => {
        const r = await wb.quickPickRows();
        return r.length > 0 && r[0] !== '' ? r : undefined;
      },
      10_000,
      'the palette rows',
    );
    assert.match(rows[0]!.replace(/\u00a0/gu, ' '), /Réécouter/u, JSON.stringify(rows));
    assert.ok(!rows.some((r) => /Focus/u.test(r)), `only the command: ${JSON.stringify(rows)}`);
    await wb.escapeQuickInput();
  });
});
