/** How provisional text is shown in a decoration (pure; tested in plain Node). */

/** Most characters shown at the insertion point: an `after` decoration does not wrap with the line. */
export const PROVISIONAL_MAX_CHARS = 60;

/** Fewest characters shown, however far right the insertion point is: the last two or three words. */
export const PROVISIONAL_MIN_CHARS = 20;

/**
 * The width a line is taken to have when the editor wraps at its window's width (`editor.wordWrap: on`,
 * the default for Markdown) or does not wrap: the extension API does not tell the window's width in
 * characters, so VS Code's default `editor.wordWrapColumn`, a report's usual width.
 */
export const ASSUMED_LINE_WIDTH = 80;

/** The settings `editor.wordWrap` and `editor.wordWrapColumn` of the editor showing the text. */
interface LineLayout {
  wordWrap: string;
  wordWrapColumn: number;
}

/**
 * How many characters of provisional text to show after the insertion point at `column` (0-based, in
 * characters) so that the decoration stays inside the editor: an `after` decoration neither wraps with
 * the line nor makes the editor scroll, and what runs past the right edge is cut off — the newest words
 * first. When the editor wraps at a column the insertion point's place on its screen row is known; with
 * any other setting the line is taken to be `ASSUMED_LINE_WIDTH` wide and a point beyond it gets the
 * minimum. Never fewer than `PROVISIONAL_MIN_CHARS` nor more than `PROVISIONAL_MAX_CHARS`.
 */
export function provisionalRoom(column: number, layout: LineLayout): number {
  const byColumn = (layout.wordWrap === 'wordWrapColumn' || layout.wordWrap === 'bounded') && layout.wordWrapColumn > 0;
  const width = byColumn ? layout.wordWrapColumn : ASSUMED_LINE_WIDTH;
  const onScreenRow = byColumn ? column % width : column;
  return Math.min(PROVISIONAL_MAX_CHARS, Math.max(PROVISIONAL_MIN_CHARS, width - onScreenRow));
}

/**
 * Newlines cannot be shown in `after` content: each becomes ` ¶ `; tabs become a space. A text longer
 * than `max` shows its last words after an ellipsis (the whole text is in the decoration's hover).
 */
export function displayProvisional(text: string, max = PROVISIONAL_MAX_CHARS): string {
  const flat = text.replace(/\r\n|\r|\n/g, ' ¶ ').replace(/\t/g, ' ');
  if (flat.length <= max) return flat;
  const tail = flat.slice(flat.length - (max - 1));
  const space = tail.indexOf(' ');
  // Cut at a word boundary when one is near; a single long word is cut where it must be.
  const cut = space >= 0 && space < max / 3 ? tail.slice(space + 1) : tail;
  return `…${cut}`;
}
