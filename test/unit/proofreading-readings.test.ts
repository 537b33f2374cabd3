import assert from 'node:assert/strict';
import { lastOccurrence, letteredWords, readingEdit, readings, wordsIn } from '../../src/client/proofreading/readings';
import type { WordInfo } from '../../src/client/proofreading/wordMap';
import { correctionCommand } from '../../src/extension/proofreading/runProofreading';
import { formatReading } from '../../src/extension/proofreading/readingText';

const words = (text: string): WordInfo[] => text.split(' ').map((t) => ({ text: t, confidence: 0.5 }));
const apply = (written: string, e: { start: number; end: number; text: string }): string =>
  written.slice(0, e.start) + e.text + written.slice(e.end);

describe('proofreading: Correct That readings', () => {
  const best = 'le foie est normal'.split(' ');

  it("reduces each alternative to the words it changes, once each, in the engine's order", () => {
    const r = readings(best, [
      'le froid est normal',
      'Le foie est normal.',
      'le foie est anormal',
      'le FROID est normal',
      'le foie normal',
      'le foie est très normal',
    ]);
    assert.deepEqual(
      r.map((x) => [x.from, x.to, x.replacement]),
      [
        [1, 2, 'froid'],
        [3, 4, 'anormal'],
        [2, 3, ''],
        [3, 3, 'très'],
      ],
    );
    assert.equal(r[0]!.full, 'le froid est normal');
  });

  it('on a selection, only the readings that change a selected word', () => {
    const r = readings(best, ['le froid est normal', 'le foie est anormal'], { from: 3, to: 4 });
    assert.deepEqual(
      r.map((x) => x.replacement),
      ['anormal'],
    );
    assert.equal(readings(best, ['le foie est normal'], undefined).length, 0, 'the same reading is not offered');
  });

  it('places a reading over the words it changes in the written text (capitals and punctuation of the grammar kept around)', () => {
    const written = 'Le foie est normal.';
    const w = words('le foie est normal');
    const [froid, anormal, gone, added] = readings(best, [
      'le froid est normal',
      'le foie est anormal',
      'le foie normal',
      'le foie est très normal',
    ]);
    assert.equal(apply(written, readingEdit(written, w, froid!)), 'Le froid est normal.');
    assert.equal(apply(written, readingEdit(written, w, anormal!)), 'Le foie est anormal.');
    assert.equal(apply(written, readingEdit(written, w, gone!)), 'Le foie normal.');
    assert.equal(apply(written, readingEdit(written, w, added!)), 'Le foie est très normal.');
    const first = readings(best, ['la foie est normal'])[0]!;
    assert.equal(apply(written, readingEdit(written, w, first)), 'la foie est normal.');
  });

  it('a change in words the grammar rewrote ("3,2 cm") replaces the whole chunk with the whole alternative', () => {
    const written = 'Nodule de 3,2 cm.';
    const w = words('nodule de trois virgule deux centimètres');
    const r = readings(
      w.map((x) => x.text),
      ['nodule de trois virgule trois centimètres'],
    )[0]!;
    const e = readingEdit(written, w, r);
    assert.equal(e.whole, true);
    assert.equal(apply(written, e), 'nodule de trois virgule trois centimètres');
    // The space the chunk was written with stays.
    assert.equal(apply(` ${written}`, readingEdit(` ${written}`, w, r)), ' nodule de trois virgule trois centimètres');
  });

  it('the words under a selection or a cursor; words without letters are not counted', () => {
    const written = 'Le foie est normal.';
    const w = letteredWords([...words('le foie est normal'), { text: '.', confidence: 1 }]);
    assert.equal(w.length, 4);
    assert.deepEqual(wordsIn(written, w, 3, 7), { from: 1, to: 2 });
    assert.deepEqual(wordsIn(written, w, 5, 5), { from: 1, to: 2 });
    assert.deepEqual(wordsIn(written, w, 0, written.length), { from: 0, to: 4 });
  });

  it('"correct <words>": the last place those words were dictated, accents and case aside, only in what was dictated', () => {
    const text = 'Typed foie. Le foie est normal. Le Foie droit.';
    const dictated = [
      { start: 12, end: 31 },
      { start: 32, end: 46 },
    ];
    assert.deepEqual(lastOccurrence(text, 'foie', dictated), { start: 35, end: 39 });
    assert.deepEqual(lastOccurrence(text, 'foie est', dictated), { start: 15, end: 23 });
    assert.equal(lastOccurrence(text, 'typed', dictated), undefined);
    assert.deepEqual(lastOccurrence('un épanchement', 'epanchement', [{ start: 0, end: 14 }]), { start: 3, end: 14 });
  });
});

describe('proofreading: correction commands said alone reach Correct That, in the four languages', () => {
  it('picks them out of a chunk, and leaves every other command and dictation to the writer', () => {
    assert.deepEqual(correctionCommand('choisir deux', 'fr'), { kind: 'chooseAlternative', choice: 2 });
    assert.deepEqual(correctionCommand('Choose two.', 'en'), { kind: 'chooseAlternative', choice: 2 });
    assert.deepEqual(correctionCommand('elegir dos', 'es'), { kind: 'chooseAlternative', choice: 2 });
    assert.deepEqual(correctionCommand('zwei wählen', 'de'), { kind: 'chooseAlternative', choice: 2 });
    assert.deepEqual(correctionCommand('corriger foie', 'fr'), { kind: 'correctWords', words: 'foie' });
    assert.deepEqual(correctionCommand('spell that b r o n c h u s', 'en'), { kind: 'spellThat', letters: 'bronchus' });
    assert.deepEqual(correctionCommand('épeler b r o n c h e', 'fr'), { kind: 'spellThat', letters: 'bronche' });
    assert.equal(correctionCommand('scratch that', 'en'), undefined);
    assert.equal(correctionCommand('il faut choisir deux options', 'fr'), undefined);
  });
});

describe('proofreading: a reading written as dictated text', () => {
  const doc = 'Indication : bilan. Nodule de 3,2\u00a0cm.';
  const chunkStart = doc.indexOf(' Nodule');
  const written = doc.slice(chunkStart);
  const w = words('nodule de trois virgule deux centimètres point');

  it('through the grammar, against the text around it: numbers, units, the capital of a sentence', () => {
    const r = readings(
      w.map((x) => x.text),
      ['nodule de trois virgule trois centimètres point'],
    )[0]!;
    const e = formatReading(doc, chunkStart, readingEdit(written, w, r), { language: 'fr' });
    assert.equal(doc.slice(0, chunkStart + e.start) + e.text + doc.slice(chunkStart + e.end), 'Indication : bilan. Nodule de 3,3\u00a0cm.');
    const word = readings(
      w.map((x) => x.text),
      ['module de trois virgule deux centimètres point'],
    )[0]!;
    const we = formatReading(doc, chunkStart, readingEdit(written, w, word), { language: 'fr' });
    assert.equal(we.text, 'Module', 'a sentence begins with a capital');
  });

  it('as the engine wrote it when the grammar is off; a deletion is not formatted', () => {
    const e = { start: 1, end: 7, text: 'module', whole: false };
    assert.deepEqual(formatReading(doc, chunkStart, e, undefined), e);
    assert.deepEqual(formatReading(doc, chunkStart, { ...e, text: '' }, { language: 'fr' }), { ...e, text: '' });
  });
});
