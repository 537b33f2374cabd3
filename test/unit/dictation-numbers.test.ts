/**
 * Number words → numbers, checked against an established number-to-words library (n2words): every
 * number n2words writes in words reads back as the same number, in the four languages; ordinals too.
 */
import assert from 'node:assert/strict';
import { formatText } from '../../src/dictation/format';
import { TABLES } from '../../src/dictation/lang';
import { parseWords } from '../../src/dictation/numbers';
import { tokenize } from '../../src/dictation/tokenizer';
import type { Language } from '../../src/dictation/types';

type N2W = { toCardinal: (n: number) => string; toOrdinal: (n: number) => string };
const LOCALES: Record<Language, string> = { fr: 'fr-FR', en: 'en-US', es: 'es-ES', de: 'de-DE' };

/** 0–1,100 all, then a spread up to ten million, and every year 1900–2100. */
function samples(): number[] {
  const out: number[] = [];
  for (let n = 0; n <= 1100; n++) out.push(n);
  for (let n = 1100; n < 10_000_000; n = Math.floor(n * 1.37) + 7) out.push(n);
  for (let y = 1900; y <= 2100; y++) out.push(y);
  out.push(80_080, 71_071, 99_999, 1_000_000, 2_000_000, 1_232_001, 4_000_091);
  return out;
}

function read(language: Language, words: string): number | null {
  const tokens = tokenize(words);
  const n = parseWords(TABLES[language].numbers, tokens, 0);
  return n && n.end === tokens.length ? n.value : null;
}

describe('dictation: numbers round-trip against n2words', () => {
  const libs = {} as Record<Language, N2W>;
  before(async () => {
    for (const [lang, locale] of Object.entries(LOCALES)) libs[lang as Language] = (await import(`n2words/${locale}`)) as N2W;
  });

  for (const language of Object.keys(LOCALES) as Language[]) {
    it(`${language}: cardinals read back as the number n2words wrote`, () => {
      const wrong: string[] = [];
      for (const n of samples()) {
        const words = libs[language].toCardinal(n);
        if (read(language, words) !== n) wrong.push(`${n} "${words}" → ${read(language, words)}`);
      }
      assert.deepEqual(wrong.slice(0, 10), []);
    });

    it(`${language}: dictated alone, numbers from 10 are written in digits and below 10 stay words`, () => {
      const sep = TABLES[language].groupSeparator;
      for (const n of [0, 1, 7, 9, 10, 11, 16, 17, 21, 71, 80, 91, 99, 100, 101, 999, 1232, 1984, 2024, 12_500, 1_000_000]) {
        const words = libs[language].toCardinal(n);
        const want =
          n < 10
            ? words.charAt(0).toUpperCase() + words.slice(1)
            : n < 10_000
              ? String(n)
              : String(n).replace(/\B(?=(\d{3})+(?!\d))/gu, sep);
        assert.equal(formatText(words, { language }, { before: '', after: '' }), want, `${n}: ${words}`);
      }
    });

    it(`${language}: ordinals read back with their value`, () => {
      const top = language === 'es' ? 19 : 99;
      for (let n = 1; n <= top; n++) {
        const words = libs[language].toOrdinal(n);
        const tokens = tokenize(words);
        const p = parseWords(TABLES[language].numbers, tokens, 0);
        assert.ok(p && p.end === tokens.length && p.ord, `${n}: "${words}" is not read as an ordinal`);
        assert.equal(p.value, n, `${n}: "${words}"`);
      }
    });
  }

  it('French forms n2words does not write: Belgian and Swiss tens, hyphenated "et"', () => {
    assert.equal(read('fr', 'septante-cinq'), 75);
    assert.equal(read('fr', 'huitante'), 80);
    assert.equal(read('fr', 'nonante-neuf'), 99);
    assert.equal(read('fr', 'soixante-et-onze'), 71);
    assert.equal(read('fr', 'quatre vingt dix sept'), 97);
  });

  it('German numbers said in separate words, and compounds that are not numbers', () => {
    assert.equal(read('de', 'drei und zwanzig'), 23);
    assert.equal(read('de', 'neunzehnhundertvierundachtzig'), 1984);
    assert.equal(read('de', 'Achtung'), null);
    assert.equal(read('de', 'einer'), null);
  });

  it('English "and" after hundreds and thousands; Spanish "y" only between tens and units', () => {
    assert.equal(read('en', 'one hundred and five'), 105);
    assert.equal(read('en', 'two thousand and twenty'), 2020);
    assert.equal(read('es', 'treinta y dos'), 32);
    assert.equal(read('es', 'dos y tres'), null);
  });

  it('"one" alone before another number is the article: the number after it is written in digits', () => {
    const fr = { language: 'fr', specialty: 'general' } as const;
    const ctx = { before: '', after: '' };
    const write = (text: string, o: { language: Language; specialty: 'general' }): string =>
      formatText(text, o, ctx).replace(/[\u202F\u00A0]/gu, ' ');
    assert.equal(write('il était un soixante millions de kilomètres', fr), 'Il était un 60 000 000 de kilomètres');
    assert.equal(write('une trentaine et une vingt-deux', fr), 'Une trentaine et une 22');
    assert.equal(write('un million de patients', fr), '1 000 000 de patients', 'part of the number, not an article');
    assert.equal(write('un deux trois', fr), 'Un deux trois', 'counted numbers stay words');
    assert.equal(write('son un veinte kilómetros', { language: 'es', specialty: 'general' }), 'Son un 20 kilómetros');
  });
});
