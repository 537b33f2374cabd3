/**
 * Client fuzzing as property tests (fast-check): malformed, reordered, duplicated and replayed service
 * messages, interleaved with a person's edits (some while an edit of ours is on its way to the editor),
 * through the transcript model (`src/client/transcript.ts`) into the real document writer
 * (`src/extension/editor/documentWriter.ts`), with and without the dictation grammar, writing into a
 * document in memory that behaves as VS Code's (test/helpers/memoryDocument.ts: stale edits refused,
 * changes reported late, who wrote each character kept). Properties: no exception escapes, no edit of
 * ours is invalid or removes anything the person typed, the person's text is exactly what their own
 * edits made it, and without their edits the document holds exactly the model's committed text.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { TranscriptModel } from '../../src/client/transcript';
import { parseFields } from '../../src/dictation';
import { parseServerMessage, type BatchReplaceMessage, type TranscriptMessage } from '../../src/protocol';
import { WriterRun } from '../helpers/writerRun';

// ------------------------------------------------------------------ generators

const ids = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', '', 'a '.trim(), 'x-1');
/** Chunk texts: from `vocabulary`, a few words at a time, or one of `alone` (a command said alone). */
function texts(vocabulary: string[], alone: string[] = []): fc.Arbitrary<string> {
  const words = fc.array(fc.constantFrom(...vocabulary), { maxLength: 6 }).map((w) => w.join(' '));
  return alone.length === 0 ? words : fc.oneof({ weight: 3, arbitrary: words }, { weight: 1, arbitrary: fc.constantFrom(...alone) });
}
const PLAIN = ['the', 'lung', 'Clear.', 'no', ',', 'effusion', '(', ')', '\n', ' ', '', 'é', '3.5', '-', '“'];
/** With the grammar: spoken punctuation, words that are held back, the commands said alone, a template. */
const SPOKEN = [
  'the',
  'lung',
  'clear',
  'period',
  'comma',
  'new',
  'paragraph',
  'line',
  'scratch',
  'that',
  'next',
  'field',
  'accept',
  'defaults',
  'insert',
  'template',
  'chest',
  'three',
  'point',
  'two',
  'centimeters',
];
// Not "undo": the editor's undo takes back the last change, a person's as well (as they asked); and the
// person types no `{{field}}`, which "accept defaults" would fill (as they asked).
const COMMANDS = ['scratch that', 'next field', 'accept defaults', 'insert template chest'];
const TEMPLATE = {
  name: 'chest',
  language: null,
  content: 'Lungs: {{clear}}\nHeart: {{normal|enlarged}}\n',
  source: 'user' as const,
  path: 'chest.md',
};
const seq = fc.oneof(fc.integer({ min: 0, max: 40 }), fc.constantFrom(Number.MAX_SAFE_INTEGER, 2 ** 31));

function messages(vocabulary: string[], alone: string[]): fc.Arbitrary<TranscriptMessage | BatchReplaceMessage> {
  const words = texts(vocabulary, alone);
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
      new_chunk: fc.record({
        id: ids,
        index: fc.integer({ min: -2, max: 12 }),
        text: words,
        status: fc.constantFrom('final', 'interim', 'weird'),
      }),
    }),
    seq,
  });
  return fc.oneof(transcript, batch) as fc.Arbitrary<TranscriptMessage | BatchReplaceMessage>;
}

type Step =
  /** A message of the service; `next`: with the seq that follows the last one handled (else its own). */
  | { kind: 'message'; message: TranscriptMessage | BatchReplaceMessage; next: boolean }
  | { kind: 'replay'; back: number }
  /** A person's edit; `racing`: while the writer's last edits may still be on their way to the editor. */
  | { kind: 'edit'; at: number; del: number; ins: string; racing: boolean }
  | { kind: 'drop' }
  | { kind: 'generation' }
  | { kind: 'hold' };

const steps = (vocabulary: string[], alone: string[] = []): fc.Arbitrary<Step> =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(messages(vocabulary, alone), fc.constantFrom(true, true, true, false))
        .map(([message, next]) => ({ kind: 'message' as const, message, next })),
    },
    { weight: 2, arbitrary: fc.nat({ max: 20 }).map((back) => ({ kind: 'replay' as const, back })) },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('edit' as const),
        at: fc.nat({ max: 200 }),
        del: fc.oneof(fc.constant(0), fc.nat({ max: 6 })),
        ins: fc.stringMatching(/^[XYZ \n.]{0,4}$/),
        racing: fc.boolean(),
      }),
    },
    { weight: 1, arbitrary: fc.constant({ kind: 'drop' as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'generation' as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'hold' as const }) },
  );
const step = steps(PLAIN);
const spokenStep = steps(SPOKEN, COMMANDS);

/** A run, and the person's characters in order as only their own edits made them. */
interface World {
  run: WriterRun;
  shadow: number[];
  malformed: string[];
}

