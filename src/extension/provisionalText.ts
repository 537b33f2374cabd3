/** How provisional text is shown in a decoration (pure; tested in plain Node). */

/** Most characters shown at the insertion point: an `after` decoration does not wrap with the line. */
export const PROVISIONAL_MAX_CHARS = 60;

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
