/**
 * What the user is told, once per run, when the speech may not be in the dictation language
 * (client/proofreading/languageDoubt.ts decides), and how to change it.
 */
import * as vscode from 'vscode';
import type { Language } from '../../protocol/config';
import { languageName } from '../ui/statusText';

export function tellWrongLanguage(language: Language): void {
  const change = vscode.l10n.t('Change Language');
  void vscode.window
    .showWarningMessage(
      vscode.l10n.t(
        'Dictée: the last sentences were recognised with very low confidence. Are you speaking {0}? If not, change the dictation language (the language item in the status bar, or “Dictée: Change Dictation Language”), then dictate again.',
        languageName(vscode.l10n, language),
      ),
      change,
    )
    .then((c) => c && vscode.commands.executeCommand('dictee.chooseLanguage'));
}
