/**
 * A French grapheme-to-phoneme converter by ordered rules, to the phone set of CMU Sphinx's French
 * model (`cmusphinx-fr-ptm`: `aa ai an au bb ch dd ee ei eu ff gg gn ii in jj kk ll mm nn oe on oo ou
 * pp rr ss tt un uu uy vv ww yy zz`). It pronounces the words the model's dictionary lacks (rare
 * forms, names); its accuracy on the dictionary's own entries is measured in the unit tests.
 *
 * Each rule rewrites a grapheme at the current position when its left context (the text before, read
 * backwards from the position) and right context (the text after) match; the first rule that matches
 * wins, longest graphemes first. A word is read part by part between hyphens and apostrophes.
 */

export class G2pError extends Error {
  override readonly name = 'G2pError';
}

/** The phones this converter writes (those of the model's `mdef`, silence aside). */
export const FRENCH_PHONES = [
  'aa',
  'ai',
  'an',
  'au',
  'bb',
  'ch',
  'dd',
  'ee',
  'ei',
  'eu',
  'ff',
  'gg',
  'gn',
  'ii',
  'in',
  'jj',
  'kk',
  'll',
  'mm',
  'nn',
  'oe',
  'on',
  'oo',
  'ou',
  'pp',
  'rr',
  'ss',
  'tt',
  'un',
  'uu',
  'uy',
  'vv',
  'ww',
  'yy',
  'zz',
] as const;

const V = 'aeiouyàâäéèêëîïôöûüùÿœæ';
const C = 'bcçdfghjklmnpqrstvwxzñ';
/** Letters folded before the rules (accents French does not use). */
const FOLD: Record<string, string> = {
  á: 'a',
  ã: 'a',
  å: 'a',
  í: 'i',
  ì: 'i',
  ó: 'o',
  ò: 'o',
  õ: 'o',
  ø: 'o',
  ú: 'u',
  ý: 'y',
  ć: 'c',
  č: 'c',
  š: 's',
  ž: 'z',
  ł: 'l',
  ń: 'n',
  ř: 'r',
  ś: 's',
  ź: 'z',
  ż: 'z',
  ß: 'ss',
};

interface Rule {
  g: string;
  p: string;
  /** Must match the text before the grapheme (tested as `(?:L)$`). */
  l?: RegExp;
  /** Must match the text after the grapheme (tested as `^(?:R)`). */
  r?: RegExp;
}

const L = (s: string): RegExp => new RegExp(`(?:${s})$`, 'u');
const R = (s: string): RegExp => new RegExp(`^(?:${s})`, 'u');
const v = `[${V}]`;
const c = `[${C}]`;
/** End of the word, allowing the silent plural/verb endings. */
const END = '(?:s|)$';

/** Rules by the first letter of their grapheme, in the order tried. */
const RULES: Record<string, Rule[]> = {};
function rule(g: string, p: string, l?: string, r?: string): void {
  (RULES[g[0]!] ??= []).push({ g, p, ...(l !== undefined ? { l: L(l) } : {}), ...(r !== undefined ? { r: R(r) } : {}) });
}

// Vowels ---------------------------------------------------------------------------------------------
rule('eaux', 'au', undefined, '$');
rule('eau', 'au');
rule('aient', 'ai', undefined, '$');
rule('ais', 'ai', undefined, '$');
rule('ait', 'ai', undefined, '$');
rule('aix', 'ai', undefined, '$');
rule('ain', 'in', undefined, `${c}|$|s$`);
rule('aim', 'in', undefined, `[bp]|$`);
rule('aill', 'aa yy');
rule('ai', 'ai');
rule('aî', 'ai');
rule('ay', 'ai yy', undefined, v);
rule('ay', 'ai');
rule('aon', 'an', undefined, '$|s$');
rule('au', 'au', undefined, `$|[sxtd]$|[sxt]s$|${v}`);
rule('au', 'oo');
rule('am', 'an', undefined, `[bp]|(?![mn])${c}(?!$)`);
rule('an', 'an', undefined, `(?![mnh])${c}|$|s$`);
rule('a', 'aa');
rule('à', 'aa');
rule('â', 'aa');
rule('ä', 'ai');

