/**
 * A trigram language model by interpolated modified Kneser-Ney (Chen & Goodman 1998, as KenLM's
 * lmplz estimates it), written as ARPA:
 *
 * - counts: trigrams as seen; a lower-order n-gram's adjusted count is the number of distinct words
 *   seen before it (its continuation count), except when it starts with `<s>` (nothing can precede
 *   it): its raw count;
 * - discounts per order from the counts of counts t1..t4 of the adjusted counts:
 *   Y = t1 / (t1 + 2 t2), D1 = 1 − 2Y t2/t1, D2 = 2 − 3Y t3/t2, D3+ = 3 − 4Y t4/t3 (where a small or
 *   unusual text gives none in range: 0.5, 1, 1.5, as KenLM's `--discount_fallback`, and said so);
 * - p(w | h) = (a(hw) − D(a(hw))) / Σx a(hx) + γ(h) p(w | h'), γ(h) = (D1 N1(h•) + D2 N2(h•) + D3+ N3+(h•)) / Σx a(hx);
 *   unigrams interpolate with the uniform distribution over the vocabulary (`<s>` excepted);
 * - trigrams seen once are pruned after the estimate; every context's backoff weight is then computed
 *   so that its distribution sums to 1: bow(h) = (1 − Σ_kept p(w|h)) / (1 − Σ_kept p(w|h')).
 *
 * Word ids: 0 `<unk>`, 1 `<s>`, 2 `</s>`, then the vocabulary. Counts are kept in maps keyed by the
 * ids packed in one number ({@link ID_BITS} bits per word).
 */

export const UNK = 0;
export const BOS = 1;
export const EOS = 2;
const ID_BITS = 17;
const B = 2 ** ID_BITS;
/** The most words a model may have (three ids packed below 2^53). */
export const MAX_WORDS = B - 3;

export class LmEstimateError extends Error {
  override readonly name = 'LmEstimateError';
}

export interface Discounts {
  d1: number;
  d2: number;
  d3: number;
}

export interface TrigramModel {
  /** Words by id (`<unk>`, `<s>`, `</s>` first). */
  words: readonly string[];
  /** log10 probability and backoff of each n-gram kept, by order (key: packed ids). */
  orders: Array<Map<number, { p: number; bow?: number }>>;
  discounts: Discounts[];
  /** Orders whose counts of counts gave no usable discounts (a small or unusual text): {@link FALLBACK_DISCOUNTS} there. */
  fallback: number[];
}

/** The discounts of an order whose counts give none (KenLM's `--discount_fallback` values). */
export const FALLBACK_DISCOUNTS: Discounts = { d1: 0.5, d2: 1, d3: 1.5 };

const k2 = (a: number, b: number): number => a * B + b;
const k3 = (a: number, b: number, c: number): number => (a * B + b) * B + c;
const inc = (m: Map<number, number>, k: number, by = 1): void => void m.set(k, (m.get(k) ?? 0) + by);

/** Raw counts of the sentences, each as `<s> w1 … wn </s>` (unigrams, bigrams, trigrams). */
export class TrigramCounter {
  readonly unigrams = new Map<number, number>();
  readonly bigrams = new Map<number, number>();
  readonly trigrams = new Map<number, number>();
  constructor(private readonly maxEntries = 50_000_000) {}

  add(ids: readonly number[]): void {
    if (ids.length === 0) return;
    const s = [BOS, ...ids, EOS];
    for (let i = 0; i < s.length; i++) {
      inc(this.unigrams, s[i]!);
      if (i >= 1) inc(this.bigrams, k2(s[i - 1]!, s[i]!));
      if (i >= 2) inc(this.trigrams, k3(s[i - 2]!, s[i - 1]!, s[i]!));
    }
    if (this.trigrams.size + this.bigrams.size > this.maxEntries) {
      throw new LmEstimateError(
        `the corpus has more than ${this.maxEntries} distinct n-grams, beyond what is counted in memory; build from fewer lines (--max-lines)`,
      );
    }
  }
}

