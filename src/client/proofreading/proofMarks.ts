/**
 * The proofreading state of one document: where each dictated chunk stands (with its words and the
 * engine's alternatives), and the doubtful words marked in it. Every change of the document is fed in,
 * in the editor's order; marks and chunks move with the text around them (RangeTracker), and a mark
 * whose text someone changed is gone: that word was reviewed. A mark the user accepts is gone too, and
 * stays gone when its chunk is placed again (words held back and written later). Pure: no `vscode`.
 */
import { RangeTracker, type TextChange } from '../ranges';
import { doubtfulSpans, placeWords, type WordInfo } from './wordMap';

/** A doubtful word (or the text several doubtful words were written as) in the document. */
export interface DoubtfulMark {
  readonly id: string;
  readonly start: number;
  readonly end: number;
  readonly confidence: number;
  readonly chunkId: string;
}

/** What the service said of a chunk beyond its text. */
interface ChunkDetails {
  words: readonly WordInfo[];
  /** Other readings of the whole chunk, best first. */
  alternatives: readonly string[];
  /** Where the chunk's audio is (Play Back): the run, its service session, the chunk's span in it. */
  audio?: ChunkAudio;
}

interface ChunkAudio {
  run: number;
  generation: number;
  startMs: number;
  endMs: number;
}

/** A dictated chunk where it stands now. */
export interface PlacedChunk extends ChunkDetails {
  readonly id: string;
  readonly start: number;
  readonly end: number;
  /** Someone changed its text since it was written. */
  readonly edited: boolean;
}

export class ProofMarks {
  private readonly marks = new RangeTracker(0);
  private readonly markInfo = new Map<string, { confidence: number; chunkId: string }>();
  private readonly chunks = new RangeTracker(0);
  private readonly chunkInfo = new Map<string, ChunkDetails>();
  /** Marks the user accepted (or changed): never marked again. */
  private readonly reviewed = new Set<string>();
  private lastId: string | undefined;

  constructor(private threshold: number) {}

  /** Marks words under `threshold` from now on (0: none); the marks shown stay as they are. */
  setThreshold(threshold: number): void {
    this.threshold = threshold;
  }

  get count(): number {
    return this.marks.size;
  }

  /**
   * Chunk `id` is written as `written`, at `[start, end)` of the document now. Returns false (and
   * changes nothing) when that is exactly where another chunk stands: the chunk wrote nothing of its
   * own (a command), and the range is its predecessor's.
   */
  place(id: string, start: number, end: number, written: string, details: ChunkDetails): boolean {
    for (const c of this.chunks.all()) {
      if (c.id !== id && c.start === start && c.end === end) return false;
    }
    this.removeMarksOf(id);
    this.chunks.track(id, start, end - start);
    this.chunkInfo.set(id, {
      words: details.words,
      alternatives: details.alternatives,
      ...(details.audio ? { audio: details.audio } : {}),
    });
    this.lastId = id;
    for (const span of doubtfulSpans(placeWords(written, details.words), this.threshold)) {
      const markId = `${id}#${span.words.join(',')}`;
      if (this.reviewed.has(markId)) continue;
      this.marks.track(markId, start + span.start, span.end - span.start);
      this.markInfo.set(markId, { confidence: span.confidence, chunkId: id });
    }
    return true;
  }

  /**
   * The last range written is `[start, end)`: when a placed chunk starts there and ends elsewhere, it
   * grew (the words the grammar held back were written): it is placed again with `written`, its text now.
   */
  grew(start: number, end: number, written: () => string): boolean {
    const c = this.chunks.all().find((r) => r.start === start && r.end !== end && !r.edited);
    const details = c && this.chunkInfo.get(c.id);
    if (!c || !details) return false;
    return this.place(c.id, start, end, written(), details);
  }

