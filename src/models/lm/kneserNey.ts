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
 * Word ids: 0 `<unk>`, 1 `<s>`, 2 `</s>`, then the vocabulary. N-grams are packed in one number
 * (17 bits per word), counted in typed-array hash tables, then estimated over their
 * keys in ascending order (each context's n-grams contiguous): no per-n-gram object anywhere.
 */
import { B, NgramTable } from './ngramTable';
export const UNK = 0;
export const BOS = 1;
export const EOS = 2;
/** The most words a model may have (three ids packed below 2^53). */
export const MAX_WORDS = B - 3;
const BB = B * B;

export class LmEstimateError extends Error {
  override readonly name = 'LmEstimateError';
}

export interface Discounts {
  d1: number;
  d2: number;
  d3: number;
}

/** One order of a model: its n-grams' packed keys in ascending order, log10 p and log10 backoff (NaN: none). */
export interface Order {
  keys: Float64Array;
  p: Float64Array;
  bow: Float64Array;
}

export interface TrigramModel {
  /** Words by id (`<unk>`, `<s>`, `</s>` first). */
  words: readonly string[];
  orders: [Order, Order, Order];
  discounts: Discounts[];
  /** Orders whose counts of counts gave no usable discounts (a small or unusual text): {@link FALLBACK_DISCOUNTS} there. */
  fallback: number[];
}

/** The discounts of an order whose counts give none (KenLM's `--discount_fallback` values). */
export const FALLBACK_DISCOUNTS: Discounts = { d1: 0.5, d2: 1, d3: 1.5 };

/** Packs word ids into one key. */
export const keyOf = (ids: readonly number[]): number => ids.reduce((k, id) => k * B + id, 0);

/** Raw counts of the sentences, each as `<s> w1 … wn </s>` (bigrams and trigrams; unigrams follow from them). */
export class TrigramCounter {
  readonly bigrams = new NgramTable(1 << 16);
  readonly trigrams = new NgramTable(1 << 17);
  constructor(private readonly maxEntries = 50_000_000) {}

  /** Counts one sentence: `ids[from..to)`. */
  add(ids: ArrayLike<number>, from = 0, to = ids.length): void {
    if (to <= from) return;
    let a = BOS;
    let b = ids[from]!;
    this.bigrams.add(a * B + b);
    for (let i = from + 1; i <= to; i++) {
      const c = i < to ? ids[i]! : EOS;
      this.bigrams.add(b * B + c);
      this.trigrams.add((a * B + b) * B + c);
      a = b;
      b = c;
    }
    if (this.trigrams.size + this.bigrams.size > this.maxEntries) {
      throw new LmEstimateError(
        `the corpus has more than ${this.maxEntries} distinct n-grams, beyond what is counted in memory; build from fewer lines (--max-lines)`,
      );
    }
  }
}

/** Discounts from the counts of counts of `counts` (adjusted counts); throws when they are degenerate. */
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

/** The counts' values as a typed array in key order. */
function countsOf(table: NgramTable, keys: Float64Array): Uint32Array {
  const out = new Uint32Array(keys.length);
  for (let i = 0; i < keys.length; i++) out[i] = table.counts[table.slotOf(keys[i]!)]!;
  return out;
}

/** Adjusted counts by order (key order): continuation counts below the top order, raw counts after `<s>` and for trigrams. */
export function adjustedCounts(counter: TrigramCounter, vocab: number) {
  const k2 = counter.bigrams.sortedKeys();
  const k3 = counter.trigrams.sortedKeys();
  // Bigram slot → its index in key order.
  const index2 = new Int32Array(counter.bigrams.capacity);
  for (let i = 0; i < k2.length; i++) index2[counter.bigrams.slotOf(k2[i]!)] = i;
  const at2 = (key: number): number => index2[counter.bigrams.slotOf(key)]!;
  const a2 = new Uint32Array(k2.length);
  for (let i = 0; i < k3.length; i++) a2[at2(k3[i]! % BB)]!++;
  const raw2 = countsOf(counter.bigrams, k2);
  for (let i = 0; i < k2.length && Math.floor(k2[i]! / B) <= BOS; i++) if (Math.floor(k2[i]! / B) === BOS) a2[i] = raw2[i]!;
  const a1 = new Uint32Array(vocab);
  for (let i = 0; i < k2.length; i++) a1[k2[i]! % B]!++;
  return { a1, k2, a2, k3, a3: countsOf(counter.trigrams, k3), at2 };
}

function orDefault(counts: Uint32Array, order: number, fallback: number[]): Discounts {
  try {
    return discounts(
      (function* () {
        for (const c of counts) if (c > 0) yield c;
      })(),
      order,
    );
  } catch (e) {
    if (!(e instanceof LmEstimateError)) throw e;
    fallback.push(order);
    return FALLBACK_DISCOUNTS;
  }
}

/** Estimates the model; `words` by id as in {@link UNK}…, `pruneSingletonTrigrams` as KenLM's `--prune 0 0 1`. */
export function estimate(counter: TrigramCounter, words: readonly string[], pruneSingletonTrigrams = true): TrigramModel {
  const V = words.length;
  const { a1, k2, a2, k3, a3, at2 } = adjustedCounts(counter, V);
  const fallback: number[] = [];
  const d1 = orDefault(a1, 1, fallback);
  const d2 = orDefault(a2, 2, fallback);
  const d3 = orDefault(a3, 3, fallback);

  // Unigrams: every word but <s>, interpolated with the uniform distribution.
  let sum1 = 0;
  let gamma1 = 0;
  for (let w = 0; w < V; w++) {
    if (w === BOS) continue;
    sum1 += a1[w]!;
    gamma1 += discountOf(d1, a1[w]!);
  }
  const p1 = new Float64Array(V);
  for (let w = 0; w < V; w++) {
    if (w !== BOS) p1[w] = (Math.max(0, a1[w]! - discountOf(d1, a1[w]!)) + gamma1 / (V - 1)) / sum1;
  }

  // Bigrams, context by context (a run of keys with the same first word); then each unigram's backoff.
  const p2 = new Float64Array(k2.length);
  const bow1 = new Float64Array(V).fill(NaN);
  for (let i = 0; i < k2.length;) {
    const h = Math.floor(k2[i]! / B);
    let j = i;
    let sum = 0;
    let gammaNum = 0;
    for (; j < k2.length && Math.floor(k2[j]! / B) === h; j++) {
      sum += a2[j]!;
      gammaNum += discountOf(d2, a2[j]!);
    }
    let kept = 0;
    let lower = 0;
    for (let x = i; x < j; x++) {
      const w = k2[x]! % B;
      p2[x] = (a2[x]! - discountOf(d2, a2[x]!) + gammaNum * p1[w]!) / sum;
      kept += p2[x]!;
      lower += p1[w]!;
    }
    bow1[h] = Math.max(0, 1 - kept) / Math.max(1e-12, 1 - lower);
    i = j;
  }

  // Trigrams, context by context (a run with the same two first words), singletons pruned after.
  const keep = new Uint8Array(k3.length);
  const p3 = new Float64Array(k3.length);
  const bow2 = new Float64Array(k2.length).fill(NaN);
  let n3 = 0;
  for (let i = 0; i < k3.length;) {
    const h = Math.floor(k3[i]! / B);
    let j = i;
    let sum = 0;
    let gammaNum = 0;
    for (; j < k3.length && Math.floor(k3[j]! / B) === h; j++) {
      sum += a3[j]!;
      gammaNum += discountOf(d3, a3[j]!);
    }
    let kept = 0;
    let lower = 0;
    for (let x = i; x < j; x++) {
      if (pruneSingletonTrigrams && a3[x]! <= 1) continue;
      const low = p2[at2(k3[x]! % BB)]!;
      p3[x] = (a3[x]! - discountOf(d3, a3[x]!) + gammaNum * low) / sum;
      keep[x] = 1;
      n3++;
      kept += p3[x]!;
      lower += low;
    }
    if (kept > 0) bow2[at2(h)] = Math.max(0, 1 - kept) / Math.max(1e-12, 1 - lower);
    i = j;
  }

  const o1: Order = { keys: new Float64Array(V), p: new Float64Array(V), bow: new Float64Array(V) };
  for (let w = 0; w < V; w++) {
    o1.keys[w] = w;
    o1.p[w] = w === BOS ? -99 : Math.log10(p1[w]!);
    o1.bow[w] = Math.log10(bow1[w]!);
  }
  const o2: Order = { keys: k2, p: p2.map(Math.log10), bow: bow2.map(Math.log10) };
  const o3: Order = { keys: new Float64Array(n3), p: new Float64Array(n3), bow: new Float64Array(n3).fill(NaN) };
  for (let x = 0, n = 0; x < k3.length; x++) {
    if (!keep[x]) continue;
    o3.keys[n] = k3[x]!;
    o3.p[n++] = Math.log10(p3[x]!);
  }
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

/** The index of a packed `key` in an order's ascending `keys`, or −1 (binary search). */
export function indexOfKey(keys: Float64Array, key: number): number {
  let lo = 0;
  let hi = keys.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const k = keys[mid]!;
    if (k === key) return mid;
    if (k < key) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** The entry of an n-gram (ids) in a model, or undefined. */
export function lookup(m: TrigramModel, ids: readonly number[]): { p: number; bow?: number } | undefined {
  const o = m.orders[ids.length - 1]!;
  const i = indexOfKey(o.keys, keyOf(ids));
  if (i < 0) return undefined;
  return { p: o.p[i]!, ...(Number.isNaN(o.bow[i]!) ? {} : { bow: o.bow[i]! }) };
}

const num = (x: number): string => (x <= -99 ? '-99' : x.toFixed(6).replace(/^-0\.000000$/, '0.000000'));

/** The model as ARPA text, n-grams in id order (deterministic), written in pieces to `write`. */
export function writeArpa(m: TrigramModel, write: (s: string) => void): void {
  write('\\data\\\n');
  m.orders.forEach((o, i) => write(`ngram ${i + 1}=${o.keys.length}\n`));
  m.orders.forEach((o, i) => {
    write(`\n\\${i + 1}-grams:\n`);
    let buf = '';
    for (let x = 0; x < o.keys.length; x++) {
      const k = o.keys[x]!;
      let text: string;
      if (i === 0) text = m.words[k]!;
      else if (i === 1) text = `${m.words[Math.floor(k / B)]!} ${m.words[k % B]!}`;
      else text = `${m.words[Math.floor(k / BB)]!} ${m.words[Math.floor(k / B) % B]!} ${m.words[k % B]!}`;
      const bow = o.bow[x]!;
      buf += Number.isNaN(bow) ? `${num(o.p[x]!)}\t${text}\n` : `${num(o.p[x]!)}\t${text}\t${num(bow)}\n`;
      if (buf.length > 1 << 16) {
        write(buf);
        buf = '';
      }
    }
    write(buf);
  });
  write('\n\\end\\\n');
}
