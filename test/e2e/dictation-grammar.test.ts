/**
 * Professional dictation in real VS Code: templates, fields and the spoken commands of the dictation
 * grammar, in French. The service's simulated engine is given a script of one utterance per line
 * (`#utterances`): each stretch of speech played into the virtual microphone, followed by a pause longer
 * than `silence_threshold`, is then exactly one line, one final chunk, one proofread sentence — so the
 * utterances the grammar sees are known, whatever the speech synthesiser's timing. Every assertion is
 * on what a user sees (the editor, quick picks, notifications) or gets (report.md on disk).
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { silence, speechPcm } from '../helpers/speech';
import { waitFor } from '../helpers/wait';
import { ensureKey, extensionLog, keepFailure, openReportAt, saveReport, startDictation, stopDictation } from './lib/dictate';
import { UI } from './lib/ui';
import { ROOT } from './lib/codeServer';
import { dicteeSettings, getWorld, SCRIPT, useWorld, type World } from './lib/world';

useWorld();

const NBSP = '\u00A0';

/** A French template as the extension ships it (its `<!-- name: … -->` line is not inserted). */
function builtinTemplate(file: string): string {
  return readFileSync(path.join(ROOT, 'templates', 'fr', file), 'utf8').replace(/^<!--.*-->\n/u, '');
}

/** The simulated engine's script: one utterance per line, as the engine's proofreading writes it. */
function utteranceScript(lines: string[]): string {
  return ['#utterances', ...lines].join('\n');
}

/** What is said for a line of the script: its words, without the engine's capitals and punctuation. */
function spoken(line: string): string {
  return line.toLowerCase().replace(/[.,]/gu, '').trim();
}

/** One utterance in French speech, then a pause that ends it (longer than silence_threshold, 0.8 s here). */
async function say(w: World, line: string): Promise<void> {
  await w.mic.playPcm(Buffer.concat([silence(200), await speechPcm(spoken(line), { voice: 'fr' }), silence(1500)]));
}

/** The editor's text, as rendered (no-break spaces read as spaces). */
async function editorText(w: World): Promise<string> {
  return (await w.wb.editorLines()).join('\n');
}

async function waitForText(w: World, check: (text: string) => boolean, what: string, timeoutMs = 20_000): Promise<string> {
  return waitFor(
    async () => {
      const t = await editorText(w);
      return check(t) ? t : '';
    },
    timeoutMs,
    what,
    100,
  );
}

/** The cursor and selection as the status bar shows them ("Ln 11, Col 21 (8 selected)"). */
function selectionStatus(w: World): Promise<string> {
  return w.wb.page.locator('#status\\.editor\\.selection').innerText();
}

/** Presses a key that selects a field (the command runs in the extension host) and waits for the selection, as a person would. */
async function selectByKey(w: World, key: string): Promise<void> {
  const before = await selectionStatus(w);
  await w.wb.page.keyboard.press(key);
  await waitFor(
    async () => {
      const now = await selectionStatus(w);
      return now !== before && /selected/.test(now);
    },
    5_000,
    `${key} to select a field`,
  );
}

/** The service restarted with this script (same port, same keys). */
async function useScript(w: World, text: string): Promise<void> {
  writeFileSync(path.join(w.tmp, 'script.txt'), text);
  await w.service.restart();
}

