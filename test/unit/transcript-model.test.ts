/**
 * Table-driven test of the transcript model against event sequences stored in
 * test/fixtures/transcripts/*.json: recorded from the real service (`source: "recorded"`, see
 * record.ts there) and hand-written odd orders (`source: "hand-written"`).
 *
 * Each fixture gives the expected op list and the expected committed text. Besides comparing them,
 * the ops are replayed on a simulated document (committed chunks as segments) which must agree with
 * every op's prevId/nextId and end with the expected text.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { joinChunks } from '../../src/client/format';
import { TranscriptModel, type TranscriptOp } from '../../src/client/transcript';
import type { BatchReplaceMessage, TranscriptMessage } from '../../src/protocol';

type Step = { message: unknown } | { beginGeneration: true } | { dropProvisional: true };
interface Fixture {
  description: string;
  source: 'recorded' | 'hand-written';
  steps: Step[];
  expected: { committedText: string; provisionalText: string; ops: TranscriptOp[] };
}

const DIR = path.resolve(__dirname, '..', 'fixtures', 'transcripts');

/** A document of committed segments, driven only by the ops. */
class SimulatedDocument {
  segments: Array<{ id: string; text: string }> = [];
  provisional = { text: '', afterId: null as string | null };

  private indexOf(id: string): number {
    return this.segments.findIndex((s) => s.id === id);
  }

  private checkNeighbours(pos: number, prevId: string | null, nextId: string | null, what: string): void {
    assert.equal(this.segments[pos - 1]?.id ?? null, prevId, `${what}: prevId`);
    assert.equal(this.segments[pos + 1]?.id ?? null, nextId, `${what}: nextId`);
  }

  apply(op: TranscriptOp): void {
    if (op.kind === 'insert') {
      assert.equal(this.indexOf(op.id), -1, `insert of ${op.id}: already in the document`);
      const pos = op.prevId === null ? 0 : this.indexOf(op.prevId) + 1;
      assert.ok(op.prevId === null || pos > 0, `insert after unknown ${op.prevId}`);
      this.segments.splice(pos, 0, { id: op.id, text: op.text });
      this.checkNeighbours(pos, op.prevId, op.nextId, `insert ${op.id}`);
    } else if (op.kind === 'replace') {
      const positions = op.targetIds.map((t) => this.indexOf(t));
      for (const [i, p] of positions.entries()) assert.ok(p >= 0, `replace: target ${op.targetIds[i]} is not in the document`);
      const first = Math.min(...positions);
      this.segments = this.segments.filter((s) => !op.targetIds.includes(s.id));
      if (op.text !== '') {
        this.segments.splice(first, 0, { id: op.id, text: op.text });
        this.checkNeighbours(first, op.prevId, op.nextId, `replace by ${op.id}`);
      } else {
        assert.equal(this.segments[first - 1]?.id ?? null, op.prevId, 'removal: prevId');
        assert.equal(this.segments[first]?.id ?? null, op.nextId, 'removal: nextId');
      }
    } else {
      if (op.afterId !== null) assert.ok(this.indexOf(op.afterId) >= 0, `provisional after unknown ${op.afterId}`);
      this.provisional = { text: op.text, afterId: op.afterId };
    }
  }

  text(): string {
    return joinChunks(this.segments.map((s) => s.text));
  }
}

function run(f: Fixture): { ops: TranscriptOp[]; model: TranscriptModel; doc: SimulatedDocument } {
  const model = new TranscriptModel();
  const doc = new SimulatedDocument();
  const ops: TranscriptOp[] = [];
  for (const step of f.steps) {
    let out: TranscriptOp[];
    if ('beginGeneration' in step) out = model.beginGeneration();
    else if ('dropProvisional' in step) out = model.dropProvisional();
    else out = model.apply(step.message as TranscriptMessage | BatchReplaceMessage);
    for (const op of out) doc.apply(op);
    ops.push(...out);
  }
  return { ops, model, doc };
}

