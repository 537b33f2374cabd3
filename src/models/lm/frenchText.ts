/**
 * French text as pocketsphinx's French dictionary spells it, for counting a language model: lower
 * case, punctuation dropped, the apostrophe straight, elisions apart as the dictionary lists them
 * (`l'homme` → `l'` `homme`, `jusqu'ici` → `jusqu'` `ici`, but `aujourd'hui` whole), hyphenated words
 * whole when the dictionary has them, else in parts (`est-ce` → `est` `-ce`), and whole numbers in
 * words (`23` → `vingt-trois`, traditional spelling: `quatre-vingts`, `deux cents`, `vingt et un`).
 */

const UNITS = [
  'zéro',
  'un',
  'deux',
  'trois',
  'quatre',
  'cinq',
  'six',
  'sept',
  'huit',
  'neuf',
  'dix',
  'onze',
  'douze',
  'treize',
  'quatorze',
  'quinze',
  'seize',
  'dix-sept',
  'dix-huit',
  'dix-neuf',
];
const TENS = ['', '', 'vingt', 'trente', 'quarante', 'cinquante', 'soixante'];

function below100(n: number): string {
  if (n < 20) return UNITS[n]!;
  if (n < 70) {
    const t = Math.floor(n / 10);
    const u = n % 10;
    return u === 0 ? TENS[t]! : u === 1 ? `${TENS[t]!} et un` : `${TENS[t]!}-${UNITS[u]!}`;
  }
  if (n < 80) return n === 71 ? 'soixante et onze' : `soixante-${UNITS[n - 60]!}`;
  return n === 80 ? 'quatre-vingts' : `quatre-vingt-${UNITS[n - 80]!}`;
}

function below1000(n: number): string {
  const h = Math.floor(n / 100);
  const r = n % 100;
  const head = h === 0 ? '' : h === 1 ? 'cent' : r === 0 ? `${UNITS[h]!} cents` : `${UNITS[h]!} cent`;
  return [head, r || !head ? below100(r) : ''].filter(Boolean).join(' ');
}

/** A whole number below a milliard in French words; undefined beyond. */
export function frenchNumber(n: number): string | undefined {
  if (!Number.isSafeInteger(n) || n < 0 || n >= 1e9) return undefined;
  if (n < 1000) return below1000(n);
  const millions = Math.floor(n / 1e6);
  const thousands = Math.floor((n % 1e6) / 1000);
  const rest = n % 1000;
  const parts: string[] = [];
  if (millions) parts.push(millions === 1 ? 'un million' : `${below1000(millions).replace(/cents$/, 'cent')} millions`);
  if (thousands) parts.push(thousands === 1 ? 'mille' : `${below1000(thousands).replace(/cents$/, 'cent')} mille`);
  if (rest) parts.push(below1000(rest));
  return parts.join(' ');
}

/** The ordinal of a number spelt in words: its last word takes "-ième" ("vingt et unième", "quatre-vingtième"). */
export function frenchOrdinal(n: number, feminine = false): string | undefined {
  if (n === 1) return feminine ? 'première' : 'premier';
  const words = frenchNumber(n)?.split(' ');
  if (!words) return undefined;
  const last = words.pop()!.split('-');
  const w = last.pop()!;
  const stem = w === 'cinq' ? 'cinqu' : w === 'neuf' ? 'neuv' : w === 'cents' || w === 'vingts' ? w.slice(0, -1) : w.replace(/e$/u, '');
  last.push(`${stem}ième`);
  words.push(last.join('-'));
  return words.join(' ');
}

/** Abbreviations written before a name, and what is said. */
const ABBREVIATIONS: Record<string, string> = {
  m: 'monsieur',
  mm: 'messieurs',
  mme: 'madame',
  mmes: 'mesdames',
  mlle: 'mademoiselle',
  mlles: 'mesdemoiselles',
  dr: 'docteur',
  pr: 'professeur',
  etc: 'et cetera',
};

/**
 * What a line says, as a reader says it, before it is cut into words: digit groups joined
 * ("1 000 000"), decimals ("3,5" → "3 virgule 5", as the dictation grammar writes them), per cent,
 * ordinals ("1er", "2e", "XXe" left alone), and the abbreviations before names ("M.", "Mme").
 */
