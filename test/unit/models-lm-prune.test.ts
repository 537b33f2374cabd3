/**
 * Relative-entropy pruning of the trigram models `lm build` writes (src/models/lm/prune.ts): the formula
 * against the Kullback-Leibler divergence summed over the whole vocabulary, distributions that still sum
 * to 1, the n-grams a kept trigram needs, and the command line's `--prune`.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../src/models/cli';
import { buildLm } from '../../src/models/lm/build';
import { BOS, EOS, type TrigramModel, idsOf, lookup } from '../../src/models/lm/kneserNey';
import { B } from '../../src/models/lm/ngramTable';
import { pruneDelta, pruneEntropy } from '../../src/models/lm/prune';

/** Made-up sentences: Zipf-distributed words of a 300-word vocabulary, seeded, with some fixed phrases. */
function text(lines: number): string {
  let x = 5;
  const rnd = (): number => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const words = Array.from(
    { length: 300 },
    (_, i) => `m${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`,
  );
  const out: string[] = [];
  for (let l = 0; l < lines; l++) {
    const n = 3 + Math.floor(rnd() * 8);
    const s: string[] = [];
    for (let i = 0; i < n; i++) s.push(rnd() < 0.1 ? 'le compte rendu' : words[Math.floor(300 * rnd() ** 3)]!);
    out.push(s.join(' '));
  }
  return `${out.join('\n')}\n`;
}

/** p(w | h) in linear terms, backing off as a decoder does. */
function prob(m: TrigramModel, ids: number[]): number {
  const e = lookup(m, ids);
  if (e) return 10 ** e.p;
  return 10 ** (lookup(m, ids.slice(0, -1))?.bow ?? 0) * prob(m, ids.slice(1));
}

