/**
 * The editor's port (src/extension/editor/documentPort.ts) in memory, for the writers in plain Node. It
 * models what the writers meet in VS Code:
 *
 * - two sides: the editor, where a person's edits take effect at once, and the extension host, which
 *   sees each change later (one turn of the event loop), in order, as VS Code's `onDidChangeTextDocument`;
 * - an edit of ours is planned against the host's text and reaches the editor a turn later: the editor
 *   refuses it (`apply` resolves false) when the document changed in between, as `TextEditor.edit` does
 *   when the document's version moved; otherwise it applies all its changes at once, and reports them
 *   (descending offsets, as VS Code) before `apply` resolves;
 * - undo steps: `undo.before` opens a new step, `undo.after` closes it, a person's edit is a step of its
 *   own; `undo()` takes back the last step, reported as a change that is not ours;
 * - the selection of the editor showing the document (none when `shown` is false), which moves with the
 *   text; the provisional text shown (`provisional`);
 * - who wrote each character (`authors()`): an edit of ours that removes a person's character is
 *   recorded in `clobbered`.
 */
import type { TextChange } from '../../src/client/ranges';
import { Emitter, type DocumentPort, type OffsetRange, type TextEdit, type UndoStops } from '../../src/extension/editor/documentPort';

interface Step {
  /** Each edit of the step, as applied, and the edits that take it back (offsets after it). */
  edits: Array<{ inverse: TextEdit[] }>;
}

export interface MemoryDocumentOptions {
  eol?: '\n' | '\r\n';
  /** Whether an editor shows the document (selection, undo). Default true. */
  shown?: boolean;
  /** The editor's selection at the start; default a caret at the end. */
  selection?: OffsetRange;
}

