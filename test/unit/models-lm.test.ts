/**
 * `lm build`: French text as the dictionary spells it, the corpus reader (gzip, bytes not UTF-8,
 * binary refused) and the interpolated modified Kneser-Ney estimate, on small texts made here.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { main } from '../../src/models/cli';
import { buildLm } from '../../src/models/lm/build';
import { CorpusError, readCorpus, validUtf8 } from '../../src/models/lm/corpus';
import { frenchNumber, frenchWords } from '../../src/models/lm/frenchText';
import {
  BOS,
  EOS,
  FALLBACK_DISCOUNTS,
  LmEstimateError,
  TrigramCounter,
  adjustedCounts,
  discounts,
  idsOf,
  keyOf,
  lookup,
} from '../../src/models/lm/kneserNey';

/** A made-up corpus: Zipf-distributed words from a 1000-word vocabulary, seeded (the same every run). */
function corpus(lines: number, seed = 7): { text: string; words: string[] } {
  let x = seed;
  const rnd = (): number => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const letter = (n: number): string => String.fromCharCode(97 + (n % 26));
  const words = Array.from({ length: 1000 }, (_, i) => `mot${letter(i)}${letter(Math.floor(i / 26))}${letter(Math.floor(i / 676))}`);
  const weights = words.map((_, i) => 1 / (i + 1));
  const total = weights.reduce((a, b) => a + b, 0);
  const pick = (): string => {
    let r = rnd() * total;
    for (let i = 0; i < words.length; i++) if ((r -= weights[i]!) <= 0) return words[i]!;
    return words[words.length - 1]!;
  };
  const out: string[] = [];
  for (let l = 0; l < lines; l++) {
    const n = 3 + Math.floor(rnd() * 8);
    // Some structure: a word often follows its predecessor in the list.
    const s = [pick()];
    while (s.length < n) s.push(rnd() < 0.4 ? words[(words.indexOf(s[s.length - 1]!) + 1) % words.length]! : pick());
    out.push(s.join(' '));
  }
  return { text: `${out.join('\n')}\n`, words };
}

/** An ARPA file read back: log10 probabilities and backoffs by n-gram text. */
function parseArpa(text: string): { counts: number[]; p: Map<string, number>; bow: Map<string, number>; orders: string[][] } {
  const lines = text.split('\n');
  assert.equal(lines[0], '\\data\\');
  const counts: number[] = [];
  let i = 1;
  for (; lines[i]!.startsWith('ngram '); i++) {
    const m = /^ngram (\d)=(\d+)$/.exec(lines[i]!);
    assert.ok(m, lines[i]);
    assert.equal(Number(m[1]), counts.length + 1);
    counts.push(Number(m[2]));
  }
  const p = new Map<string, number>();
  const bow = new Map<string, number>();
  const orders: string[][] = [];
  for (let n = 1; n <= counts.length; n++) {
    while (lines[i] === '') i++;
    assert.equal(lines[i++], `\\${n}-grams:`);
    const grams: string[] = [];
    for (; lines[i] !== '' && !lines[i]!.startsWith('\\'); i++) {
      const f = lines[i]!.split('\t');
      assert.ok(f.length === 2 || f.length === 3, lines[i]);
      assert.match(f[0]!, /^-?\d+(\.\d{6})?$/);
      assert.equal(f[1]!.split(' ').length, n);
      p.set(f[1]!, Number(f[0]));
      if (f[2] !== undefined) bow.set(f[1]!, Number(f[2]));
      grams.push(f[1]!);
    }
    assert.equal(grams.length, counts[n - 1], `${n}-grams listed vs header`);
    orders.push(grams);
  }
  while (lines[i] === '') i++;
  assert.equal(lines[i], '\\end\\');
  return { counts, p, bow, orders };
}

