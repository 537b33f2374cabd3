/**
 * How well word confidences find the engine's errors: the final text's words are aligned with the
 * reference (Levenshtein, the same word error count as test/helpers/recordings.ts), and each error is
 * placed on a word of the text: a substituted or inserted word is itself the error; a deleted reference
 * word is caught when a word beside the gap is marked.
 */
import { normalizeWords } from '../test/helpers/recordings';

/** One error of the text, as the words of the text that would show it. */
export interface PlacedError {
  /** Indexes of the text's words on which the error is caught (one, or the two beside a deletion). */
  on: number[];
}

/** The errors of `hyp` (the text's words, already normalised) against `reference`, placed on its words. */
export function placeErrors(reference: string, hyp: readonly string[]): PlacedError[] {
  const r = normalizeWords(reference);
  const h = hyp;
  const d: number[][] = Array.from({ length: r.length + 1 }, (_, i) =>
    Array.from({ length: h.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= r.length; i++) {
    for (let j = 1; j <= h.length; j++) {
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (r[i - 1] === h[j - 1] ? 0 : 1));
    }
  }
  const out: PlacedError[] = [];
  let i = r.length;
  let j = h.length;
  while (i > 0 || j > 0) {
    if (i > 0 && j > 0 && d[i]![j] === d[i - 1]![j - 1]! + (r[i - 1] === h[j - 1] ? 0 : 1)) {
      if (r[i - 1] !== h[j - 1]) out.push({ on: [j - 1] });
      i--;
      j--;
    } else if (j > 0 && d[i]![j] === d[i]![j - 1]! + 1) {
      out.push({ on: [j - 1] });
      j--;
    } else {
      // A deleted reference word: between text words j-1 and j.
      out.push({ on: [j - 1, j].filter((k) => k >= 0 && k < h.length) });
      i--;
    }
  }
  return out.reverse();
}

export interface MarkScore {
  errors: number;
  caught: number;
  words: number;
  marked: number;
}

/** Errors caught by the marked words (`marked[k]`: word k of the text is marked). */
export function scoreMarks(errors: readonly PlacedError[], marked: readonly boolean[]): MarkScore {
  return {
    errors: errors.length,
    caught: errors.filter((e) => e.on.some((k) => marked[k])).length,
    words: marked.length,
    marked: marked.filter(Boolean).length,
  };
}

export function addScores(a: MarkScore, b: MarkScore): MarkScore {
  return { errors: a.errors + b.errors, caught: a.caught + b.caught, words: a.words + b.words, marked: a.marked + b.marked };
}

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32), for the random-marking baseline. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Leave one recording out: for each recording, the threshold `pick` chooses from the scores of the
 * others is applied to it alone; the held-out scores summed. Says how a threshold chosen on recordings
 * does on a recording it was not chosen on.
 */
export function leaveOneOut<T>(
  items: readonly T[],
  thresholds: readonly number[],
  scoreAt: (items: readonly T[], threshold: number) => MarkScore,
  pick: (scores: ReadonlyArray<{ threshold: number; score: MarkScore }>) => number,
): { score: MarkScore; picked: number[] } {
  let total: MarkScore = { errors: 0, caught: 0, words: 0, marked: 0 };
  const picked: number[] = [];
  items.forEach((held, k) => {
    const rest = items.filter((_, i) => i !== k);
    const t = pick(thresholds.map((threshold) => ({ threshold, score: scoreAt(rest, threshold) })));
    picked.push(t);
    total = addScores(total, scoreAt([held], t));
  });
  return { score: total, picked };
}

/** The highest threshold that marks at most `share` of the words (the lowest when none does). */
export function highestWithin(share: number): (scores: ReadonlyArray<{ threshold: number; score: MarkScore }>) => number {
  return (scores) => {
    const within = scores.filter((s) => s.score.marked <= share * s.score.words).map((s) => s.threshold);
    return within.length ? Math.max(...within) : Math.min(...scores.map((s) => s.threshold));
  };
}
