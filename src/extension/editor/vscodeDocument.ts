/**
 * The editor's port (documentPort.ts) over VS Code: one document, by its URI, for one run. Edits go
 * through a visible editor of it (as undo steps of that editor) or, when none shows it, as a workspace
 * edit; changes are read from `onDidChangeTextDocument`; a close that is followed by a reopen within
 * `REOPEN_GRACE_MS` (a language change) is not the end of it. The provisional text is shown by the
 * run's ProvisionalDecoration.
 */
import * as vscode from 'vscode';
import type { TextChange } from '../../client/ranges';
import { errorMessage } from '../../shared/errors';
import type { Logger } from '../../shared/logger';
import { Emitter, type DocumentPort, type OffsetRange, type TextEdit, type UndoStops } from './documentPort';
import type { ProvisionalDecoration } from './provisionalDecoration';

/** How long a closed document may take to reappear (a language change closes and reopens it). */
export const REOPEN_GRACE_MS = 300;

/** The content changes of an editor event as the RangeTracker reads them, in the editor's order. */
export function textChanges(e: vscode.TextDocumentChangeEvent): TextChange[] {
  return e.contentChanges.map((c) => ({
    offset: c.rangeOffset,
    deletedLength: c.rangeLength,
    insertedLength: c.text.length,
    text: c.text,
  }));
}

export class VscodeDocument implements DocumentPort, vscode.Disposable {
  private readonly uri: string;
  private docValue: vscode.TextDocument;
  private readonly changeEmitter = new Emitter<readonly TextChange[]>();
  private readonly closeEmitter = new Emitter<void>();
  readonly onDidChange = this.changeEmitter.event;
  readonly onDidClose = this.closeEmitter.event;
  private readonly listeners: vscode.Disposable[];
  private closed = false;
  private disposed = false;

  constructor(
    doc: vscode.TextDocument,
    private readonly decoration: ProvisionalDecoration,
    private readonly log: Logger,
  ) {
    this.docValue = doc;
    this.uri = doc.uri.toString();
    this.listeners = [
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document.uri.toString() !== this.uri || e.contentChanges.length === 0) return;
        this.docValue = e.document;
        this.changeEmitter.fire(textChanges(e));
      }),
      vscode.workspace.onDidCloseTextDocument((d) => {
        if (d.uri.toString() !== this.uri || this.closed) return;
        // Changing a document's language closes and reopens it at once: that is not the end of it.
        setTimeout(() => {
          if (this.closed || this.disposed) return;
          const again = vscode.workspace.textDocuments.find((t) => t.uri.toString() === this.uri && !t.isClosed);
          if (again) {
            this.log.info(`the target document was reopened (language ${again.languageId}); dictation goes on`);
            this.docValue = again;
            return;
          }
          this.closed = true;
          this.log.warn('the target document was closed during dictation');
          this.closeEmitter.fire();
        }, REOPEN_GRACE_MS);
      }),
    ];
  }

  /** The document (the same URI for the whole run). */
  get doc(): vscode.TextDocument {
    return this.docValue;
  }

  text(start?: number, end?: number): string {
    const d = this.docValue;
    if (start === undefined && end === undefined) return d.getText();
    return d.getText(new vscode.Range(d.positionAt(Math.max(0, start ?? 0)), d.positionAt(Math.max(0, end ?? d.getText().length))));
  }

  get eol(): '\n' | '\r\n' {
    return this.docValue.eol === vscode.EndOfLine.CRLF ? '\r\n' : '\n';
  }

  /** A visible editor showing the document, if any (the active one first). */
  private editor(): vscode.TextEditor | undefined {
    const active = vscode.window.activeTextEditor;
    if (active && active.document.uri.toString() === this.uri) return active;
    return vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === this.uri);
  }

  async apply(edits: readonly TextEdit[], undo: UndoStops): Promise<boolean> {
    const d = this.docValue;
    const ranges = edits.map((e) => new vscode.Range(d.positionAt(e.start), d.positionAt(e.end)));
    try {
      const editor = this.editor();
      if (editor) {
        return await editor.edit(
          (b) => edits.forEach((e, i) => (e.end === e.start ? b.insert(ranges[i]!.start, e.text) : b.replace(ranges[i]!, e.text))),
          {
            undoStopBefore: undo.before,
            undoStopAfter: undo.after,
          },
        );
      }
      const we = new vscode.WorkspaceEdit();
      edits.forEach((e, i) => we.replace(d.uri, ranges[i]!, e.text));
      return await vscode.workspace.applyEdit(we);
    } catch (e) {
      this.log.debug(`edit refused: ${errorMessage(e)}`);
      return false;
    }
  }

  /** The editor's undo, in this document (shown and focused first, so that it is the one undone). */
  async undo(): Promise<boolean> {
    const editor = this.editor();
    if (!editor) return false;
    await vscode.window.showTextDocument(editor.document, { viewColumn: editor.viewColumn, preserveFocus: false });
    await vscode.commands.executeCommand('undo');
    return true;
  }

  selection(): OffsetRange | undefined {
    const editor = this.editor();
    if (!editor) return undefined;
    const d = this.docValue;
    return { start: d.offsetAt(editor.selection.start), end: d.offsetAt(editor.selection.end) };
  }

  setSelection(range: OffsetRange, reveal: boolean): void {
    const editor = this.editor();
    if (!editor) return;
    const d = this.docValue;
    editor.selection = new vscode.Selection(d.positionAt(range.start), d.positionAt(range.end));
    if (reveal) editor.revealRange(editor.selection, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }

  showProvisional(offset: number, text: string): void {
    this.decoration.show(this.docValue, offset, text);
  }

  clearProvisional(): void {
    this.decoration.clear();
  }

  dispose(): void {
    this.disposed = true;
    for (const l of this.listeners) l.dispose();
    this.changeEmitter.dispose();
    this.closeEmitter.dispose();
  }
}
