import assert from 'node:assert/strict';
import { lastOccurrence, letteredWords, readingEdit, readingRow, readings, wordsIn } from '../../src/client/proofreading/readings';
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
    // The first word changed: the sentence still begins with a capital.
    const first = readings(best, ['la foie est normal'])[0]!;
    assert.equal(apply(written, readingEdit(written, w, first)), 'La foie est normal.');
    const before = readings(best, ['Alors le foie est normal.'])[0]!;
    assert.equal(apply(written, readingEdit(written, w, before)), 'Alors le foie est normal.');
    // Mid-sentence (a chunk written in lower case), a reading's sentence-case capital is not one.
    const mid = readings(best, ['Un foie est normal.', 'Foie est normal.', 'Alors le foie est normal.']);
    assert.deepEqual(
      mid.map((r) => apply(' le foie est normal', readingEdit(' le foie est normal', w, r))),
      [' un foie est normal', ' foie est normal', ' alors le foie est normal'],
    );
  });

  it('a change in words the grammar rewrote ("3,2 cm") replaces the whole chunk with the best reading so changed, its capital and period kept', () => {
    const written = 'Nodule de 3,2 cm.';
    const w = words('nodule de trois virgule deux centimètres');
    const r = readings(
      w.map((x) => x.text),
      ['nodule de trois virgule trois centimètres'],
    )[0]!;
    const e = readingEdit(written, w, r);
    assert.equal(e.whole, true);
    assert.equal(apply(written, e), 'Nodule de trois virgule trois centimètres.');
    // The space the chunk was written with stays.
    assert.equal(apply(` ${written}`, readingEdit(` ${written}`, w, r)), ' Nodule de trois virgule trois centimètres.');
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

describe('proofreading: Correct That on a sentence proofread by pocketsphinx', () => {
  // What pocketsphinx's proofreading sends (recognizer.ts `proofreadSentence`): the sentence with a capital and a final
  // period, its words in that form ("The" … "for."), and its n-best, lower case, given the same sentence case.
  const text = 'The mr john dashwood had then and leisure to consider how much there might be crudely in his power to do for.';
  const alternatives = [
    'Mr john guess would have been a leisure to consider how much there might be crudely in his power to do for fun.',
    'Mr john guess would have been a leisure to consider how much there might be crudely in his power to do for them.',
    'The mr john guess would have been a leisure to consider how much there might be prickly in his power to do for.',
    'Mr john dashwood had then and leisure to consider how much there might be crudely in his power to do for.',
    'The mr john dashwood had been a leisure to consider how much there might be crudely in his power to do for.',
  ];
  const w = letteredWords(text.split(' ').map((t) => ({ text: t, confidence: 0.5 })));
  const best = w.map((x) => x.text);
  // The chunk as the writer wrote it (the English grammar keeps it as it is), after the sentence before it.
  const written = ` ${text}`;
  const had = written.indexOf('had');

  it('on a selected word: only the change around it, over just those words; the capital and the period stay as written', () => {
    const selected = wordsIn(written, w, had, had + 3)!;
    const r = readings(best, alternatives, selected);
    assert.deepEqual(
      r.map((x) => [best.slice(x.from, x.to).join(' '), x.replacement]),
      [['dashwood had then and', 'guess would have been a']],
    );
    const e = readingEdit(written, w, r[0]!);
    assert.equal(e.whole, false);
    assert.equal(written.slice(e.start, e.end), 'dashwood had then and');
    assert.equal(
      apply(written, e),
      ' The mr john guess would have been a leisure to consider how much there might be crudely in his power to do for.',
    );
  });

  it("on the last utterance: each change of each reading once, in the engine's order; none doubles the period", () => {
    const r = readings(best, alternatives);
    const applied = r.map((x) => apply(written, readingEdit(written, w, x)));
    const tail = 'leisure to consider how much there might be';
    assert.deepEqual(applied, [
      ` Mr john dashwood had then and ${tail} crudely in his power to do for.`,
      ` The mr john guess would have been a ${tail} crudely in his power to do for.`,
      ` The mr john dashwood had then and ${tail} crudely in his power to do for fun.`,
      ` The mr john dashwood had then and ${tail} crudely in his power to do for them.`,
      ` The mr john dashwood had then and ${tail} prickly in his power to do for.`,
      ` The mr john dashwood had been a ${tail} crudely in his power to do for.`,
    ]);
    for (const x of r) assert.equal(readingEdit(written, w, x).whole, false);
  });

  it('a whole replacement covers the chunk with its final period and writes one; the first word keeps its capital', () => {
    const writtenAsDigits = ' Nodule de 3,2 cm.';
    const words = letteredWords('Nodule de trois virgule deux centimètres.'.split(' ').map((t) => ({ text: t, confidence: 0.5 })));
    const r = readings(
      words.map((x) => x.text),
      ['Nodule de trois virgule trois centimètres.'],
    );
    assert.equal(r.length, 1);
    const e = readingEdit(writtenAsDigits, words, r[0]!);
    assert.equal(e.whole, true);
    assert.equal(apply(writtenAsDigits, e), ' Nodule de trois virgule trois centimètres.');
    const doc = `Indication : bilan.${writtenAsDigits}`;
    const f = formatReading(doc, doc.indexOf(' Nodule'), e, { language: 'fr' });
    assert.equal(apply(doc, { ...f, start: f.start + 19, end: f.end + 19 }), 'Indication : bilan. Nodule de 3,3\u00a0cm.');
  });

  it('rows: the words changed, with a word of context around a short change, each once', () => {
    const r = readings(best, alternatives);
    const rows = r.map((x) => readingRow(written, w, x, readingEdit(written, w, x)));
    assert.deepEqual(rows, [
      { kind: 'change', words: 'The mr john → Mr john' },
      { kind: 'change', words: 'dashwood had then and → guess would have been a' },
      { kind: 'change', words: 'for. → for fun.' },
      { kind: 'change', words: 'for. → for them.' },
      { kind: 'change', words: 'be crudely in → be prickly in' },
      { kind: 'change', words: 'then and → been a' },
    ]);
    assert.equal(new Set(rows.map((x) => x.words)).size, rows.length, 'distinct');
    const lungs = 'Chest radiograph shows clear lungs.';
    const lw = letteredWords(lungs.split(' ').map((t) => ({ text: t, confidence: 0.5 })));
    const gone = readings(
      lw.map((x) => x.text),
      ['Chest radiograph shows clear.'],
    )[0]!;
    const ge = readingEdit(` ${lungs}`, lw, gone);
    assert.equal(apply(` ${lungs}`, ge), ' Chest radiograph shows clear.');
    assert.deepEqual(readingRow(` ${lungs}`, lw, gone, ge), { kind: 'delete', words: 'lungs', context: 'clear lungs. → clear.' });
  });

  it("a whole replacement's row shows the engine's words it changes", () => {
    const words = letteredWords('Nodule de trois virgule deux centimètres.'.split(' ').map((t) => ({ text: t, confidence: 0.5 })));
    const r = readings(
      words.map((x) => x.text),
      ['Nodule de trois virgule trois centimètres.'],
    )[0]!;
    const e = readingEdit(' Nodule de 3,2 cm.', words, r);
    assert.deepEqual(readingRow(' Nodule de 3,2 cm.', words, r, e), {
      kind: 'change',
      words: 'virgule deux centimètres. → virgule trois centimètres.',
    });
  });
});
