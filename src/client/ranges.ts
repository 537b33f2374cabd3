/**
 * Offset-based tracking of the committed chunks of one dictation run inside one document.
 *
 * Every document change is fed in, in the order the editor reports it (VS Code's
 * `TextDocumentChangeEvent.contentChanges` are to be applied one after the other, each offset being
 * relative to the document after the previous ones), so that each chunk's range always covers exactly
 * the text it was written as, however the user edits around it. A change that touches a chunk's
 * interior marks it `edited`: the writer then keeps the person's text rather than rewriting it.
 *
 * The anchor is where the run inserts text that has no committed predecessor: it starts at the cursor
 * and moves with the edits before it (text the user types exactly at the anchor goes before it).
 *
 * Our own edits are announced with {@link RangeTracker.expect} before they are applied; when the
 * matching change arrives it is applied with its own meaning (a new chunk, a replaced chunk) instead of
 * being taken for a user edit. Pure: no `vscode` import.
 */

/** One content change: `deletedLength` characters at `offset` replaced by `insertedLength` characters. */
export interface TextChange {
  offset: number;
  deletedLength: number;
  insertedLength: number;
  /** The inserted text, when known; used to recognise our own edits. */
  text?: string;
}

interface TrackedRange {
  readonly id: string;
  start: number;
  end: number;
  /** True once a change not of ours touched the interior of the chunk. */
  edited: boolean;
}

/** What one of our edits means, once the editor reports it. */
export type OwnEffect =
  /** A new chunk `id` now covers `[offset, offset + length)`. */
  | { kind: 'insert'; id: string; offset: number; length: number }
  /**
   * The text of `removeIds` is gone and chunk `id` now covers `[offset, offset + length)` (offsets
   * after the whole edit). A range the edit cuts into keeps only what is left of its own text.
   */
  | { kind: 'replace'; id: string; removeIds: string[]; offset: number; length: number }
  /**
   * Changes of ours that make no chunk (a template's fields take their defaults): ranges move with them,
   * and a range they fall inside grows or shrinks with them, without being marked edited. `id` names
   * the edit in logs.
   */
  | { kind: 'edit'; id: string };

export interface OwnEdit {
  /** The changes as the editor will report them, in its order (descending offsets for one edit). */
  changes: TextChange[];
  effect: OwnEffect;
}

type ChangeOrigin = 'own' | 'user';

export class RangeTracker {
  private readonly ranges = new Map<string, TrackedRange>();
  private anchorOffset: number;
  private readonly pending: OwnEdit[] = [];

  constructor(anchor: number) {
    if (!Number.isInteger(anchor) || anchor < 0) throw new RangeError(`anchor must be a non-negative integer, got ${anchor}`);
    this.anchorOffset = anchor;
  }

  /** Where the run inserts text that has no committed chunk before it. */
  get anchor(): number {
    return this.anchorOffset;
  }

  get size(): number {
    return this.ranges.size;
  }

  get(id: string): Readonly<TrackedRange> | undefined {
    return this.ranges.get(id);
  }

  has(id: string): boolean {
    return this.ranges.has(id);
  }

  /** All tracked ranges, in document order. */
  all(): ReadonlyArray<Readonly<TrackedRange>> {
    return [...this.ranges.values()].sort((a, b) => a.start - b.start || a.end - b.end);
  }

  /** All tracked ranges in no particular order, without copying or sorting them (what reads every range once needs). */
  unordered(): IterableIterator<Readonly<TrackedRange>> {
    return this.ranges.values();
  }

  /** Number of our own edits announced and not yet seen. */
  get pendingCount(): number {
    return this.pending.length;
  }

