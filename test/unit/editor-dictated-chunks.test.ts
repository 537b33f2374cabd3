/**
 * The editor's writers in plain Node (src/extension/editor/, through the MemoryDocument of
 * test/helpers/memoryDocument.ts): chunks written through the dictation grammar — punctuation,
 * hold-back, one undo step per utterance, the commands said alone, templates, and a person's edits.
 */
import assert from 'node:assert/strict';
import type { Template } from '../../src/dictation';
import { WriterRun } from '../helpers/writerRun';

const EN = { language: 'en' as const };
const FR = { language: 'fr' as const };
const NNBSP = '\u202F';

function template(content: string, name = 'chest'): Template {
  return { name, language: null, content, source: 'user', path: `${name}.md` };
}

describe('editor: dictated chunks (the real DocumentWriter and dictation grammar on a document in memory)', () => {
  it('spoken punctuation and capitals, written at the cursor', async () => {
    const r = new WriterRun('# Report\n\n', { grammar: EN });
    await r.final('c1', 0, 'the lung is clear period');
    await r.final('c2', 1, 'no effusion comma no nodule period');
    assert.equal(r.text, '# Report\n\nThe lung is clear. No effusion, no nodule.');
  });

  it('holds back a word that may begin a command: shown as provisional, written with the next chunk or when the time is up', async () => {
    const r = new WriterRun('', { grammar: EN });
    await r.final('c1', 0, 'the liver is normal new');
    assert.equal(r.text, 'The liver is normal');
    assert.match(r.doc.provisional?.text ?? '', /new/);
    await r.final('c2', 1, 'paragraph the spleen too');
    assert.equal(r.text, 'The liver is normal\n\nThe spleen too');
    await r.final('c3', 2, 'we need a new');
    assert.equal(r.text, 'The liver is normal\n\nThe spleen too we need a');
    await r.holdElapsed();
    assert.equal(r.text, 'The liver is normal\n\nThe spleen too we need a new');
  });

  it('one undo step per utterance: its held words and its proofreading join it', async () => {
    const r = new WriterRun('# Compte rendu\n\n', { grammar: FR });
    await r.final('c1', 0, 'le foie est normal point');
    await r.final('c2', 1, "pas d'épanchement pas d'adénopathie nouveau");
    await r.holdElapsed();
    await r.replace(['c2'], 'p2', 1, "pas d'épanchement, pas d'adénopathie nouveau");
    // The rewrite holds its last word back again, for the next chunk or the end of the wait.
    await r.holdElapsed();
    assert.equal(r.text, "# Compte rendu\n\nLe foie est normal. Pas d'épanchement, pas d'adénopathie nouveau");
    assert.deepEqual(
      r.doc.applied.map((a) => a.undo.before),
      [true, true, false, false, false],
      'the held word, the rewrite and its held word join the step of their utterance',
    );
    r.doc.pressUndo();
    await r.doc.settled();
    assert.equal(r.text, '# Compte rendu\n\nLe foie est normal.');
    // Dictation goes on where it was.
    await r.final('c3', 2, 'la rate est normale point');
    assert.equal(r.text, '# Compte rendu\n\nLe foie est normal. La rate est normale.');
  });

  it('"scratch that" and "efface ça" delete the last utterance, in one step, and nothing else', async () => {
    const en = new WriterRun('Notes: ', { grammar: EN });
    await en.final('c1', 0, 'the lung is clear period');
    await en.final('c2', 1, 'check again in three months period');
    await en.final('c3', 2, 'scratch that');
    assert.equal(en.text, 'Notes: the lung is clear.');
    const fr = new WriterRun('', { grammar: FR });
    await fr.final('c1', 0, 'le foie est normal point');
    await fr.final('c2', 1, 'à contrôler dans trois mois point');
    await fr.final('c3', 2, 'efface');
    await fr.final('c4', 3, 'ça');
    assert.equal(fr.text, 'Le foie est normal.');
    await fr.final('c5', 4, 'efface ça');
    assert.equal(fr.text, '');
    await fr.final('c6', 5, 'efface ça');
    assert.deepEqual(fr.told, ['Nothing dictated is left to delete.']);
  });

  it('"scratch that" from a button: the last utterance and its held words, then the one before, then nothing left', async () => {
    const r = new WriterRun('Notes: ', { grammar: EN });
    await r.final('c1', 0, 'the lung is clear period');
    await r.final('c2', 1, 'check again in three months new');
    assert.match(r.doc.provisional?.text ?? '', /new/);
    await r.writer.dictation!.scratchThat();
    await r.doc.settled();
    assert.equal(r.text, 'Notes: the lung is clear.');
    assert.equal(r.doc.provisional?.text ?? '', '', 'the held word went with its utterance');
    await r.holdElapsed();
    assert.equal(r.text, 'Notes: the lung is clear.');
    await r.writer.dictation!.scratchThat();
    await r.doc.settled();
    assert.equal(r.text, 'Notes: ');
    await r.writer.dictation!.scratchThat();
    assert.deepEqual(r.told, ['Nothing dictated is left to delete.']);
    await r.final('c3', 2, 'dictation goes on period');
    assert.equal(r.text, 'Notes: dictation goes on.');
  });

  it('"scratch that" keeps text a person changed', async () => {
    const r = new WriterRun('', { grammar: EN });
    await r.final('c1', 0, 'the lung is clear period');
    r.doc.type(4, 8, 'lungs are');
    await r.doc.settled();
    await r.final('c2', 1, 'scratch that');
    assert.equal(r.text, 'The lungs are is clear.');
    assert.deepEqual(r.told, ['The last dictated text was changed in the document: it is kept.']);
  });

  it('a template by voice: its first field selected, "next field", the words replace each field, "accept defaults" fills the rest', async () => {
    const t = template('## Indication\n\n{{indication}}\n\n## Technique\n\n{{CT|MRI}}\n\n## Conclusion\n\n{{Normal study.}}\n');
    const r = new WriterRun('', { grammar: { ...EN, templates: [t] } });
    await r.final('c1', 0, 'insert template chest');
    assert.equal(r.templatesInserted, 1);
    const first = r.text.indexOf('{{indication}}');
    assert.deepEqual(r.doc.selection(), { start: first, end: first + '{{indication}}'.length });
    await r.final('c2', 1, 'chest pain for three days period');
    assert.ok(r.text.startsWith('## Indication\n\nChest pain for three days.\n\n## Technique'), r.text);
    const end = r.text.indexOf('.\n\n## Technique') + 1;
    assert.deepEqual(r.doc.selection(), { start: end, end }, 'a caret after the dictated text, not a selection over it');
    await r.final('c3', 2, 'next field');
    await r.final('c4', 3, 'CT without contrast period');
    await r.final('c5', 4, 'accept defaults');
    assert.equal(
      r.text,
      '## Indication\n\nChest pain for three days.\n\n## Technique\n\nCT without contrast.\n\n## Conclusion\n\nNormal study.\n',
    );
    await r.final('c6', 5, 'accept defaults');
    assert.deepEqual(r.told, ['No template fields are left.']);
  });

  it('"champ suivant" from the palette and by voice; no field left is said, not done', async () => {
    const r = new WriterRun('A: {{x}} B: {{y}}', { grammar: FR, anchor: 0 });
    assert.equal(await r.writer.dictation!.selectField('next', { start: 0, end: 0 }), true);
    await r.final('c1', 0, 'premier');
    await r.final('c2', 1, 'champ suivant');
    await r.final('c3', 2, 'second');
    assert.equal(r.text, 'A: premier B: second');
    await r.final('c4', 3, 'champ suivant');
    assert.deepEqual(r.told, ['No template field after the cursor.']);
  });

  it('text a person types at the insertion point between two finals goes before the next words; typed elsewhere, it stays there', async () => {
    const r = new WriterRun('Title\n\n', { grammar: EN });
    await r.final('c1', 0, 'the lung is clear period');
    r.doc.type(r.text.length, r.text.length, ' Heart normal.');
    await r.doc.settled();
    await r.final('c2', 1, 'no effusion period');
    assert.equal(r.text, 'Title\n\nThe lung is clear. Heart normal. No effusion.');
    r.doc.type(0, 0, '# ');
    await r.doc.settled();
    await r.final('c3', 2, 'no nodule period');
    assert.equal(r.text, '# Title\n\nThe lung is clear. Heart normal. No effusion. No nodule.');
    // After a person's edit, our next edit is a step of its own.
    assert.equal(r.doc.applied.at(-1)!.undo.before, true);
  });

  it("a person's edit inside the chunks wins over the proofreading (a conflict); the next words still follow them", async () => {
    const r = new WriterRun('', { grammar: FR });
    await r.final('c1', 0, 'le médiastin est normal les hiles aussi');
    r.doc.type(3, 12, 'cœur');
    await r.doc.settled();
    await r.replace(['c1'], 'p1', 0, 'le médiastin est normal, les hiles aussi');
    assert.equal(r.text, 'Le cœur est normal les hiles aussi');
    assert.equal(r.writer.stats.conflicts, 1);
    await r.final('c2', 1, 'point');
    assert.equal(r.text, 'Le cœur est normal les hiles aussi.');
  });

  it('French typography, and the words held at the end of the run are written by finish()', async () => {
    const r = new WriterRun('', { grammar: FR });
    await r.final('c1', 0, "pourquoi point d'interrogation il faut un nouveau");
    assert.equal(r.text, `Pourquoi${NNBSP}? Il faut un`);
    await r.finish();
    assert.equal(r.text, `Pourquoi${NNBSP}? Il faut un nouveau`);
    assert.deepEqual(r.doc.invalid, []);
  });
  it('a person\'s edit that reaches the editor before a rewrite or a "scratch that" of the same text: the edit of ours is refused, then not done', async () => {
    const r = new WriterRun('', { grammar: EN });
    await r.final('c1', 0, 'the lung is clear period');
    const rewriting = r.replace(['c1'], 'p1', 0, 'the lungs are clear period');
    r.doc.type(4, 8, 'heart');
    await rewriting;
    assert.equal(r.text, 'The heart is clear.');
    assert.equal(r.writer.stats.conflicts, 1);
    await r.final('c2', 1, 'no effusion period');
    const scratching = r.final('c3', 2, 'scratch that');
    r.doc.type(r.text.length - 1, r.text.length, '!');
    await scratching;
    assert.equal(r.text, 'The heart is clear. No effusion!');
    assert.deepEqual(r.told, ['The last dictated text was changed in the document: it is kept.']);
    assert.ok(r.doc.refused >= 2);
    assert.deepEqual(r.doc.clobbered, []);
  });

  it('a late final goes between the chunks around it, found again when a person typed before it meanwhile', async () => {
    const r = new WriterRun('', { grammar: EN });
    await r.final('c1', 0, 'the liver period');
    await r.final('c3', 2, 'the kidney period');
    const late = r.final('c2', 1, 'the spleen period');
    r.doc.type(0, 0, 'Abdomen: ');
    await late;
    assert.equal(r.text, 'Abdomen: The liver. The spleen. The kidney.');
  });
  it('a template said while a person edits before the insertion point goes where the insertion point is now', async () => {
    const t = template('Lungs: {{clear}}\n');
    const r = new WriterRun('Chest', { grammar: { ...EN, templates: [t] } });
    const inserting = r.final('c1', 0, 'insert template chest');
    r.doc.type(0, 5, 'CT');
    await inserting;
    assert.equal(r.text, 'CT\n\nLungs: {{clear}}\n');
    assert.deepEqual(r.doc.invalid, []);
    await r.final('c2', 1, 'clear period');
    assert.equal(r.text, 'CT\n\nLungs: clear.\n');
    // The person replaced the text at the insertion point meanwhile: theirs stays, the template follows it.
    const z = new WriterRun('A', { anchor: 0, grammar: { ...EN, templates: [t] } });
    const again = z.final('c1', 0, 'insert template chest');
    z.doc.type(0, 1, 'Z');
    await again;
    assert.equal(z.text, 'Z\n\nLungs: {{clear}}\n');
    assert.deepEqual(z.doc.clobbered, []);
  });

  describe('a sentence of several chunks (short pauses in it) is one undo step with its rewrite', () => {
    const SENTENCE: Array<[string, number, string]> = [
      ['c1', 1, 'il mérite'],
      ['c2', 2, 'anap perfusion elle'],
      ['c3', 3, 'linselles et le lien'],
    ];
    const PROOFREAD = 'il est vital à perfusion elle linselles elle vient point';

    async function start(): Promise<{ r: WriterRun; before: string }> {
      const r = new WriterRun('# Compte rendu\n\n', { grammar: FR });
      await r.speak([['c0', 0, 'le foie est normal point']]);
      await r.endSentence([['c0', 0, 'le foie est normal point']]);
      await r.holdElapsed();
      return { r, before: r.text };
    }

    it('its finals in one burst and its rewrite: one Ctrl+Z takes the whole sentence back, never its first draft', async () => {
      const { r, before } = await start();
      assert.equal(before, '# Compte rendu\n\nLe foie est normal.');
      await r.speak(SENTENCE);
      await r.endSentence(SENTENCE);
      await r.replace(['c1', 'c2', 'c3'], 'p1', 1, PROOFREAD);
      await r.holdElapsed();
      assert.equal(r.text, `${before} Il est vital à perfusion elle linselles elle vient.`);
      const stops = r.doc.applied.map((a) => a.undo.before);
      assert.deepEqual(stops.slice(-4), [true, false, false, false], 'the three finals and the rewrite: one step');
      r.doc.pressUndo();
      await r.doc.settled();
      assert.equal(r.text, before);
      // Dictation goes on where it was.
      await r.speak([['c4', 4, 'la rate est normale']]);
      await r.endSentence([['c4', 4, 'la rate est normale']]);
      assert.equal(r.text, `${before} La rate est normale`);
    });

    it('the next sentence is a step of its own, its rewrite with it', async () => {
      const { r, before } = await start();
      await r.speak(SENTENCE);
      await r.endSentence(SENTENCE);
      await r.replace(['c1', 'c2', 'c3'], 'p1', 1, PROOFREAD);
      await r.holdElapsed();
      const first = r.text;
      const next: Array<[string, number, string]> = [
        ['c4', 4, 'la rate'],
        ['c5', 5, 'est normale'],
      ];
      await r.speak(next);
      await r.endSentence(next);
      await r.replace(['c4', 'c5'], 'p2', 4, 'la rate est normale point');
      await r.holdElapsed();
      assert.equal(r.text, `${first} La rate est normale.`);
      r.doc.pressUndo();
      await r.doc.settled();
      assert.equal(r.text, first);
      r.doc.pressUndo();
      await r.doc.settled();
      assert.equal(r.text, before);
    });

    it('a rewrite that comes after the next sentence was streamed joins its own sentence; the next one is its own step', async () => {
      const { r, before } = await start();
      await r.speak(SENTENCE);
      await r.endSentence(SENTENCE);
      // A decoding engine: the second pass ends while the next sentence is being said.
      await r.streaming('c4', 4, 'la');
      await r.replace(['c1', 'c2', 'c3'], 'p1', 1, PROOFREAD);
      await r.interim('c4', 4, 'la rate');
      await r.final('c4', 4, 'la rate');
      await r.holdElapsed();
      const proofread = `${before} Il est vital à perfusion elle linselles elle vient.`;
      assert.equal(r.text, `${proofread} La rate`);
      r.doc.pressUndo();
      await r.doc.settled();
      assert.equal(r.text, proofread);
      r.doc.pressUndo();
      await r.doc.settled();
      assert.equal(r.text, before);
    });

    it("a rewrite that comes after the next sentence's first finals is a step of its own, not joined to that sentence", async () => {
      const { r, before } = await start();
      await r.speak(SENTENCE);
      await r.endSentence(SENTENCE);
      const raw = r.text;
      await r.speak([['c4', 4, 'la rate']]);
      await r.endSentence([['c4', 4, 'la rate']]);
      await r.replace(['c1', 'c2', 'c3'], 'p1', 1, PROOFREAD);
      await r.holdElapsed();
      // (The next sentence was written after the first draft, which had no period.)
      assert.equal(r.text, `${before} Il est vital à perfusion elle linselles elle vient. la rate`);
      assert.equal(r.doc.applied.at(-1)!.undo.before, true, 'the late rewrite opens a step');
      r.doc.pressUndo();
      await r.doc.settled();
      assert.equal(r.text, `${raw} la rate`, 'the rewrite alone is taken back');
      r.doc.pressUndo();
      await r.doc.settled();
      assert.equal(r.text, raw);
      r.doc.pressUndo();
      await r.doc.settled();
      assert.equal(r.text, before);
    });

    it('a chunk made final early (max_buffer_size) while the sentence goes on is part of its step', async () => {
      const { r, before } = await start();
      await r.speak(SENTENCE);
      // A new chunk would make too many pending: the oldest goes final at once, the others stay pending.
      await r.final('c1', 1, 'il mérite');
      await r.speak([['c4', 4, 'point']]);
      await r.endSentence([...SENTENCE.slice(1), ['c4', 4, 'point']]);
      await r.replace(['c1', 'c2', 'c3', 'c4'], 'p1', 1, PROOFREAD);
      await r.holdElapsed();
      assert.equal(r.text, `${before} Il est vital à perfusion elle linselles elle vient.`);
      r.doc.pressUndo();
      await r.doc.settled();
      assert.equal(r.text, before);
    });

    it("a person's edit between two chunks of the sentence closes the step: the next chunk opens one", async () => {
      const { r, before } = await start();
      await r.speak(SENTENCE);
      await r.final('c1', 1, 'il mérite');
      r.doc.type(0, 0, '> ');
      await r.doc.settled();
      await r.endSentence(SENTENCE.slice(1));
      assert.equal(r.text, `> ${before} Il mérite anap perfusion elle linselles et le lien`);
      const stops = r.doc.applied.map((a) => a.undo.before);
      assert.deepEqual(stops.slice(-3), [true, true, false]);
    });

    it('a command said alone in the sentence keeps its own step; the chunks after it open one', async () => {
      const r = new WriterRun('', { grammar: EN });
      const chunks: Array<[string, number, string]> = [
        ['c1', 0, 'the lung is clear'],
        ['c2', 1, 'scratch that'],
        ['c3', 2, 'no effusion'],
      ];
      await r.speak(chunks);
      await r.endSentence(chunks);
      assert.equal(r.text, 'No effusion');
      assert.deepEqual(
        r.doc.applied.map((a) => a.undo.before),
        [true, true, true],
      );
    });
  });
});
