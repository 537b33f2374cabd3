/**
 * Spacing of dictated text against the characters actually around the insertion point.
 *
 * Rules (English-style typography; French spacing before `;:!?` and inside « » is not applied —
 * the service's proofreading pass is where such typography belongs):
 * - one space between two words;
 * - no space at the start of the document, after whitespace (space, tab, newline), after an opening
 *   bracket or quote (`( [ { « “ ‘ ¿ ¡`, or a straight quote that itself follows whitespace), or after
 *   an apostrophe (`l'` + `homme`);
 * - no space before closing punctuation `. , ; : ! ? ) ] } » … %` nor before whitespace;
 * - the chunk's own leading/trailing whitespace is dropped; an empty or blank chunk inserts nothing.
 */

const OPENERS = new Set(['(', '[', '{', '«', '“', '‘', '¿', '¡']);
const CLOSERS = new Set(['.', ',', ';', ':', '!', '?', ')', ']', '}', '»', '…', '%', '”', '’']);
const APOSTROPHES = new Set(["'", '’']);

function isSpace(ch: string): boolean {
  return /\s/u.test(ch);
}

/** Whether a space is needed between the document text `before` and a word that starts with `first`. */
function needsSpaceBefore(before: string, first: string): boolean {
  if (before.length === 0) return false;
  const last = before[before.length - 1]!;
  if (isSpace(last)) return false;
  if (CLOSERS.has(first)) return false;
  if (OPENERS.has(last)) return false;
  if (APOSTROPHES.has(last)) return false;
  if (last === '"') {
    // A straight quote opens when it follows whitespace or the start of the document.
    const prev = before.length >= 2 ? before[before.length - 2]! : '';
    if (prev === '' || isSpace(prev)) return false;
  }
  return true;
}

/** Whether a space is needed between text ending with `last` and the document text `after`. */
function needsSpaceAfter(last: string, after: string): boolean {
  if (after.length === 0) return false;
  const first = after[0]!;
  if (isSpace(first)) return false;
  if (CLOSERS.has(first)) return false;
  if (OPENERS.has(last) || APOSTROPHES.has(last)) return false;
  return true;
}

/**
 * The text to insert between `before` and `after` (the document text on each side of the insertion
 * point; passing only the last/first few characters is enough) so that words are separated by exactly
 * one space and punctuation sticks to the word before it.
 */
export function joinText(before: string, text: string, after: string): string {
  const t = text.trim();
  if (t.length === 0) return '';
  const leading = needsSpaceBefore(before, t[0]!) ? ' ' : '';
  const trail = needsSpaceAfter(t[t.length - 1]!, after) ? ' ' : '';
  return leading + t + trail;
}

/** Joins chunk texts in order with the same rules (for provisional text and transcripts). */
export function joinChunks(texts: readonly string[]): string {
  let out = '';
  for (const t of texts) out += joinText(out, t, '');
  return out;
}
