import assert from 'node:assert/strict';
import { TypedEmitter } from '../../src/shared/events';

describe('shared: TypedEmitter', () => {
  it('delivers to every listener in order; dispose removes one; once fires once', () => {
    const e = new TypedEmitter<{ n: number; s: string }>();
    const got: string[] = [];
    const d = e.on('n', (v) => got.push(`a${v}`));
    e.on('n', (v) => got.push(`b${v}`));
    e.once('s', (v) => got.push(`once ${v}`));
    e.emit('n', 1);
    e.emit('s', 'x');
    e.emit('s', 'y');
    d.dispose();
    e.emit('n', 2);
    assert.deepEqual(got, ['a1', 'b1', 'once x', 'b2']);
    assert.equal(e.listenerCount('n'), 1);
    e.removeAllListeners();
    assert.equal(e.listenerCount('n'), 0);
  });

  it('a listener that throws is reported and does not stop the others', () => {
    const reported: string[] = [];
    const e = new TypedEmitter<{ n: number }>((event, err) => reported.push(`${event}: ${(err as Error).message}`));
    const got: number[] = [];
    e.on('n', () => {
      throw new Error('boom');
    });
    e.on('n', (v) => got.push(v));
    assert.doesNotThrow(() => e.emit('n', 3));
    assert.deepEqual(got, [3]);
    assert.deepEqual(reported, ['n: boom']);
  });

  it('a listener added or removed during an emit does not disturb that emit', () => {
    const e = new TypedEmitter<{ n: number }>();
    const got: string[] = [];
    const second = e.on('n', () => got.push('second'));
    e.on('n', () => {
      got.push('first');
      second.dispose();
      e.on('n', () => got.push('late'));
    });
    e.emit('n', 0);
    assert.deepEqual(got, ['second', 'first']);
  });
});