describe('transcript model: recorded and hand-written sequences', () => {
  const files = readdirSync(DIR)
    .filter((f) => f.endsWith('.json'))
    .sort();
  it('has recorded and hand-written fixtures', () => {
    const sources = files.map((f) => (JSON.parse(readFileSync(path.join(DIR, f), 'utf8')) as Fixture).source);
    assert.ok(sources.filter((s) => s === 'hand-written').length >= 10, 'hand-written fixtures');
    assert.ok(sources.filter((s) => s === 'recorded').length >= 1, 'recorded fixtures');
  });
  for (const file of files) {
    const f = JSON.parse(readFileSync(path.join(DIR, file), 'utf8')) as Fixture;
    it(`${file.replace(/\.json$/, '')} (${f.source}): ${f.description}`, () => {
      const { ops, model, doc } = run(f);
      assert.deepEqual(ops, f.expected.ops);
      assert.equal(model.committedText(), f.expected.committedText);
      assert.equal(doc.text(), f.expected.committedText, 'the ops replayed on a document give the committed text');
      assert.equal(model.provisionalText(), f.expected.provisionalText);
      assert.equal(doc.provisional.text, f.expected.provisionalText);
    });
  }
});

describe('transcript model: properties', () => {
  it('never throws and keeps document and model in agreement on random message soups', () => {
    let seed = 42;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const statuses = ['streaming', 'interim', 'final', 'final', 'bogus'];
    for (let round = 0; round < 200; round++) {
      const model = new TranscriptModel();
      const doc = new SimulatedDocument();
      for (let i = 0; i < 60; i++) {
        const r = rnd(10);
        let ops: TranscriptOp[];
        if (r === 0) ops = model.dropProvisional();
        else if (r === 1 && rnd(5) === 0) ops = model.beginGeneration();
        else if (r <= 3) {
          const targets = [0, 1, 2].map(() => `c${rnd(12)}`);
          ops = model.apply({
            type: 'batch.replace',
            seq: rnd(80),
            data: {
              target_ids: targets,
              new_chunk: { id: `c${rnd(12)}`, index: rnd(12), text: rnd(4) ? `w${rnd(99)}` : '', status: statuses[rnd(5)]! },
            },
          } as BatchReplaceMessage);
        } else {
          ops = model.apply({
            type: 'transcript',
            status: statuses[rnd(5)],
            id: `c${rnd(12)}`,
            index: rnd(12),
            seq: rnd(80),
            text: rnd(5) ? `w${rnd(99)}` : '',
          } as TranscriptMessage);
        }
        for (const op of ops) doc.apply(op);
        assert.equal(doc.text(), model.committedText(), `round ${round} step ${i}`);
        assert.equal(doc.provisional.text, model.provisionalText());
      }
    }
  });

  it('filters seq per generation', () => {
    const m = new TranscriptModel();
    m.apply({ type: 'transcript', status: 'final', id: 'a', index: 0, seq: 5, text: 'a' });
    assert.equal(m.lastHandledSeq, 5);
    m.beginGeneration();
    assert.equal(m.generation, 1);
    assert.equal(m.lastHandledSeq, undefined);
    assert.equal(m.apply({ type: 'transcript', status: 'final', id: 'b', index: 0, seq: 1, text: 'b' }).length, 1);
    assert.equal(m.committedText(), 'a b');
  });

  it('reports ignored messages', () => {
    const ignored: string[] = [];
    const m = new TranscriptModel({ onIgnored: (i) => ignored.push(i.reason) });
    m.apply({ type: 'transcript', status: 'final', id: 'a', index: 0, seq: 2, text: 'a' });
    m.apply({ type: 'transcript', status: 'final', id: 'b', index: 1, seq: 2, text: 'b' });
    assert.deepEqual(ignored, ['seq 2 is not above the last handled seq 2']);
  });
  it('a batch.replace of a provisional chunk and a committed one takes the place of the committed one, whose text it rewrites', () => {
    const m = new TranscriptModel();
    m.apply({ type: 'transcript', status: 'final', id: 'a', index: 1, seq: 1, text: 'one' });
    m.apply({ type: 'transcript', status: 'streaming', id: 'b', index: 0, seq: 2, text: 'zero' });
    m.apply({ type: 'transcript', status: 'final', id: 'c', index: 2, seq: 3, text: 'two' });
    const ops = m.apply({
      type: 'batch.replace',
      seq: 4,
      data: { target_ids: ['b', 'c'], new_chunk: { id: 'd', index: 0, text: 'Two.', status: 'final' } },
    });
    assert.deepEqual(ops[0], { kind: 'replace', targetIds: ['c'], id: 'd', text: 'Two.', prevId: 'a', nextId: null });
    assert.equal(m.committedText(), 'one Two.');
  });
});
