/**
 * Correct That with the user's own words: what is typed in the list's box (or spelt in it) replaces the
 * words the list corrects, written as typed. Dragon's rule: when no reading is right, the user types the
 * words, or spells them. Typed letters apart, one letter each ("b r o n c h u s"), are one spelt word
 * ("bronchus"), as the spoken "spell that" writes them. Pure: no `vscode`.
 */
import type { ChunkEdit } from './readings';

/** The text a typed correction writes: trimmed; letters typed apart (every piece one letter, at least two) joined. */
export function typedText(typed: string): string {
  const t = typed.trim().replace(/\s+/gu, ' ');
  const pieces = t.split(' ');
  if (pieces.length >= 2 && pieces.every((p) => /^\p{L}$/u.test(p))) return pieces.join('');
  return t;
}

/**
 * Where a typed correction goes in the chunk's written text: over the selection when the list corrects a
 * selection (`[selStart, selEnd)`, offsets in the chunk's text, non-empty), else over the whole chunk
 * without the spaces around it. Undefined when nothing was typed.
 */
export function typedEdit(written: string, typed: string, selection?: { start: number; end: number }): ChunkEdit | undefined {
  const text = typedText(typed);
  if (text === '') return undefined;
  if (selection && selection.end > selection.start) {
    const start = Math.max(0, Math.min(selection.start, written.length));
    const end = Math.max(start, Math.min(selection.end, written.length));
    return { start, end, text, whole: false };
  }
  const lead = written.length - written.trimStart().length;
  const body = written.trim();
  return { start: lead, end: lead + body.length, text, whole: true };
}