/** p(w | h) from an ARPA model by the backoff rule. */
function prob(m: ReturnType<typeof parseArpa>, h: string[], w: string): number {
  const g = [...h, w].join(' ');
  if (m.p.has(g)) return 10 ** m.p.get(g)!;
  if (h.length === 0) return 0;
  return 10 ** (m.bow.get(h.join(' ')) ?? 0) * prob(m, h.slice(1), w);
}

describe('language models: French text as the dictionary spells it', () => {
  it('spells whole numbers as French writes them (traditional hyphens)', () => {
    const cases: Array<[number, string]> = [
      [0, 'zéro'],
      [1, 'un'],
      [17, 'dix-sept'],
      [21, 'vingt et un'],
      [22, 'vingt-deux'],
      [71, 'soixante et onze'],
      [77, 'soixante-dix-sept'],
      [80, 'quatre-vingts'],
      [81, 'quatre-vingt-un'],
      [99, 'quatre-vingt-dix-neuf'],
      [100, 'cent'],
      [200, 'deux cents'],
      [201, 'deux cent un'],
      [1000, 'mille'],
      [2024, 'deux mille vingt-quatre'],
      [200000, 'deux cent mille'],
      [1000000, 'un million'],
      [3200000, 'trois millions deux cent mille'],
    ];
    for (const [n, w] of cases) assert.equal(frenchNumber(n), w, String(n));
    assert.equal(frenchNumber(1e9), undefined);
  });

  it('splits elisions as the dictionary lists them, keeps its hyphenated and apostrophe words whole, drops punctuation', () => {
    const dict = new Set(["l'", "qu'", "jusqu'", "aujourd'hui", 'peut-être', '-ce', 'vingt-trois', 'homme', 'il', 'est', 'ici']);
    const has = (w: string): boolean => dict.has(w);
    assert.deepEqual(frenchWords("L’Homme qu'il a vu aujourd'hui : est-ce peut-être 23 ? Jusqu'ici, rien.", has), [
      "l'",
      'homme',
      "qu'",
      'il',
      'a',
      'vu',
      "aujourd'hui",
      'est',
      '-ce',
      'peut-être',
      'vingt-trois',
      "jusqu'",
      'ici',
      'rien',
    ]);
    assert.deepEqual(frenchWords('  … !! ', has), []);
  });
});

describe('language models: the corpus reader', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-lm-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('skips and counts the bytes that are not UTF-8 (stray, truncated, overlong, surrogate)', () => {
    assert.deepEqual(validUtf8(Buffer.from([0x61, 0xff, 0x62, 0xc3, 0xa9])), { text: 'abé', dropped: 1 });
    assert.deepEqual(validUtf8(Buffer.from([0x61, 0xe2, 0x82])), { text: 'a', dropped: 2 });
    assert.deepEqual(validUtf8(Buffer.from([0xc0, 0xaf, 0x7a])), { text: 'z', dropped: 2 });
    assert.deepEqual(validUtf8(Buffer.from([0xed, 0xa0, 0x80, 0x7a])), { text: 'z', dropped: 3 });
    assert.deepEqual(validUtf8(Buffer.from('€ 𝄞', 'utf8')), { text: '€ 𝄞', dropped: 0 });
  });

  it('reads plain and gzip alike (CRLF too), counting lines and bad bytes', async () => {
    const bytes = Buffer.concat([Buffer.from('première ligne\r\nsec'), Buffer.from([0xff, 0xfe]), Buffer.from('onde\ntroisième')]);
    writeFileSync(path.join(dir, 'a.txt'), bytes);
    writeFileSync(path.join(dir, 'a.txt.gz'), gzipSync(bytes));
    for (const f of ['a.txt', 'a.txt.gz']) {
      const lines: string[] = [];
      const stats = await readCorpus(path.join(dir, f), (l) => lines.push(l));
      assert.deepEqual(lines, ['première ligne', 'seconde', 'troisième'], f);
      assert.deepEqual(stats, { lines: 3, invalidBytes: 2 }, f);
    }
  });

  it('refuses a binary file and a missing one with a clear error', async () => {
    const bin = Buffer.alloc(5000);
    for (let i = 0; i < bin.length; i++) bin[i] = (i * 131) % 256;
    writeFileSync(path.join(dir, 'x.bin'), bin);
    await assert.rejects(
      readCorpus(path.join(dir, 'x.bin'), () => {}),
      (e: Error) => e instanceof CorpusError && /looks binary/.test(e.message),
    );
    await assert.rejects(
      readCorpus(path.join(dir, 'none.txt'), () => {}),
      /is not a file/,
    );
  });
});

