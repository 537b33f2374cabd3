/**
 * The confidence of a proofread pocketsphinx word: its posterior in the whole-sentence decode's word
 * graph, weighed against what the streaming first pass heard at the same place. The two passes decode
 * the same audio differently (one bounded search over a stream, one full search over the sentence), so
 * where they meet they are two opinions of the same word:
 *
 * - the first pass heard the same word there, with posterior `s`: the word is wrong only if both passes
 *   are wrong, `1 − (1 − p)(1 − s)`;
 * - the first pass heard another word there, with posterior `q`: the first pass gives that word `q`, so
 *   at most `1 − q` is left for this one, `min(p, 1 − q)`;
 * - the first pass has no word there: `p`.
 *
 * "At the same place": the two words overlap by at least half of the shorter one. Words are compared
 * in lower case. Pure: the recognizer (recognizer.ts) gives both passes' words on its own clock.
 */

/** A word with its place (ms, end exclusive) and its posterior probability in [0, 1]. */
export interface TimedWord {
  word: string;
  startMs: number;
  endMs: number;
  confidence: number;
}

const clamp01 = (n: number): number => (Number.isFinite(n) ? Math.min(1, Math.max(0, n)) : 0);

/** Whether `a` and `b` overlap by at least half of the shorter of the two. */
export function samePlace(a: Pick<TimedWord, 'startMs' | 'endMs'>, b: Pick<TimedWord, 'startMs' | 'endMs'>): boolean {
  const overlap = Math.min(a.endMs, b.endMs) - Math.max(a.startMs, b.startMs);
  if (overlap <= 0) return false;
  return overlap * 2 >= Math.min(a.endMs - a.startMs, b.endMs - b.startMs);
}

/** The confidence of the proofread word `w` given the first pass's words of its sentence (see above). */
export function twoPassConfidence(w: TimedWord, firstPass: readonly TimedWord[]): number {
  const p = clamp01(w.confidence);
  const there = firstPass.filter((f) => samePlace(w, f));
  const word = w.word.toLowerCase();
  const same = there.filter((f) => f.word.toLowerCase() === word);
  if (same.length) return 1 - (1 - p) * (1 - Math.max(...same.map((f) => clamp01(f.confidence))));
  const other = there.filter((f) => f.word.toLowerCase() !== word);
  if (other.length) return Math.min(p, 1 - Math.max(...other.map((f) => clamp01(f.confidence))));
  return p;
}
