/** The sentence-audio bookkeeping both recognisers share (engine/sentenceAudio.ts). */
import assert from 'node:assert/strict';
import { IDLE_UTTERANCE_WINDOWS, LEAD_IN_WINDOWS, SentenceAudio } from '../../src/server/engine/sentenceAudio';

/** Pushes windows numbered from `from`. */
function push(a: SentenceAudio<number>, from: number, count: number): void {
  for (let i = 0; i < count; i++) a.push(from + i);
}

describe('SentenceAudio: the lead-in and the sentence audio kept for proofreading', () => {
  it('an utterance without words before the first word keeps only the lead-in', () => {
    const a = new SentenceAudio<number>();
    a.beginUtterance();
    push(a, 0, 100);
    a.utteranceEnded(false);
    assert.equal(a.length, LEAD_IN_WINDOWS);
    a.beginUtterance();
    push(a, 100, 10);
    a.utteranceEnded(true);
    const s = a.endSentence(false, 110 * 20, 20);
    assert.deepEqual(
      s.audio,
      Array.from({ length: LEAD_IN_WINDOWS + 10 }, (_, i) => 100 - LEAD_IN_WINDOWS + i),
    );
    // The first window kept began 35 windows before the end of the audio.
    assert.equal(s.startMs, (110 - LEAD_IN_WINDOWS - 10) * 20);
    assert.equal(s.complete, true);
    assert.equal(a.length, 0);
  });

  it('once a word is heard, a silent utterance in the same sentence is kept whole (the pause is part of it)', () => {
    const a = new SentenceAudio<number>();
    a.beginUtterance();
    push(a, 0, 10);
    a.utteranceEnded(true);
    a.beginUtterance();
    push(a, 10, 60);
    a.utteranceEnded(false);
    assert.equal(a.length, 70);
    assert.equal(a.sentenceHasWords, true);
  });

  it('a sentence ended while an utterance is open leaves that utterance to the next sentence', () => {
    const a = new SentenceAudio<number>();
    a.beginUtterance();
    push(a, 0, 10);
    a.utteranceEnded(true);
    a.beginUtterance();
    push(a, 10, 5);
    const s = a.endSentence(true, 15 * 20, 20);
    assert.deepEqual(s.audio, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.equal(s.startMs, 0);
    assert.equal(a.length, 5);
    assert.equal(a.sentenceHasWords, false);
    const next = a.endSentence(false, 15 * 20, 20);
    assert.deepEqual(next.audio, [10, 11, 12, 13, 14]);
    assert.equal(next.startMs, 10 * 20);
  });

  it('an idle utterance restarts from the lead-in, which becomes the new utterance', () => {
    const a = new SentenceAudio<number>();
    a.beginUtterance();
    push(a, 0, IDLE_UTTERANCE_WINDOWS);
    const lead = a.restartIdle();
    assert.deepEqual(
      lead,
      Array.from({ length: LEAD_IN_WINDOWS }, (_, i) => IDLE_UTTERANCE_WINDOWS - LEAD_IN_WINDOWS + i),
    );
    assert.equal(a.length, LEAD_IN_WINDOWS);
    // A sentence closed now (the utterance open) hands over nothing: the lead-in belongs to the utterance.
    push(a, IDLE_UTTERANCE_WINDOWS, 3);
    assert.deepEqual(a.endSentence(true, 0, 20).audio, []);
    assert.equal(a.length, LEAD_IN_WINDOWS + 3);
  });

  it('after words, an idle restart keeps the sentence and starts the utterance at the lead-in', () => {
    const a = new SentenceAudio<number>();
    a.beginUtterance();
    push(a, 0, 40);
    a.utteranceEnded(true);
    a.beginUtterance();
    push(a, 40, IDLE_UTTERANCE_WINDOWS);
    const lead = a.restartIdle();
    assert.equal(lead.length, LEAD_IN_WINDOWS);
    assert.equal(a.length, 40 + IDLE_UTTERANCE_WINDOWS);
    assert.equal(a.endSentence(true, 0, 20).audio.length, 40 + IDLE_UTTERANCE_WINDOWS - LEAD_IN_WINDOWS);
  });

  it('after a restore the sentence under way is incomplete, the next one complete', () => {
    const a = new SentenceAudio<number>();
    push(a, 0, 5);
    a.restored();
    assert.equal(a.length, 0);
    push(a, 5, 5);
    assert.equal(a.endSentence(false, 200, 20).complete, false);
    assert.equal(a.endSentence(false, 200, 20).complete, true);
  });
});
