/**
 * Correct That with the user's own words (issue 29, defect 2): the words typed in the list's box replace
 * the words corrected, as typed; letters typed apart are one spelt word.
 */
import assert from 'node:assert/strict';
import { typedEdit, typedText } from '../../src/client/proofreading/typedCorrection';

const apply = (written: string, e: { start: number; end: number; text: string }): string =>
  written.slice(0, e.start) + e.text + written.slice(e.end);

describe('proofreading: Correct That takes typed words', () => {
  it('the typed words replace the whole utterance (its spaces around kept) when nothing is selected', () => {
    const written = ' Dashwood had then and no.';
    const e = typedEdit(written, '  Guess would have been a note. ')!;
    assert.equal(apply(written, e), ' Guess would have been a note.');
    assert.equal(e.whole, true);
  });

  it('over the selection only, when the list corrects a selection', () => {
    const written = ' The liver is of normal size.';
    const start = written.indexOf('liver');
    const e = typedEdit(written, 'spleen', { start, end: start + 'liver'.length })!;
    assert.equal(apply(written, e), ' The spleen is of normal size.');
    assert.equal(e.whole, false);
  });

  it('spelt letters, typed apart, are one word; a word typed as it is stays as typed', () => {
    assert.equal(typedText('b r o n c h u s'), 'bronchus');
    assert.equal(typedText('é p a n c h e m e n t'), 'épanchement');
    assert.equal(typedText('McKay  3,2 cm'), 'McKay 3,2 cm');
    assert.equal(typedText('a b12'), 'a b12');
  });

  it('nothing typed offers nothing', () => {
    assert.equal(typedEdit(' Words.', '   '), undefined);
  });
});
