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

/** Elided words the dictionary lists with their apostrophe. */
const ELISION = /^(qu|jusqu|lorsqu|puisqu|quoiqu|presqu|[cdjlmnst])'(.+)$/u;
/** Words, numbers and apostrophes/hyphens inside words; everything else is a separator. */
const TOKEN = /[\p{L}\p{M}]+(?:['-][\p{L}\p{M}]+)*'?|\d+/gu;

/**
 * The words of one line (a sentence), spelt as the dictionary does. `has` says whether the dictionary
 * has a word (hyphenated and elided forms are kept whole when it does).
 */
export function frenchWords(line: string, has: (w: string) => boolean): string[] {
  const text = line
    .normalize('NFC')
    .toLowerCase()
    .replace(/[’ʼ‘`´]/gu, "'");
  const out: string[] = [];
  const word = (w: string): void => {
    if (has(w) || !w.includes('-')) {
      out.push(w);
      return;
    }
    const parts = w.split('-').filter(Boolean);
    parts.forEach((p, i) => out.push(i > 0 && has(`-${p}`) ? `-${p}` : p));
  };
  for (const m of text.matchAll(TOKEN)) {
    const t = m[0];
    if (/^\d+$/u.test(t)) {
      const spelt = frenchNumber(Number(t));
      if (spelt === undefined || t.length > 9) out.push('<unk>');
      else for (const w of spelt.split(' ')) word(w);
      continue;
    }
    if (has(t)) {
      out.push(t);
      continue;
    }
    const e = ELISION.exec(t);
    if (e) {
      out.push(`${e[1]!}'`);
      word(e[2]!);
    } else word(t.replace(/'$/u, ''));
  }
  return out;
}