describe('language models: interpolated modified Kneser-Ney trigrams (ARPA)', () => {
  let dir: string;
  let dict: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-lm-'));
    dict = path.join(dir, 'test.dict');
    // Every made-up word but the last 50 has a pronunciation; two variants of one word.
    const { words } = corpus(0);
    writeFileSync(
      dict,
      `${words
        .slice(0, 950)
        .map((w) => `${w} m oo`)
        .join('\n')}\n${words[0]}(2) m aa\n`,
    );
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('adjusted counts: distinct left neighbours below the top order, raw counts after <s> and at the top', () => {
    const c = new TrigramCounter();
    // ids 3 = a, 4 = b, 5 = c: "a b", "c b", "a b"
    c.add([3, 4]);
    c.add([5, 4]);
    c.add([3, 4]);
    const { a1, k2, a2, k3, a3 } = adjustedCounts(c, 6);
    assert.equal(a1[4], 2); // b after a and after c
    assert.equal(a1[EOS], 1); // </s> only after b
    const at2 = (x: number, y: number): number => a2[k2.indexOf(x * 2 ** 17 + y)]!;
    assert.equal(at2(BOS, 3), 2); // <s> a: raw count
    assert.equal(at2(3, 4), 1); // a b: only after <s>
    assert.equal(at2(4, EOS), 2); // b </s>: after a and after c
    assert.equal(a3[k3.indexOf((BOS * 2 ** 17 + 3) * 2 ** 17 + 4)], 2);
    assert.deepEqual(
      [...k3],
      [...k3].sort((x, y) => x - y),
      'keys in ascending order',
    );
  });

  it("discounts from the counts of counts (Chen & Goodman's estimate) and refuses degenerate ones", () => {
    // t1 = 4, t2 = 2, t3 = 1, t4 = 1: Y = 4 / 8 = 0.5
    const d = discounts([1, 1, 1, 1, 2, 2, 3, 4, 9], 3);
    assert.ok(Math.abs(d.d1 - (1 - (2 * 0.5 * 2) / 4)) < 1e-12);
    assert.ok(Math.abs(d.d2 - (2 - (3 * 0.5 * 1) / 2)) < 1e-12);
    assert.ok(Math.abs(d.d3 - (3 - (4 * 0.5 * 1) / 1)) < 1e-12);
    assert.throws(() => discounts([1, 1, 2], 2), /too little text.*2-gram/);
  });

  it('stops counting beyond its bound of distinct n-grams, saying what to do (a huge corpus)', () => {
    const c = new TrigramCounter(20);
    c.add([3, 4, 5]);
    assert.throws(
      () => c.add([6, 7, 8, 9, 10, 11, 12, 13, 14]),
      (e: Error) => e instanceof LmEstimateError && /more than 20 distinct n-grams.*--max-lines/.test(e.message),
    );
  });

  it('every context sums to 1 (unigrams, bigram and trigram contexts), with singleton trigrams pruned', async () => {
    const text = path.join(dir, 'c.txt');
    writeFileSync(text, corpus(3000).text);
    const r = await buildLm({
      language: 'fr',
      texts: [text],
      dict,
      out: path.join(dir, 'lm.arpa'),
      vocabulary: 800,
      g2p: false,
      grammarWords: [],
    });
    assert.equal(r.vocabulary, 800);
    assert.deepEqual(r.fallbackDiscounts, [3]); // this made-up text has fewer trigrams seen twice than a real one
    assert.deepEqual(r.model.discounts[2], FALLBACK_DISCOUNTS);
    assert.notDeepEqual(r.model.discounts[1], FALLBACK_DISCOUNTS);
    assert.ok(r.oovRate > 0 && r.oovRate < 0.2, String(r.oovRate));
    const m = r.model;
    const vocab = m.words.map((_, i) => i).filter((i) => i !== BOS);
    // Exact (unrounded) probabilities from the estimate, backing off as a decoder does.
    const P = (ids: number[]): number => {
      const e = lookup(m, ids);
      if (e) return 10 ** e.p;
      const h = ids.slice(0, -1);
      const b = lookup(m, h)?.bow ?? 0;
      return 10 ** b * P(ids.slice(1));
    };
    const sum = (h: number[]): number => vocab.reduce((s, w) => s + P([...h, w]), 0);
    assert.ok(Math.abs(sum([]) - 1) < 1e-9, `unigrams: ${sum([])}`);
    const bigramContexts = [BOS, ...vocab.slice(0, 40)].filter((w) => w !== EOS);
    for (const h of bigramContexts) assert.ok(Math.abs(sum([h]) - 1) < 1e-9, `${m.words[h]}: ${sum([h])}`);
    const triContexts = [...m.orders[1].keys].filter((k) => lookup(m, idsOf(k, 2))!.bow !== undefined).slice(0, 60);
    assert.equal(keyOf(idsOf(triContexts[0]!, 2)), triContexts[0]);
    assert.ok(triContexts.length === 60);
    for (const k of triContexts) assert.ok(Math.abs(sum(idsOf(k, 2)) - 1) < 1e-9, idsOf(k, 2).join(' '));

    // The file: ARPA syntax, header counts, the same sums within its 6 decimals; no trigram seen once.
    const arpa = parseArpa(readFileSync(r.out, 'utf8'));
    assert.deepEqual(arpa.counts, r.ngrams);
    assert.equal(arpa.p.get('<s>'), -99);
    const names = vocab.map((i) => m.words[i]!);
    const fileSum = (h: string[]): number => names.reduce((s, w) => s + prob(arpa, h, w), 0);
    assert.ok(Math.abs(fileSum([]) - 1) < 1e-3);
    for (const g of arpa.orders[1]!.filter((x) => arpa.bow.has(x)).slice(0, 20)) assert.ok(Math.abs(fileSum(g.split(' ')) - 1) < 1e-3, g);
    const seen = new Map<string, number>();
    for (const line of corpus(3000).text.trim().split('\n')) {
      const s = ['<s>', ...line.split(' ').map((w) => (names.includes(w) ? w : '<unk>')), '</s>'];
      for (let i = 2; i < s.length; i++) seen.set(s.slice(i - 2, i + 1).join(' '), (seen.get(s.slice(i - 2, i + 1).join(' ')) ?? 0) + 1);
    }
    const kept = [...seen]
      .filter(([, c]) => c >= 2)
      .map(([g]) => g)
      .sort();
    assert.deepEqual([...arpa.orders[2]!].sort(), kept);
    assert.ok(kept.length > 100 && kept.length < seen.size);
  });

  it('writes the same bytes every time (ARPA and dictionary), whatever the order the words were first seen in', async () => {
    const text = path.join(dir, 'c.txt.gz');
    writeFileSync(text, gzipSync(corpus(2000, 11).text));
    const a = await buildLm({ language: 'fr', texts: [text], dict, out: path.join(dir, 'a.arpa') });
    const b = await buildLm({ language: 'fr', texts: [text], dict, out: path.join(dir, 'b.arpa') });
    assert.equal(readFileSync(a.out, 'utf8'), readFileSync(b.out, 'utf8'));
    assert.equal(readFileSync(a.dictOut, 'utf8'), readFileSync(b.dictOut, 'utf8'));
    assert.equal(a.dictOut, path.join(dir, 'a.dict'));
    // The same lines in another order: the same counts, so the same bytes (no dependence on hash or insertion order).
    const reversed = path.join(dir, 'r.txt');
    writeFileSync(reversed, `${corpus(2000, 11).text.trim().split('\n').reverse().join('\n')}\n`);
    const c = await buildLm({ language: 'fr', texts: [reversed], dict, out: path.join(dir, 'c.arpa') });
    assert.equal(readFileSync(c.out, 'utf8'), readFileSync(a.out, 'utf8'));
    assert.equal(readFileSync(c.dictOut, 'utf8'), readFileSync(a.dictOut, 'utf8'));
  });

  it('dictionary only: keeps only the words the dictionary pronounces, counting the rest as <unk>', async () => {
    const text = path.join(dir, 'c.txt');
    writeFileSync(text, corpus(2000, 11).text);
    const r = await buildLm({ language: 'fr', texts: [text], dict, out: path.join(dir, 'a.arpa'), g2p: false, grammarWords: [] });
    const unigrams = parseArpa(readFileSync(r.out, 'utf8')).orders[0]!;
    assert.ok(unigrams.includes('<unk>') && unigrams.includes('</s>'));
    const pronounced = new Set(corpus(0).words.slice(0, 950));
    assert.ok(
      unigrams.filter((w) => !w.startsWith('<')).every((w) => pronounced.has(w)),
      'a word without pronunciation',
    );
    assert.ok(unigrams.length > 500);
    assert.equal(r.guessed, 0);
  });

  it('with G2P: the frequent words the dictionary lacks are in, pronounced by rules; the .dict is complete and sorted', async () => {
    const text = path.join(dir, 'c.txt');
    // "motxyz…" words the dictionary lacks (its last 50), a frequent name it lacks, and a Greek word no rule maps.
    writeFileSync(text, `${corpus(2000, 11).text}${'Chantal parle à Chantal de λόγος\n'.repeat(30)}`);
    const r = await buildLm({ language: 'fr', texts: [text], dict, out: path.join(dir, 'lm.arpa'), grammarWords: [] });
    const unigrams = parseArpa(readFileSync(r.out, 'utf8')).orders[0]!;
    assert.ok(unigrams.includes('chantal'));
    assert.ok(!unigrams.includes('λόγος'));
    assert.deepEqual(r.unmapped.count, 1);
    assert.match(r.unmapped.examples[0]!, /cannot pronounce "λόγος": no rule for the letter "λ"/);
    const lines = readFileSync(r.dictOut, 'utf8').trim().split('\n');
    const entries = lines.map((l) => l.split(' ')[0]!);
    const heads = entries.filter((e) => !/\(\d+\)$/.test(e));
    assert.deepEqual(
      heads,
      [...heads].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)),
      'sorted by code point',
    );
    assert.deepEqual(new Set(heads), new Set(unigrams.filter((w) => !w.startsWith('<'))), 'one entry per vocabulary word');
    // A dictionary word keeps its variants; a word it lacks gets the rules' pronunciation.
    const first = corpus(0).words[0]!;
    assert.ok(lines.includes(`${first} m oo`) && lines.includes(`${first}(2) m aa`));
    assert.ok(lines.includes('chantal ch an tt aa ll'), lines.filter((l) => l.startsWith('chantal')).join('\n'));
    assert.ok(r.guessed >= 1);
  });

  it("the dictation grammar's spoken words are always in the vocabulary and the dictionary, however rare", async () => {
    const text = path.join(dir, 'c.txt');
    writeFileSync(text, corpus(2000, 11).text);
    const r = await buildLm({ language: 'fr', texts: [text], dict, out: path.join(dir, 'lm.arpa'), vocabulary: 300 });
    const unigrams = new Set(parseArpa(readFileSync(r.out, 'utf8')).orders[0]!);
    const dictWords = new Set(
      readFileSync(r.dictOut, 'utf8')
        .split('\n')
        .map((l) => l.split(' ')[0]!),
    );
    for (const w of ['virgule', 'point', "d'", 'interrogation', 'guillemets', 'parenthèse', 'paragraphe', 'quatorze', 'effacer']) {
      assert.ok(unigrams.has(w), w);
      assert.ok(dictWords.has(w), w);
    }
    assert.equal(r.vocabulary, 300);
  });

  it('refuses an empty or binary corpus with a clear error, and writes nothing', async () => {
    writeFileSync(path.join(dir, 'empty.txt'), '');
    writeFileSync(path.join(dir, 'punct.txt'), '... !!\n\n');
    writeFileSync(path.join(dir, 'bin.dat'), Buffer.from([0, 1, 2, 0, 255, 0, 7, 0, ...Array.from({ length: 200 }, (_, i) => i)]));
    for (const f of ['empty.txt', 'punct.txt']) {
      await assert.rejects(
        buildLm({ language: 'fr', texts: [path.join(dir, f)], dict, out: path.join(dir, 'x.arpa') }),
        /no French word in \d+ lines/,
      );
    }
    await assert.rejects(
      buildLm({ language: 'fr', texts: [path.join(dir, 'bin.dat')], dict, out: path.join(dir, 'x.arpa') }),
      /looks binary/,
    );
    await assert.rejects(
      buildLm({ language: 'fr', texts: [path.join(dir, 'empty.txt')], dict: path.join(dir, 'empty.txt'), out: path.join(dir, 'x.arpa') }),
      /not a pocketsphinx dictionary/,
    );
    // A missing file among several: refused before the others are read.
    writeFileSync(path.join(dir, 'ok.txt'), corpus(50).text);
    await assert.rejects(
      buildLm({ language: 'fr', texts: [path.join(dir, 'ok.txt'), path.join(dir, 'typo.txt')], dict, out: path.join(dir, 'x.arpa') }),
      (e: Error) => e instanceof CorpusError && /typo.txt is not a file; nothing was built/.test(e.message),
    );
    await assert.rejects(buildLm({ language: 'fr', texts: [dir], dict, out: path.join(dir, 'x.arpa') }), /is not a file/);
    assert.throws(() => readFileSync(path.join(dir, 'x.arpa')));
    assert.throws(() => readFileSync(path.join(dir, 'x.dict')));
    assert.throws(() => readFileSync(path.join(dir, 'x.arpa.words.part')));
  });
});

