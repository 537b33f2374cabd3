/** What the document writer (documentWriter.ts) asks of the way committed chunks become text. */
import type { TranscriptOp } from '../../client/transcript';
import type { Disposable, UndoStops } from './documentPort';
import type { TrackedDocument } from './trackedDocument';

export interface WriterStats {
  commits: number;
  replaces: number;
  conflicts: number;
  failed: number;
}

/** The dictation grammar's insertion point in the run's range tracker (dictatedChunks.ts). */
export const CURSOR_ID = '\u0000cursor';

export type InsertOp = Extract<TranscriptOp, { kind: 'insert' }>;
export type ReplaceOp = Extract<TranscriptOp, { kind: 'replace' }>;

/** Writes a run's committed chunks into its document: as the service sent them, or through the dictation grammar. */
export interface ChunkWriter extends Disposable {
  insert(op: InsertOp): Promise<void>;
  /** Whether the document now holds the rewrite (false: its text was left as it was, and the log says why). */
  replace(op: ReplaceOp): Promise<boolean>;
  /** The provisional text (the service is still unsure of it), after committed chunk `afterId`. */
  provisional(text: string, afterId: string | null): void;
  /** Shows the provisional text again (someone changed the document). */
  renderProvisional(): void;
  /** The end of the run: anything held back is written. */
  finish(): Promise<void>;
}

/** Where the grammar's insertion point is: at a point, over the user's selection, or over a template field. */
export type CursorKind = 'point' | 'selection' | 'field';

/** What the commands said alone (dictationActions.ts) need of the dictated chunks (dictatedChunks.ts). */
export interface DictationCursor {
  readonly target: TrackedDocument;
  cursor(): { start: number; end: number };
  setCursor(start: number, end: number, kind: CursorKind): void;
  /** Undo stops around the edit of these chunks. */
  stops(...ids: string[]): UndoStops;
  /** Chunk `id` was written: the next one follows it. */
  opened(id: string): void;
  renderProvisional(): void;
}