  /**
   * Where the text of chunks `ids` stands now, from the first one's start to the last one's end; undefined
   * when none is placed. Once the writer has rewritten them, that is where their rewrite is: the edit
   * that replaced their text swallowed their ranges, which now cover what replaced it.
   */
  spanOf(ids: readonly string[]): { start: number; end: number } | undefined {
    const rs = ids.map((id) => this.chunks.get(id)).filter((r) => r !== undefined);
    if (rs.length === 0) return undefined;
    return { start: Math.min(...rs.map((r) => r.start)), end: Math.max(...rs.map((r) => r.end)) };
  }

  /** The chunks `ids` were replaced (their text is gone): they are forgotten. */
  forget(ids: readonly string[]): void {
    for (const id of ids) {
      this.removeMarksOf(id);
      this.chunks.untrack(id);
      this.chunkInfo.delete(id);
      if (this.lastId === id) this.lastId = undefined;
    }
  }

  /** The content changes of one editor event, in its order. Returns whether a mark is gone. */
  changed(changes: readonly TextChange[]): boolean {
    this.chunks.applyChanges(changes);
    this.marks.applyChanges(changes);
    let gone = false;
    for (const m of this.marks.all()) {
      if (m.edited || m.end <= m.start) {
        this.reviewed.add(m.id);
        this.drop(m.id);
        gone = true;
      }
    }
    return gone;
  }

  /** The user accepts the mark `id` as it is. */
  accept(id: string): boolean {
    if (!this.marks.has(id)) return false;
    this.reviewed.add(id);
    this.drop(id);
    return true;
  }

  /** The marks, in document order. */
  list(): DoubtfulMark[] {
    return this.marks.all().map((r) => ({ id: r.id, start: r.start, end: r.end, ...this.markInfo.get(r.id)! }));
  }

  /** The mark that touches `[start, end)` (a cursor inside or at either end of it), if any. */
  at(start: number, end = start): DoubtfulMark | undefined {
    return this.list().find((m) => m.start <= end && m.end >= start);
  }

  /** The first mark that starts after `offset`, or the first of all (wrapping round). */
  next(offset: number): DoubtfulMark | undefined {
    const all = this.list();
    return all.find((m) => m.start > offset) ?? all[0];
  }

  /** The last mark that starts before `offset`, or the last of all (wrapping round). */
  previous(offset: number): DoubtfulMark | undefined {
    const all = this.list();
    return [...all].reverse().find((m) => m.start < offset) ?? all[all.length - 1];
  }

  /** A chunk by id, where it stands now. */
  chunk(id: string): PlacedChunk | undefined {
    const r = this.chunks.get(id);
    const d = this.chunkInfo.get(id);
    return r && d
      ? {
          words: d.words,
          alternatives: d.alternatives,
          ...(d.audio ? { audio: d.audio } : {}),
          id,
          start: r.start,
          end: r.end,
          edited: r.edited,
        }
      : undefined;
  }

  /** The chunks that `[start, end)` touches, in document order. */
  chunksIn(start: number, end: number): PlacedChunk[] {
    return this.chunks
      .all()
      .filter((c) => c.end > c.start && c.start < end && c.end > start)
      .map((c) => this.chunk(c.id))
      .filter((c): c is PlacedChunk => c !== undefined);
  }

  /** The chunk that holds `[start, end)` (or the one the cursor is in), if any. */
  chunkAt(start: number, end = start): PlacedChunk | undefined {
    const r = this.chunks.all().find((c) => c.start <= start && c.end >= end && c.end > c.start);
    return r && this.chunk(r.id);
  }

  /** Where the dictated chunks stand, in document order. */
  dictated(): Array<{ start: number; end: number }> {
    return this.chunks.all().map((r) => ({ start: r.start, end: r.end }));
  }

  /** The last chunk placed (the last utterance), if it is still there. */
  lastChunk(): PlacedChunk | undefined {
    const c = this.lastId === undefined ? undefined : this.chunk(this.lastId);
    return c && c.end > c.start ? c : undefined;
  }

  private removeMarksOf(chunkId: string): void {
    for (const [id, info] of this.markInfo) if (info.chunkId === chunkId) this.drop(id);
  }

  private drop(id: string): void {
    this.marks.untrack(id);
    this.markInfo.delete(id);
  }
}