/** Discounts from the counts of counts of `counts`' values (adjusted counts); throws when they are degenerate. */
export function discounts(counts: Iterable<number>, order: number): Discounts {
  const t = [0, 0, 0, 0, 0];
  for (const c of counts) if (c >= 1 && c <= 4) t[c]!++;
  const [, t1, t2, t3, t4] = t as [number, number, number, number, number];
  if (!t1 || !t2 || !t3) {
    throw new LmEstimateError(
      `too little text to estimate the ${order}-gram discounts (n-grams seen once ${t1}, twice ${t2}, three times ${t3}); give a larger corpus`,
    );
  }
  const y = t1 / (t1 + 2 * t2);
  const d = { d1: 1 - (2 * y * t2) / t1, d2: 2 - (3 * y * t3) / t2, d3: 3 - (4 * y * t4) / t3 };
  for (const v of [d.d1, d.d2, d.d3]) {
    if (!(v > 0 && v < 3))
      throw new LmEstimateError(`the ${order}-gram discounts are out of range (${JSON.stringify(d)}); give a larger corpus`);
  }
  return d;
}

const discountOf = (d: Discounts, c: number): number => (c <= 0 ? 0 : c === 1 ? d.d1 : c === 2 ? d.d2 : d.d3);

/** Per context: Σ adjusted counts, and the numerator of γ. */
function contextTotals(adjusted: Map<number, number>, d: Discounts): Map<number, { sum: number; gammaNum: number }> {
  const out = new Map<number, { sum: number; gammaNum: number }>();
  for (const [k, c] of adjusted) {
    const h = Math.floor(k / B);
    const t = out.get(h) ?? { sum: 0, gammaNum: 0 };
    t.sum += c;
    t.gammaNum += discountOf(d, c);
    out.set(h, t);
  }
  return out;
}

/** Estimates the model; `words` by id as in {@link UNK}…, `pruneSingletonTrigrams` as KenLM's `--prune 0 0 1`. */
/** Adjusted counts by order: continuation counts below the top order, raw counts for n-grams after `<s>` and for trigrams. */
export function adjustedCounts(counter: TrigramCounter): [Map<number, number>, Map<number, number>, Map<number, number>] {
  const a2 = new Map<number, number>();
  for (const k of counter.trigrams.keys()) inc(a2, k % (B * B));
  for (const [k, c] of counter.bigrams) if (Math.floor(k / B) === BOS) a2.set(k, c);
  const a1 = new Map<number, number>();
  for (const k of counter.bigrams.keys()) inc(a1, k % B);
  return [a1, a2, counter.trigrams];
}

