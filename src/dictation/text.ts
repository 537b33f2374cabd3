/** Small text helpers shared by the grammar: normalisation for matching, case, whitespace. */

/** Non-breaking space (before units, ":" in French, inside « »). */
export const NBSP = '\u00A0';
/** Narrow non-breaking space (French "; ! ?", digit groups). */
export const NNBSP = '\u202F';

/** Lower case with one apostrophe ('), for matching words of the tables. */
export function norm(s: string): string {
  return s.toLowerCase().replace(/[’‘`´]/gu, "'");
}

/** Lower case without accents, apostrophes or punctuation, spaces collapsed: for names and commands. */
export function fold(s: string): string {
  return s
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/ß/gu, 'ss')
    .replace(/[’‘'`´\-_/]/gu, ' ')
    .replace(/[^\p{L}\p{N} ]/gu, ' ')
    .replace(/\s+/gu, ' ')
    .trim();
}

function isUpperInitial(s: string): boolean {
  const c = s.charAt(0);
  return c !== c.toLowerCase() && c === c.toUpperCase();
}

/** "Abc" (one capital, then lower case, at least two letters). */
export function isTitleCase(s: string): boolean {
  return s.length >= 2 && isUpperInitial(s) && s.slice(1) === s.slice(1).toLowerCase() && /^\p{L}+$/u.test(s);
}

/** Upper-cases the first character when it is a letter ("4e" stays "4e"). */
export function capitalise(s: string): string {
  return /^\p{L}/u.test(s) ? s.charAt(0).toUpperCase() + s.slice(1) : s;
}

export function isSpaceChar(c: string): boolean {
  return /\s/u.test(c);
}
