/**
 * The editor's writers in plain Node (src/extension/editor/, through the MemoryDocument of
 * test/helpers/memoryDocument.ts): chunks written as the service sent them (the dictation grammar off).
 */
import assert from 'node:assert/strict';
import { WriterRun } from '../helpers/writerRun';

describe('editor: plain chunks (the real DocumentWriter on a document in memory)', () => {
  it('writes each final at the cursor, spaced against its neighbours; utterances apart, one undo step each', async () => {
    const r = new WriterRun('Findings: \n\nEnd.', { anchor: 10 });
    await r.final('c1', 0, 'the lung is clear');
    await r.final('c2', 1, 'no effusion');
    assert.equal(r.text, 'Findings: the lung is clear no effusion\n\nEnd.');
    assert.deepEqual(
      r.doc.applied.map((a) => a.undo),
      [
        { before: true, after: false },
        { before: true, after: false },
      ],
    );
    assert.equal(r.writer.stats.commits, 2);
    r.doc.pressUndo();
    await r.doc.settled();
    assert.equal(r.text, 'Findings: the lung is clear\n\nEnd.');
  });

  it('batch.replace rewrites exactly the chunks it names, in place', async () => {
    const r = new WriterRun('A: \nB', { anchor: 3 });
    await r.final('c1', 0, 'the lung is clear');
    await r.final('c2', 1, 'no effusion');
    await r.replace(['c1', 'c2'], 'p1', 0, 'The lung is clear. No effusion.');
    assert.equal(r.text, 'A: The lung is clear. No effusion.\nB');
    assert.equal(r.writer.stats.replaces, 1);
    await r.final('c3', 2, 'heart normal');
    assert.equal(r.text, 'A: The lung is clear. No effusion. heart normal\nB');
  });

  it('shows provisional text at the insertion point, never as text of the document', async () => {
    const r = new WriterRun('Note: ', {});
    await r.interim('c1', 0, 'the lung');
    assert.equal(r.text, 'Note: ');
    assert.deepEqual(r.doc.provisional, { offset: 6, text: 'the lung' });
    await r.final('c1', 0, 'the lung is clear');
    assert.equal(r.text, 'Note: the lung is clear');
    r.writer.clearProvisional();
    assert.equal(r.doc.provisional, null);
  });

  it('the selection the run started with is replaced by the first words, in CRLF documents too', async () => {
    const r = new WriterRun('Impression:\r\nXXX\r\n', { anchor: 13, selectionLength: 3, eol: '\r\n' });
    await r.final('c1', 0, 'normal study\nsee above');
    assert.equal(r.text, 'Impression:\r\nnormal study\r\nsee above\r\n');
  });

  it("a person's edit inside a chunk wins over the service's rewrite (a conflict, counted)", async () => {
    const r = new WriterRun('', {});
    await r.final('c1', 0, 'the lung is clear');
    r.doc.type(4, 8, 'LUNGS');
    await r.doc.settled();
    await r.replace(['c1'], 'p1', 0, 'The lung is clear.');
    assert.equal(r.text, 'the LUNGS is clear');
    assert.equal(r.writer.stats.conflicts, 1);
    await r.final('c2', 1, 'no effusion');
    assert.equal(r.text, 'the LUNGS is clear no effusion');
  });

  it('text typed elsewhere between two finals stays where it was typed, and nothing is written twice', async () => {
    const r = new WriterRun('Title\n\n', {});
    await r.final('c1', 0, 'the lung is clear');
    r.doc.type(0, 0, '# ');
    await r.doc.settled();
    await r.final('c2', 1, 'no effusion');
    assert.equal(r.text, '# Title\n\nthe lung is clear no effusion');
  });

  it('an edit refused because the person typed in between is planned again, at the right place', async () => {
    const r = new WriterRun('Findings: ', {});
    const writing = r.writer.write(r.model.apply({ type: 'transcript', status: 'final', text: 'clear', id: 'c1', index: 0, seq: 1 }));
    // Typed before the writer's edit reaches the editor: the editor refuses it, the writer tries again.
    r.doc.type(0, 0, 'CT ');
    await writing;
    await r.doc.settled();
    assert.equal(r.text, 'CT Findings: clear');
    assert.ok(r.doc.refused >= 1, 'the first attempt was refused');
    assert.deepEqual(r.doc.invalid, []);
  });

  it('a closed document takes no more edits; the writer says so', async () => {
    const r = new WriterRun('', {});
    let closed = 0;
    r.writer.onDidCloseTarget(() => closed++);
    await r.final('c1', 0, 'one');
    r.doc.close();
    await r.final('c2', 1, 'two');
    assert.equal(closed, 1);
    assert.equal(r.text, 'one');
  });

  it('tells where the last chunk written with text stands after each edit', async () => {
    const r = new WriterRun('> ', {});
    const seen: Array<{ start: number; end: number }> = [];
    r.writer.onDidWriteLast((x) => seen.push(x));
    await r.final('c1', 0, 'one');
    await r.final('c2', 1, 'two');
    assert.deepEqual(seen.at(-1), { start: 5, end: 9 });
    assert.equal(r.text.slice(5, 9), ' two');
  });
  it('a person who makes the very edit the writer is making (deleting a chunk the service withdraws): the document is as planned', async () => {
    const r = new WriterRun('', {});
    await r.final('c1', 0, ')');
    const withdrawing = r.replace(['c1'], 'p1', 0, '');
    r.doc.type(0, 1, '');
    await withdrawing;
    assert.equal(r.text, '');
    assert.equal(r.writer.stats.failed, 0, r.log.join('\n'));
    await r.final('c2', 1, 'next');
    assert.equal(r.text, 'next');
  });

  describe('a sentence of several chunks (short pauses in it) is one undo step with its rewrite', () => {
    const SENTENCE = [
      ['c1', 1, 'the lung'],
      ['c2', 2, 'is clear'],
      ['c3', 3, 'no effusion'],
    ] as const;
    const PROOFREAD = 'The lungs are clear, no effusion.';

    async function start(): Promise<{ r: WriterRun; before: string }> {
      const r = new WriterRun('Findings:', {});
      await r.speak([['c0', 0, 'chest']]);
      await r.endSentence([['c0', 0, 'chest']]);
      return { r, before: r.text };
    }

    it('its finals in one burst and its rewrite: one Ctrl+Z takes the whole sentence back, never its first draft', async () => {
      const { r, before } = await start();
      await r.speak(SENTENCE);
      await r.endSentence(SENTENCE);
      await r.replace(['c1', 'c2', 'c3'], 'p1', 1, PROOFREAD);
      assert.equal(r.text, `${before} ${PROOFREAD}`);
      assert.deepEqual(
        r.doc.applied.map((a) => a.undo.before),
        [true, true, false, false, false],
      );
      r.doc.pressUndo();
      await r.doc.settled();
      assert.equal(r.text, before);
      await r.speak([['c4', 4, 'heart normal']]);
      await r.endSentence([['c4', 4, 'heart normal']]);
      assert.equal(r.text, `${before} heart normal`);
    });

    it('the next sentence is a step of its own, its rewrite with it', async () => {
      const { r, before } = await start();
      await r.speak(SENTENCE);
      await r.endSentence(SENTENCE);
      await r.replace(['c1', 'c2', 'c3'], 'p1', 1, PROOFREAD);
      const next = [
        ['c4', 4, 'heart'],
        ['c5', 5, 'normal'],
      ] as const;
      await r.speak(next);
      await r.endSentence(next);
      await r.replace(['c4', 'c5'], 'p2', 4, 'Heart normal.');
      assert.equal(r.text, `${before} ${PROOFREAD} Heart normal.`);
      r.doc.pressUndo();
      await r.doc.settled();
      assert.equal(r.text, `${before} ${PROOFREAD}`);
      r.doc.pressUndo();
      await r.doc.settled();
      assert.equal(r.text, before);
    });

    it("a rewrite that comes after the next sentence's first finals is a step of its own", async () => {
      const { r, before } = await start();
      await r.speak(SENTENCE);
      await r.endSentence(SENTENCE);
      await r.speak([['c4', 4, 'heart normal']]);
      await r.endSentence([['c4', 4, 'heart normal']]);
      await r.replace(['c1', 'c2', 'c3'], 'p1', 1, PROOFREAD);
      assert.equal(r.text, `${before} ${PROOFREAD} heart normal`);
      assert.equal(r.doc.applied.at(-1)!.undo.before, true);
      r.doc.pressUndo();
      await r.doc.settled();
      assert.equal(r.text, `${before} the lung is clear no effusion heart normal`);
      r.doc.pressUndo();
      r.doc.pressUndo();
      await r.doc.settled();
      assert.equal(r.text, before);
    });

    it('a chunk made final early (max_buffer_size) while the sentence goes on is part of its step', async () => {
      const { r, before } = await start();
      await r.speak(SENTENCE);
      await r.final('c1', 1, 'the lung');
      await r.speak([['c4', 4, 'seen']]);
      await r.endSentence([...SENTENCE.slice(1), ['c4', 4, 'seen']]);
      await r.replace(['c1', 'c2', 'c3', 'c4'], 'p1', 1, PROOFREAD);
      assert.equal(r.text, `${before} ${PROOFREAD}`);
      r.doc.pressUndo();
      await r.doc.settled();
      assert.equal(r.text, before);
    });

    it("a person's edit between two chunks of the sentence closes the step: the next chunk opens one", async () => {
      const { r, before } = await start();
      await r.speak(SENTENCE);
      await r.final('c1', 1, 'the lung');
      r.doc.type(0, 0, '# ');
      await r.doc.settled();
      await r.endSentence(SENTENCE.slice(1));
      assert.equal(r.text, `# ${before} the lung is clear no effusion`);
      assert.deepEqual(r.doc.applied.map((a) => a.undo.before).slice(-3), [true, true, false]);
    });
  });
});
