/**
 * The port between the writers of this folder and the editor: what they need of the document a run
 * writes to, in offsets. vscodeDocument.ts implements it over VS Code; test/helpers/memoryDocument.ts in
 * memory, for plain-Node tests. Nothing in this folder but the adapters imports `vscode` (lint-enforced).
 */
import { TypedEmitter, type Disposable } from '../../shared/events';
import type { TextChange } from '../../client/ranges';

export type { Disposable } from '../../shared/events';

/** Subscribes a listener; dispose the result to remove it (VS Code's `Event` shape). */
export type Event<T> = (listener: (value: T) => void) => Disposable;

/** `[start, end)` of the document (offsets before the edit) replaced by `text`. */
export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

/** Where the editor's undo steps go: a new step before the edit, and whether the step is closed after it. */
export interface UndoStops {
  before: boolean;
  after: boolean;
}

/** A range of the document, in offsets. */
export interface OffsetRange {
  start: number;
  end: number;
}

export interface DocumentPort {
  /** The document's text between two offsets (clamped to it), or all of it. */
  text(start?: number, end?: number): string;
  /** The document's line break. */
  readonly eol: '\n' | '\r\n';
  /**
   * Applies `edits` (non-overlapping, offsets of the text as `text()` gives it now) as one edit, with
   * those undo stops. Resolves false when the editor refused it: the document changed in between (a
   * person typed), or it is closed. Reported to `onDidChange` like any change, before it resolves.
   */
  apply(edits: readonly TextEdit[], undo: UndoStops): Promise<boolean>;
  /** The editor's undo in this document (one undo step). False when no editor shows it. */
  undo(): Promise<boolean>;
  /** The selection of the editor showing the document (the active one first); undefined when none shows it. */
  selection(): OffsetRange | undefined;
  /** Sets that selection, and scrolls it into view when `reveal`; nothing when no editor shows the document. */
  setSelection(range: OffsetRange, reveal: boolean): void;
  /** Every change of the document (ours and everyone else's), as its content changes in the editor's order. */
  readonly onDidChange: Event<readonly TextChange[]>;
  /** Fires once when the document is closed for good. */
  readonly onDidClose: Event<void>;
  /** Shows the provisional text (what the service is still unsure of) at `offset`, not as text of the document. */
  showProvisional(offset: number, text: string): void;
  /** Hides the provisional text. */
  clearProvisional(): void;
}

/** One event of the port's shape, with the semantics of VS Code's EventEmitter (a throwing listener breaks nothing). */
export class Emitter<T> implements Disposable {
  private readonly emitter = new TypedEmitter<{ event: T }>();
  readonly event: Event<T> = (listener) => this.emitter.on('event', listener);

  fire(value: T): void {
    this.emitter.emit('event', value);
  }

  dispose(): void {
    this.emitter.removeAllListeners();
  }
}
