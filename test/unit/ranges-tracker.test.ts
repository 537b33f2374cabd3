import assert from 'node:assert/strict';
import { RangeTracker, TextChange } from '../../src/client/ranges';

/**
 * A document as a plain string, edited like an editor does, with the tracker fed the same changes.
 * Each test checks that every chunk's tracked range still covers exactly its text in the real string.
 */
class Doc {
  constructor(public text: string) {}
  edit(offset: number, deleted: number, inserted: string): TextChange {
    this.text = this.text.slice(0, offset) + inserted + this.text.slice(offset + deleted);
    return { offset, deletedLength: deleted, insertedLength: inserted.length, text: inserted };
  }
}

/** Inserts a chunk as the writer does: announce the edit, apply it, feed the reported change back. */
function ownInsert(doc: Doc, t: RangeTracker, id: string, offset: number, text: string): void {
  const change = { offset, deletedLength: 0, insertedLength: text.length, text };
  t.expect({ changes: [change], effect: { kind: 'insert', id, offset, length: text.length } });
  assert.equal(t.applyChanges([doc.edit(offset, 0, text)]), 'own');
}

function textOf(doc: Doc, t: RangeTracker, id: string): string {
  const r = t.get(id);
  assert.ok(r, `chunk ${id} is tracked`);
  return doc.text.slice(r.start, r.end);
}

interface Case {
  name: string;
  /** User edits after chunks A (" alpha") and B (" beta") were dictated at the anchor of "Hello| world". */
  edits: Array<[offset: number, deleted: number, inserted: string]>;
  doc: string;
  a: string;
  b: string;
  editedA: boolean;
  editedB: boolean;
  /** The text just before the anchor and just after it (6 characters each side). */
  anchorAt: string;
}

// Start: "Hello world", anchor at 5 (after "Hello"); A = " alpha" at 5, B = " beta" after A.
// => "Hello alpha beta world": A = [5, 11), B = [11, 16).
const cases: Case[] = [
  {
    name: 'no edit',
    edits: [],
    doc: 'Hello alpha beta world',
    a: ' alpha',
    b: ' beta',
    editedA: false,
    editedB: false,
    anchorAt: 'Hello| alpha',
  },
  {
    name: 'typing before everything shifts both',
    edits: [[0, 0, '>> ']],
    doc: '>> Hello alpha beta world',
    a: ' alpha',
    b: ' beta',
    editedA: false,
    editedB: false,
    anchorAt: 'Hello| alpha',
  },
  {
    name: 'typing after everything changes nothing',
    edits: [[22, 0, '!']],
    doc: 'Hello alpha beta world!',
    a: ' alpha',
    b: ' beta',
    editedA: false,
    editedB: false,
    anchorAt: 'Hello| alpha',
  },
  {
    name: 'typing exactly at the end of B stays outside B',
    edits: [[16, 0, 'X']],
    doc: 'Hello alpha betaX world',
    a: ' alpha',
    b: ' beta',
    editedA: false,
    editedB: false,
    anchorAt: 'Hello| alpha',
  },
  {
    name: 'typing between A and B is in neither',
    edits: [[11, 0, ' and']],
    doc: 'Hello alpha and beta world',
    a: ' alpha',
    b: ' beta',
    editedA: false,
    editedB: false,
    anchorAt: 'Hello| alpha',
  },
  {
    name: 'typing inside A marks A edited and grows it',
    edits: [[8, 0, 'PH']],
    doc: 'Hello alPHpha beta world',
    a: ' alPHpha',
    b: ' beta',
    editedA: true,
    editedB: false,
    anchorAt: 'Hello| alPHp',
  },
  {
    name: 'deleting inside B marks B edited',
    edits: [[13, 2, '']],
    doc: 'Hello alpha ba world',
    a: ' alpha',
    b: ' ba',
    editedA: false,
    editedB: true,
    anchorAt: 'Hello| alpha',
  },
  {
    name: 'deleting across A and B marks both',
    edits: [[9, 5, '']],
    doc: 'Hello alpta world',
    a: ' alp',
    b: 'ta',
    editedA: true,
    editedB: true,
    anchorAt: 'Hello| alpt',
  },
  {
    name: 'replacing all of B leaves B empty-but-placed, edited',
    edits: [[11, 5, '']],
    doc: 'Hello alpha world',
    a: ' alpha',
    b: '',
    editedA: false,
    editedB: true,
    anchorAt: 'Hello| alpha',
  },
  {
    name: 'deleting the text before the anchor moves the anchor',
    edits: [[0, 5, '']],
    doc: ' alpha beta world',
    a: ' alpha',
    b: ' beta',
    editedA: false,
    editedB: false,
    anchorAt: '| alpha',
  },
  {
    name: 'typing at the anchor goes before the dictation',
    edits: [[5, 0, ',']],
    doc: 'Hello, alpha beta world',
    a: ' alpha',
    b: ' beta',
    editedA: false,
    editedB: false,
    anchorAt: 'Hello,| alpha',
  },
  {
    name: 'several edits in one event, applied in order (descending offsets, as VS Code reports them)',
    edits: [
      [20, 0, '!'],
      [0, 0, '# '],
    ],
    doc: '# Hello alpha beta wor!ld',
    a: ' alpha',
    b: ' beta',
    editedA: false,
    editedB: false,
    anchorAt: '# Hello| alpha',
  },
  {
    name: 'several edits in one event where a later offset depends on an earlier one',
    edits: [
      [0, 0, 'AAAA'],
      [4 + 13, 0, 'Z'], // inside B once the first insertion is applied
    ],
    doc: 'AAAAHello alpha bZeta world',
    a: ' alpha',
    b: ' bZeta',
    editedA: false,
    editedB: true,
    anchorAt: 'AAAAHello| alpha',
  },
  {
    name: 'a multi-line paste before the chunks',
    edits: [[0, 0, 'line 1\nline 2\n']],
    doc: 'line 1\nline 2\nHello alpha beta world',
    a: ' alpha',
    b: ' beta',
    editedA: false,
    editedB: false,
    anchorAt: 'Hello| alpha',
  },
  {
    name: 'replacing a range that swallows A entirely',
    edits: [[3, 10, 'XY']],
    doc: 'HelXYeta world',
    a: 'XY',
    b: 'eta',
    editedA: true,
    editedB: true,
    anchorAt: 'HelXY|eta wo',
  },
];

