import assert from 'node:assert/strict';
import { doubtfulSpans, placeWords, type WordInfo } from '../../src/client/proofreading/wordMap';
import { ProofMarks } from '../../src/client/proofreading/proofMarks';
import { ServerMessageSchema, type BatchReplaceMessage, type TranscriptMessage } from '../../src/protocol/messages';
import { finalDetails } from '../../src/extension/proofreading/runProofreading';

const w = (text: string, confidence = 0.9): WordInfo => ({ text, confidence });
const spanText = (written: string, words: readonly WordInfo[]): string[] =>
  placeWords(written, words).map((s) => written.slice(s.start, s.end));

describe('proofreading: words placed in the written text', () => {
  it('matches the words in order, case and accents aside, and skips punctuation the grammar wrote', () => {
    const written = 'Épanchement pleural, à droite.';
    const spans = placeWords(written, [w('epanchement'), w('pleural', 0.3), w('virgule'), w('a'), w('droite'), w('point')]);
    assert.deepEqual(
      spans.map((s) => written.slice(s.start, s.end)),
      ['Épanchement', 'pleural', 'à', 'droite'],
    );
    assert.deepEqual(
      spans.map((s) => s.words),
      [[0], [1], [3], [4]],
    );
    assert.deepEqual(
      doubtfulSpans(spans, 0.6).map((s) => written.slice(s.start, s.end)),
      ['pleural'],
    );
    assert.deepEqual(doubtfulSpans(spans, 0), [], 'threshold 0: nothing is marked');
  });

  it('text the grammar made of several words ("trois virgule deux centimètres" → "3,2 cm") is one span, as sure as its least sure word', () => {
    const written = 'Nodule de 3,2 cm au lobe';
    const words = [w('nodule'), w('de'), w('trois'), w('virgule'), w('deux', 0.4), w('centimètres'), w('au'), w('lobe')];
    const spans = placeWords(written, words);
    assert.deepEqual(spanText(written, words), ['Nodule', 'de', '3,2 cm', 'au', 'lobe']);
    const number = spans[2]!;
    assert.deepEqual(number.words, [2, 3, 4, 5]);
    assert.equal(number.confidence, 0.4);
    assert.equal(number.exact, false);
    assert.deepEqual(
      doubtfulSpans(spans, 0.6).map((s) => written.slice(s.start, s.end)),
      ['3,2 cm'],
    );
  });

  it('at the end or the start of the chunk too; a word that is nowhere is skipped without moving the others', () => {
    assert.deepEqual(spanText('Mesure 3,2 cm', [w('mesure'), w('trois'), w('virgule'), w('deux'), w('centimètres')]), ['Mesure', '3,2 cm']);
    assert.deepEqual(spanText('12 mm environ', [w('douze'), w('millimètres'), w('environ')]), ['12 mm', 'environ']);
    assert.deepEqual(spanText('the left lung', [w('the'), w('uh'), w('left'), w('lung')]), ['the', 'left', 'lung']);
  });

  it('words written with inner punctuation, and a later occurrence too far away is not taken', () => {
    assert.deepEqual(spanText("peut-être l'épanchement", [w('peut-être'), w("l'épanchement")]), ['peut-être', "l'épanchement"]);
    // "le" is nowhere near: it must not jump to the "le" five words later and lose the words in between.
    const written = 'Un deux trois quatre cinq six le';
    assert.deepEqual(spanText(written, [w('un'), w('le'), w('deux')]), ['Un', 'deux']);
  });

  it('a missing or odd confidence counts as sure; a long span of skipped words is not marked', () => {
    const spans = placeWords('a b', [{ text: 'a', confidence: Number.NaN }, w('b', -1)]);
    assert.deepEqual(
      spans.map((s) => s.confidence),
      [1, 0],
    );
    const long = 'x'.repeat(50);
    assert.deepEqual(placeWords(long, [w('y', 0.1)]), []);
  });
});

