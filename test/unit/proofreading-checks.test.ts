import assert from 'node:assert/strict';
import { placeholders, reportProblems, reportSummary } from '../../src/extension/proofreading/reportChecks';
import { ENGLISH } from '../../src/extension/l10nText';
import { LanguageDoubt } from '../../src/client/proofreading/languageDoubt';

describe('proofreading: Check Report', () => {
  it('finds unfilled fields, doubtful words not reviewed and placeholders, in document order', () => {
    const text = 'Indication: {{Bilan}}.\nLe foie est XXX normal.\nConclusion: [...]';
    const foie = text.indexOf('foie');
    const problems = reportProblems(ENGLISH, text, [{ id: 'c1#1', start: foie, end: foie + 4, confidence: 0.42, chunkId: 'c1' }]);
    assert.deepEqual(
      problems.map((p) => [p.kind, text.slice(p.start, p.end)]),
      [
        ['field', '{{Bilan}}'],
        ['doubtful', 'foie'],
        ['placeholder', 'XXX'],
        ['placeholder', '[...]'],
      ],
    );
    assert.equal(problems[0]!.default, 'Bilan');
    assert.equal(problems[1]!.markId, 'c1#1');
    assert.equal(problems[1]!.message, 'Doubtful word, not reviewed: the engine was 42% sure of “foie”.');
    assert.match(
      reportSummary(ENGLISH, problems),
      /^Dictée: 4 left to check in the report \(unfilled fields: 1, doubtful words: 1, placeholders: 2\)/,
    );
  });

  it('a report with nothing left says so', () => {
    const problems = reportProblems(ENGLISH, 'Le foie est normal.', []);
    assert.deepEqual(problems, []);
    assert.equal(reportSummary(ENGLISH, problems), 'Dictée: the report has no unfilled field, doubtful word or placeholder left.');
  });

  it('placeholders: XXX, ___, […], ???, <...>; not words with x, a Markdown rule, code or a field', () => {
    const found = (t: string): string[] => placeholders(t).map((p) => t.slice(p.start, p.end));
    assert.deepEqual(found('Taille xxx mm, côté ___, [ … ], ???, <...>'), ['xxx', '___', '[ … ]', '???', '<...>']);
    assert.deepEqual(found('Max 3 cm; box; XXL; lexxx'), []);
    assert.deepEqual(found('Texte\n___\nSuite'), []);
    assert.deepEqual(found('`XXX` and ```\nXXX\n``` and {{XXX}}'), []);
  });
});

describe('proofreading: wrong language', () => {
  const utterance = (c: number, n = 4): Array<{ text: string; confidence: number }> =>
    Array.from({ length: n }, (_, i) => ({ text: `w${i}`, confidence: c }));

  it('says so once, after three utterances in a row with a very low mean confidence', () => {
    const d = new LanguageDoubt();
    assert.equal(d.push(utterance(0.1)), false);
    assert.equal(d.push(utterance(0.2)), false);
    assert.equal(d.push(utterance(0.3)), true);
    assert.equal(d.push(utterance(0.1)), false, 'once per run');
  });

  it('a confident utterance starts the count again; short utterances and those without words do not count', () => {
    const d = new LanguageDoubt();
    d.push(utterance(0.1));
    d.push(utterance(0.1));
    assert.equal(d.push(utterance(0.9)), false);
    assert.equal(d.push(utterance(0.1)), false);
    assert.equal(d.push(utterance(0.1, 1)), false);
    assert.equal(d.push([]), false);
    assert.equal(d.push(utterance(0.1)), false);
    assert.equal(d.push(utterance(0.1)), true);
  });
});