  /**
   * Where text goes that belongs after committed chunk `prevId` (or at the anchor when `null`) and
   * before committed chunk `nextId`. Unknown ids fall back to the anchor / the end of the run.
   */
  insertionOffset(prevId: string | null, nextId: string | null): number {
    const prev = prevId === null ? undefined : this.ranges.get(prevId);
    if (prev) return prev.end;
    const next = nextId === null ? undefined : this.ranges.get(nextId);
    if (prevId === null) return next ? Math.min(this.anchorOffset, next.start) : this.anchorOffset;
    // The predecessor is not tracked (should not happen): before the successor, else at the end of the run.
    return next ? next.start : this.end();
  }

  /** The end of the last chunk of the run in the document (or the anchor when nothing is committed). */
  end(): number {
    let end = this.anchorOffset;
    for (const r of this.ranges.values()) end = Math.max(end, r.end);
    return end;
  }

  /** Starts tracking a chunk directly (tests, and restoring). Prefer {@link expect} for real edits. */
  track(id: string, start: number, length: number): void {
    if (!Number.isInteger(start) || start < 0 || !Number.isInteger(length) || length < 0) {
      throw new RangeError(`bad range for ${id}: start ${start}, length ${length}`);
    }
    this.ranges.set(id, { id, start, end: start + length, edited: false });
  }

  /** Stops tracking a chunk (its text stays in the document). */
  untrack(id: string): void {
    this.ranges.delete(id);
  }

  /**
   * Gives up rewriting `ids` (a person edited inside one of them): they become one chunk `id` spanning
   * them all, marked edited, so that later text still finds its place after it.
   */
  merge(ids: readonly string[], id: string): void {
    const rs = ids.map((i) => this.ranges.get(i)).filter((r): r is TrackedRange => r !== undefined);
    if (rs.length === 0) return;
    const start = Math.min(...rs.map((r) => r.start));
    const end = Math.max(...rs.map((r) => r.end));
    for (const i of ids) this.ranges.delete(i);
    this.ranges.set(id, { id, start, end, edited: true });
  }

  /** Announces one of our edits: when the editor reports exactly these changes, they are ours. */
  expect(edit: OwnEdit): void {
    this.pending.push(edit);
  }

  /** Withdraws an announced edit that was not applied (the editor refused it). */
  withdraw(edit: OwnEdit): void {
    const i = this.pending.indexOf(edit);
    if (i >= 0) this.pending.splice(i, 1);
  }

  /** Whether an announced edit has been seen (or withdrawn). */
  isSettled(edit: OwnEdit): boolean {
    return !this.pending.includes(edit);
  }

  /**
   * Applies the content changes of one document change event, in the editor's order. Returns whether
   * they were one of our announced edits.
   */
  applyChanges(changes: readonly TextChange[]): ChangeOrigin {
    const idx = this.pending.findIndex((p) => sameChanges(p.changes, changes));
    if (idx >= 0) {
      const [own] = this.pending.splice(idx, 1);
      this.applyOwn(own!);
      return 'own';
    }
    for (const c of changes) this.applyChange(c);
    return 'user';
  }

  /** Applies one change that is not ours: ranges shift, chunks whose interior it touches are `edited`. */
  applyChange(change: TextChange): void {
    checkChange(change);
    const { offset, deletedLength, insertedLength } = change;
    const delEnd = offset + deletedLength;
    const delta = insertedLength - deletedLength;
    for (const r of this.ranges.values()) {
      if (deletedLength === 0) {
        if (offset <= r.start) {
          // Before the chunk; text typed exactly at its start goes before it.
          r.start += delta;
          r.end += delta;
        } else if (offset < r.end) {
          r.edited = true;
          r.end += delta;
        }
        // Text typed exactly at its end stays outside it.
      } else if (delEnd <= r.start) {
        r.start += delta;
        r.end += delta;
      } else if (offset < r.end || (r.start === r.end && offset <= r.start)) {
        // Touches the interior: the chunk keeps what the person made of it.
        r.edited = true;
        if (offset < r.start && delEnd < r.end) {
          // Cuts into its beginning: the new text goes before what is left of it.
          r.start = offset + insertedLength;
          r.end += delta;
        } else if (offset <= r.start) {
          // Swallows it whole: it becomes the person's replacement text.
          r.start = offset;
          r.end = offset + insertedLength;
        } else {
          // Inside or cutting into its end.
          r.end = delEnd >= r.end ? offset + insertedLength : r.end + delta;
        }
      }
    }
    // The anchor moves with the text before it; text typed exactly at it goes before it.
    if (offset <= this.anchorOffset) {
      if (delEnd <= this.anchorOffset) this.anchorOffset += delta;
      else this.anchorOffset = offset + insertedLength;
    }
  }