async function play(initial: string, anchor: number, steps: Step[], grammar = false): Promise<World> {
  const malformed: string[] = [];
  const run = new WriterRun(initial, {
    anchor: Math.min(anchor, initial.length),
    grammar: grammar ? { language: 'en', templates: [TEMPLATE] } : undefined,
    model: { onIgnored: (i) => (i.reason.startsWith('malformed message') ? malformed.push(i.reason) : undefined) },
  });
  const w: World = { run, shadow: run.doc.authors().filter((a) => a !== null), malformed };
  const sent: Array<TranscriptMessage | BatchReplaceMessage> = [];
  const write = (ops: ReturnType<TranscriptModel['apply']>): void => void run.writer.write(ops);
  for (const s of steps) {
    if (!(s.kind === 'edit' && s.racing)) await run.idle();
    if (s.kind === 'edit') userEdit(w, s.at, s.del, s.ins);
    else if (s.kind === 'drop') write(run.model.dropProvisional());
    else if (s.kind === 'generation') write(run.model.beginGeneration());
    else if (s.kind === 'hold') await run.holdElapsed();
    else {
      const m =
        s.kind === 'message'
          ? s.next
            ? { ...s.message, seq: (run.model.lastHandledSeq ?? -1) + 1 }
            : s.message
          : sent[sent.length - 1 - (s.back % Math.max(1, sent.length))];
      if (!m) continue;
      // What the session does: only messages that pass the wire schema reach the model.
      const parsed = parseServerMessage(JSON.stringify(m));
      if (!parsed.ok || (parsed.value.type !== 'transcript' && parsed.value.type !== 'batch.replace')) continue;
      sent.push(m);
      write(run.model.apply(parsed.value));
    }
  }
  await run.finish();
  return w;
}

/** A person's edit in the editor: delete `del` characters at `at` (of any author), then type `ins`. */
function userEdit(w: World, at: number, del: number, ins: string): void {
  const doc = w.run.doc;
  const offset = at % (doc.value.length + 1);
  const deleted = Math.min(del, doc.value.length - offset);
  // Not inside a template field, which "accept defaults" fills whatever it holds (as the person asked).
  const inside = (f: { start: number; end: number }): boolean =>
    deleted > 0 ? offset < f.end && offset + deleted > f.start : f.start < offset && offset < f.end;
  if (parseFields(doc.value).some(inside)) return;
  const authors = doc.authors();
  const before = authors.slice(0, offset).filter((a) => a !== null).length;
  for (const gone of authors.slice(offset, offset + deleted)) if (gone !== null) w.shadow.splice(w.shadow.indexOf(gone), 1);
  doc.type(offset, offset + deleted, ins);
  w.shadow.splice(before, 0, ...(doc.authors().slice(offset, offset + ins.length) as number[]));
}

function checkPerson(w: World): void {
  const doc = w.run.doc;
  assert.deepEqual(doc.invalid, [], 'every edit of ours inside the document, none overlapping');
  assert.deepEqual(doc.clobbered, [], "no edit of ours removed the person's text");
  assert.deepEqual(
    doc.authors().filter((a) => a !== null),
    w.shadow,
    "the person's characters, in their order, exactly as their own edits left them",
  );
  assert.deepEqual(w.malformed, [], 'no schema-valid message made the model fail inside');
  assert.equal(w.run.writer.stats.failed, 0, `no edit failed: ${w.run.log.filter((l) => l.startsWith('error')).join('; ')}`);
}

/** Text without its spaces and line breaks. */
function unspaced(t: string): string {
  return t.replace(/\s+/gu, '');
}

const RUNS = Number(process.env.DICTEE_PROPERTY_RUNS ?? 400);

describe('client fuzzing: transcript model + the real document writer on a document in memory (property tests)', function () {
  this.timeout(120_000);

  it('no exception escapes, no edit of ours is invalid, and nothing the person typed changes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.stringMatching(/^[A-Za-z :\n]{0,30}$/),
        fc.nat({ max: 40 }),
        fc.array(step, { maxLength: 60 }),
        async (initial, anchor, steps) => {
          checkPerson(await play(initial, anchor, steps));
        },
      ),
      { numRuns: Math.ceil(RUNS / 4) },
    );
  });

  it('the same with the dictation grammar on (spoken punctuation, held words, commands said alone)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.stringMatching(/^[A-Za-z :\n]{0,30}$/),
        fc.nat({ max: 40 }),
        fc.array(spokenStep, { maxLength: 40 }),
        async (initial, anchor, steps) => {
          checkPerson(await play(initial, anchor, steps, true));
        },
      ),
      { numRuns: Math.ceil(RUNS / 4) },
    );
  });

  it("without the person's edits, the document holds the model's committed text (the same characters in order), each chunk once", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          step.filter((s) => s.kind !== 'edit'),
          { maxLength: 60 },
        ),
        async (steps) => {
          const w = await play('', 0, steps);
          const committed = w.run.model.committedChunks().map((c) => c.id);
          assert.equal(new Set(committed).size, committed.length, `each id committed once: ${committed.join(',')}`);
          // The spacing may differ where a chunk was removed or rewritten next to one written before it (the
          // writer spaces each chunk against the document and never rewrites its neighbours): compared without it.
          assert.equal(unspaced(w.run.text), unspaced(w.run.model.committedText()));
          checkPerson(w);
        },
      ),
      { numRuns: RUNS },
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
