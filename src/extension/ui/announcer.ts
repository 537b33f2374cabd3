/**
 * What screen-reader users hear: start, pause, resume and stop of dictation, and (when asked) each
 * committed sentence. The extension API gives no direct way to speak, nor access to VS Code's
 * accessibility signals; what VS Code does read aloud is a notification (its aria alert). So every
 * change is shown briefly in the status bar (a message) and, when VS Code is optimised for a screen
 * reader (`editor.accessibilitySupport` is `on`), also as a notification, which the screen reader reads.
 */
import * as vscode from 'vscode';
import type { DictationState } from './statusText';

const STATUS_MESSAGE_MS = 4000;

export class Announcer implements vscode.Disposable {
  private message: vscode.Disposable | undefined;

  private get screenReader(): boolean {
    return vscode.workspace.getConfiguration('editor').get('accessibilitySupport') === 'on';
  }

  /** Says `text` the way the user's setup can hear it. */
  say(text: string, always = false): void {
    this.message?.dispose();
    this.message = vscode.window.setStatusBarMessage(text, STATUS_MESSAGE_MS);
    if (always || this.screenReader) void vscode.window.showInformationMessage(text);
  }

  stateChanged(before: DictationState, after: DictationState, file: boolean): void {
    if (after === 'recording' && before !== 'paused')
      this.say(file ? vscode.l10n.t('Dictée: transcribing the audio file.') : vscode.l10n.t('Dictée: recording. Speak now.'));
    else if (after === 'recording') this.say(vscode.l10n.t('Dictée: recording again.'));
    else if (after === 'paused') this.say(vscode.l10n.t('Dictée: paused. The microphone is off.'));
    else if (after === 'idle' && before !== 'idle') this.say(vscode.l10n.t('Dictée: stopped.'));
  }

  /** A committed sentence, when `dictee.accessibility.announceSentences` is on. */
  sentence(text: string): void {
    if (text) void vscode.window.showInformationMessage(text);
  }

  dispose(): void {
    this.message?.dispose();
  }
}