describe('proofreading: the marks of a document', () => {
  const details = (words: WordInfo[], alternatives: string[] = []): { words: WordInfo[]; alternatives: string[] } => ({
    words,
    alternatives,
  });

  it('marks the doubtful words of a chunk where it was written, and moves them with edits around them', () => {
    const doc = 'Intro. Le foie est normal.';
    const m = new ProofMarks(0.6);
    assert.ok(m.place('c1', 7, doc.length, doc.slice(7), details([w('le'), w('foie', 0.2), w('est'), w('normal', 0.5)])));
    assert.deepEqual(
      m.list().map((x) => doc.slice(x.start, x.end)),
      ['foie', 'normal'],
    );
    // Text typed before the chunk moves the marks.
    m.changed([{ offset: 0, deletedLength: 0, insertedLength: 3, text: 'ab ' }]);
    const doc2 = 'ab ' + doc;
    assert.deepEqual(
      m.list().map((x) => doc2.slice(x.start, x.end)),
      ['foie', 'normal'],
    );
    // Typing right after a marked word leaves the mark as it is.
    const foie = m.list()[0]!;
    assert.equal(m.changed([{ offset: foie.end, deletedLength: 0, insertedLength: 1, text: ',' }]), false);
    assert.equal(m.count, 2);
  });

  it('a mark whose word is changed is gone for good, even when its chunk is placed again', () => {
    const m = new ProofMarks(0.6);
    m.place('c1', 0, 11, 'le foie est', details([w('le'), w('foie', 0.2), w('est')]));
    const foie = m.list()[0]!;
    assert.equal(m.changed([{ offset: foie.start, deletedLength: 4, insertedLength: 4, text: 'rein' }]), true);
    assert.equal(m.count, 0);
    m.place('c1', 0, 11, 'le rein est', details([w('le'), w('foie', 0.2), w('est')]));
    assert.equal(m.count, 0);
  });

  it('accept removes a mark; next and previous go round the marks from the cursor', () => {
    const text = 'un deux trois quatre';
    const m = new ProofMarks(0.6);
    m.place('c', 0, text.length, text, details([w('un', 0.1), w('deux'), w('trois', 0.1), w('quatre', 0.1)]));
    const [un, trois, quatre] = m.list();
    assert.equal(m.next(0)?.id, trois!.id);
    assert.equal(m.next(trois!.start)?.id, quatre!.id);
    assert.equal(m.next(quatre!.start)?.id, un!.id, 'wraps round');
    assert.equal(m.previous(trois!.start)?.id, un!.id);
    assert.equal(m.previous(0)?.id, quatre!.id, 'wraps round');
    assert.equal(m.at(trois!.end)?.id, trois!.id);
    assert.ok(m.accept(trois!.id));
    assert.equal(m.accept(trois!.id), false);
    assert.deepEqual(
      m.list().map((x) => text.slice(x.start, x.end)),
      ['un', 'quatre'],
    );
    m.place('c', 0, text.length, text, details([w('un', 0.1), w('deux'), w('trois', 0.1), w('quatre', 0.1)]));
    assert.equal(m.count, 2, 'an accepted word is not marked again');
  });

  it("a command chunk (its range is the previous chunk's) is not placed; a chunk that grew is placed again", () => {
    const m = new ProofMarks(0.6);
    assert.ok(m.place('c1', 0, 7, 'le foie', details([w('le'), w('foie', 0.1)], ['le froid'])));
    assert.equal(m.place('c2', 0, 7, 'le foie', details([w('efface'), w('ça')])), false);
    assert.equal(m.lastChunk()?.id, 'c1');
    // Held-back words written later: the chunk now ends further.
    m.changed([{ offset: 7, deletedLength: 0, insertedLength: 4, text: ' est' }]);
    assert.equal(
      m.grew(0, 11, () => 'le foie est'),
      true,
    );
    assert.equal(m.chunk('c1')?.end, 11);
    assert.equal(
      m.grew(0, 11, () => 'le foie est'),
      false,
      'same range: nothing to do',
    );
    assert.deepEqual(m.chunkAt(4)?.alternatives, ['le froid']);
    m.forget(['c1']);
    assert.equal(m.count, 0);
    assert.equal(m.lastChunk(), undefined);
  });

  it('a rewrite of the chunk (proofreading) removes its marks through the change itself', () => {
    const m = new ProofMarks(0.6);
    m.place('c1', 0, 11, 'le foie est', details([w('le'), w('foie', 0.1), w('est')]));
    m.changed([{ offset: 0, deletedLength: 11, insertedLength: 12, text: 'Le foie est.' }]);
    assert.equal(m.count, 0);
  });
});

describe('proofreading: details on the wire', () => {
  it('transcripts and new_chunk parse with or without start_ms, end_ms, words and alternatives', () => {
    const words = [
      { text: 'le', start_ms: 0, end_ms: 200, confidence: 0.9 },
      { text: 'foie', start_ms: 200, end_ms: 500, confidence: 0.3 },
    ];
    const withDetails = ServerMessageSchema.parse({
      type: 'transcript',
      status: 'final',
      text: 'le foie',
      id: 'c1',
      index: 0,
      seq: 1,
      start_ms: 0,
      end_ms: 500,
      words,
      alternatives: ['le froid'],
    }) as TranscriptMessage;
    assert.deepEqual(finalDetails(withDetails), { id: 'c1', words, alternatives: ['le froid'], span: { startMs: 0, endMs: 500 } });
    // Without the chunk's times, those of its words.
    const wordsOnly = ServerMessageSchema.parse({
      type: 'transcript',
      status: 'final',
      text: 'le foie',
      id: 'c1',
      index: 0,
      seq: 1,
      words,
    }) as TranscriptMessage;
    assert.deepEqual(finalDetails(wordsOnly)?.span, { startMs: 0, endMs: 500 });
    const plain = ServerMessageSchema.parse({
      type: 'transcript',
      status: 'final',
      text: 'le foie',
      id: 'c1',
      index: 0,
      seq: 1,
    }) as TranscriptMessage;
    assert.deepEqual(finalDetails(plain), { id: 'c1', words: [], alternatives: [] });
    const interim = ServerMessageSchema.parse({
      type: 'transcript',
      status: 'interim',
      text: 'le',
      id: 'c1',
      index: 0,
      seq: 1,
      words: words.slice(0, 1),
    }) as TranscriptMessage;
    assert.equal(finalDetails(interim), undefined);
    const batch = ServerMessageSchema.parse({
      type: 'batch.replace',
      seq: 3,
      data: {
        target_ids: ['c1'],
        new_chunk: { id: 'p1', index: 0, text: 'Le foie.', status: 'final', words, alternatives: ['Le froid.'] },
      },
    }) as BatchReplaceMessage;
    assert.deepEqual(finalDetails(batch)?.alternatives, ['Le froid.']);
    // Out of the protocol's bounds: not a valid message.
    assert.equal(
      ServerMessageSchema.safeParse({
        type: 'transcript',
        status: 'final',
        text: 'x',
        id: 'c',
        index: 0,
        seq: 1,
        words: [{ text: 'x', start_ms: 0, end_ms: 1, confidence: 1.5 }],
      }).success,
      false,
    );
  });
});