describe('Professional dictation in VS Code: templates, fields, spoken commands (French)', function () {
  this.timeout(240_000);
  let w: World;

  before(async function () {
    this.timeout(600_000);
    w = await getWorld();
    await ensureKey(w);
    w.codeServer.writeSettings(dicteeSettings(w.service.url, { 'dictee.language': 'fr' }));
  });

  after(async function () {
    this.timeout(60_000);
    if (!w) return;
    // The other scenarios dictate in English with the original script.
    w.codeServer.writeSettings(dicteeSettings(w.service.url));
    await useScript(w, SCRIPT);
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && w) await keepFailure(w, this.currentTest.title);
  });

  it('9. What Can I Say?, Insert Template…, Next/Previous Field on the keyboard, the fields-left warning on save, Accept Defaults', async () => {
    const { wb } = w;
    await openReportAt(w, '# Notes\n\n', 3);
    // "What Can I Say?" lists the spoken commands of the language dictated in (French, once VS Code has read the setting).
    await waitFor(
      async () => {
        await wb.runCommand(UI.whatCanISayCommand);
        await waitFor(() => wb.quickInputTitle(), 5_000, 'the title of "What Can I Say?"');
        const french = (await wb.quickInputTitle()).includes('Français');
        if (!french) await wb.escapeQuickInput();
        return french;
      },
      20_000,
      '"What Can I Say?" in French',
      1000,
    );
    await wb.page.keyboard.type('champ');
    const sayRows = await waitFor(
      async () => {
        const shown = await wb.quickPickRows();
        return shown.some((r) => r.includes('“Champ suivant”') && r.includes('sélectionner le champ de modèle suivant'))
          ? shown
          : undefined;
      },
      5_000,
      'the row of “Champ suivant”',
    );
    assert.ok(
      sayRows.every((r) => !r.includes('`')),
      `no Markdown in a quick pick: ${JSON.stringify(sayRows)}`,
    );
    await wb.screenshot('9-what-can-i-say');
    await wb.escapeQuickInput();

    // Insert Template…: the built-in French templates; the first field is selected, typing replaces it.
    await wb.focusEditor();
    await wb.gotoLineEnd(3);
    await wb.runCommand(UI.insertTemplateCommand);
    await waitFor(async () => (await wb.quickInputTitle()).includes(UI.insertTemplateTitle), 5_000, 'the template quick pick');
    const rows = await waitFor(
      async () => {
        const r = await wb.quickPickRows();
        return r.length >= 3 ? r : null;
      },
      5_000,
      'the templates',
    );
    for (const name of ['Cardiologie', 'Juridique', 'Radiologie'])
      assert.ok(
        rows.some((r) => r.startsWith(name)),
        `${name} is offered: ${JSON.stringify(rows)}`,
      );
    await wb.page.keyboard.type('Cardiologie');
    await waitFor(async () => ((await wb.quickPickRows())[0] ?? '').startsWith('Cardiologie'), 5_000, 'Cardiologie first');
    await wb.page.keyboard.press('Enter');
    await waitForText(w, (t) => t.includes('# Échocardiographie transthoracique'), 'the cardiology template in the editor');
    await waitFor(async () => /selected/.test(await selectionStatus(w)), 5_000, 'its first field selected');
    await wb.typeText('Dyspnée.');
    // Next field (Ctrl+Alt+Shift+F), twice, then previous (Ctrl+Alt+Shift+P): each selects a field, typing replaces it.
    await selectByKey(w, 'Control+Alt+Shift+F');
    await wb.typeText('dilaté');
    await selectByKey(w, 'Control+Alt+Shift+F');
    await selectByKey(w, 'Control+Alt+Shift+F');
    await selectByKey(w, 'Control+Alt+Shift+P');
    await wb.typeText('55 %');
    await waitForText(w, (t) => t.includes('- Ventricule gauche : dilaté, FEVG 55 %.'), 'the two fields typed over');
    await wb.screenshot('9-template-fields-by-keyboard');
    // Saving with fields left: a warning that does not block, with "Next Field".
    await wb.save();
    const warning = await wb.waitForNotification(UI.fieldsLeftOnSave('report.md', 4));
    assert.ok(warning.buttons.includes(UI.nextFieldButton), JSON.stringify(warning));
    assert.ok(!readFileSync(w.reportPath, 'utf8').includes('{{Bilan.}}'), 'the file was saved all the same');
    await wb.screenshot('9-saved-with-fields-left');
    await wb.clickNotificationButton(UI.fieldsLeftOnSave('report.md', 4), UI.nextFieldButton);
    await waitFor(async () => /selected/.test(await selectionStatus(w)), 5_000, 'the next field selected');
    await wb.typeText('non dilatée');
    await wb.runCommand(UI.acceptDefaultsCommand);
    const expected =
      '# Notes\n\n' +
      builtinTemplate('cardiologie.md')
        .replace('{{Bilan.}}', 'Dyspnée.')
        .replace('{{non dilaté|dilaté}}', 'dilaté')
        .replace('{{60 %}}', '55 %')
        .replace('{{non dilatée|dilatée}}', 'non dilatée')
        .replace('{{pas de valvulopathie significative.}}', 'pas de valvulopathie significative.')
        .replace('{{sec.|épanchement péricardique.}}', 'sec.')
        .replace('{{Échocardiographie normale.}}', 'Échocardiographie normale.');
    await waitForText(w, (t) => !t.includes('{{'), 'every field filled');
    await wb.clearNotifications();
    assert.equal(await saveReport(w), expected);
    assert.ok(!(await wb.notifications()).some((n) => UI.anyFieldWarning.test(n.message)), 'no warning once no field is left');
  });

  it('10. a French report by voice: the radiology template, two fields by "champ suivant", punctuation, a new paragraph, a measurement, "efface ça"; report.md exactly', async () => {
    const { wb } = w;
    const lines = [
      'Insérer modèle radiologie.',
      'Douleur thoracique depuis trois jours point.',
      'Champ suivant.',
      'Scanner thoracique sans injection point.',
      'Champ suivant.',
      'Nodule du lobe supérieur droit de trois virgule deux centimètres point.',
      'Nouveau paragraphe.',
      // The proofreading pass adds the comma (batch.replace): it is rewritten in place, through the grammar.
      'Le médiastin est normal, les hiles aussi point.',
      'À contrôler dans trois mois point.',
      'Efface ça.',
    ];
    await useScript(w, utteranceScript(lines));
    await openReportAt(w, '', 1);
    const logMark = extensionLog(w).length;
    await startDictation(w);
    await say(w, lines[0]!);
    await waitForText(
      w,
      (t) => t.startsWith("# Compte rendu d'imagerie") && t.includes('## Conclusion'),
      'the radiology template inserted by voice',
    );
    await waitFor(async () => /selected/.test(await selectionStatus(w)), 5_000, 'its first field selected');
    await wb.screenshot('10-template-inserted-by-voice');
    await say(w, lines[1]!);
    await waitForText(
      w,
      (t) => t.includes('## Indication\n\nDouleur thoracique depuis trois jours.\n\n## Technique'),
      'the first field replaced by the dictation',
    );
    // The editor's selection of the field does not stay over the dictated text (typing would overwrite it).
    await waitFor(async () => !/selected/.test(await selectionStatus(w)), 5_000, 'a caret, not a selection, after the dictated text');
    await say(w, lines[2]!);
    await say(w, lines[3]!);
    await waitForText(
      w,
      (t) => t.includes('## Technique\n\nScanner thoracique sans injection.\n\n## Résultats'),
      'the second field, reached by "champ suivant"',
    );
    await say(w, lines[4]!);
    await say(w, lines[5]!);
    await say(w, lines[6]!);
    await say(w, lines[7]!);
    await waitForText(
      w,
      (t) => t.includes('de 3,2 cm.\n\nLe médiastin est normal, les hiles aussi.\n\n## Conclusion'),
      'the measurement, the new paragraph and the proofread sentence',
    );
    await say(w, lines[8]!);
    const withLast = await waitForText(w, (t) => t.includes('les hiles aussi. À contrôler dans trois mois.'), 'the last utterance');
    await wb.screenshot('10-before-efface-ca');
    await say(w, lines[9]!);
    const after = await waitForText(w, (t) => !t.includes('À contrôler'), '"efface ça" to delete the last utterance');
    assert.equal(
      after,
      withLast.replace(' À contrôler dans trois mois.', ''),
      'exactly the last utterance went, in one step, nothing else',
    );
    await wb.screenshot('10-after-efface-ca');
    // Stopping with a field left says so, without blocking.
    await stopDictation(w);
    const warning = await wb.waitForNotification(UI.oneFieldLeftOnStop('report.md'));
    assert.ok(warning.buttons.includes(UI.nextFieldButton));
    await wb.focusEditor();
    await wb.runCommand(UI.acceptDefaultsCommand);
    await waitForText(w, (t) => t.includes('## Conclusion\n\nExamen normal.'), 'the conclusion field with its default');
    await wb.screenshot('10-report-done');
    await wb.clearNotifications();
    const doc = await saveReport(w);
    assert.equal(
      doc,
      "# Compte rendu d'imagerie\n\n## Indication\n\nDouleur thoracique depuis trois jours.\n\n## Technique\n\nScanner thoracique sans injection.\n\n" +
        `## Résultats\n\nNodule du lobe supérieur droit de 3,2${NBSP}cm.\n\nLe médiastin est normal, les hiles aussi.\n\n## Conclusion\n\nExamen normal.\n`,
    );
    const log = extensionLog(w).slice(logMark);
    assert.match(log, /dictation grammar on/);
    assert.match(log, /: insertTemplate\b/);
    assert.equal((log.match(/: nextField\b/g) ?? []).length, 2, 'two "champ suivant"');
    assert.match(log, /deleted chunk /);
    assert.ok(!log.includes('thoracique') && !log.includes('médiastin'), 'no dictated word in the log');
  });

  it('11. undo (Ctrl+Z) takes back one utterance at a time, its proofreading included, while dictating and after', async () => {
    const { wb } = w;
    const lines = [
      'Le foie est normal point.',
      'La rate est normale point.',
      "Pas d'épanchement, pas d'adénopathie point.",
      'Le pancréas est normal point.',
    ];
    await useScript(w, utteranceScript(lines));
    await openReportAt(w, '# Compte rendu\n\n', 3);
    const line3 = async (): Promise<string> => (await wb.editorLines())[2] ?? '';
    const until = (want: string, what: string): Promise<string> =>
      waitFor(async () => ((await line3()) === want ? want : ''), 20_000, what, 100);
    await startDictation(w);
    for (const l of lines.slice(0, 3)) await say(w, l);
    await until(
      "Le foie est normal. La rate est normale. Pas d'épanchement, pas d'adénopathie.",
      'three utterances, the third proofread (its comma)',
    );
    await wb.screenshot('11-three-utterances');
    await wb.focusEditor();
    await wb.page.keyboard.press('Control+Z');
    await until('Le foie est normal. La rate est normale.', 'Ctrl+Z to take back the whole third utterance, its rewrite with it');
    await wb.screenshot('11-after-undo');
    // Dictation goes on where it was.
    await say(w, lines[3]!);
    await until('Le foie est normal. La rate est normale. Le pancréas est normal.', 'the fourth utterance after the second');
    await stopDictation(w);
    await wb.focusEditor();
    await wb.page.keyboard.press('Control+Z');
    await until('Le foie est normal. La rate est normale.', 'Ctrl+Z after the run: the fourth utterance');
    await wb.page.keyboard.press('Control+Z');
    await until('Le foie est normal.', 'Ctrl+Z again: the second utterance');
    assert.equal(await saveReport(w), '# Compte rendu\n\nLe foie est normal.');
  });
});
