/**
 * Linear interpolation of two back-off models merged into one back-off model, as SRILM's
 * `ngram -lm A -mix-lm B -lambda λ -write-lm OUT` does (ngram(1): `-lambda` is the weight of the main
 * model, the mixture is written as a single back-off model; SRILM's `Ngram::mixProbs` then
 * `recomputeBOWs`):
 *
 * - the merged model lists the union of both models' n-grams, each with
 *   p(w | h) = λ p_A(w | h) + (1 − λ) p_B(w | h), where each p is that model's own back-off
 *   probability (a word a model lacks has probability 0 there; a context word it lacks is its `<unk>`
 *   where it has one, else cuts the context);
 * - every context's backoff weight is then computed again so that its distribution sums to 1:
 *   bow(h) = (1 − Σ_{w: hw listed} p(w | h)) / (1 − Σ_{w: hw listed} p(w | h′)), h′ the context
 *   shortened by its oldest word, p(·|h′) the merged model's own (lower orders first).
 *
 * For an n-gram listed in neither model the result is bow(h)·p(w|h′), not the exact mixture: the
 * approximation SRILM makes to keep a single back-off model (what pocketsphinx loads). KenLM's
 * `interpolate` is another method (log-linear, normalised per context) and is not what this does.
 *
 * The vocabulary is the union: special words (`<unk>`, `<s>`, `</s>`) first, then the others in code
 * point order, so that the output depends on nothing but the two models and λ.
 */
import { type ArpaModel, type Gram, MAX_ARPA_WORDS, logProb, pack, unpack } from './arpaModel';

export class InterpolateError extends Error {
  override readonly name = 'InterpolateError';
}

const SPECIAL = ['<unk>', '<s>', '</s>'];
/** The smallest mass left to a context for its back-off (SRILM warns and clamps likewise). */
const MIN_MASS = 1e-9;

function unionVocabulary(a: ArpaModel, b: ArpaModel): string[] {
  const rest = new Set<string>();
  for (const w of [...a.words, ...b.words]) if (!SPECIAL.includes(w)) rest.add(w);
  const sorted = [...rest].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  const special = SPECIAL.filter((w) => a.index.has(w) || b.index.has(w));
  return [...special, ...sorted];
}

/** Maps merged ids to a model's ids: predicted words (−1 when it lacks them) and context words (its `<unk>` then). */
function idMaps(m: ArpaModel, words: readonly string[]): { word: Int32Array; ctx: Int32Array } {
  const word = new Int32Array(words.length);
  const ctx = new Int32Array(words.length);
  const unk = m.index.get('<unk>') ?? -1;
  words.forEach((w, i) => {
    const id = m.index.get(w);
    word[i] = id ?? -1;
    ctx[i] = id ?? unk;
  });
  return { word, ctx };
}

/**
 * The mixture λ·main + (1−λ)·mix as one back-off model (see the file's comment). `lambda` is the
 * weight of `main`, strictly between 0 and 1.
 */
export function interpolate(main: ArpaModel, mix: ArpaModel, lambda: number): ArpaModel {
  if (!(lambda > 0 && lambda < 1)) throw new InterpolateError(`the weight must be strictly between 0 and 1 (${lambda} given)`);
  const words = unionVocabulary(main, mix);
  if (words.length > MAX_ARPA_WORDS)
    throw new InterpolateError(`the two models together have ${words.length} words (at most ${MAX_ARPA_WORDS})`);
  const order = Math.max(main.order, mix.order);
  const models = [
    { m: main, l: lambda, ...idMaps(main, words) },
    { m: mix, l: 1 - lambda, ...idMaps(mix, words) },
  ];
  const index = new Map(words.map((w, i) => [w, i]));
  const out: ArpaModel = { order, words, index, grams: [] };
  const bos = index.get('<s>');

  const mixed = (ids: readonly number[]): number => {
    const w = ids[ids.length - 1]!;
    let p = 0;
    for (const { m, l, word, ctx } of models) {
      const lp = logProb(
        m,
        ids.slice(0, -1).map((id) => ctx[id]!),
        word[w]!,
      );
      if (lp > -Infinity) p += l * 10 ** lp;
    }
    return p;
  };

  for (let n = 1; n <= order; n++) {
    // The union of both models' n-grams of this order, in merged ids.
    const keys = new Set<number>();
    for (const { m } of models) {
      const g = m.grams[n - 1];
      if (!g) continue;
      for (const k of g.keys()) keys.add(pack(unpack(k, n).map((id) => index.get(m.words[id]!)!)));
    }
    const grams = new Map<number, Gram>();
    for (const k of keys) {
      const ids = unpack(k, n);
      if (n === 1 && ids[0] === bos) {
        grams.set(k, { p: -99, bow: 0 }); // <s> is never predicted
        continue;
      }
      const p = mixed(ids);
      grams.set(k, { p: p > 0 ? Math.log10(p) : -99, bow: 0 });
    }
    out.grams.push(grams);
  }
  computeBackoffs(out);
  return out;
}

/**
 * Sets every context's backoff weight so that p(·|h) sums to 1 over the vocabulary:
 * bow(h) = (1 − Σ listed p(w|h)) / (1 − Σ listed p(w|h′)). Exported for the tests.
 */
function computeBackoffs(m: ArpaModel): void {
  for (let n = 1; n < m.order; n++) {
    const contexts = m.grams[n - 1]!;
    const higher = m.grams[n]!;
    const sums = new Map<number, { num: number; den: number }>();
    for (const [k, g] of higher) {
      const ids = unpack(k, n + 1);
      const ctx = pack(ids.slice(0, -1));
      const s = sums.get(ctx) ?? { num: 0, den: 0 };
      s.num += 10 ** g.p;
      s.den += 10 ** logProb(m, ids.slice(1, -1), ids[n]!);
      sums.set(ctx, s);
    }
    for (const [k, g] of contexts) {
      const s = sums.get(k);
      if (!s) {
        g.bow = 0;
        continue;
      }
      const num = Math.max(MIN_MASS, 1 - s.num);
      const den = Math.max(MIN_MASS, 1 - s.den);
      g.bow = Math.log10(num / den);
    }
  }
}
