/**
 * The document a run writes to, and the ranges of what the run wrote in it. Every change the editor
 * reports is fed to the RangeTracker (client/ranges.ts); the run's own edits are announced to it, applied
 * to the document (through a visible editor, as undo steps of that editor, or as a workspace edit) and
 * settled against what the editor reports. Fires when anyone else changes the document, and once when
 * it is closed for good.
 */
import * as vscode from 'vscode';
import { type OwnEdit, type OwnEffect, RangeTracker, type TextChange } from '../../client/ranges';
import { errorMessage } from '../../shared/errors';
import type { Logger } from '../../shared/logger';

const SETTLE_TIMEOUT_MS = 2000;
/** How long a closed target may take to reappear (a language change closes and reopens it). */
export const REOPEN_GRACE_MS = 300;
const MAX_ATTEMPTS = 5;
/** Pause before retrying an edit the editor refused because the document changed meanwhile. */
const RETRY_PAUSE_MS = 15;

/** One change of an edit of ours: `deletedLength` characters at `offset` (before the edit) replaced by `text`. */
export interface PlannedChange {
  offset: number;
  deletedLength: number;
  text: string;
}

/** An edit of ours, planned against the document as it is now. */
export interface PlannedEdit {
  /** In descending offset order when there are several (as the editor reports them). */
  changes: PlannedChange[];
  effect: OwnEffect;
}

/** Where the editor's undo steps go: a new step before the edit, and whether the step is closed after it. */
export interface UndoStops {
  before: boolean;
  after: boolean;
}

