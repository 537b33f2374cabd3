/**
 * `lm build`'s rules on small texts of our own: French normalised as the dictation grammar writes it,
 * the grapheme-to-phoneme's rules and its errors, the dictation grammar's words in every model, the
 * ARPA checker (and `lm check`), and a corpus line too long to keep.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TABLES } from '../../src/dictation';
import { main } from '../../src/models/cli';
import { ArpaError, checkArpa } from '../../src/models/lm/arpa';
import { buildLm } from '../../src/models/lm/build';
import { FRENCH_PHONES, G2pError, frenchG2p, frenchPronunciations } from '../../src/models/lm/frenchG2p';
import { frenchOrdinal, frenchWords, spokenForms } from '../../src/models/lm/frenchText';
import { FRENCH_GRAMMAR_WORDS } from '../../src/models/lm/grammarWords';

const none = (): boolean => false;

describe('language models: French normalised as the dictation grammar writes it', () => {
  it('decimals with "virgule", per cent, digit groups, as said', () => {
    assert.deepEqual(frenchWords('3,5 %', none), ['trois', 'virgule', 'cinq', 'pour', 'cent']);
    assert.deepEqual(frenchWords('12,05 g', none), ['douze', 'virgule', 'zéro', 'cinq', 'g']);
    assert.deepEqual(frenchWords('1 200 000 habitants', none), ['un', 'million', 'deux', 'cent', 'mille', 'habitants']);
    assert.deepEqual(frenchWords('en 1998 250 personnes', none).slice(0, 5), ['en', 'mille', 'neuf', 'cent', 'quatre']);
    assert.equal(spokenForms('sans chiffre ni abréviation'), 'sans chiffre ni abréviation');
  });

  it('ordinals: 1er, 1re, 2e, 21e, 80e, 100e; a Roman "XXe" stays a word', () => {
    assert.equal(frenchOrdinal(1), 'premier');
    assert.equal(frenchOrdinal(1, true), 'première');
    assert.equal(frenchOrdinal(21), 'vingt et unième');
    assert.equal(frenchOrdinal(5), 'cinquième');
    assert.equal(frenchOrdinal(9), 'neuvième');
    assert.equal(frenchOrdinal(80), 'quatre-vingtième');
    assert.equal(frenchOrdinal(400), 'quatre centième');
    assert.deepEqual(frenchWords('le 1er mai, la 1re fois, la 2e côte, le 3ème, le XXe siècle', none), [
      'le',
      'premier',
      'mai',
      'la',
      'première',
      'fois',
      'la',
      'deuxième',
      'côte',
      'le',
      'troisième',
      'le',
      'xxe',
      'siècle',
    ]);
  });

  it('titles before a name said in full; the same letters elsewhere left alone', () => {
    assert.deepEqual(frenchWords('M. Dupont et Mme Durand, Dr Martin, etc.', none), [
      'monsieur',
      'dupont',
      'et',
      'madame',
      'durand',
      'docteur',
      'martin',
      'et',
      'cetera',
    ]);
    assert.deepEqual(frenchWords('le m. de la chose', none), ['le', 'm', 'de', 'la', 'chose']);
  });

  it('case, curly apostrophes, chained elisions, hyphens as the dictionary has them', () => {
    const dict = new Set(["l'", "d'", "qu'", "aujourd'hui", '-t-il', 'peut-être', 'a']);
    const has = (w: string): boolean => dict.has(w);
    assert.deepEqual(frenchWords("Qu’AUJOURD’HUI, a-t-il dit : peut-être l'arbre-à-cames", has), [
      "qu'",
      "aujourd'hui",
      'a',
      '-t-il',
      'dit',
      'peut-être',
      "l'",
      'arbre',
      'à',
      'cames',
    ]);
  });
});

describe('language models: the French grapheme-to-phoneme', () => {
  const g = (w: string): string => frenchG2p(w).join(' ');

  it("reads French spelling to the model's phones", () => {
    assert.equal(g('chantal'), 'ch an tt aa ll');
    assert.equal(g('bateau'), 'bb aa tt au');
    assert.equal(g('maison'), 'mm ai zz on');
    assert.equal(g('gentiment'), 'jj an tt ii mm an');
    assert.equal(g('parlaient'), 'pp aa rr ll ai');
    assert.equal(g('soigner'), 'ss ww aa gn ei');
    assert.equal(g('travaille'), 'tt rr aa vv aa yy');
    assert.equal(g('nation'), 'nn aa ss yy on');
    assert.equal(g('nuit'), 'nn uy ii');
    assert.equal(g('cfdt'), 'ss ei ai ff dd ei tt ei');
    assert.equal(g("c'"), 'ss');
    for (const w of ['bateau', 'œuvre', 'naïf', 'garçon', 'über', 'piñata', 'kayak', 'x']) {
      for (const p of frenchG2p(w)) assert.ok((FRENCH_PHONES as readonly string[]).includes(p), `${w}: ${p}`);
    }
  });

  it('gives a word ending in a silent e its variant with a schwa, as the dictionary does', () => {
    assert.deepEqual(
      frenchPronunciations('fenêtre').map((p) => p.join(' ')),
      ['ff ee nn ai tt rr', 'ff ee nn ai tt rr ee'],
    );
    assert.deepEqual(frenchPronunciations('ami').length, 1);
  });

  it('says which letter it cannot map, rather than guessing', () => {
    assert.throws(
      () => frenchG2p('λόγος'),
      (e: Error) => e instanceof G2pError && e.message === 'cannot pronounce "λόγος": no rule for the letter "λ"',
    );
    assert.throws(() => frenchG2p('moskva№'), /no rule for the letter "№"/);
    assert.throws(() => frenchG2p("'-"), /its letters give no sound/);
  });
});

describe("language models: the dictation grammar's words", () => {
  it('every word of the French grammar (punctuation, layout, commands, numbers, units, months) is in the list the builder forces in', () => {
    const t = TABLES.fr;
    const said = [
      ...t.structure.flatMap((r) => r.say),
      ...t.punctuation.flatMap((r) => r.say),
      ...t.commands.flatMap((c) => c.say),
      ...Object.keys(t.numbers.words),
      ...Object.keys(t.numbers.connectors),
      ...t.decimalWords,
      ...t.percent,
      ...t.literal,
      ...t.units.flatMap((u) => u.say).filter((s) => s.includes(' ') || s.length > 3),
      ...t.dates.months.flat(),
    ];
    const list = new Set(FRENCH_GRAMMAR_WORDS);
    const missing = said
      .map((s) => s.replace(/\{name\}/gu, ' ').trim())
      .filter((s) => /^[\p{L}' -]+$/u.test(s) && s === s.toLowerCase())
      .flatMap((s) => s.split(/\s+/u))
      .filter((w) => !list.has(w));
    assert.deepEqual([...new Set(missing)], []);
  });
});

const GOOD = `\\data\\
ngram 1=4
ngram 2=2

\\1-grams:
-1.0\t<s>\t-0.3
-0.5\t</s>
-0.7\tbonjour\t-0.2
-1.2\t<unk>

\\2-grams:
-0.1\t<s> bonjour
-0.2\tbonjour </s>

\\end\\
`;

describe('language models: the ARPA checker', () => {
  it('accepts a well-formed model and returns its counts', () => {
    assert.deepEqual(checkArpa(GOOD), { counts: [4, 2] });
    assert.deepEqual(checkArpa(GOOD.replace(/\t/gu, ' ')), { counts: [4, 2] });
  });

  it('refuses a malformed model, saying where and what', () => {
    const bad = (text: string, re: RegExp): void =>
      assert.throws(
        () => checkArpa(text, 'x.arpa'),
        (e: Error) => e instanceof ArpaError && re.test(e.message),
      );
    bad('', /x.arpa is empty/);
    bad('hello\n', /line 1: expected \\data\\/);
    bad(GOOD.replace('ngram 2=2', 'ngram 2=3'), /line 1[45]: the header counts 3 2-grams, the section lists 2/);
    bad(GOOD.replace('ngram 1=4', 'ngram 1=3'), /line 9: more 1-grams than the header's 3/);
    bad(GOOD.replace('-0.5\t</s>', '0.5\t</s>'), /line 7: the log10 probability "0.5" is not a number ≤ 0/);
    bad(GOOD.replace('-0.5\t</s>', 'abc\t</s>'), /line 7: the log10 probability "abc"/);
    bad(GOOD.replace('-0.2\tbonjour </s>', '-0.2\tbonjour </s>\t-0.1'), /line 13: a backoff weight on the highest order/);
    bad(GOOD.replace('-0.2\tbonjour </s>', '-0.2\tbonjour'), /line 13: a 2-gram line needs a probability, 2 words/);
    bad(GOOD.replace('-0.2\tbonjour </s>', '-0.2\tbonsoir </s>'), /line 13: the word "bonsoir" is not among the unigrams/);
    bad(GOOD.replace('\\end\\\n', ''), /ends without \\end\\ \(truncated\?\)/);
    bad(GOOD.replace('\\2-grams:', '\\3-grams:'), /\\3-grams: where \\2-grams: was expected/);
    bad(GOOD.replace('ngram 2=2', 'ngram 3=2'), /ngram 3 where ngram 2 was expected/);
    bad(GOOD.replace('\t<s>\t-0.3', '\t<S>\t-0.3'), /the word "<s>" is not among the unigrams|lack <s>/);
    bad(`${GOOD}junk\n`, /text after \\end\\/);
  });

  it('lm check: a model built here passes; a truncated one is named with its fault', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-lm-check-'));
    try {
      writeFileSync(path.join(dir, 'd.dict'), 'bonjour bb on jj ou rr\nle ll ee\nchat ch aa\n');
      writeFileSync(path.join(dir, 'c.txt'), 'Bonjour le chat.\nLe chat.\n'.repeat(20));
      const r = await buildLm({
        language: 'fr',
        texts: [path.join(dir, 'c.txt')],
        dict: path.join(dir, 'd.dict'),
        out: path.join(dir, 'm.arpa'),
      });
      const out: string[] = [];
      await main(['lm', 'check', r.out], (s) => out.push(s));
      assert.match(out.join(''), /a well-formed ARPA model \(\d+ 1-grams, \d+ 2-grams, \d+ 3-grams\)/);
      const text = readFileSync(r.out, 'utf8');
      writeFileSync(path.join(dir, 'cut.arpa'), text.slice(0, text.length - 20));
      await assert.rejects(
        main(['lm', 'check', path.join(dir, 'cut.arpa')], () => {}),
        (e: Error) => e instanceof ArpaError,
      );
      await assert.rejects(
        main(['lm', 'check', path.join(dir, 'none.arpa')], () => {}),
        /none.arpa is not a file/,
      );
      await assert.rejects(
        main(['lm', 'check'], () => {}),
        /lm check needs one FILE.arpa/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('language models: a corpus line beyond the bound', () => {
  it('a 3 MB line without a break is cut at 1 MiB, the build goes on', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-lm-huge-'));
    try {
      writeFileSync(path.join(dir, 'd.dict'), 'le ll ee\nchat ch aa\nnoir nn ww aa rr\n');
      writeFileSync(path.join(dir, 'c.txt'), `${'le chat noir '.repeat(240_000)}\nle chat\n`);
      const r = await buildLm({
        language: 'fr',
        texts: [path.join(dir, 'c.txt')],
        dict: path.join(dir, 'd.dict'),
        out: path.join(dir, 'm.arpa'),
        grammarWords: [],
      });
      assert.equal(r.lines, 2);
      assert.ok(r.tokens > 200_000 && r.tokens < 300_000, String(r.tokens)); // 1 MiB of 13-byte triples ≈ 242k words
      checkArpa(readFileSync(r.out, 'utf8'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
