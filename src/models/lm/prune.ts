/**
 * Relative-entropy pruning of a trigram back-off model (Stolcke 1998, "Entropy-based pruning of backoff
 * language models", as SRILM's `ngram -prune THRESHOLD` defines it): an n-gram is dropped when dropping
 * it, and letting its probability come from the backoff, raises the model's perplexity by less than the
 * threshold (relative: 1e-8 is one part in a hundred million).
 *
 * For an n-gram `h w` with probability p = p(w|h), backoff q = p(w|h') (h' = h less its first word),
 * the context's backoff weight bow(h) = N / D, N = 1 − Σ p(x|h), D = 1 − Σ p(x|h') over the words x
 * listed after h, and the history's probability P(h) (chain rule; `<s>` as likely as `</s>`):
 *   bow'(h) = (N + p) / (D + q)
 *   ΔH = P(h) · [ p · (ln p − ln(bow'(h) q)) + N · (ln bow(h) − ln bow'(h)) ]   (the Kullback-Leibler
 *   divergence of the pruned model from the model), pruned when exp(ΔH) − 1 < threshold.
 * Every n-gram is weighed against the unpruned model (SRILM's rule); trigrams first, then bigrams. A
 * bigram that starts or ends a kept trigram stays (pocketsphinx's trie stores a trigram under its first
 * bigram; a kept ending keeps each context's backoff right without recomputing the others). Unigrams
 * stay. The backoff weights of the contexts that lost n-grams are then recomputed so that each
 * distribution sums to 1. Deterministic: the model's keys are visited in order.
 */
import { B } from './ngramTable';
import { BOS, EOS, type Order, type TrigramModel, indexOfKey as indexOf } from './kneserNey';

const BB = B * B;

const orZero = (x: number): number => (Number.isNaN(x) ? 0 : x);

/** The end (exclusive) of the run of keys from `i` that share their context (`key / base`). */
function runEnd(keys: Float64Array, i: number, base: number): number {
  const h = Math.floor(keys[i]! / base);
  let j = i + 1;
  while (j < keys.length && Math.floor(keys[j]! / base) === h) j++;
  return j;
}

/**
 * ΔH (nats) of dropping one n-gram of log10 probability `lp` whose backoff gives log10 `lq`, in a context
 * with left-over masses `n` (N) and `d` (D), ln of its backoff weight `lnBow`, and history probability `ph`.
 */
export function pruneDelta(lp: number, lq: number, n: number, d: number, lnBow: number, ph: number): number {
  const p = 10 ** lp;
  const q = 10 ** lq;
  const newBow = (n + p) / (d + q);
  return ph * (p * (lp * Math.LN10 - Math.log(newBow * q)) + n * (lnBow - Math.log(newBow)));
}

/** Whether dropping that n-gram raises the perplexity by less than the threshold (relative). */
const cheap = (lp: number, lq: number, n: number, d: number, lnBow: number, ph: number, threshold: number): boolean =>
  Math.expm1(pruneDelta(lp, lq, n, d, lnBow, ph)) < threshold;

/** log10 of a context's backoff weight from the kept n-grams' probabilities and their backoffs' (linear sums). */
const backoffOf = (keptP: number, keptQ: number): number => Math.log10(Math.max(1e-12, 1 - keptP) / Math.max(1e-12, 1 - keptQ));

interface PruneResult {
  model: TrigramModel;
  /** Bigrams and trigrams dropped. */
  pruned: [number, number];
}

