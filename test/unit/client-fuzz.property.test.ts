/**
 * Client fuzzing as property tests (fast-check): malformed, reordered, duplicated and replayed service
 * messages, interleaved with a person's edits, into the transcript model (`src/client/transcript.ts`) and
 * the range tracker (`src/client/ranges.ts`), driven the way the document writer drives them. Properties:
 * no exception escapes, nothing the person typed changes, and every offset stays inside the document.
 *
 * The document here is a list of characters, each marked with who wrote it; the writer's spacing and
 * edit planning are reproduced from src/extension/editor/documentWriter.ts (its `vscode` part cannot run in
 * plain Node), using the same pure functions: `joinText`, `RangeTracker`, `TranscriptModel`.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { joinText } from '../../src/client/format';
import { type OwnEdit, RangeTracker, type TextChange } from '../../src/client/ranges';
import { TranscriptModel, type TranscriptOp } from '../../src/client/transcript';
import { parseServerMessage, type BatchReplaceMessage, type TranscriptMessage } from '../../src/protocol';

interface Cell {
  ch: string;
  /** The person's character number, or null for dictated text. */
  user: number | null;
}

/** The document, and the person's text as only their own edits made it. */
class World {
  cells: Cell[] = [];
  /** The person's characters in order, as they would be without dictation. */
  shadow: number[] = [];
  private nextUser = 0;
  readonly model: TranscriptModel;
  readonly tracker: RangeTracker;
  readonly malformed: string[] = [];

  constructor(initial: string, anchorAt: number) {
    for (const ch of initial) this.addUserCell(this.cells.length, ch);
    this.model = new TranscriptModel({ onIgnored: (i) => (i.reason.startsWith('malformed message') ? this.malformed.push(i.reason) : undefined) });
    this.tracker = new RangeTracker(Math.min(anchorAt, this.cells.length));
  }

  text(): string {
    return this.cells.map((c) => c.ch).join('');
  }

  private addUserCell(at: number, ch: string): void {
    const id = this.nextUser++;
    const before = this.cells.slice(0, at).filter((c) => c.user !== null).length;
    this.cells.splice(at, 0, { ch, user: id });
    this.shadow.splice(before, 0, id);
  }

  /** A person's edit: delete `del` characters at `at` (of any author), then type `ins`. */
  userEdit(at: number, del: number, ins: string): void {
    const offset = at % (this.cells.length + 1);
    const deleted = Math.min(del, this.cells.length - offset);
    const gone = this.cells.splice(offset, deleted);
    for (const c of gone) if (c.user !== null) this.shadow.splice(this.shadow.indexOf(c.user), 1);
    [...ins].forEach((ch, i) => this.addUserCell(offset + i, ch));
    this.tracker.applyChanges([{ offset, deletedLength: deleted, insertedLength: ins.length, text: ins }]);
  }

  /** One of the writer's own edits: announced, then applied and reported like the editor does. */
  private own(changes: Array<{ offset: number; deletedLength: number; text: string }>, effect: OwnEdit['effect']): void {
    const reported: TextChange[] = changes.map((c) => ({ offset: c.offset, deletedLength: c.deletedLength, insertedLength: c.text.length, text: c.text }));
    for (const c of changes) {
      assert.ok(c.offset >= 0 && c.offset + c.deletedLength <= this.cells.length, `edit inside the document (${c.offset}+${c.deletedLength} of ${this.cells.length})`);
      const removed = this.cells.slice(c.offset, c.offset + c.deletedLength);
      assert.ok(removed.every((x) => x.user === null), `dictation never removes the person's text: "${removed.map((x) => x.ch).join('')}"`);
    }
    const edit: OwnEdit = { changes: reported, effect };
    this.tracker.expect(edit);
    for (const c of changes) this.cells.splice(c.offset, c.deletedLength, ...[...c.text].map((ch) => ({ ch, user: null })));
    assert.equal(this.tracker.applyChanges(reported), 'own');
  }

  private around(start: number, end: number): [string, string] {
    const t = this.text();
    return [t.slice(Math.max(0, start - 2), start), t.slice(end, end + 2)];
  }

  /** What the document writer does with each operation (documentWriter.ts insert/replace). */
  write(ops: TranscriptOp[]): void {
    for (const op of ops) {
      if (op.kind === 'provisional') continue;
      if (op.kind === 'insert') {
        this.insert(op.id, op.text, op.prevId, op.nextId);
        continue;
      }
      const known = op.targetIds.filter((t) => this.tracker.has(t));
      if (known.length === 0) {
        if (op.text.trim() !== '') this.insert(op.id, op.text, op.prevId, op.nextId);
        continue;
      }
      if (known.some((t) => this.tracker.get(t)!.edited)) {
        this.tracker.merge(known, op.id);
        continue;
      }
      const targets = known.map((t) => this.tracker.get(t)!).sort((a, b) => a.start - b.start);
      const first = targets[0]!;
      const last = targets[targets.length - 1]!;
      const contiguous = targets.every((t, i) => i === 0 || targets[i - 1]!.end === t.start);
      if (contiguous) {
        const [b, a] = this.around(first.start, last.end);
        const s = joinText(b, op.text, a);
        this.own([{ offset: first.start, deletedLength: last.end - first.start, text: s }], { kind: 'replace', id: op.id, removeIds: known, offset: first.start, length: s.length });
      } else {
        const [b, a] = this.around(first.start, first.end);
        const s = joinText(b, op.text, a);
        const planned = targets.map((t, i) => ({ offset: t.start, deletedLength: t.end - t.start, text: i === 0 ? s : '' })).reverse();
        this.own(planned, { kind: 'replace', id: op.id, removeIds: known, offset: first.start, length: s.length });
      }
    }
  }