describe('RangeTracker (src/client/ranges.ts)', () => {
  for (const c of cases) {
    it(c.name, () => {
      const doc = new Doc('Hello world');
      const t = new RangeTracker(5);
      ownInsert(doc, t, 'A', t.insertionOffset(null, null), ' alpha');
      ownInsert(doc, t, 'B', t.insertionOffset('A', null), ' beta');
      assert.equal(doc.text, 'Hello alpha beta world');
      const changes = c.edits.map(([o, d, s]) => doc.edit(o, d, s));
      if (changes.length) assert.equal(t.applyChanges(changes), 'user');
      assert.equal(doc.text, c.doc);
      assert.equal(textOf(doc, t, 'A'), c.a);
      assert.equal(textOf(doc, t, 'B'), c.b);
      assert.equal(t.get('A')!.edited, c.editedA, 'A edited');
      assert.equal(t.get('B')!.edited, c.editedB, 'B edited');
      const [before, after] = c.anchorAt.split('|') as [string, string];
      assert.equal(doc.text.slice(t.anchor - before.length, t.anchor), before, 'text before the anchor');
      assert.equal(doc.text.slice(t.anchor, t.anchor + after.length), after, 'text after the anchor');
    });
  }

  it('a chunk with no committed predecessor goes at the anchor, before later chunks', () => {
    const doc = new Doc('Report:.');
    const t = new RangeTracker(7);
    ownInsert(doc, t, 'second', t.insertionOffset(null, null), ' two');
    ownInsert(doc, t, 'first', t.insertionOffset(null, 'second'), ' one');
    assert.equal(doc.text, 'Report: one two.');
    assert.equal(textOf(doc, t, 'first'), ' one');
    assert.equal(textOf(doc, t, 'second'), ' two');
    assert.deepEqual(
      t.all().map((r) => r.id),
      ['first', 'second'],
    );
  });

  it('our own insert is not taken for a user edit, even with user edits before and after it', () => {
    const doc = new Doc('abc');
    const t = new RangeTracker(3);
    ownInsert(doc, t, 'A', 3, ' one');
    assert.equal(t.applyChanges([doc.edit(0, 0, 'X')]), 'user');
    ownInsert(doc, t, 'B', t.insertionOffset('A', null), ' two');
    assert.equal(t.applyChanges([doc.edit(doc.text.length, 0, '!')]), 'user');
    assert.equal(doc.text, 'Xabc one two!');
    assert.equal(textOf(doc, t, 'A'), ' one');
    assert.equal(textOf(doc, t, 'B'), ' two');
    assert.equal(t.get('A')!.edited, false);
    assert.equal(t.get('B')!.edited, false);
    assert.equal(t.pendingCount, 0);
  });

  it('a user change that only looks like ours in shape but has other text is the user’s', () => {
    const doc = new Doc('abc');
    const t = new RangeTracker(3);
    const edit = {
      changes: [{ offset: 3, deletedLength: 0, insertedLength: 4, text: ' one' }],
      effect: { kind: 'insert' as const, id: 'A', offset: 3, length: 4 },
    };
    t.expect(edit);
    assert.equal(t.applyChanges([doc.edit(3, 0, 'WXYZ')]), 'user');
    assert.equal(t.has('A'), false);
    assert.equal(t.isSettled(edit), false);
    t.withdraw(edit);
    assert.equal(t.isSettled(edit), true);
  });

  it('an own replace of two adjacent chunks leaves one chunk with the new text, others shifted', () => {
    const doc = new Doc('Start. End.');
    const t = new RangeTracker(6);
    ownInsert(doc, t, 'A', 6, ' hello');
    ownInsert(doc, t, 'B', t.insertionOffset('A', null), ' world');
    ownInsert(doc, t, 'C', t.insertionOffset('B', null), ' again');
    assert.equal(doc.text, 'Start. hello world again End.');
    // Replace A and B by " Hello, world." (one change spanning both).
    const a = t.get('A')!;
    const b = t.get('B')!;
    const text = ' Hello, world.';
    const change = { offset: a.start, deletedLength: b.end - a.start, insertedLength: text.length, text };
    t.expect({ changes: [change], effect: { kind: 'replace', id: 'N', removeIds: ['A', 'B'], offset: a.start, length: text.length } });
    assert.equal(t.applyChanges([doc.edit(change.offset, change.deletedLength, text)]), 'own');
    assert.equal(doc.text, 'Start. Hello, world. again End.');
    assert.equal(t.has('A'), false);
    assert.equal(t.has('B'), false);
    assert.equal(textOf(doc, t, 'N'), ' Hello, world.');
    assert.equal(textOf(doc, t, 'C'), ' again');
    assert.equal(t.get('N')!.edited, false);
    assert.equal(t.get('C')!.edited, false);
  });

  it('an own replace of two chunks with user text between them (two changes, descending) keeps the user text', () => {
    const doc = new Doc('');
    const t = new RangeTracker(0);
    ownInsert(doc, t, 'A', 0, 'one');
    ownInsert(doc, t, 'B', t.insertionOffset('A', null), ' two');
    t.applyChanges([doc.edit(3, 0, ' [typed]')]);
    assert.equal(doc.text, 'one [typed] two');
    const a = t.get('A')!;
    const b = t.get('B')!;
    const changes = [
      { offset: b.start, deletedLength: b.end - b.start, insertedLength: 0, text: '' },
      { offset: a.start, deletedLength: a.end - a.start, insertedLength: 3, text: 'One' },
    ];
    t.expect({ changes, effect: { kind: 'replace', id: 'N', removeIds: ['A', 'B'], offset: a.start, length: 3 } });
    const reported = changes.map((c) => doc.edit(c.offset, c.deletedLength, c.text));
    assert.equal(t.applyChanges(reported), 'own');
    assert.equal(doc.text, 'One [typed]');
    assert.equal(textOf(doc, t, 'N'), 'One');
  });

  it('merge gives up on a conflict: one edited chunk spans the targets', () => {
    const doc = new Doc('');
    const t = new RangeTracker(0);
    ownInsert(doc, t, 'A', 0, 'one');
    ownInsert(doc, t, 'B', 3, ' two');
    t.applyChanges([doc.edit(1, 0, 'N')]);
    t.merge(['A', 'B'], 'M');
    assert.equal(textOf(doc, t, 'M'), 'oNne two');
    assert.equal(t.get('M')!.edited, true);
    assert.equal(t.insertionOffset('M', null), doc.text.length);
  });

  it('rejects malformed changes with a specific error', () => {
    const t = new RangeTracker(0);
    assert.throws(() => t.applyChange({ offset: -1, deletedLength: 0, insertedLength: 1 }), /offset must be a non-negative integer/);
    assert.throws(() => t.applyChange({ offset: 0, deletedLength: 1.5, insertedLength: 1 }), /deletedLength/);
    assert.throws(() => new RangeTracker(-3), /anchor must be/);
  });

  it('random edits never lose a chunk: each range covers its text or is marked edited', () => {
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    for (let round = 0; round < 200; round++) {
      const doc = new Doc('The quick brown fox jumps over the lazy dog.');
      const t = new RangeTracker(rand(doc.text.length + 1));
      const texts = new Map<string, string>();
      let prev: string | null = null;
      for (let i = 0; i < 6; i++) {
        const id = `c${i}`;
        const text = ` w${i}`;
        ownInsert(doc, t, id, t.insertionOffset(prev, null), text);
        texts.set(id, text);
        prev = id;
        // A user edit somewhere.
        const off = rand(doc.text.length + 1);
        const del = Math.min(rand(3), doc.text.length - off);
        t.applyChanges([doc.edit(off, del, ['', 'x', 'yz'][rand(3)]!)]);
      }
      for (const [id, text] of texts) {
        const r = t.get(id)!;
        assert.ok(r.start >= 0 && r.start <= r.end && r.end <= doc.text.length, `range in bounds (round ${round})`);
        if (!r.edited) assert.equal(doc.text.slice(r.start, r.end), text, `round ${round}, ${id}`);
      }
      assert.ok(t.anchor >= 0 && t.anchor <= doc.text.length);
    }
  });
});