rule('œu', 'oe', undefined, `${c}`);
rule('œu', 'eu');
rule('œ', 'ai');
rule('æ', 'ei');

rule('eaux', 'au', undefined, '$');
rule('euill', 'oe yy');
rule('eu', 'eu', undefined, `$|s$|x$|t$|ses?$|tes?$|[sz]e`);
rule('eu', 'oe', undefined, `${c}`);
rule('eu', 'eu');
rule('eû', 'eu');
rule('ein', 'in', undefined, `${c}|$|s$`);
rule('eim', 'in', undefined, `[bp]|$`);
rule('eill', 'ai yy');
rule('ei', 'ai');
rule('ey', 'ai yy', undefined, v);
rule('ey', 'ai');
rule('ment', 'mm an', undefined, '$|s$');
rule('ent', '', `${v}${c}+|${v}(?:ll|qu|gu|ch|gn|ss)`, '$'); // verbs: ils parlent (but "moment", "lent")
rule('emm', 'aa mm', '^f|^(?:ard|ard|ég|prud|inc|récurr|viol|prud|fréqu|évid|élég|innoc|pati)|(?:ell|[aà]|^s|^cl)');
rule('emm', 'an mm', '^');
rule('enn', 'an nn', '^');
rule('en', 'in', '[iéy]', '$|s$|[^aeiouyn]');
rule('em', 'an', undefined, `[bp]|${c}(?![aeiouy])`);
rule('en', 'an', undefined, `(?![nmh])${c}|$`);
rule('er', 'ai rr', `^${c}+`, '$|s$');
rule('er', 'ei', `${c}|${v}`, '$|s$');
rule('ez', 'ei', undefined, '$');
rule('et', 'ai', undefined, '$|s$');
rule('es', '', `${c}|[aeiouéè]`, '$');
rule('ex', 'ai gg zz', '^', `${v}|h`);
rule(
  'e',
  'ai',
  undefined,
  `x|(?:[bcdfgkmnpqrstvz])(?:[bcdfgkmnpqstvwxz])|(?:[bcdfgkmnpqstvz])$|(?:[bcdfgkmnpqstvz])h?$|ll|rr|ss|tt|nn|mm|cc|pp|ff|r${c}|l${c}|f$|l$|r$|c$`,
);
rule('e', 'ei', '^', `${c}${v}`);
rule('e', '', `${v}|[gc]`, `[aou]`);
rule('e', '', `${v}`, `$|s$`);
rule('e', '', `.`, `$`);
rule('e', 'ee', undefined, undefined);
rule('é', 'ei', undefined, `$|e|s$|es$|[^aeiouyé]?$`);
rule('é', 'ai');
rule('è', 'ai');
rule('ê', 'ai');
rule('ë', 'ai');

rule('ien', 'yy in', undefined, `$|s$|[^aeiouyn]`);
rule('ill', 'yy', `(?:^|[^qg])[aeiouyéèê]`);
rule('ill', 'ii ll', '^|^m|^v|^tranqu|^v|^osc|^dist|^inst');
rule('ill', 'ii yy');
rule('im', 'in', undefined, `[bp]|$`);
rule('in', 'in', undefined, `(?![nh])${c}|$|s$`);
rule('i', 'yy', `${c}|^`, `[aoouàâéèêôû]|e(?!s?$|nt$)`);
rule('i', 'ii');
rule('î', 'ii');
rule('ï', 'ii');

rule('oin', 'ww in', undefined, `${c}|$|s$`);
rule('oi', 'ww aa');
rule('oî', 'ww aa');
rule('oy', 'ww aa yy', undefined, v);
rule('oy', 'ww aa');
rule('ouill', 'ou yy');
rule('ou', 'ww', undefined, `[aiéèy]|e(?!s?$|nt$)`);
rule('ou', 'ou');
rule('où', 'ou');
rule('oû', 'ou');
rule('om', 'on', undefined, `[bp]|$`);
rule('on', 'on', undefined, `(?![nh])${c}|$|s$`);
rule('o', 'au', undefined, `$|s$|t$|ts$|x$|se|sion|tion`);
rule('ô', 'au', undefined, `$|[sxtd]$|${v}`);
rule('ô', 'oo');
rule('o', 'oo');
rule('ö', 'eu');

