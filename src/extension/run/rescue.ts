/**
 * The last resort of a run: its text opened in a new untitled document, or, if even that fails, saved in
 * the extension's own storage and put on the clipboard — never written to the log.
 */
import * as vscode from 'vscode';
import { errorMessage } from '../../shared/errors';
import type { Logger } from '../../shared/logger';
import type { Notifications } from './notifications';

/** Why a run's text is opened in a new document. */
export type RescueReason = 'closed' | 'failed' | 'unfinished';

/** The reasons as the log says them (in English, whatever the display language). */
const RESCUE_LOG: Record<RescueReason, string> = {
  closed: 'the document was closed during dictation',
  failed: 'some text could not be written into the document',
  unfinished: 'the service did not finish the last words, shown as provisional text and not proofread',
};

/** The reasons as the user reads them. */
function reasonText(reason: RescueReason): string {
  switch (reason) {
    case 'closed':
      return vscode.l10n.t('the document was closed during dictation');
    case 'failed':
      return vscode.l10n.t('some text could not be written into the document');
    case 'unfinished':
      return vscode.l10n.t('the service did not finish the last words, shown as provisional text and not proofread');
  }
}

interface RescueContext {
  /** The language of the document the text was meant for. */
  languageId: string;
  /** Where the text is saved when no document can be opened. */
  dir: vscode.Uri;
  notifications: Notifications;
  log: Logger;
  runId: number | string;
}

/** Opens `text` in a new document and says why; nothing to do for an empty text. */
export async function rescueText(text: string, reason: RescueReason, c: RescueContext): Promise<void> {
  const why = reasonText(reason);
  c.log.warn(`run ${c.runId}: ${RESCUE_LOG[reason]}; opening the run's text (${text.length} characters) in a new document`);
  if (text === '') return;
  try {
    const doc = await vscode.workspace.openTextDocument({ content: text, language: c.languageId || 'plaintext' });
    await vscode.window.showTextDocument(doc, { preview: false });
    c.notifications.rescued(why);
  } catch (e) {
    c.log.error(`could not open a new document for the run's text: ${errorMessage(e)}; saving it in the extension's storage`);
    const file = vscode.Uri.joinPath(c.dir, `dictation-${new Date().toISOString().replace(/[:.]/g, '-')}.txt`);
    try {
      await vscode.workspace.fs.createDirectory(c.dir);
      await vscode.workspace.fs.writeFile(file, new TextEncoder().encode(text));
    } catch (e2) {
      c.log.error(`could not save the run's text in the extension's storage: ${errorMessage(e2)}`);
    }
    await vscode.env.clipboard.writeText(text).then(undefined, () => undefined);
    c.notifications.rescueSaved(why, file);
  }
}