function setImmediatePromise(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export class MemoryDocument implements DocumentPort {
  /** The document as the editor has it: what a person sees. */
  private editorText: string;
  private editorVersion = 0;
  /** The document as the writers see it. */
  private hostText: string;
  private hostVersion = 0;
  private readonly inbox: Array<{ changes: TextChange[]; text: string; version: number }> = [];
  private draining = false;
  private readonly delivered: Array<{ version: number; resolve: () => void }> = [];
  private readonly steps: Step[] = [];
  /** Whether the last step is open (the next edit without `undo.before` joins it). */
  private stepOpen = false;
  private sel: OffsetRange | undefined;
  private readonly changeEmitter = new Emitter<readonly TextChange[]>();
  private readonly closeEmitter = new Emitter<void>();
  private closedFlag = false;
  readonly onDidChange = this.changeEmitter.event;
  readonly onDidClose = this.closeEmitter.event;
  readonly eol: '\n' | '\r\n';
  /** The provisional text shown, or null. */
  provisional: { offset: number; text: string } | null = null;
  /** Edits of ours the editor applied, and those it refused (the document had changed). */
  readonly applied: Array<{ edits: TextEdit[]; undo: UndoStops }> = [];
  refused = 0;
  /** Edits that VS Code would have thrown on (outside the document, overlapping): a writer's bug. */
  readonly invalid: string[] = [];
  /** Edits of ours that removed a person's characters (what they removed). */
  readonly clobbered: string[] = [];
  /** Per character: the number of the person's character, or null for text of ours. */
  private cells: Array<number | null>;
  private nextCell = 0;

  constructor(text = '', options: MemoryDocumentOptions = {}) {
    this.editorText = text;
    this.hostText = text;
    this.cells = Array.from({ length: text.length }, () => this.nextCell++);
    this.eol = options.eol ?? '\n';
    this.sel = options.shown === false ? undefined : (options.selection ?? { start: text.length, end: text.length });
  }

  /** The text as the editor has it now (what the person sees and what is saved). */
  get value(): string {
    return this.editorText;
  }

  /** Who wrote each character: the number of the person's character (in typing order), or null for text of ours. */
  authors(): ReadonlyArray<number | null> {
    return this.cells;
  }

  text(start?: number, end?: number): string {
    const t = this.hostText;
    return t.slice(Math.min(Math.max(0, start ?? 0), t.length), Math.min(Math.max(0, end ?? t.length), t.length));
  }

  async apply(edits: readonly TextEdit[], undo: UndoStops): Promise<boolean> {
    const planned = this.hostVersion;
    const copy = edits.map((e) => ({ ...e }));
    // The edit travels to the editor.
    await setImmediatePromise();
    if (this.closedFlag || this.editorVersion !== planned) {
      this.refused++;
      return false;
    }
    const problem = this.problem(copy);
    if (problem) {
      this.invalid.push(problem);
      return false;
    }
    this.applied.push({ edits: copy, undo: { ...undo } });
    if (undo.before || !this.stepOpen || this.steps.length === 0) this.steps.push({ edits: [] });
    this.steps[this.steps.length - 1]!.edits.push({ inverse: this.change(copy, 'ours') });
    this.stepOpen = !undo.after;
    await this.reported();
    return true;
  }

  async undo(): Promise<boolean> {
    if (!this.sel) return false;
    this.undoStep();
    await this.reported();
    return true;
  }

  selection(): OffsetRange | undefined {
    return this.sel ? { ...this.sel } : undefined;
  }

  setSelection(range: OffsetRange): void {
    if (this.sel) this.sel = { ...range };
  }

  showProvisional(offset: number, text: string): void {
    this.provisional = { offset, text };
  }

  clearProvisional(): void {
    this.provisional = null;
  }

  // ------------------------------------------------------------------ what a person does

  /** A person replaces `[start, end)` by `text` in the editor (a step of its own); the caret ends after it. */
  type(start: number, end: number, text: string): void {
    this.stepOpen = false;
    this.steps.push({ edits: [{ inverse: this.change([{ start, end, text }], 'typed') }] });
    if (this.sel) this.sel = { start: start + text.length, end: start + text.length };
  }

  /** A person presses Ctrl+Z. */
  pressUndo(): void {
    this.undoStep();
  }

  /** The document is closed. */
  close(): void {
    this.closedFlag = true;
    this.closeEmitter.fire();
  }

  /** Resolves when the extension host has seen every change made so far. */
  settled(): Promise<void> {
    return this.reported();
  }

  // ------------------------------------------------------------------ the model

  private problem(edits: TextEdit[]): string | null {
    const sorted = [...edits].sort((a, b) => a.start - b.start);
    for (const [i, e] of sorted.entries()) {
      if (!(Number.isInteger(e.start) && Number.isInteger(e.end) && e.start >= 0 && e.start <= e.end && e.end <= this.editorText.length)) {
        return `edit [${e.start}, ${e.end}) outside the document of ${this.editorText.length}`;
      }
      if (i > 0 && sorted[i - 1]!.end > e.start) return `overlapping edits at ${e.start}`;
    }
    return null;
  }

  /**
   * Applies edits in the editor (ours, typed by the person, or an undo, whose text counts as the
   * person's), queues their report to the host; returns the edits that take them back.
   */
  private change(edits: TextEdit[], source: 'ours' | 'typed' | 'undo'): TextEdit[] {
    const desc = [...edits].sort((a, b) => b.start - a.start);
    const changes: TextChange[] = [];
    const removed = new Map<TextEdit, string>();
    for (const e of desc) {
      removed.set(e, this.editorText.slice(e.start, e.end));
      const gone = this.cells.splice(
        e.start,
        e.end - e.start,
        ...Array.from({ length: e.text.length }, () => (source === 'ours' ? null : this.nextCell++)),
      );
      if (source === 'ours' && gone.some((c) => c !== null)) this.clobbered.push(removed.get(e)!);
      this.editorText = this.editorText.slice(0, e.start) + e.text + this.editorText.slice(e.end);
      changes.push({ offset: e.start, deletedLength: e.end - e.start, insertedLength: e.text.length, text: e.text });
      if (this.sel && source !== 'typed')
        this.sel = { start: moved(this.sel.start, e, this.sel.start === this.sel.end), end: moved(this.sel.end, e, true) };
    }
    // The edits that take it back, in offsets after the whole edit: each moves by what the edits before it added.
    let shift = 0;
    const inverse: TextEdit[] = [];
    for (const e of [...desc].reverse()) {
      const start = e.start + shift;
      inverse.push({ start, end: start + e.text.length, text: removed.get(e)! });
      shift += e.text.length - (e.end - e.start);
    }
    this.editorVersion++;
    this.inbox.push({ changes, text: this.editorText, version: this.editorVersion });
    this.drain();
    return inverse;
  }

  private undoStep(): void {
    const step = this.steps.pop();
    this.stepOpen = false;
    if (!step) return;
    for (const e of [...step.edits].reverse()) this.change(e.inverse, 'undo');
  }

  private drain(): void {
    if (this.draining) return;
    this.draining = true;
    setImmediate(() => {
      this.draining = false;
      for (const item of this.inbox.splice(0)) {
        this.hostText = item.text;
        this.hostVersion = item.version;
        this.changeEmitter.fire(item.changes);
      }
      for (const w of this.delivered.splice(0)) {
        if (w.version <= this.hostVersion) w.resolve();
        else this.delivered.push(w);
      }
    });
  }

  private reported(): Promise<void> {
    if (this.hostVersion === this.editorVersion) return Promise.resolve();
    return new Promise((resolve) => this.delivered.push({ version: this.editorVersion, resolve }));
  }
}

/** Where a position goes when `[e.start, e.end)` becomes `e.text`: a position inside it goes to its start, or past it when `after`. */
function moved(p: number, e: TextEdit, after: boolean): number {
  if (p < e.start) return p;
  if (p > e.end) return p + e.text.length - (e.end - e.start);
  return after ? e.start + e.text.length : e.start;
}
