import assert from 'node:assert/strict';
import { type TimedWord, samePlace, twoPassConfidence } from '../../src/server/engine/pocketsphinx/confidence';
import { highestWithin, leaveOneOut } from '../../bench/confidence';

const w = (word: string, startMs: number, endMs: number, confidence: number): TimedWord => ({ word, startMs, endMs, confidence });
const close = (a: number, b: number): void => assert.ok(Math.abs(a - b) < 1e-9, `${a} ≈ ${b}`);

describe('pocketsphinx confidence: the proofreading pass weighed against the first pass', () => {
  it('samePlace: an overlap of at least half the shorter word', () => {
    assert.equal(samePlace({ startMs: 0, endMs: 400 }, { startMs: 300, endMs: 500 }), true); // 100 of 200
    assert.equal(samePlace({ startMs: 0, endMs: 400 }, { startMs: 350, endMs: 500 }), false); // 50 of 150
    assert.equal(samePlace({ startMs: 0, endMs: 400 }, { startMs: 400, endMs: 500 }), false); // touching
    assert.equal(samePlace({ startMs: 100, endMs: 200 }, { startMs: 0, endMs: 1000 }), true); // inside
  });

  it('the same word in both passes: wrong only if both are, 1 − (1 − p)(1 − s)', () => {
    close(twoPassConfidence(w('then', 2340, 2710, 0.01), [w('then', 2340, 2620, 0.4)]), 1 - 0.99 * 0.6);
    close(twoPassConfidence(w('ten', 0, 300, 0.4), [w('ten', 10, 290, 0.5)]), 0.7);
    // Case does not matter (the proofread form has a capital).
    close(twoPassConfidence(w('He', 0, 100, 0.5), [w('he', 0, 100, 0.5)]), 0.75);
  });

  it('another word there in the first pass: at most 1 − q is left', () => {
    // "until" where the first pass heard "an" at 0.72: 0.28 at most ("illness" overlaps it by 140 ms of 310: elsewhere).
    close(twoPassConfidence(w('until', 1630, 1940, 0.66), [w('an', 1610, 1800, 0.72), w('illness', 1800, 2170, 0.74)]), 1 - 0.72);
    // Several other words there: the surest of them.
    close(twoPassConfidence(w('exposed', 1940, 2610, 0.51), [w('illness', 1800, 2170, 0.3), w('closed', 2170, 2620, 0.6)]), 0.4);
    // A sure first-pass word elsewhere changes nothing; an unsure one there lowers nothing below p.
    close(twoPassConfidence(w('he', 0, 200, 0.9), [w('in', 0, 200, 0.05)]), 0.9);
  });

  it('the same word there wins over another one beside it', () => {
    close(twoPassConfidence(w('made', 0, 400, 0.5), [w('made', 0, 300, 0.5), w('a', 200, 400, 0.9)]), 0.75);
  });

  it('no first-pass word there: the posterior; values kept in [0, 1]', () => {
    close(twoPassConfidence(w('for', 6830, 7140, 0.95), []), 0.95);
    close(twoPassConfidence(w('for', 0, 100, 0.95), [w('up', 500, 800, 0.9)]), 0.95);
    close(twoPassConfidence(w('x', 0, 100, 1.4), [w('x', 0, 100, Number.NaN)]), 1);
    close(twoPassConfidence(w('x', 0, 100, -1), [w('y', 0, 100, 2)]), 0);
  });
});

describe('bench/confidence: the threshold held out', () => {
  it('highestWithin: the highest threshold marking at most the share, else the lowest', () => {
    const s = (marked: number) => ({ errors: 1, caught: 0, words: 10, marked });
    const pick = highestWithin(0.25);
    assert.equal(
      pick([
        { threshold: 0.2, score: s(1) },
        { threshold: 0.4, score: s(2) },
        { threshold: 0.6, score: s(3) },
      ]),
      0.4,
    );
    assert.equal(
      pick([
        { threshold: 0.2, score: s(5) },
        { threshold: 0.4, score: s(6) },
      ]),
      0.2,
    );
  });

  it('leaveOneOut: each item scored at the threshold chosen on the others', () => {
    // Items are the share of words each would mark at threshold t: t itself for "a", 2t for "b".
    type Item = { rate: number };
    const items: Item[] = [{ rate: 1 }, { rate: 2 }];
    const scoreAt = (xs: readonly Item[], t: number) =>
      xs.reduce(
        (n, x) => ({
          errors: n.errors + 1,
          caught: n.caught + (t >= 0.3 ? 1 : 0),
          words: n.words + 100,
          marked: n.marked + Math.round(100 * t * x.rate),
        }),
        { errors: 0, caught: 0, words: 0, marked: 0 },
      );
    const out = leaveOneOut(items, [0.1, 0.2, 0.3], scoreAt, highestWithin(0.25));
    // Without "a", "b" marks 2t: 0.1 is the highest within 25 %; without "b", "a" allows 0.2.
    assert.deepEqual(out.picked, [0.1, 0.2]);
    assert.deepEqual(out.score, { errors: 2, caught: 0, words: 200, marked: 10 + 40 });
  });
});
