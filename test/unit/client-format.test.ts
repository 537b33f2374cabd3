import assert from 'node:assert/strict';
import { joinChunks, joinText } from '../../src/client/format';

describe('client: joinText spacing', () => {
  const cases: Array<[before: string, text: string, after: string, expected: string, why: string]> = [
    ['', 'Hello', '', 'Hello', 'start of document'],
    ['Hello', 'world', '', ' world', 'between words'],
    ['Hello ', 'world', '', 'world', 'after a space'],
    ['Hello\n', 'world', '', 'world', 'after a newline'],
    ['Hello\t', 'world', '', 'world', 'after a tab'],
    ['Hello', ', world', '', ', world', 'before a comma'],
    ['Hello', '.', '', '.', 'before a period'],
    ['Hello', '; then', '', '; then', 'before a semicolon'],
    ['Hello', '!', '', '!', 'before !'],
    ['Hello', '?', '', '?', 'before ?'],
    ['Hello', ')', '', ')', 'before a closing bracket'],
    ['see (', 'figure', '', 'figure', 'after an opening bracket'],
    ['see [', 'figure', '', 'figure', 'after an opening square bracket'],
    ['il dit «', 'bonjour', '', 'bonjour', 'after an opening guillemet'],
    ['he said "', 'yes', '', 'yes', 'after an opening straight quote'],
    ['he said "yes"', 'then', '', ' then', 'after a closing straight quote'],
    ["l'", 'homme', '', 'homme', 'after an apostrophe'],
    ['Hello', 'world', 'again', ' world ', 'between two words on both sides'],
    ['Hello', 'world', '.', ' world', 'before a period in the document'],
    ['Hello', 'world', ' again', ' world', 'before a space in the document'],
    ['Hello', 'world', '\nnext', ' world', 'before a newline in the document'],
    ['', 'world', 'again', 'world ', 'at the start, before a word'],
    ['Hello', '  world  ', '', ' world', 'the chunk is trimmed'],
    ['Hello', '   ', 'x', '', 'blank text inserts nothing'],
    ['Hello', '', '', '', 'empty text inserts nothing'],
    ['Hello', '(note', 'x', ' (note ', 'opening bracket in the text keeps the space before it'],
    ['Hello', 'say (', 'x', ' say (', 'no space after an opening bracket at the end of the text'],
    ['Dr.', 'Smith', '', ' Smith', 'after a period'],
    ['x', 'y', ')', ' y', 'before a closing bracket in the document'],
  ];
  for (const [before, text, after, expected, why] of cases) {
    it(`${why}: ${JSON.stringify(before)} + ${JSON.stringify(text)} + ${JSON.stringify(after)}`, () => {
      assert.equal(joinText(before, text, after), expected);
    });
  }

  it('joinChunks joins a sentence and its punctuation', () => {
    assert.equal(joinChunks(['The patient', 'is stable', '.', 'No fever', ',', 'no pain.']), 'The patient is stable. No fever, no pain.');
    assert.equal(joinChunks([]), '');
    assert.equal(joinChunks(['', 'a', '  ', 'b']), 'a b');
  });
});
