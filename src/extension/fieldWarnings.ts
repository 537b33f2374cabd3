/**
 * Template fields left in a report: saving it, or stopping dictation in it, with `{{…}}` fields left
 * says so in a warning that does not block (with "Next Field" to go to the first one). Only documents
 * Dictée wrote into (a run, a template) are watched: `{{…}}` means something else in other files.
 */
import * as vscode from 'vscode';
import { fieldsLeft } from '../dictation';

export class FieldWarnings implements vscode.Disposable {
  private readonly watched = new Set<string>();
  /** Documents whose warning is on screen (one at a time per document). */
  private readonly showing = new Set<string>();
  private readonly listener: vscode.Disposable;

  constructor(private readonly nextField: (doc: vscode.TextDocument) => Promise<void>) {
    this.listener = vscode.workspace.onDidSaveTextDocument((doc) => {
      if (this.watched.has(doc.uri.toString())) this.check(doc, 'saved');
    });
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
      if (choice === next) void this.nextField(doc);
    });
  }

  dispose(): void {
    this.listener.dispose();
  }
}