export function estimate(counter: TrigramCounter, words: readonly string[], pruneSingletonTrigrams = true): TrigramModel {
  const [a1, a2, a3] = adjustedCounts(counter);
  const fallback: number[] = [];
  const orDefault = (counts: Map<number, number>, order: number): Discounts => {
    try {
      return discounts(counts.values(), order);
    } catch (e) {
      if (!(e instanceof LmEstimateError)) throw e;
      fallback.push(order);
      return FALLBACK_DISCOUNTS;
    }
  };
  const d1 = orDefault(a1, 1);
  const d2 = orDefault(a2, 2);
  const d3 = orDefault(a3, 3);

  // Unigrams: every word but <s>, interpolated with the uniform distribution.
  const vocab = words.length - 1; // <s> is never predicted
  let sum1 = 0;
  let gamma1 = 0;
  for (let w = 0; w < words.length; w++) {
    if (w === BOS) continue;
    const c = a1.get(w) ?? 0;
    sum1 += c;
    gamma1 += discountOf(d1, c);
  }
  const p1 = new Float64Array(words.length);
  for (let w = 0; w < words.length; w++) {
    if (w === BOS) continue;
    const c = a1.get(w) ?? 0;
    p1[w] = (Math.max(0, c - discountOf(d1, c)) + gamma1 / vocab) / sum1;
  }
  const t2 = contextTotals(a2, d2);
  const p2 = new Map<number, number>();
  for (const [k, c] of a2) {
    const h = Math.floor(k / B);
    const t = t2.get(h)!;
    p2.set(k, (c - discountOf(d2, c) + t.gammaNum * p1[k % B]!) / t.sum);
  }
  const t3 = contextTotals(a3, d3);
  const p3 = new Map<number, number>();
  for (const [k, c] of a3) {
    if (pruneSingletonTrigrams && c <= 1) continue;
    const h = Math.floor(k / B);
    const t = t3.get(h)!;
    p3.set(k, (c - discountOf(d3, c) + t.gammaNum * p2.get(k % (B * B))!) / t.sum);
  }

  // Backoff weights by normalisation: each context's distribution sums to 1 with what was kept.
  const kept2 = new Map<number, { p: number; lower: number }>();
  for (const [k, p] of p2) {
    const h = Math.floor(k / B);
    const s = kept2.get(h) ?? { p: 0, lower: 0 };
    s.p += p;
    s.lower += p1[k % B]!;
    kept2.set(h, s);
  }
  const kept3 = new Map<number, { p: number; lower: number }>();
  for (const [k, p] of p3) {
    const h = Math.floor(k / B);
    const s = kept3.get(h) ?? { p: 0, lower: 0 };
    s.p += p;
    s.lower += p2.get(k % (B * B))!;
    kept3.set(h, s);
  }
  const bow = (s: { p: number; lower: number } | undefined): number | undefined =>
    s === undefined ? undefined : Math.max(0, 1 - s.p) / Math.max(1e-12, 1 - s.lower);

  const o1 = new Map<number, { p: number; bow?: number }>();
  for (let w = 0; w < words.length; w++) {
    const b = bow(kept2.get(w));
    o1.set(w, { p: w === BOS ? -99 : Math.log10(p1[w]!), ...(b !== undefined ? { bow: Math.log10(b) } : {}) });
  }
  const o2 = new Map<number, { p: number; bow?: number }>();
  for (const [k, p] of p2) {
    const b = bow(kept3.get(k));
    o2.set(k, { p: Math.log10(p), ...(b !== undefined ? { bow: Math.log10(b) } : {}) });
  }
  const o3 = new Map<number, { p: number; bow?: number }>();
  for (const [k, p] of p3) o3.set(k, { p: Math.log10(p) });
  return { words, orders: [o1, o2, o3], discounts: [d1, d2, d3], fallback };
}

/** Unpacks a key of order `n` into word ids. */
export function idsOf(k: number, n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    out.unshift(k % B);
    k = Math.floor(k / B);
  }
  return out;
}

const num = (x: number): string => (x <= -99 ? '-99' : x.toFixed(6).replace(/^-0\.000000$/, '0.000000'));

/** The model as ARPA text, n-grams in id order (deterministic), written in pieces to `write`. */
export function writeArpa(m: TrigramModel, write: (s: string) => void): void {
  const sorted = m.orders.map((o) => [...o.keys()].sort((x, y) => x - y));
  write('\\data\\\n');
  sorted.forEach((keys, i) => write(`ngram ${i + 1}=${keys.length}\n`));
  sorted.forEach((keys, i) => {
    write(`\n\\${i + 1}-grams:\n`);
    let buf = '';
    for (const k of keys) {
      const e = m.orders[i]!.get(k)!;
      buf += `${num(e.p)}\t${idsOf(k, i + 1)
        .map((id) => m.words[id]!)
        .join(' ')}${e.bow !== undefined ? `\t${num(e.bow)}` : ''}\n`;
      if (buf.length > 1 << 16) {
        write(buf);
        buf = '';
      }
    }
    write(buf);
  });
  write('\n\\end\\\n');
}