rule('um', 'oo mm', undefined, '$');
rule('um', 'un', undefined, `[bp]`);
rule('un', 'un', undefined, `(?![nh])${c}|$|s$`);
rule('ueil', 'oe yy', '[cg]');
rule('u', 'uy', `${c}|^`, `i`);
rule('u', 'uu');
rule('û', 'uu');
rule('ü', 'uu');
rule('ù', 'uu');

rule('ym', 'in', undefined, `[bp]`);
rule('yn', 'in', undefined, `${c}|$`);
rule('y', 'yy', `^|${v}`, v);
rule('y', 'ii');
rule('ÿ', 'ii');

// Consonants -----------------------------------------------------------------------------------------
rule('bb', 'bb');
rule('b', 'pp', undefined, '[st]');
rule('b', 'bb');
rule('cc', 'kk ss', undefined, '[eiéèêy]');
rule('cc', 'kk');
rule('ch', 'kk', undefined, `[rl]|${c}`);
rule('ch', 'kk', '^', `(?:oe|or|ao|œ)`);
rule('ch', 'ch');
rule('ck', 'kk');
rule('c', 'ss', undefined, '[eiéèêyîï]');
rule('c', '', 'n', '$|s$'); // blanc, tronc
rule('c', 'kk');
rule('ç', 'ss');
rule('dd', 'dd');
rule('d', '', undefined, '$|s$');
rule('d', 'dd');
rule('ff', 'ff');
rule('f', 'ff');
rule('gg', 'gg');
rule('gn', 'gn');
rule('gu', 'gg', undefined, '[eiéèêy]');
rule('ge', 'jj', undefined, '[aoâô]');
rule('g', 'jj', undefined, '[eiéèêyîï]');
rule('g', '', undefined, '$|s$');
rule('g', 'gg');
rule('h', '');
rule('j', 'jj');
rule('k', 'kk');
rule('ll', 'll');
rule('l', 'll');
rule('mm', 'mm');
rule('m', 'mm');
rule('nn', 'nn');
rule('n', 'nn');
rule('ñ', 'nn yy');
rule('ph', 'ff');
rule('pp', 'pp');
rule('p', '', 'm', 't');
rule('p', '', '[mr]', '[st]$|$');
rule('p', '', undefined, 's?$');
rule('p', 'pp');
rule('qu', 'kk ww', undefined, 'a(?:t|r)');
rule('qu', 'kk');
rule('q', 'kk');
rule('rr', 'rr');
rule('r', 'rr');
rule('sch', 'ch');
rule('sh', 'ch');
rule('ss', 'ss');
rule('sc', 'ss', undefined, '[eiéèêy]');
rule('s', '', undefined, '$');
rule('s', 'zz', v, v);
rule('s', 'ss');
rule('th', 'tt');
rule('tt', 'tt');
rule('ti', 'ss yy', `[^s]`, '(?:on|el|elle|eux|euse|al|ale|aux|ent|ence)s?$|a(?:l|n)|ell|eu|on');
rule('t', '', undefined, '$|s$');
rule('t', 'tt');
rule('v', 'vv');
rule('w', 'ww');
rule('x', '', undefined, '$');
rule('x', 'kk ss');
rule('zz', 'zz');
rule('z', '', 'e', '$');
rule('z', 'zz');

for (const list of Object.values(RULES)) list.sort((a, b) => b.g.length - a.g.length);

const CONSONANTS = new Set(['bb', 'dd', 'ff', 'gg', 'kk', 'll', 'mm', 'nn', 'pp', 'rr', 'ss', 'tt', 'vv', 'zz', 'ch', 'jj']);

