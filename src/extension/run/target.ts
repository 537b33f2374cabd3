/**
 * Where a run writes: the active editor's cursor or selection, else a new untitled document; and a
 * document's name as the status bar shows it.
 */
import * as vscode from 'vscode';
import type { Logger } from '../../shared/logger';
import { errorMessage } from '../../shared/errors';

/** Where a run writes: a document, the offset of its anchor, and the selection the first text replaces. */
export interface DictationTarget {
  doc: vscode.TextDocument;
  anchor: number;
  selectionLength: number;
}

/** The document and offset dictation goes to: the active editor's cursor (or selection), else a new document. */
export async function pickTarget(log: Logger): Promise<DictationTarget | undefined> {
  const editor = vscode.window.activeTextEditor;
  if (editor && vscode.workspace.fs.isWritableFileSystem(editor.document.uri.scheme) !== false && editor.document.uri.scheme !== 'output') {
    const sel = editor.selection;
    const start = editor.document.offsetAt(sel.start);
    const end = editor.document.offsetAt(sel.end);
    return { doc: editor.document, anchor: start, selectionLength: end - start };
  }
  try {
    const doc = await vscode.workspace.openTextDocument({ content: '', language: 'markdown' });
    await vscode.window.showTextDocument(doc);
    log.info('no editable editor was active: dictating into a new untitled document');
    return { doc, anchor: 0, selectionLength: 0 };
  } catch (e) {
    log.error(`no document to dictate into: ${errorMessage(e)}`);
    void vscode.window.showErrorMessage(vscode.l10n.t('Dictée: open a document to dictate into; no new one could be opened.'));
    return undefined;
  }
}

/** The name of a document as the status bar shows it. */
export function docName(doc: vscode.TextDocument): string {
  const p = doc.uri.path;
  return doc.isUntitled ? doc.uri.path : p.slice(p.lastIndexOf('/') + 1);
}
