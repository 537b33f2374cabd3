/**
 * Doubtful words through the real writing pipeline in plain Node (test/helpers/writerRun.ts: the real
 * TranscriptModel and DocumentWriter, with the dictation grammar, writing into a MemoryDocument): the
 * marks land on the words the grammar wrote, follow them through a person's edits, go when the word is
 * changed, and a correction command said alone writes nothing and reaches Correct That.
 */
import assert from 'node:assert/strict';
import { ProofMarks } from '../../src/client/proofreading/proofMarks';
import type { DictationAction } from '../../src/dictation';
import { RunProofreading } from '../../src/extension/proofreading/runProofreading';
import type { DoubtfulWords } from '../../src/extension/proofreading/doubtfulWords';
import type { BatchReplaceMessage, TranscriptMessage } from '../../src/protocol/messages';
import { WriterRun } from '../helpers/writerRun';

class ProofRun {
  readonly run: WriterRun;
  readonly marks = new ProofMarks(0.6);
  readonly said: DictationAction[] = [];
  readonly proof: RunProofreading;
  private seq = 0;

  constructor(text = '') {
    this.run = new WriterRun(text, { grammar: { language: 'fr' } });
    const doc = { uri: { toString: () => 'memory:report' }, getText: () => this.run.text };
    this.run.doc.onDidChange((changes) => this.marks.changed(changes));
    this.run.writer.onDidWriteLast(({ start, end }) => this.proof.lastWritten(start, end));
    this.proof = new RunProofreading(1, () => doc as never, this.marks, { render: () => undefined } as unknown as DoubtfulWords, {
      language: 'fr',
      run: (a) => this.said.push(a),
    });
  }

  async send(m: TranscriptMessage | BatchReplaceMessage): Promise<void> {
    const ops = this.run.model.apply(m);
    const written = this.run.writer.write(ops).then(async (outcome) => {
      await this.run.doc.settled();
      return outcome;
    });
    this.proof.message(m, ops, written);
    await written;
    await new Promise((r) => setImmediate(r));
  }

  /** A final chunk whose words have these confidences (0.9 for the others). */
  final(id: string, text: string, doubtful: Record<string, number> = {}, alternatives: string[] = []): Promise<void> {
    const words = text.split(' ').map((w, i) => ({ text: w, start_ms: i * 300, end_ms: i * 300 + 250, confidence: doubtful[w] ?? 0.9 }));
    return this.send({ type: 'transcript', status: 'final', text, id, index: this.seq, seq: ++this.seq, words, alternatives });
  }

  marked(): string[] {
    return this.marks.list().map((m) => this.run.text.slice(m.start, m.end));
  }
}