describe('RangeTracker: our own edits that cut into a chunk or fall inside one', () => {
  it('a new chunk that replaces the end of the one before (a mark said after a mark) takes that text from it', () => {
    const doc = new Doc('Chest.');
    const t = new RangeTracker(0);
    t.track('a', 0, 6);
    t.track('cursor', 6, 0);
    const change = { offset: 5, deletedLength: 1, insertedLength: 1, text: '?' };
    t.expect({ changes: [change], effect: { kind: 'replace', id: 'b', removeIds: [], offset: 5, length: 1 } });
    assert.equal(t.applyChanges([doc.edit(5, 1, '?')]), 'own');
    assert.equal(doc.text, 'Chest?');
    assert.equal(textOf(doc, t, 'a'), 'Chest');
    assert.equal(textOf(doc, t, 'b'), '?');
    assert.deepEqual([t.get('cursor')!.start, t.get('cursor')!.end], [6, 6]);
    assert.ok(!t.get('a')!.edited);
  });

  it('an edit of ours inside a chunk (a field of its template takes its default) grows it, not edited', () => {
    const doc = new Doc('# R\n\n{{Bilan.}}\n\nEnd');
    const t = new RangeTracker(0);
    t.track('template', 0, doc.text.length);
    t.track('after', doc.text.length, 0);
    const change = { offset: 5, deletedLength: 10, insertedLength: 6, text: 'Bilan.' };
    t.expect({ changes: [change], effect: { kind: 'edit', id: 'defaults' } });
    assert.equal(t.applyChanges([doc.edit(5, 10, 'Bilan.')]), 'own');
    assert.equal(textOf(doc, t, 'template'), '# R\n\nBilan.\n\nEnd');
    assert.ok(!t.get('template')!.edited);
    assert.equal(t.get('after')!.start, doc.text.length);
  });

  it('deleting a chunk that holds others (a template with its filled fields) leaves them empty where it was', () => {
    const doc = new Doc('Intro. # R\n\nfilled\n');
    const t = new RangeTracker(0);
    t.track('template', 7, 12);
    t.track('field', 12, 6);
    t.track('cursor', 18, 0);
    const change = { offset: 7, deletedLength: 12, insertedLength: 0, text: '' };
    t.expect({ changes: [change], effect: { kind: 'replace', id: 'template', removeIds: ['template'], offset: 7, length: 0 } });
    assert.equal(t.applyChanges([doc.edit(7, 12, '')]), 'own');
    assert.equal(doc.text, 'Intro. ');
    assert.deepEqual([t.get('field')!.start, t.get('field')!.end], [7, 7]);
    assert.deepEqual([t.get('cursor')!.start, t.get('cursor')!.end], [7, 7]);
  });
});
