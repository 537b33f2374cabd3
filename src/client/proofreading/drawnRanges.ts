/**
 * The ranges a decoration was last drawn with, moved through the document's changes as the editor moves
 * them (a decoration that never grows at its edges), so that a caller redraws only when what it would
 * draw differs from what the editor shows already: a dictated word appended after the marks moves none.
 */
import type { TextChange } from '../ranges';

export type DrawnRange = readonly [start: number, end: number];

/**
 * `ranges` after `changes` (in the editor's order, each against the text the previous one left), as the
 * editor moves a decoration that never grows when typing at its edges; undefined when a change reaches
 * inside one of them (the editor shrinks or splits it: only a redraw says what it shows).
 */
export function moveDrawn(ranges: readonly DrawnRange[], changes: readonly TextChange[]): DrawnRange[] | undefined {
  let out: DrawnRange[] = [...ranges];
  for (const c of changes) {
    const end = c.offset + c.deletedLength;
    const delta = c.insertedLength - c.deletedLength;
    const next: DrawnRange[] = [];
    for (const [s, e] of out) {
      // Wholly before, or an insertion at its start: the range moves. Wholly after, or an insertion at
      // its end: it stays. A change that deletes up to an edge is left to a redraw (the editor's rules there
      // are its own).
      if (end < s || (c.deletedLength === 0 && c.offset === s)) next.push([s + delta, e + delta]);
      else if (c.offset > e || (c.deletedLength === 0 && c.offset === e)) next.push([s, e]);
      else return undefined;
    }
    out = next;
  }
  return out;
}

/** Whether two lists of ranges are the same, in the same order. */
export function sameDrawn(a: readonly DrawnRange[], b: readonly DrawnRange[]): boolean {
  return a.length === b.length && a.every(([s, e], i) => b[i]![0] === s && b[i]![1] === e);
}