  private applyOwn(edit: OwnEdit): void {
    const effect = edit.effect;
    if (effect.kind === 'insert') {
      const c = edit.changes[0];
      if (edit.changes.length !== 1 || !c || c.deletedLength !== 0) {
        throw new Error('an own insert is one change that deletes nothing');
      }
      const anchorBefore = this.anchorOffset;
      // Other chunks shift as for any insertion (chunks starting at the offset follow the new text).
      for (const r of this.ranges.values()) {
        if (r.start >= c.offset) {
          r.start += c.insertedLength;
          r.end += c.insertedLength;
        }
      }
      // Our text at the anchor is the run's first text: the anchor stays before it.
      if (c.offset < anchorBefore) this.anchorOffset += c.insertedLength;
      this.ranges.set(effect.id, { id: effect.id, start: effect.offset, end: effect.offset + effect.length, edited: false });
      return;
    }
    if (effect.kind === 'edit') {
      for (const c of edit.changes) this.shiftOnly(c, true);
      return;
    }
    // Replace: the removed chunks are forgotten first so their own rewrite does not mark them edited.
    const removed = new Set(effect.removeIds);
    for (const id of removed) this.ranges.delete(id);
    for (const c of edit.changes) this.shiftOnly(c, false);
    this.ranges.set(effect.id, { id: effect.id, start: effect.offset, end: effect.offset + effect.length, edited: false });
  }

  /**
   * Moves the ranges and the anchor for one of our changes without marking anything edited. A range
   * the change falls inside grows or shrinks with it when `inside` (the new text is part of it);
   * otherwise the new text belongs to the chunk the change writes, and a range the change overlaps
   * keeps only its text outside the change.
   */
  private shiftOnly(change: TextChange, inside: boolean): void {
    const { offset, deletedLength, insertedLength } = change;
    const delEnd = offset + deletedLength;
    const delta = insertedLength - deletedLength;
    for (const r of this.ranges.values()) {
      if (r.start >= delEnd) {
        r.start += delta;
        r.end += delta;
      } else if (r.end > offset) {
        if (inside && r.start <= offset && r.end >= delEnd) {
          r.end += delta;
          continue;
        }
        const end = r.end > delEnd ? r.end + delta : r.start < offset ? offset : offset + insertedLength;
        r.start = r.start < offset ? r.start : offset + insertedLength;
        r.end = Math.max(r.start, end);
      }
    }
    if (delEnd <= this.anchorOffset && !(deletedLength === 0 && offset === this.anchorOffset)) this.anchorOffset += delta;
    else if (offset < this.anchorOffset) this.anchorOffset = offset;
  }
}

function checkChange(c: TextChange): void {
  if (!Number.isInteger(c.offset) || c.offset < 0) throw new RangeError(`change offset must be a non-negative integer, got ${c.offset}`);
  if (!Number.isInteger(c.deletedLength) || c.deletedLength < 0)
    throw new RangeError(`deletedLength must be a non-negative integer, got ${c.deletedLength}`);
  if (!Number.isInteger(c.insertedLength) || c.insertedLength < 0)
    throw new RangeError(`insertedLength must be a non-negative integer, got ${c.insertedLength}`);
}

function sameChanges(a: readonly TextChange[], b: readonly TextChange[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.offset !== y.offset || x.deletedLength !== y.deletedLength || x.insertedLength !== y.insertedLength) return false;
    if (x.text !== undefined && y.text !== undefined && x.text !== y.text) return false;
  }
  return true;
}