describe('language models: npm run models -- lm build (its command line)', () => {
  it('says what is wrong with the command before reading anything', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-lm-cli-'));
    try {
      const run = (...a: string[]): Promise<void> =>
        main(
          [...a, '--dir', dir],
          () => {},
          () => {},
        );
      await assert.rejects(run('lm'), /lm needs a command \(lm build, lm adapt, lm check\)/);
      await assert.rejects(run('lm', 'learn'), /unknown lm command "learn"/);
      await assert.rejects(run('lm', 'build', '--text', 'x.txt'), /needs --language fr/);
      await assert.rejects(run('lm', 'build', '--language', 'de', '--text', 'x.txt'), /needs --language fr/);
      await assert.rejects(run('lm', 'build', '--language', 'fr'), /needs --text FILE/);
      await assert.rejects(run('lm', 'build', '--language', 'fr', '--text', 'x', '--name', '../up'), /--name takes/);
      await assert.rejects(run('lm', 'build', '--language', 'fr', '--text', 'x', '--vocabulary', '0'), /--vocabulary needs a whole number/);
      // The dictionary comes from the installed French model: without it, the command says how to get it.
      await assert.rejects(
        run('lm', 'build', '--language', 'fr', '--text', 'x'),
        /pocketsphinx-fr model is not installed.*fetch pocketsphinx-fr/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
