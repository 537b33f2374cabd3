import assert from 'node:assert/strict';
import { moveDrawn, sameDrawn } from '../../src/client/proofreading/drawnRanges';

describe('drawn ranges (what an editor shows of the doubtful words)', () => {
  const marks = [
    [10, 16],
    [30, 36],
  ] as const;

  it('a word dictated after the marks moves none of them: nothing to send again', () => {
    const moved = moveDrawn(marks, [{ offset: 36, deletedLength: 0, insertedLength: 7 }]);
    assert.ok(moved && sameDrawn(moved, marks));
    assert.ok(sameDrawn(moveDrawn(marks, [{ offset: 50, deletedLength: 0, insertedLength: 7 }])!, marks));
  });

  it('text before a mark moves it (an insertion at its start too: the decoration does not grow)', () => {
    assert.deepEqual(moveDrawn(marks, [{ offset: 20, deletedLength: 0, insertedLength: 3 }]), [
      [10, 16],
      [33, 39],
    ]);
    assert.deepEqual(moveDrawn(marks, [{ offset: 10, deletedLength: 0, insertedLength: 2 }]), [
      [12, 18],
      [32, 38],
    ]);
    assert.deepEqual(moveDrawn(marks, [{ offset: 0, deletedLength: 5, insertedLength: 0 }]), [
      [5, 11],
      [25, 31],
    ]);
  });

  it('a change inside a mark, or deleting up to its edge, asks for a redraw', () => {
    assert.equal(moveDrawn(marks, [{ offset: 12, deletedLength: 0, insertedLength: 1 }]), undefined);
    assert.equal(moveDrawn(marks, [{ offset: 25, deletedLength: 5, insertedLength: 0 }]), undefined);
    assert.equal(moveDrawn(marks, [{ offset: 16, deletedLength: 2, insertedLength: 0 }]), undefined);
  });

  it('several changes apply in the editor order', () => {
    assert.deepEqual(
      moveDrawn(marks, [
        { offset: 40, deletedLength: 0, insertedLength: 4 },
        { offset: 0, deletedLength: 0, insertedLength: 1 },
      ]),
      [
        [11, 17],
        [31, 37],
      ],
    );
  });

  it('compares lists in order', () => {
    assert.ok(sameDrawn([], []));
    assert.ok(!sameDrawn(marks, [[10, 16]]));
    assert.ok(!sameDrawn(marks, [marks[1], marks[0]]));
  });
});
