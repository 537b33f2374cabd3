/**
 * What a dictation run tells the user in notifications: an error that ended it (with its action buttons),
 * a recorder that cannot record, a muted microphone, a warning of the service, a rate-limit wait, and
 * where the text of a run went when it could not stay in its document. The words of errors come from
 * errorText.ts; keys are scrubbed from everything shown.
 */
import * as vscode from 'vscode';
import { installHint, RecorderMissingError } from '../audio/capture';
import type { RecorderName } from '../audio/spawn';
import { scrubKey, type DictationError } from '../client/errors';
import type { Disposable } from '../shared/events';
import { presentError } from './errorText';

const OPEN_SETTINGS = 'workbench.action.openSettings';

export class Notifications {
  constructor(private readonly showLog: () => void) {}

  /** A run ended with `e`: the message for its code, with its buttons. */
  runFailed(e: DictationError, serverUrl: string, key: string): void {
    const p = presentError(e, serverUrl);
    const show = p.severity === 'error' ? vscode.window.showErrorMessage : vscode.window.showWarningMessage;
    void show(scrubKey(p.text, key), ...p.actions).then((choice) => {
      if (choice === 'Set API Key') void vscode.commands.executeCommand('dictee.setApiKey');
      else if (choice === 'Open Settings') void vscode.commands.executeCommand(OPEN_SETTINGS, p.setting ?? '@ext:dictee.dictee');
      else if (choice === 'Show Log') this.showLog();
    });
  }

  /** The recorder is missing (with how to install it) or could not record. */
  recorderFailed(e: Error, recorder: RecorderName): void {
    const text =
      e instanceof RecorderMissingError
        ? `Dictée: the audio recorder "${recorder}" is not installed or not on PATH. To install it: ${installHint(recorder)}. Or choose another recorder in dictee.audio.recorder.`
        : `Dictée: the microphone could not be recorded: ${e.message}. Check dictee.audio.device and that no other program holds the microphone.`;
    void vscode.window.showErrorMessage(text, 'Open Settings', 'Show Log').then((c) => {
      if (c === 'Open Settings') void vscode.commands.executeCommand(OPEN_SETTINGS, 'dictee.audio');
      else if (c === 'Show Log') this.showLog();
    });
  }

  microphoneMuted(): void {
    void vscode.window
      .showWarningMessage(
        'Dictée: the microphone sends only silence. It may be muted, or access to it may not be permitted (check the system microphone permission and dictee.audio.device).',
        'Open Settings',
      )
      .then((c) => c && vscode.commands.executeCommand(OPEN_SETTINGS, 'dictee.audio'));
  }

  /** Something was lost or degraded but the run goes on. */
  warning(text: string): void {
    void vscode.window.showWarningMessage(`Dictée: ${text}`);
  }

  /** A spoken command could not be done, or something the user should know about dictation (never dictated words). */
  dictationNote(message: string): void {
    void vscode.window.showInformationMessage(`Dictée: ${message}`);
  }

  /** A setting cannot be used as it is (it names the setting). */
  settingsProblem(problem: string): void {
    void vscode.window.showWarningMessage(vscode.l10n.t('Dictée: {0}', problem), vscode.l10n.t('Open Settings')).then((c) => c && vscode.commands.executeCommand(OPEN_SETTINGS, problem.split(/[.:]/u).slice(0, 2).join('.')));
  }

  needsKey(): void {
    void vscode.window.showWarningMessage('Dictée: dictation needs an API key. Run "Dictée: Set API Key" to set one.');
  }

  /** A progress note in the status bar while the run waits out a rate limit; ends early at `onChange`. */
  rateLimited(delayMs: number, onChange: (done: () => void) => Disposable): void {
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: `Dictée: rate limited, retrying in ${Math.ceil(delayMs / 1000)} s` },
      () =>
        new Promise<void>((resolve) => {
          const t = setTimeout(resolve, delayMs);
          const sub = onChange(() => {
            clearTimeout(t);
            sub.dispose();
            resolve();
          });
        }),
    );
  }

  /** The run's text is in a new document, since `why`. */
  rescued(why: string): void {
    void vscode.window.showWarningMessage(`Dictée: ${why}. Everything dictated in this run is in this new document.`);
  }

  /** The run's text could not even go to a new document: it is in the log. */
  rescueFailed(why: string): void {
    void vscode.window.showErrorMessage(`Dictée: ${why}, and no new document could be opened. The text is in the log (Dictée: Show Log).`);
  }
}
