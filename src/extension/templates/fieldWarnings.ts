/**
 * Template fields left in a report: saving it (the user's own save, not Auto Save), or stopping
 * dictation in it, with `{{…}}` fields left says so in a warning that does not block (with "Next
 * Field" to go to the first one). Only documents Dictée wrote into (a run, a template) are watched:
 * `{{…}}` means something else in other files.
 */
import * as vscode from 'vscode';
import { fieldsLeft } from '../../dictation';

export class FieldWarnings implements vscode.Disposable {
  private readonly watched = new Set<string>();
  /** Documents whose warning is on screen (one at a time per document). */
  private readonly showing = new Set<string>();
  /** Documents being saved by the user (not by Auto Save), until their save is done. */
  private readonly savedByUser = new Set<string>();
  private readonly listeners: vscode.Disposable[];
  private readonly nextFieldEmitter = new vscode.EventEmitter<vscode.TextDocument>();
  /** The user chose "Next Field" in a warning about `doc` (the template commands go there). */
  readonly onDidChooseNextField = this.nextFieldEmitter.event;

  constructor() {
    this.listeners = [
      this.nextFieldEmitter,
      // Auto Save (after a delay, or when focus moves) saves while the user is still filling the fields:
      // only a save the user asked for is warned about.
      vscode.workspace.onWillSaveTextDocument((e) => {
        const key = e.document.uri.toString();
        if (e.reason === vscode.TextDocumentSaveReason.Manual) this.savedByUser.add(key);
        else this.savedByUser.delete(key);
      }),
      vscode.workspace.onDidSaveTextDocument((doc) => {
        const key = doc.uri.toString();
        const byUser = this.savedByUser.delete(key);
        if (byUser && this.watched.has(key)) this.check(doc, 'saved');
      }),
    ];
  }

  /** Dictée wrote into `doc` (a run, a template): its fields are watched from now on. */
  watch(doc: vscode.TextDocument): void {
    this.watched.add(doc.uri.toString());
  }

  /** A run in `doc` ended. */
  runEnded(doc: vscode.TextDocument): void {
    if (!doc.isClosed) this.check(doc, 'stopped');
  }

  private check(doc: vscode.TextDocument, why: 'saved' | 'stopped'): void {
    const n = fieldsLeft(doc.getText());
    const key = doc.uri.toString();
    if (n === 0 || this.showing.has(key)) return;
    this.showing.add(key);
    const name = doc.uri.path.slice(doc.uri.path.lastIndexOf('/') + 1);
    const text =
      why === 'saved'
        ? n === 1
          ? vscode.l10n.t('Dictée: {0} was saved with 1 template field left.', name)
          : vscode.l10n.t('Dictée: {0} was saved with {1} template fields left.', name, n)
        : n === 1
          ? vscode.l10n.t('Dictée: dictation stopped with 1 template field left in {0}.', name)
          : vscode.l10n.t('Dictée: dictation stopped with {1} template fields left in {0}.', name, n);
    const next = vscode.l10n.t('Next Field');
    void vscode.window.showWarningMessage(text, next).then((choice) => {
      this.showing.delete(key);
      if (choice === next) this.nextFieldEmitter.fire(doc);
    });
  }

  dispose(): void {
    for (const l of this.listeners) l.dispose();
  }
}
