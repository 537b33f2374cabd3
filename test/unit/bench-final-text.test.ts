/**
 * The benches' reading of a session's final text (bench/engineService.ts `finalText`): what a client
 * keeps, the `final` chunks with each sentence's `batch.replace` in their place. A sentence whose
 * proofreading never came keeps its first pass (reading only the `batch.replace` chunks counted those
 * words as lost).
 */
import assert from 'node:assert/strict';
import { type Received, finalText } from '../../bench/engineService';

const final = (id: string, text: string): Received => ({ at: 0, type: 'transcript', status: 'final', id, text });
const replace = (targets: string[], text: string): Received => ({ at: 0, type: 'batch.replace', targets, replaceText: text });

describe('bench finalText', () => {
  it('keeps the finals of a sentence that got no batch.replace', () => {
    assert.equal(
      finalText([{ at: 0, type: 'transcript', status: 'streaming', id: 'a', text: 'con' }, final('a', 'condamné à mort')]),
      'condamné à mort',
    );
  });

  it("puts each batch.replace in its sentence's place, the other finals kept in order", () => {
    const events = [
      final('a', 'one two'),
      final('b', 'three'),
      final('c', 'four five'),
      replace(['c'], 'Four, five.'),
      final('d', 'six'),
      replace(['a', 'b'], 'One two three.'),
    ];
    assert.equal(finalText(events), 'One two three. Four, five. six');
  });

  it('no finals: no text', () => {
    assert.equal(finalText([{ at: 0, type: 'transcript', status: 'interim', id: 'a', text: 'x' }]), '');
  });
});