/** One part of a word (no hyphen or apostrophe) in phones. */
function partPhones(part: string, whole: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < part.length;) {
    const list = RULES[part[i]!];
    if (!list) throw new G2pError(`cannot pronounce ${JSON.stringify(whole)}: no rule for the letter ${JSON.stringify(part[i])}`);
    let done = false;
    for (const r of list) {
      if (!part.startsWith(r.g, i)) continue;
      if (r.l && !r.l.test(part.slice(0, i))) continue;
      if (r.r && !r.r.test(part.slice(i + r.g.length))) continue;
      if (r.p) out.push(...r.p.split(' '));
      i += r.g.length;
      done = true;
      break;
    }
    if (!done) throw new G2pError(`cannot pronounce ${JSON.stringify(whole)}: no rule for ${JSON.stringify(part[i])} here`);
  }
  // Double consonants from two rules ("ss" + "s" across a boundary) are one sound.
  return out.filter((p, i) => i === 0 || p !== out[i - 1] || !CONSONANTS.has(p));
}

/**
 * The phones of a French word (lower case; letters, hyphens and apostrophes). Throws {@link G2pError}
 * naming the letter when the word has one the rules cannot map, or when nothing is pronounced.
 */
export function frenchG2p(word: string): string[] {
  const w = word.normalize('NFC').toLowerCase();
  const folded = [...w].map((ch) => FOLD[ch] ?? ch).join('');
  const parts = folded.split(/['-]+/u).filter(Boolean);
  const out: string[] = [];
  const elided = /^([a-zç]+)'$/u.exec(folded)?.[1];
  if (elided !== undefined && ELIDED[elided]) return [...ELIDED[elided]];
  for (const part of parts) {
    // No vowel: an acronym, said letter by letter ("hp", "cfdt").
    if (part.length > 1 && !/[aeiouyàâäéèêëîïôöûüùÿœæ]/u.test(part) && [...part].every((ch) => LETTER_NAMES[ch])) {
      for (const ch of part) out.push(...LETTER_NAMES[ch]!.split(' '));
      continue;
    }
    const p = partPhones(part, word);
    // A one-letter part is its sound, not silent ("s'" is /s/, "l'" /l/).
    if (p.length === 0 && part.length === 1) out.push(...(SPELT[part] ?? []));
    else out.push(...p);
  }
  if (out.length === 0) throw new G2pError(`cannot pronounce ${JSON.stringify(word)}: its letters give no sound`);
  return out;
}

/** The names of the letters, for acronyms (as the dictionary spells "cfpj": ss ei ai ff pp ei jj ii). */
const LETTER_NAMES: Record<string, string> = {
  b: 'bb ei',
  c: 'ss ei',
  ç: 'ss ei',
  d: 'dd ei',
  f: 'ai ff',
  g: 'jj ei',
  h: 'aa ch',
  j: 'jj ii',
  k: 'kk aa',
  l: 'ai ll',
  m: 'ai mm',
  n: 'ai nn',
  p: 'pp ei',
  q: 'kk uu',
  r: 'ai rr',
  s: 'ai ss',
  t: 'tt ei',
  v: 'vv ei',
  w: 'dd oo bb ll ee vv ei',
  x: 'ii kk ss',
  z: 'zz ai dd',
};

/** Elided words said alone (`c'` is /s/). */
const ELIDED: Record<string, string[]> = {
  c: ['ss'],
  ç: ['ss'],
  d: ['dd'],
  j: ['jj'],
  l: ['ll'],
  m: ['mm'],
  n: ['nn'],
  s: ['ss'],
  t: ['tt'],
  qu: ['kk'],
};

const SPELT: Record<string, string[]> = { s: ['ss'], t: ['tt'], d: ['dd'], x: ['ii', 'kk', 'ss'], h: ['aa', 'ch'], p: ['pp', 'ei'] };

/** Pronunciations of `word`: its phones, and with a final schwa where it ends in a consonant and a silent e (as the dictionary lists them). */
export function frenchPronunciations(word: string): string[][] {
  const p = frenchG2p(word);
  const last = p[p.length - 1]!;
  if (/[^aeiouy]e(?:s|nt)?$/u.test(word) && !/^(?:aa|ai|an|au|ee|ei|eu|ii|in|oe|on|oo|ou|un|uu)$/u.test(last)) return [p, [...p, 'ee']];
  return [p];
}