  private insert(id: string, text: string, prevId: string | null, nextId: string | null): void {
    const offset = this.tracker.insertionOffset(prevId, nextId);
    assert.ok(offset >= 0 && offset <= this.cells.length, `insertion offset ${offset} inside the document of ${this.cells.length}`);
    const [b, a] = this.around(offset, offset);
    const s = joinText(b, text, a);
    if (s === '') {
      this.tracker.track(id, offset, 0);
      return;
    }
    this.own([{ offset, deletedLength: 0, text: s }], { kind: 'insert', id, offset, length: s.length });
  }
}

// ------------------------------------------------------------------ generators

const ids = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', '', 'a '.trim(), 'x-1');
const words = fc.array(fc.constantFrom('the', 'lung', 'Clear.', 'no', ',', 'effusion', '(', ')', '\n', ' ', '', 'é', '3.5', '-', '“'), { maxLength: 6 }).map((w) => w.join(' '));
const seq = fc.oneof(fc.integer({ min: 0, max: 40 }), fc.constantFrom(Number.MAX_SAFE_INTEGER, 2 ** 31));
const transcript = fc.record({
  type: fc.constant('transcript' as const),
  status: fc.constantFrom('streaming' as const, 'interim' as const, 'final' as const),
  text: words,
  id: ids,
  index: fc.integer({ min: -2, max: 12 }),
  seq,
});
const batch = fc.record({
  type: fc.constant('batch.replace' as const),
  data: fc.record({
    target_ids: fc.array(ids, { maxLength: 5 }),
    new_chunk: fc.record({ id: ids, index: fc.integer({ min: -2, max: 12 }), text: words, status: fc.constantFrom('final', 'interim', 'weird') }),
  }),
  seq,
});

type Step =
  | { kind: 'message'; message: TranscriptMessage | BatchReplaceMessage }
  | { kind: 'replay'; back: number }
  | { kind: 'edit'; at: number; del: number; ins: string }
  | { kind: 'drop' }
  | { kind: 'generation' };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.oneof(transcript, batch).map((message) => ({ kind: 'message' as const, message: message as TranscriptMessage | BatchReplaceMessage })) },
  { weight: 2, arbitrary: fc.nat({ max: 20 }).map((back) => ({ kind: 'replay' as const, back })) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('edit' as const), at: fc.nat({ max: 200 }), del: fc.oneof(fc.constant(0), fc.nat({ max: 6 })), ins: fc.stringMatching(/^[XYZ \n.]{0,4}$/) }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'drop' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'generation' as const }) },
);

function run(initial: string, anchor: number, steps: Step[]): World {
  const w = new World(initial, anchor);
  const sent: Array<TranscriptMessage | BatchReplaceMessage> = [];
  for (const s of steps) {
    if (s.kind === 'edit') w.userEdit(s.at, s.del, s.ins);
    else if (s.kind === 'drop') w.write(w.model.dropProvisional());
    else if (s.kind === 'generation') w.write(w.model.beginGeneration());
    else {
      const m = s.kind === 'message' ? s.message : sent[sent.length - 1 - (s.back % Math.max(1, sent.length))];
      if (!m) continue;
      // What the session does: only messages that pass the wire schema reach the model.
      const parsed = parseServerMessage(JSON.stringify(m));
      if (!parsed.ok || (parsed.value.type !== 'transcript' && parsed.value.type !== 'batch.replace')) continue;
      sent.push(m);
      w.write(w.model.apply(parsed.value));
    }
  }
  return w;
}

describe('client fuzzing: transcript model + range tracker (property tests)', function () {
  this.timeout(60_000);

  it('no exception escapes, and nothing the person typed changes', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z :\n]{0,30}$/), fc.nat({ max: 40 }), fc.array(step, { maxLength: 60 }), (initial, anchor, steps) => {
        const w = run(initial, anchor, steps);
        const userNow = w.cells.filter((c) => c.user !== null).map((c) => c.user);
        assert.deepEqual(userNow, w.shadow, 'the person\'s characters, in their order, exactly as their own edits left them');
        assert.deepEqual(w.malformed, [], 'no schema-valid message made the model fail inside');
        for (const r of w.tracker.all()) assert.ok(r.start >= 0 && r.start <= r.end && r.end <= w.cells.length, `range ${r.id} [${r.start}, ${r.end}) inside ${w.cells.length}`);
      }),
      { numRuns: Number(process.env.DICTEE_PROPERTY_RUNS ?? 400) },
    );
  });

  it('without the person\'s edits, replayed and reordered messages never commit a chunk twice', () => {
    fc.assert(
      fc.property(fc.array(step.filter((s) => s.kind !== 'edit'), { maxLength: 60 }), (steps) => {
        const w = run('', 0, steps);
        const committed = w.model.committedChunks().map((c) => c.id);
        assert.equal(new Set(committed).size, committed.length, `each id committed once: ${committed.join(',')}`);
        // Every committed chunk's text is in the document exactly where the tracker says.
        const text = w.text();
        for (const r of w.tracker.all()) assert.ok(r.end <= text.length);
      }),
      { numRuns: Number(process.env.DICTEE_PROPERTY_RUNS ?? 400) },
    );
  });

  it('the model takes anything at all without throwing (inputs that would not pass validation too)', () => {
    fc.assert(
      fc.property(fc.array(fc.anything(), { maxLength: 30 }), (xs) => {
        const m = new TranscriptModel();
        for (const x of xs) m.apply(x as TranscriptMessage);
        m.dropProvisional();
        m.beginGeneration();
        m.committedText();
      }),
      { numRuns: 300 },
    );
  });
});