/** The content changes of an editor event as the RangeTracker reads them, in the editor's order. */
export function textChanges(e: vscode.TextDocumentChangeEvent): TextChange[] {
  return e.contentChanges.map((c) => ({ offset: c.rangeOffset, deletedLength: c.rangeLength, insertedLength: c.text.length, text: c.text }));
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class TrackedDocument implements vscode.Disposable {
  readonly tracker: RangeTracker;
  private readonly uri: string;
  private docValue: vscode.TextDocument;
  private readonly listeners: vscode.Disposable[] = [];
  private readonly waiters = new Map<OwnEdit, () => void>();
  private readonly userEditEmitter = new vscode.EventEmitter<void>();
  private readonly closeEmitter = new vscode.EventEmitter<void>();
  /** Someone else (a person, another extension, undo) changed the document. */
  readonly onDidUserEdit = this.userEditEmitter.event;
  /** Fires once when the document is closed: the run must stop, its text goes elsewhere. */
  readonly onDidClose = this.closeEmitter.event;
  private closedFlag = false;
  private disposed = false;

  constructor(
    doc: vscode.TextDocument,
    anchor: number,
    private readonly log: Logger,
  ) {
    this.docValue = doc;
    this.uri = doc.uri.toString();
    this.tracker = new RangeTracker(anchor);
    this.listeners.push(
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document.uri.toString() !== this.uri || e.contentChanges.length === 0) return;
        this.docValue = e.document;
        const origin = this.tracker.applyChanges(textChanges(e));
        for (const [edit, resolve] of this.waiters) {
          if (this.tracker.isSettled(edit)) resolve();
        }
        if (origin === 'user') this.userEditEmitter.fire();
      }),
      vscode.workspace.onDidCloseTextDocument((d) => {
        if (d.uri.toString() !== this.uri || this.closedFlag) return;
        // Changing a document's language closes and reopens it at once: that is not the end of it.
        setTimeout(() => {
          if (this.closedFlag || this.disposed) return;
          const again = vscode.workspace.textDocuments.find((t) => t.uri.toString() === this.uri && !t.isClosed);
          if (again) {
            this.log.info(`the target document was reopened (language ${again.languageId}); dictation goes on`);
            this.docValue = again;
            return;
          }
          this.closedFlag = true;
          this.log.warn('the target document was closed during dictation');
          this.closeEmitter.fire();
        }, REOPEN_GRACE_MS);
      }),
    );
  }

  /** The document (the same URI for the whole run). */
  get doc(): vscode.TextDocument {
    return this.docValue;
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  /** Whether edits can still be made (not closed, not disposed). */
  get usable(): boolean {
    return !this.closedFlag && !this.disposed;
  }

  /** The document's text between two offsets. */
  text(start: number, end: number): string {
    const d = this.doc;
    return d.getText(new vscode.Range(d.positionAt(Math.max(0, start)), d.positionAt(Math.max(0, end))));
  }

  /** The document's line break. */
  get eol(): string {
    return this.doc.eol === vscode.EndOfLine.CRLF ? '\r\n' : '\n';
  }

  /** A visible editor showing the document, if any (the active one first). */
  editor(): vscode.TextEditor | undefined {
    const active = vscode.window.activeTextEditor;
    if (active && active.document.uri.toString() === this.uri) return active;
    return vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === this.uri);
  }

  /** Whether `uri` is this document. */
  is(uri: vscode.Uri): boolean {
    return uri.toString() === this.uri;
  }

  /**
   * Applies one edit of ours, planned afresh at each attempt (`plan` returns null when there is nothing
   * left to do), retrying when the editor refused it because the document changed in between. Resolves
   * whether it was applied.
   */
  async applyWithRetry(plan: () => PlannedEdit | null, stops: UndoStops, what: string): Promise<boolean> {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      if (!this.usable) return false;
      const p = plan();
      if (!p) return true;
      if (await this.apply(p, stops)) return true;
      this.log.debug(`${what}: the document changed meanwhile (attempt ${attempt}); retrying`);
      await pause(RETRY_PAUSE_MS * attempt);
    }
    return false;
  }

  /**
   * Applies one edit of ours, announced to the tracker so that it is not taken for a user edit.
   * Resolves false when the editor refused it (the document changed in between): the caller recomputes
   * and retries.
   */
  async apply(planned: PlannedEdit, stops: UndoStops): Promise<boolean> {
    const own: OwnEdit = {
      changes: planned.changes.map((c) => ({ offset: c.offset, deletedLength: c.deletedLength, insertedLength: c.text.length, text: c.text })),
      effect: planned.effect,
    };
    const d = this.doc;
    const ranges = planned.changes.map((c) => new vscode.Range(d.positionAt(c.offset), d.positionAt(c.offset + c.deletedLength)));
    this.tracker.expect(own);
    let ok = false;
    try {
      const editor = this.editor();
      if (editor) {
        ok = await editor.edit(
          (b) => planned.changes.forEach((c, i) => (c.deletedLength === 0 ? b.insert(ranges[i]!.start, c.text) : b.replace(ranges[i]!, c.text))),
          { undoStopBefore: stops.before, undoStopAfter: stops.after },
        );
      } else {
        const we = new vscode.WorkspaceEdit();
        planned.changes.forEach((c, i) => we.replace(d.uri, ranges[i]!, c.text));
        ok = await vscode.workspace.applyEdit(we);
      }
    } catch (e) {
      this.log.debug(`edit refused: ${errorMessage(e)}`);
      ok = false;
    }
    if (!ok) {
      this.tracker.withdraw(own);
      return false;
    }
    if (!this.tracker.isSettled(own)) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, SETTLE_TIMEOUT_MS);
        function done(): void {
          clearTimeout(timer);
          resolve();
        }
        this.waiters.set(own, done);
      });
      this.waiters.delete(own);
    }
    if (!this.tracker.isSettled(own)) {
      // The editor applied it but reported something else: read the truth from the document.
      this.tracker.withdraw(own);
      const effect = planned.effect;
      this.log.warn(`an edit of ours was reported differently by the editor; chunk ${effect.id} is located from the document text`);
      if (effect.kind !== 'edit') {
        const text = planned.changes[planned.changes.length - 1]!.text;
        const found = d.getText().indexOf(text, Math.max(0, effect.offset - 2));
        if (found >= 0) {
          for (const id of effect.kind === 'replace' ? effect.removeIds : []) this.tracker.untrack(id);
          this.tracker.track(effect.id, found, text.length);
        }
      }
    }
    return true;
  }

  dispose(): void {
    this.disposed = true;
    for (const l of this.listeners) l.dispose();
    for (const resolve of this.waiters.values()) resolve();
    this.userEditEmitter.dispose();
    this.closeEmitter.dispose();
  }
}