export function spokenForms(line: string): string {
  if (!/[\d%]|\b(?:M|MM|Mmes?|Mlles?|Dr|Pr|etc)\b\.?/u.test(line)) return line;
  return line
    .replace(/\b(\d{1,3})((?:[ \u00a0\u202f]\d{3})+)\b/gu, (_, a: string, b: string) => a + b.replace(/\D/gu, ''))
    .replace(/\b(\d+),(\d+)\b/gu, (_, a: string, b: string) => `${a} virgule ${b.replace(/^0+/u, (z) => 'zéro '.repeat(z.length))}`)
    .replace(/(\d)\s*%/gu, '$1 pour cent')
    .replace(/\b(\d{1,9})(?:(er)|(re|ère)|e|ème|è|eme)\b/gu, (m, d: string, er?: string, re?: string) => {
      const n = Number(d);
      return (er && n !== 1) || (re && n !== 1) ? m : (frenchOrdinal(n, re !== undefined) ?? m);
    })
    .replace(/(?<![\p{L}\p{M}'’])(M|MM|Mmes?|Mlles?|Dr|Pr)\.?(?=\s+\p{Lu})/gu, (_, a: string) => ABBREVIATIONS[a.toLowerCase()]!)
    .replace(/\betc\.?/gu, 'et cetera');
}

/** Elided words the dictionary lists with their apostrophe. */
const ELISION = /^(qu|jusqu|lorsqu|puisqu|quoiqu|presqu|[cdjlmnst])'(.+)$/u;
/** Words, numbers and apostrophes/hyphens inside words; everything else is a separator. */
const TOKEN = /[\p{L}\p{M}]+(?:['-][\p{L}\p{M}]+)*'?|\d+/gu;

/** The tokens of a line (lower case, apostrophes straight), before they are spelt as the dictionary does. */
export function frenchTokens(line: string): string[] {
  const text = spokenForms(line.normalize('NFC'))
    .toLowerCase()
    .replace(/[’ʼ‘`´]/gu, "'");
  return text.match(TOKEN) ?? [];
}

/** The words of one token of {@link frenchTokens}, spelt as the dictionary does. */
export function tokenWords(t: string, has: (w: string) => boolean): string[] {
  if (t.charCodeAt(0) <= 0x39) {
    const spelt = t.length > 9 ? undefined : frenchNumber(Number(t));
    return spelt === undefined ? ['<unk>'] : spelt.split(' ').flatMap((w) => hyphenated(w, has));
  }
  if (has(t)) return [t];
  const e = ELISION.exec(t);
  if (e) return [`${e[1]!}'`, ...(e[2]!.includes("'") ? tokenWords(e[2]!, has) : hyphenated(e[2]!, has))];
  return hyphenated(t.replace(/'$/u, ''), has);
}

/** A hyphenated word as the dictionary has it: whole, else its longest known runs ("a-t-il" → "a" "-t-il"). */
function hyphenated(w: string, has: (w: string) => boolean): string[] {
  if (has(w) || !w.includes('-')) return [w];
  const parts = w.split('-').filter(Boolean);
  const out: string[] = [];
  for (let i = 0; i < parts.length;) {
    let j = parts.length;
    for (; j > i + 1; j--) {
      const run = parts.slice(i, j).join('-');
      if (i > 0 && has(`-${run}`)) {
        out.push(`-${run}`);
        break;
      }
      if (has(run)) {
        out.push(run);
        break;
      }
    }
    if (j === i + 1) out.push(i > 0 && has(`-${parts[i]!}`) ? `-${parts[i]!}` : parts[i]!);
    i = j;
  }
  return out;
}

/**
 * The words of one line (a sentence), spelt as the dictionary does. `has` says whether the dictionary
 * has a word (hyphenated and elided forms are kept whole when it does).
 */
export function frenchWords(line: string, has: (w: string) => boolean): string[] {
  return frenchTokens(line).flatMap((t) => tokenWords(t, has));
}
