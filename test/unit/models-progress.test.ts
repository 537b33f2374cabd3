/** The download's progress line: bytes, rate and time left; rewritten on a terminal, a line per tenth elsewhere. */
import assert from 'node:assert/strict';
import { Progress } from '../../src/models/progress';

describe('models: progress on stderr', () => {
  it('elsewhere than a terminal: one line per tenth of the total, with rate and time left', () => {
    const lines: string[] = [];
    let t = 0;
    const p = new Progress(100e6, { write: (s: string) => lines.push(s), isTTY: false }, () => t);
    p.file('encoder.int8.onnx');
    for (let i = 0; i < 100; i++) {
      t += 100; // 1 MB per 100 ms: 10 MB/s
      p.add(1e6);
    }
    p.done();
    assert.equal(lines.length, 11, lines.join(''));
    assert.ok(lines.every((l) => l.endsWith('\n') && !l.includes('\r')));
    assert.match(lines[0]!, / 1.0\/100.0 MB \(1%\)/);
    assert.equal(lines[5], 'encoder.int8.onnx  50.0/100.0 MB (50%)  10.0 MB/s  0:05 left\n');
    assert.match(lines[10]!, /100\.0\/100\.0 MB \(100%\) {2}10\.0 MB\/s {2}0:00 left/);
  });

  it('on a terminal: one line rewritten with \\r at most every 100 ms, ended by a newline; a resumed download counts its bytes as done', () => {
    const out: string[] = [];
    let t = 0;
    const p = new Progress(10e6, { write: (s: string) => out.push(s), isTTY: true }, () => t, 4e6);
    p.file('tokens.txt');
    p.add(1e6);
    p.add(1e6); // same instant: not drawn again
    t = 1000;
    p.add(1e6);
    p.done();
    assert.equal(out.length, 4);
    assert.ok(out.slice(0, 3).every((s) => s.startsWith('\r')));
    assert.match(out[1]!, /7\.0\/10\.0 MB \(70%\) {2}3\.0 MB\/s {2}0:01 left/);
    assert.equal(out[3], '\n');
  });
});