describe('language models: relative-entropy pruning', () => {
  let dir: string;
  let model: TrigramModel;
  const vocab = (m: TrigramModel): number[] => m.words.map((_, i) => i).filter((i) => i !== BOS);

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-prune-'));
    const dict = path.join(dir, 'test.dict');
    const words = [...new Set(text(2000).split(/\s+/u))].filter(Boolean);
    writeFileSync(dict, words.map((w) => `${w} m oo`).join('\n') + '\n');
    writeFileSync(path.join(dir, 'c.txt'), text(4000));
    const r = await buildLm({
      language: 'fr',
      texts: [path.join(dir, 'c.txt')],
      dict,
      out: path.join(dir, 'lm.arpa'),
      g2p: false,
      grammarWords: [],
    });
    model = r.model;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('ΔH is the Kullback-Leibler divergence of the model with the n-gram dropped, summed over the vocabulary', () => {
    const V = vocab(model);
    // A bigram context with several bigrams: drop one by hand (its mass given back to the backoff) and sum.
    const u = model.orders[1].keys.map((k) => Math.floor(k / B)).find((h, i, a) => h !== BOS && a.filter((x) => x === h).length >= 5)!;
    const listed = [...model.orders[1].keys].filter((k) => Math.floor(k / B) === u).map((k) => k % B);
    const w0 = listed[2]!;
    const p = (w: number): number => prob(model, [u, w]);
    const q = (w: number): number => prob(model, [w]);
    const n = 1 - listed.reduce((s, w) => s + p(w), 0);
    const d = 1 - listed.reduce((s, w) => s + q(w), 0);
    const bow = lookup(model, [u])!.bow!;
    const newBow = (n + p(w0)) / (d + q(w0));
    const pruned = (w: number): number => (w === w0 || !listed.includes(w) ? newBow * q(w) : p(w));
    const ph = 10 ** lookup(model, [u])!.p;
    const kl = ph * V.reduce((s, w) => s + p(w) * Math.log(p(w) / pruned(w)), 0);
    const delta = pruneDelta(Math.log10(p(w0)), Math.log10(q(w0)), n, d, bow * Math.LN10, ph);
    assert.ok(kl > 0);
    assert.ok(Math.abs(delta - kl) < 1e-9 * Math.max(1, kl) + 1e-15, `${delta} against ${kl}`);
  });

  it('0 prunes nothing; a larger threshold keeps a subset of what a smaller one keeps', () => {
    assert.equal(pruneEntropy(model, 0).model, model);
    const counts = (m: TrigramModel): number[] => m.orders.map((o) => o.keys.length);
    const a = pruneEntropy(model, 1e-6).model;
    const b = pruneEntropy(model, 1e-4).model;
    assert.deepEqual(counts(a)[0], counts(model)[0], 'unigrams stay');
    assert.ok(counts(a)[1]! < counts(model)[1]! && counts(a)[2]! < counts(model)[2]!, counts(a).join('/'));
    assert.ok(counts(b)[1]! < counts(a)[1]! && counts(b)[2]! < counts(a)[2]!, counts(b).join('/'));
    for (const n of [1, 2]) {
      const kept = new Set(a.orders[n]!.keys);
      assert.ok([...b.orders[n]!.keys].every((k) => kept.has(k)));
    }
    // Deterministic: the same model twice.
    assert.deepEqual(pruneEntropy(model, 1e-6).model.orders[2].p, a.orders[2].p);
  });

  it('every distribution still sums to 1, and every kept trigram keeps the bigrams that start and end it', () => {
    const { model: m, pruned } = pruneEntropy(model, 1e-5);
    assert.ok(pruned[0] > 0 && pruned[1] > 0);
    const V = vocab(m);
    const sum = (h: number[]): number => V.reduce((s, w) => s + prob(m, [...h, w]), 0);
    assert.ok(Math.abs(sum([]) - 1) < 1e-9);
    const kept2 = new Set(m.orders[1].keys);
    const lost2 = new Set([...model.orders[1].keys].filter((k) => !kept2.has(k)).map((k) => Math.floor(k / B)));
    assert.ok(lost2.size > 10);
    const bigramContexts = [...lost2, ...[...model.orders[1].keys].map((k) => Math.floor(k / B)).slice(0, 20)].filter((h) => h !== EOS);
    for (const h of bigramContexts) assert.ok(Math.abs(sum([h]) - 1) < 1e-9, `${m.words[h]}: ${sum([h])}`);
    // The contexts that lost trigrams (their backoff recomputed) and some that lost none.
    const kept3 = new Set(m.orders[2].keys);
    const lost = new Set([...model.orders[2].keys].filter((k) => !kept3.has(k)).map((k) => Math.floor(k / B)));
    assert.ok(lost.size > 20);
    const triContexts = [...lost, ...[...model.orders[2].keys].map((k) => Math.floor(k / B)).slice(0, 20)];
    for (const k of triContexts) assert.ok(Math.abs(sum(idsOf(k, 2)) - 1) < 1e-9, idsOf(k, 2).join(' '));
    const bigrams = new Set(m.orders[1].keys);
    for (const k of m.orders[2].keys) {
      assert.ok(bigrams.has(Math.floor(k / B)), `prefix of ${idsOf(k, 3).join(' ')}`);
      assert.ok(bigrams.has(k % (B * B)), `suffix of ${idsOf(k, 3).join(' ')}`);
    }
  });

  it('buildLm with prune writes the pruned model and counts what it dropped', async () => {
    const dict = path.join(dir, 'test.dict');
    const r = await buildLm({
      language: 'fr',
      texts: [path.join(dir, 'c.txt')],
      dict,
      out: path.join(dir, 'p.arpa'),
      g2p: false,
      grammarWords: [],
      prune: 1e-4,
    });
    const full = model.orders.map((o) => o.keys.length);
    assert.ok(r.pruned[0] > 0 && r.pruned[1] > 0);
    assert.deepEqual(r.ngrams, [full[0], full[1]! - r.pruned[0], full[2]! - r.pruned[1]]);
    const header = readFileSync(r.out, 'utf8').split('\n').slice(1, 4);
    assert.deepEqual(
      header,
      r.ngrams.map((n, i) => `ngram ${i + 1}=${n}`),
    );
  });

  it('lm build --prune: a bad threshold is refused before anything is read', async () => {
    const run = (t: string): Promise<void> =>
      main(
        ['lm', 'build', '--language', 'fr', '--text', path.join(dir, 'c.txt'), '--prune', t, '--dir', dir],
        () => {},
        () => {},
      );
    for (const t of ['lots', '0.5', '1e-8x']) await assert.rejects(run(t), /--prune needs a threshold between 0 and 1e-3/, t);
    // A good one gets as far as the missing acoustic model (this directory has none).
    await assert.rejects(run('3e-8'), /pocketsphinx-fr model is not installed/);
  });
});
