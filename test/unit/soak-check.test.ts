/**
 * The soak's word check (test/fuzz/soak/check.ts): a transcript built from the service's messages, across a
 * resume, compared with the words the simulated engine released. It must fail on a dropped word, a duplicated
 * one, a word out of order or one never released, and on a replayed message handled twice.
 */
import assert from 'node:assert/strict';
import { FRAME_MS, ReleasedWords } from '../fuzz/soak/audio';
import { TranscriptLog, type WireMessage, checkWords, numberedScript } from '../fuzz/soak/check';
import { resourcesAbove } from '../fuzz/soak/service';

const SCRIPT = numberedScript(20);

const final = (id: string, index: number, text: string, seq: number): WireMessage => ({
  type: 'transcript',
  status: 'final',
  id,
  index,
  text,
  seq,
});
const streaming = (id: string, index: number, text: string, seq: number): WireMessage => ({
  type: 'transcript',
  status: 'streaming',
  id,
  index,
  text,
  seq,
});
const replace = (targets: string[], id: string, index: number, text: string, seq: number): WireMessage => ({
  type: 'batch.replace',
  data: { target_ids: targets, new_chunk: { id, index, text, status: 'final' } },
  seq,
});

/** Two sentences: three finals proofread into one chunk, then two finals (the second sentence still open). */
function session(): WireMessage[] {
  return [
    streaming('a', 0, 'w1', 1),
    final('a', 0, 'w1 w2', 2),
    final('b', 1, 'w3', 3),
    final('c', 2, 'w4 w5', 4),
    replace(['a', 'b', 'c'], 'p', 0, 'W1 w2 w3 w4 w5.', 5),
    final('d', 3, 'w6 w7', 6),
    final('e', 4, 'w8', 7),
  ];
}

function logOf(messages: WireMessage[]): TranscriptLog {
  const log = new TranscriptLog();
  for (const m of messages) log.add(m);
  return log;
}

describe('soak word check', () => {
  it('a whole transcript: every released word once and in order, proofread forms read as first-pass words', () => {
    const log = logOf(session());
    assert.deepEqual(log.words(), ['w1', 'w2', 'w3', 'w4', 'w5', 'w6', 'w7', 'w8']);
    const c = checkWords(log.words(), SCRIPT, 8);
    assert.deepEqual(c, { expected: 8, received: 8, duplicates: 0, lost: 0, extra: 0, outOfOrder: 0, ok: true });
    assert.equal(log.lastSeq, 7);
    assert.equal(log.repeatedSeqs + log.repeatedFinals + log.unknownTargets, 0);
  });

  it('a dropped word fails: lost 1', () => {
    const messages = session();
    messages[5] = final('d', 3, 'w7', 6); // w6 never arrived
    const c = checkWords(logOf(messages).words(), SCRIPT, 8);
    assert.equal(c.ok, false);
    assert.equal(c.lost, 1);
    assert.equal(c.duplicates, 0);
  });

  it('a word the engine released but no message carried fails: lost 1', () => {
    const c = checkWords(logOf(session()).words(), SCRIPT, 9); // w9 was released: the stop's flush lost it
    assert.equal(c.ok, false);
    assert.equal(c.lost, 1);
  });

  it('a duplicated word fails: duplicates 1', () => {
    const messages = session();
    messages.push(final('f', 5, 'w8', 8)); // the last final again, under a new chunk id
    const c = checkWords(logOf(messages).words(), SCRIPT, 8);
    assert.equal(c.ok, false);
    assert.equal(c.duplicates, 1);
    assert.equal(c.lost, 0);
  });

  it('a sentence both proofread and left as its finals fails: its words twice', () => {
    const messages = session();
    messages[4] = replace(['x'], 'p', 0, 'W1 w2 w3 w4 w5.', 5); // targets that are not the finals
    const log = logOf(messages);
    const c = checkWords(log.words(), SCRIPT, 8);
    assert.equal(c.ok, false);
    assert.equal(c.duplicates, 5);
    assert.equal(log.unknownTargets, 1);
  });

  it('words out of order, or beyond what the engine released, fail', () => {
    assert.equal(checkWords(['w1', 'w3', 'w2'], SCRIPT, 3).outOfOrder, 1);
    const beyond = checkWords(['w1', 'w2', 'w3'], SCRIPT, 2);
    assert.equal(beyond.extra, 1);
    assert.equal(beyond.ok, false);
  });

  it('across a resume: a replay from last_seq adds nothing twice; a replay from too far back is seen', () => {
    const all = session();
    // Dropped after seq 4; the replay resends the finals above 4 with their original seq.
    const good = logOf([...all.slice(0, 4), ...all.slice(4)]);
    assert.equal(good.repeatedSeqs, 0);
    assert.equal(checkWords(good.words(), SCRIPT, 8).ok, true);
    const bad = logOf([...all.slice(0, 4), ...all.slice(2)]); // the service replayed seq 3 and 4 again
    assert.equal(bad.repeatedSeqs, 2);
    assert.equal(bad.repeatedFinals, 2);
  });
});

describe('soak audio: the words the engine releases', () => {
  it("1.2 s of tone releases 4 words (one per 300 ms voiced), the loop's silence none; 10 loops, 40", () => {
    const r = new ReleasedWords(SCRIPT.join(' ') + ' ' + numberedScript(100).slice(20).join(' '));
    assert.equal(r.after(0), 0);
    assert.equal(r.after(1200 / FRAME_MS), 4);
    assert.equal(r.after(2500 / FRAME_MS), 4);
    assert.equal(r.after(25_000 / FRAME_MS), 40);
  });
});

describe('soak leak check: active handles against the baseline', () => {
  it('a type above its baseline count, or new, is named; the same or fewer pass', () => {
    const before = { TCPServerWrap: 1, TCPSocketWrap: 1, Timeout: 2 };
    assert.deepEqual(resourcesAbove(before, { TCPServerWrap: 1, TCPSocketWrap: 1, Timeout: 2 }), []);
    assert.deepEqual(resourcesAbove(before, { TCPServerWrap: 1, Timeout: 1 }), []);
    assert.deepEqual(resourcesAbove(before, { TCPServerWrap: 1, TCPSocketWrap: 2, Timeout: 3, Immediate: 1 }), [
      'TCPSocketWrap: 1 → 2',
      'Timeout: 2 → 3',
      'Immediate: 0 → 1',
    ]);
  });
});