describe('proofreading: doubtful words through the real writer and grammar', () => {
  it('marks the words the grammar wrote, numbers written as digits included', async () => {
    const p = new ProofRun();
    await p.final('c1', 'le foie est normal point', { foie: 0.3 });
    await p.final('c2', 'nodule de trois virgule deux centimètres point', { deux: 0.2 });
    await p.run.finish();
    assert.equal(p.run.text, 'Le foie est normal. Nodule de 3,2\u00a0cm.');
    assert.deepEqual(p.marked(), ['foie', '3,2\u00a0cm']);
  });

  it("the marks follow their words through a person's edits, and a changed word loses its mark", async () => {
    const p = new ProofRun('Indication : ');
    await p.final('c1', 'le foie est normal point', { foie: 0.3, normal: 0.4 });
    await p.run.idle();
    assert.deepEqual(p.marked(), ['foie', 'normal']);
    p.run.doc.type(0, 0, 'Compte rendu. ');
    await p.run.doc.settled();
    assert.deepEqual(p.marked(), ['foie', 'normal']);
    const at = p.run.text.indexOf('normal');
    p.run.doc.type(at, at + 'normal'.length, 'anormal');
    await p.run.doc.settled();
    assert.deepEqual(p.marked(), ['foie']);
    await p.run.finish();
  });

  it('a rewrite of a sentence that is not the last one is placed where that sentence was', async () => {
    const p = new ProofRun();
    await p.final('c1', 'le foie', { foie: 0.3 });
    await p.final('c2', 'la rate', { rate: 0.3 });
    const words = ['le', 'foie', 'point'].map((w, i) => ({
      text: w,
      start_ms: i * 300,
      end_ms: i * 300 + 250,
      confidence: w === 'le' ? 0.3 : 0.9,
    }));
    await p.send({
      type: 'batch.replace',
      seq: 10,
      data: { target_ids: ['c1'], new_chunk: { id: 'p1', index: 0, text: 'le foie point', status: 'final', words } },
    });
    await p.run.finish();
    assert.equal(p.run.text, 'Le foie. la rate');
    assert.deepEqual(p.marked(), ['Le', 'rate']);
    assert.equal(p.marks.chunk('1:p1')?.start, 0);
  });

  it('words the grammar held back are marked once they are written', async () => {
    const p = new ProofRun();
    await p.final('c1', 'la rate est nouvelle', { nouvelle: 0.3 });
    assert.equal(p.run.text, 'La rate est', '"nouvelle" may begin "nouvelle ligne": held back');
    assert.deepEqual(p.marked(), []);
    await p.run.holdElapsed();
    await new Promise((r) => setImmediate(r));
    assert.equal(p.run.text, 'La rate est nouvelle');
    assert.deepEqual(p.marked(), ['nouvelle']);
    await p.run.finish();
  });

  it('"choisir deux" writes nothing and reaches Correct That; the last utterance stays the dictated one', async () => {
    const p = new ProofRun();
    await p.final('c1', 'le foie est normal point', { foie: 0.3 }, ['le froid est normal point']);
    await p.final('c2', 'choisir deux');
    await p.run.finish();
    assert.equal(p.run.text, 'Le foie est normal.');
    assert.deepEqual(p.said, [{ kind: 'chooseAlternative', choice: 2 }]);
    assert.equal(p.marks.lastChunk()?.id, '1:c1');
    assert.deepEqual(p.marks.lastChunk()?.alternatives, ['le froid est normal point']);
  });

  it('a rewrite of a sentence part of which "efface ça" deleted is not written, and the marks of what stays stay', async () => {
    const p = new ProofRun();
    await p.final('c1', 'le foie est normal', { foie: 0.3 });
    await p.final('c2', 'la rate aussi', { rate: 0.2 });
    await p.final('c3', 'efface ça');
    await p.run.idle();
    assert.equal(p.run.text, 'Le foie est normal');
    assert.deepEqual(p.marked(), ['foie']);
    const words = ['le', 'foie', 'est', 'normal', 'la', 'rate', 'aussi'].map((w, i) => ({
      text: w,
      start_ms: i * 300,
      end_ms: i * 300 + 250,
      confidence: 0.9,
    }));
    await p.send({
      type: 'batch.replace',
      seq: 10,
      data: {
        target_ids: ['c1', 'c2', 'c3'],
        new_chunk: { id: 'p1', index: 0, text: 'Le foie est normal la rate aussi efface ça.', status: 'final', words },
      },
    });
    await p.run.finish();
    assert.equal(p.run.text, 'Le foie est normal', 'what "efface ça" deleted does not come back');
    assert.deepEqual(p.marked(), ['foie'], 'the doubtful word of the text that stays is still marked');
    assert.ok(
      p.run.log.some((l) => /a command said alone, or text a command deleted, is among them/.test(l)),
      'the log says why the rewrite was not written',
    );
  });

  it("the service's proofreading rewrites the sentence: its marks are those of the new text", async () => {
    const p = new ProofRun();
    await p.final('c1', 'le foie', { foie: 0.3 });
    await p.final('c2', 'est normal point');
    const words = ['le', 'foie', 'est', 'normal', 'point'].map((w, i) => ({
      text: w,
      start_ms: i * 300,
      end_ms: i * 300 + 250,
      confidence: w === 'est' ? 0.3 : 0.9,
    }));
    await p.send({
      type: 'batch.replace',
      seq: 10,
      data: { target_ids: ['c1', 'c2'], new_chunk: { id: 'p1', index: 0, text: 'le foie est normal point', status: 'final', words } },
    });
    await p.run.finish();
    assert.equal(p.run.text, 'Le foie est normal.');
    assert.deepEqual(p.marked(), ['est']);
  });
});
