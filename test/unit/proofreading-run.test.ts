/**
 * RunProofreading against a fake document and writer: what a run's messages become once the writer has
 * written them (the marks where the text landed, a command chunk placing nothing, held words written
 * later, a proofread rewrite, the correction commands said alone).
 */
import assert from 'node:assert/strict';
import { ProofMarks } from '../../src/client/proofreading/proofMarks';
import type { TranscriptOp } from '../../src/client/transcript';
import type { DictationAction } from '../../src/dictation';
import type { BatchReplaceMessage, TranscriptMessage } from '../../src/protocol/messages';
import { RunProofreading } from '../../src/extension/proofreading/runProofreading';
import type { DoubtfulWords } from '../../src/extension/proofreading/doubtfulWords';
import type { WriteOutcome } from '../../src/extension/editor/documentWriter';

class FakeRun {
  text = '';
  readonly marks = new ProofMarks(0.6);
  readonly said: DictationAction[] = [];
  wrongLanguage = 0;
  readonly audio = { generation: 0 };
  readonly proof: RunProofreading;
  private seq = 0;

  constructor() {
    const doc = { uri: { toString: () => 'untitled:report' }, getText: () => this.text };
    const words = { render: () => undefined } as unknown as DoubtfulWords;
    this.proof = new RunProofreading(
      1,
      () => doc as never,
      this.marks,
      words,
      { language: 'fr', run: (a) => this.said.push(a) },
      () => this.wrongLanguage++,
      this.audio,
    );
  }

  /** The writer writes `written` at the end of the document (or nothing), then reports its last chunk's range. */
  async final(id: string, spoken: string, written: string | null, confidences: number[], alternatives: string[] = []): Promise<void> {
    const words = spoken
      .split(' ')
      .map((text, i) => ({ text, start_ms: i * 100, end_ms: i * 100 + 90, confidence: confidences[i] ?? 0.9 }));
    const m = {
      type: 'transcript',
      status: 'final',
      text: spoken,
      id,
      index: this.seq,
      seq: ++this.seq,
      words,
      alternatives,
    } as TranscriptMessage;
    const ops: TranscriptOp[] = [{ kind: 'insert', id, text: spoken, prevId: null, nextId: null }];
    await this.write(m, ops, written);
  }

  async write(
    m: TranscriptMessage | BatchReplaceMessage,
    ops: TranscriptOp[],
    written: string | null,
    at?: { start: number; end: number },
  ): Promise<void> {
    let resolve!: (o: WriteOutcome) => void;
    const p = new Promise<WriteOutcome>((r) => (resolve = r));
    const done = (): void => resolve({ refused: new Set() });
    this.proof.message(m, ops, p);
    if (written !== null) {
      const start = at?.start ?? this.text.length;
      const end = at?.end ?? start;
      this.marks.changed([{ offset: start, deletedLength: end - start, insertedLength: written.length, text: written }]);
      this.text = this.text.slice(0, start) + written + this.text.slice(end);
      this.proof.lastWritten(start, start + written.length);
    }
    done();
    await p;
    await new Promise((r) => setImmediate(r));
  }

  marked(): string[] {
    return this.marks.list().map((x) => this.text.slice(x.start, x.end));
  }
}

describe("proofreading: a run's chunks placed where the writer wrote them", () => {
  it('marks the doubtful words of each chunk, grammar-transformed text included', async () => {
    const run = new FakeRun();
    await run.final('c1', 'le foie est normal point', 'Le foie est normal.', [0.9, 0.3, 0.9, 0.9, 0.9]);
    await run.final('c2', 'nodule de trois virgule deux centimètres', ' Nodule de 3,2 cm', [0.9, 0.9, 0.9, 0.9, 0.2, 0.9]);
    assert.deepEqual(run.marked(), ['foie', '3,2 cm']);
    assert.equal(run.marks.lastChunk()?.id, '1:c2');
    // Where each chunk's audio is, for Play Back: the run, its service session, the span of its words.
    assert.deepEqual(run.marks.chunk('1:c1')?.audio, { run: 1, generation: 0, startMs: 0, endMs: 490 });
    run.audio.generation = 1;
    await run.final('c3', 'la rate', ' La rate', [0.9, 0.9]);
    assert.equal(run.marks.chunk('1:c3')?.audio?.generation, 1);
  });

  it('a command chunk (nothing written) places nothing; "choisir deux" reaches Correct That after the writer', async () => {
    const run = new FakeRun();
    await run.final('c1', 'le foie', 'Le foie', [0.9, 0.2], ['le froid']);
    await run.final('c2', 'choisir deux', null, [0.2, 0.2]);
    assert.deepEqual(run.said, [{ kind: 'chooseAlternative', choice: 2 }]);
    assert.deepEqual(run.marked(), ['foie']);
    assert.equal(run.marks.lastChunk()?.id, '1:c1', 'the last utterance is still the dictated one');
    assert.deepEqual(run.marks.lastChunk()?.alternatives, ['le froid']);
  });

  it('a proofread rewrite (batch.replace) replaces the marks of the sentence by those of the new text', async () => {
    const run = new FakeRun();
    await run.final('c1', 'le foie', 'le foie', [0.9, 0.2]);
    await run.final('c2', 'est normal', ' est normal', [0.9, 0.9]);
    const words = [
      { text: 'Le', start_ms: 0, end_ms: 90, confidence: 0.9 },
      { text: 'foie', start_ms: 100, end_ms: 190, confidence: 0.9 },
      { text: 'est', start_ms: 200, end_ms: 290, confidence: 0.4 },
      { text: 'normal.', start_ms: 300, end_ms: 390, confidence: 0.9 },
    ];
    const m = {
      type: 'batch.replace',
      seq: 9,
      data: { target_ids: ['c1', 'c2'], new_chunk: { id: 'p1', index: 0, text: 'Le foie est normal.', status: 'final', words } },
    } as BatchReplaceMessage;
    await run.write(
      m,
      [{ kind: 'replace', targetIds: ['c1', 'c2'], id: 'p1', text: 'Le foie est normal.', prevId: null, nextId: null }],
      'Le foie est normal.',
      { start: 0, end: run.text.length },
    );
    assert.equal(run.text, 'Le foie est normal.');
    assert.deepEqual(run.marked(), ['est']);
    assert.equal(run.marks.chunk('1:c1'), undefined);
  });

  it('three utterances in a row with very low confidence: told once', async () => {
    const run = new FakeRun();
    for (const id of ['a', 'b', 'c', 'd']) await run.final(id, 'zut alors bon', ` ${id}`, [0.1, 0.1, 0.1]);
    assert.equal(run.wrongLanguage, 1);
  });
});
