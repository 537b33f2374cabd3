import assert from 'node:assert/strict';
import { RangeTracker, type TextChange } from '../../src/client/ranges';
import { LastChunk, LastDictatedRange, lastReadingText } from '../../src/extension/editor/lastDictated';
import { ENGLISH } from '../../src/extension/l10nText';

/** A document as a plain string: each edit returns the change the editor reports. */
class Doc {
  constructor(public text: string) {}
  edit(offset: number, deleted: number, inserted: string): TextChange {
    this.text = this.text.slice(0, offset) + inserted + this.text.slice(offset + deleted);
    return { offset, deletedLength: deleted, insertedLength: inserted.length, text: inserted };
  }
}

const URI = 'file:///report.md';

describe('the last dictated text (Read Last Dictated Sentence)', () => {
  /** The run's tracker, the document and the window's range, fed the same changes as in the extension. */
  function setup(text = ''): {
    doc: Doc;
    run: RangeTracker;
    last: LastChunk;
    range: LastDictatedRange;
    edit: (o: number, d: number, t: string) => void;
    own: (id: string, o: number, t: string) => void;
    sync: () => void;
    read: () => string;
  } {
    const doc = new Doc(text);
    const run = new RangeTracker(text.length);
    const last = new LastChunk();
    const range = new LastDictatedRange();
    const edit = (o: number, d: number, t: string): void => {
      const c = [doc.edit(o, d, t)];
      run.applyChanges(c);
      range.changed(URI, c);
    };
    const own = (id: string, o: number, t: string): void => {
      const change = { offset: o, deletedLength: 0, insertedLength: t.length, text: t };
      run.expect({ changes: [change], effect: { kind: 'insert', id, offset: o, length: t.length } });
      edit(o, 0, t);
    };
    const sync = (): void => {
      const r = last.range(run);
      if (r) range.set(URI, r.start, r.end);
    };
    const read = (): string =>
      lastReadingText(
        ENGLISH,
        range.read((uri, s, e) => (uri === URI ? doc.text.slice(s, e) : undefined)),
      );
    return { doc, run, last, range, edit, own, sync, read };
  }

  it('reads the text as the document holds it, not as the recogniser sent it, and follows edits before and inside it', () => {
    const t = setup('Findings: ');
    t.last.committed('c1');
    t.own('c1', 10, 'No effusion.');
    t.sync();
    t.last.committed('c2');
    t.own('c2', 22, ' Heart size is normal.');
    t.sync();
    assert.equal(t.read(), 'Heart size is normal.');
    // The person corrects a word of it and types before it: the reading follows.
    t.edit(t.doc.text.indexOf('normal'), 'normal'.length, 'enlarged');
    t.edit(0, 0, 'CHEST X-RAY\n');
    assert.equal(t.read(), 'Heart size is enlarged.');
    // Text typed right after it is not part of it.
    t.edit(t.doc.text.length, 0, ' Typed.');
    assert.equal(t.read(), 'Heart size is enlarged.');
  });

  it('after proofreading (batch.replace), reads the rewritten text', () => {
    const t = setup();
    t.last.committed('c1');
    t.own('c1', 0, 'the heart is normal');
    t.sync();
    const r = t.run.get('c1')!;
    const change = {
      offset: r.start,
      deletedLength: r.end - r.start,
      insertedLength: 'The heart is normal.'.length,
      text: 'The heart is normal.',
    };
    t.run.expect({
      changes: [change],
      effect: { kind: 'replace', id: 'p1', removeIds: ['c1'], offset: r.start, length: change.insertedLength },
    });
    t.edit(r.start, r.end - r.start, 'The heart is normal.');
    t.last.replaced(['c1'], 'p1', t.run);
    t.sync();
    assert.equal(t.read(), 'The heart is normal.');
  });

  it('a chunk written with no text (a command said alone, words held back) leaves the previous one as the last', () => {
    const t = setup();
    t.last.committed('c1');
    t.own('c1', 0, 'Normal study.');
    t.sync();
    t.last.committed('c2');
    t.run.track('c2', 13, 0);
    t.sync();
    assert.equal(t.read(), 'Normal study.');
    // Its held words written later make it the last one.
    t.run.expect({
      changes: [{ offset: 13, deletedLength: 0, insertedLength: 5, text: ' Done' }],
      effect: { kind: 'replace', id: 'c2', removeIds: ['c2'], offset: 13, length: 5 },
    });
    t.edit(13, 0, ' Done');
    t.sync();
    assert.equal(t.read(), 'Done');
  });

  it('says plainly when the text was deleted, when its document was closed, and when nothing was dictated', () => {
    const t = setup();
    assert.equal(t.read(), 'Dictée: nothing has been dictated yet in this window.');
    t.last.committed('c1');
    t.own('c1', 0, 'Keep. ');
    t.sync();
    t.last.committed('c2');
    t.own('c2', 6, 'Remove me.');
    t.sync();
    t.edit(6, 10, '');
    assert.equal(t.read(), 'Dictée: the last dictated sentence was deleted from the document.');
    // A later write of the run does not bring an older sentence back in its place.
    t.sync();
    assert.equal(t.read(), 'Dictée: the last dictated sentence was deleted from the document.');
    t.range.closed('file:///other.md');
    assert.equal(t.read(), 'Dictée: the last dictated sentence was deleted from the document.');
    t.range.closed(URI);
    assert.equal(t.read(), 'Dictée: the document of the last dictated sentence was closed.');
  });

  it('ignores changes of other documents', () => {
    const t = setup();
    t.last.committed('c1');
    t.own('c1', 0, 'Stable.');
    t.sync();
    t.range.changed('file:///other.md', [{ offset: 0, deletedLength: 0, insertedLength: 5, text: 'xxxxx' }]);
    assert.equal(t.read(), 'Stable.');
  });
});
