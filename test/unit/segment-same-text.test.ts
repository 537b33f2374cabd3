import assert from 'node:assert/strict';
import type { RecognizedWord } from '../../src/server/engine/recognizer';
import { sameText } from '../../src/server/engine/segmentEvents';

const words = (...raw: string[]): RecognizedWord[] => raw.map((r) => ({ raw: r, proofread: r }));

describe('segmenter: whether a revision changed the text (sameText)', () => {
  it('is the comparison of the raw words joined by spaces', () => {
    const cases: Array<[RecognizedWord[], RecognizedWord[]]> = [
      [words(), words()],
      [words('hello'), words('hello')],
      [words('hello'), words('hello', 'world')],
      [words('new york'), words('new', 'york')], // a word may hold a space: the same text
      [words('abc', 'de'), words('abd', 'de')], // the same length, another text
      [words('ab', 'cde'), words('abc', 'de')], // the same letters, the space elsewhere
      [words(''), words()],
      [words('', ''), words(' ')],
      [words('a'), words()],
    ];
    for (const [a, b] of cases) {
      const want = a.map((w) => w.raw).join(' ') === b.map((w) => w.raw).join(' ');
      assert.equal(sameText(a, b), want, JSON.stringify([a, b]));
      assert.equal(sameText(b, a), want, JSON.stringify([b, a]));
    }
  });
});