/** The model pruned at `threshold` (relative perplexity rise allowed per n-gram; 0: nothing pruned). */
export function pruneEntropy(m: TrigramModel, threshold: number): PruneResult {
  if (!(threshold > 0)) return { model: m, pruned: [0, 0] };
  const [o1, o2, o3] = m.orders;
  const lp1 = (w: number): number => o1.p[w]!;
  /** log10 p(w | v) by backoff in the bigram model as it was. */
  const lp2 = (v: number, w: number): number => {
    const i = indexOf(o2.keys, v * B + w);
    return i >= 0 ? o2.p[i]! : orZero(o1.bow[v]!) + lp1(w);
  };
  /** P(u) as a history: `<s>` starts as many sentences as `</s>` ends. */
  const pHist = (u: number): number => 10 ** lp1(u === BOS ? EOS : u);

  // Trigrams, context by context, weighed against the whole model.
  const keep3 = new Uint8Array(o3.keys.length).fill(1);
  const bow2 = Float64Array.from(o2.bow);
  for (let i = 0; i < o3.keys.length;) {
    const j = runEnd(o3.keys, i, B);
    const h = Math.floor(o3.keys[i]! / B);
    const u = Math.floor(h / B);
    const v = h % B;
    const hi = indexOf(o2.keys, h);
    const lq = new Float64Array(j - i);
    let sumP = 0;
    let sumQ = 0;
    for (let x = i; x < j; x++) {
      lq[x - i] = lp2(v, o3.keys[x]! % B);
      sumP += 10 ** o3.p[x]!;
      sumQ += 10 ** lq[x - i]!;
    }
    const n = 1 - sumP;
    const d = 1 - sumQ;
    const lnBow = (hi >= 0 ? orZero(o2.bow[hi]!) : 0) * Math.LN10;
    const ph = pHist(u) * 10 ** lp2(u, v);
    let keptP = 0;
    let keptQ = 0;
    for (let x = i; x < j; x++) {
      if (cheap(o3.p[x]!, lq[x - i]!, n, d, lnBow, ph, threshold)) keep3[x] = 0;
      else {
        keptP += 10 ** o3.p[x]!;
        keptQ += 10 ** lq[x - i]!;
      }
    }
    if (hi >= 0) bow2[hi] = keptP > 0 ? backoffOf(keptP, keptQ) : NaN;
    i = j;
  }

  // Bigrams that start or end a kept trigram stay.
  const keep2 = new Uint8Array(o2.keys.length);
  for (let x = 0; x < o3.keys.length; x++) {
    if (!keep3[x]) continue;
    const first = indexOf(o2.keys, Math.floor(o3.keys[x]! / B));
    const last = indexOf(o2.keys, o3.keys[x]! % BB);
    if (first >= 0) keep2[first] = 1;
    if (last >= 0) keep2[last] = 1;
  }
  const bow1 = Float64Array.from(o1.bow);
  for (let i = 0; i < o2.keys.length;) {
    const j = runEnd(o2.keys, i, B);
    const u = Math.floor(o2.keys[i]! / B);
    let sumP = 0;
    let sumQ = 0;
    for (let x = i; x < j; x++) {
      sumP += 10 ** o2.p[x]!;
      sumQ += 10 ** lp1(o2.keys[x]! % B);
    }
    const n = 1 - sumP;
    const d = 1 - sumQ;
    const lnBow = orZero(o1.bow[u]!) * Math.LN10;
    const ph = pHist(u);
    let keptP = 0;
    let keptQ = 0;
    for (let x = i; x < j; x++) {
      const lq = lp1(o2.keys[x]! % B);
      if (!keep2[x] && !cheap(o2.p[x]!, lq, n, d, lnBow, ph, threshold)) keep2[x] = 1;
      if (keep2[x]) {
        keptP += 10 ** o2.p[x]!;
        keptQ += 10 ** lq;
      }
    }
    bow1[u] = keptP > 0 ? backoffOf(keptP, keptQ) : NaN;
    i = j;
  }

  const select = (o: Order, keep: Uint8Array, bow: Float64Array): Order => {
    let n = 0;
    for (let x = 0; x < keep.length; x++) n += keep[x]!;
    const out: Order = { keys: new Float64Array(n), p: new Float64Array(n), bow: new Float64Array(n) };
    for (let x = 0, y = 0; x < keep.length; x++) {
      if (!keep[x]) continue;
      out.keys[y] = o.keys[x]!;
      out.p[y] = o.p[x]!;
      out.bow[y++] = bow[x]!;
    }
    return out;
  };
  const n2 = select(o2, keep2, bow2);
  const n3 = select(o3, keep3, o3.bow);
  return {
    model: { ...m, orders: [{ ...o1, bow: bow1 }, n2, n3] },
    pruned: [o2.keys.length - n2.keys.length, o3.keys.length - n3.keys.length],
  };
}
