/**
 * The last dictated text of this window for "Read Last Dictated Sentence" (lastDictated.ts holds the
 * logic): runs tell where their last chunk stands; every change of that document moves it, during the
 * run and after it. Never logged.
 */
import * as vscode from 'vscode';
import { LastDictatedRange, lastReadingText } from './lastDictated';
import { REOPEN_GRACE_MS, textChanges } from './vscodeDocument';

export class LastSentence implements vscode.Disposable {
  private readonly range = new LastDictatedRange();
  private readonly listeners: vscode.Disposable[];

  constructor() {
    this.listeners = [
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length > 0) this.range.changed(e.document.uri.toString(), textChanges(e));
      }),
      vscode.workspace.onDidCloseTextDocument((d) => {
        const uri = d.uri.toString();
        // Changing a document's language closes and reopens it at once: that is not the end of it.
        setTimeout(() => {
          if (!vscode.workspace.textDocuments.some((t) => t.uri.toString() === uri && !t.isClosed)) this.range.closed(uri);
        }, REOPEN_GRACE_MS);
      }),
    ];
  }

  /** A run's last dictated text is now `[start, end)` of `doc`. */
  written(doc: vscode.TextDocument, start: number, end: number): void {
    this.range.set(doc.uri.toString(), start, end);
  }

  /** What "Read Last Dictated Sentence" says: the text as it stands in the document, or why there is none. */
  text(): string {
    const reading = this.range.read((uri, start, end) => {
      const d = vscode.workspace.textDocuments.find((t) => t.uri.toString() === uri && !t.isClosed);
      return d?.getText(new vscode.Range(d.positionAt(start), d.positionAt(end)));
    });
    return lastReadingText(vscode.l10n, reading);
  }

  dispose(): void {
    for (const l of this.listeners) l.dispose();
  }
}
