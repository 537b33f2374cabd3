/**
 * What a dictation run tells the user in notifications: an error that ended it (with its action buttons),
 * a recorder that cannot record or a browser that gave the capture page no microphone, a source that
 * delivers no audio at all, a muted microphone, a warning of the service, a rate-limit wait, the
 * simulated engine, and where the text of a run went when it could not stay in its document. The words
 * of errors come from errorText.ts; keys are scrubbed from everything shown.
 */
import * as vscode from 'vscode';
import { installCommands, RecorderMissingError } from '../../audio/capture';
import { PageMicrophoneError } from '../../audio/browser/pageMicrophone';
import type { RecorderName } from '../../audio/spawn';
import { scrubKey, type DictationError } from '../../client/errors';
import type { Disposable } from '../../shared/events';
import { openSettingWhereSet } from '../ui/settingScope';
import {
  actionLabel,
  ALL_SETTINGS,
  type ErrorAction,
  type ErrorContext,
  noAudioText,
  pageMicrophoneText,
  presentError,
  warningSentence,
} from './errorText';

const OPEN_SETTINGS = 'workbench.action.openSettings';

export class Notifications {
  private simulatedShown = new Set<string>();

  constructor(private readonly showLog: () => void) {}

  /** Shows `text` with the buttons of `actions`, and runs the one chosen. */
  private async withActions(
    severity: 'error' | 'warning' | 'info',
    text: string,
    actions: ErrorAction[],
    setting?: string,
    retry?: () => void,
  ): Promise<void> {
    const show =
      severity === 'error'
        ? vscode.window.showErrorMessage
        : severity === 'warning'
          ? vscode.window.showWarningMessage
          : vscode.window.showInformationMessage;
    const offered = actions.filter((a) => a !== 'retry' || retry);
    const labels = offered.map((a) => actionLabel(vscode.l10n, a));
    const choice = await show(text, ...labels);
    const action = offered[labels.indexOf(choice ?? '')];
    switch (action) {
      case 'setApiKey':
        void vscode.commands.executeCommand('dictee.setApiKey');
        break;
      case 'openSettings':
        // A setting opens on the tab whose value is in effect (User, Remote, Workspace), not always the User tab.
        void (setting ? openSettingWhereSet(setting) : vscode.commands.executeCommand(OPEN_SETTINGS, ALL_SETTINGS));
        break;
      case 'retry':
        retry?.();
        break;
      case 'selectMicrophone':
        void vscode.commands.executeCommand('dictee.selectMicrophone');
        break;
      case 'showLog':
        this.showLog();
        break;
      case undefined:
        break;
    }
  }

  /** A run ended with `e`: the message for its code, with its buttons. */
  /** Shows why a run failed; returns the cause, without the "Dictée:" that opens the message, for the status bar. */
  runFailed(e: DictationError, ctx: ErrorContext, key: string, retry?: () => void): string {
    const p = presentError(vscode.l10n, e, ctx);
    const text = scrubKey(p.text, key);
    void this.withActions(p.severity, text, p.actions, p.setting, retry);
    return text.replace(/^Dictée\s*:\s*/u, '');
  }

  /** The recorder is missing (with how to install it) or could not record; or the browser gave the capture page no microphone. */
  recorderFailed(e: Error, recorder: RecorderName): void {
    if (e instanceof PageMicrophoneError) {
      const p = pageMicrophoneText(vscode.l10n, e);
      void this.withActions(p.severity, p.text, p.actions, p.setting);
      return;
    }
    if (e instanceof RecorderMissingError) {
      const how = installCommands(recorder);
      void this.withActions(
        'error',
        how
          ? vscode.l10n.t(
              'Dictée: the audio recorder "{0}" is not installed or not on PATH. To install it: {1}. Or choose another recorder in the settings.',
              recorder,
              how,
            )
          : vscode.l10n.t('Dictée: the audio recorder "{0}" does not exist on this system: choose SoX in the settings.', recorder),
        ['openSettings', 'showLog'],
        'dictee.audio',
      );
      return;
    }
    void this.withActions(
      'error',
      vscode.l10n.t('Dictée: the microphone could not be recorded. Choose another microphone, or check that no other program holds it.'),
      ['selectMicrophone', 'showLog'],
    );
  }

  /** Nothing at all has arrived from the run's source for `seconds` (once a run). */
  noAudio(source: { page: true } | { page: false; recorder: RecorderName }, seconds: number): void {
    const p = noAudioText(vscode.l10n, source, seconds);
    void this.withActions(p.severity, p.text, p.actions, p.setting);
  }

  microphoneMuted(): void {
    void this.withActions(
      'warning',
      vscode.l10n.t(
        'Dictée: the microphone sends only silence. It may be muted, or access to it may not be permitted (check the system microphone permission), or another microphone may be the right one.',
      ),
      ['selectMicrophone'],
    );
  }

  /** Something was lost or degraded but the run goes on (the client library's words are in the log). */
  warning(text: string): void {
    void vscode.window.showWarningMessage(warningSentence(vscode.l10n, text));
  }

  /** A spoken command could not be done, or something the user should know about dictation (never dictated words). */
  dictationNote(message: string): void {
    void vscode.window.showInformationMessage(vscode.l10n.t('Dictée: {0}', message));
  }

  /** A setting cannot be used as it is (it names the setting). */
  settingsProblem(problem: string): void {
    void vscode.window
      .showWarningMessage(vscode.l10n.t('Dictée: {0}', problem), vscode.l10n.t('Open Settings'))
      .then((c) => c && vscode.commands.executeCommand(OPEN_SETTINGS, problem.split(/[.:]/u).slice(0, 2).join('.')));
  }

  needsKey(): void {
    void this.withActions('warning', vscode.l10n.t('Dictée: dictation needs an API key.'), ['setApiKey']);
  }

  /** Once per service address and window: the engine writes a script, it does not recognise speech. */
  simulatedEngine(serverUrl: string): void {
    if (this.simulatedShown.has(serverUrl)) return;
    this.simulatedShown.add(serverUrl);
    // Short enough to show whole in a notification (a long address once cut it off).
    void vscode.window.showWarningMessage(
      vscode.l10n.t('Dictée: the simulated engine writes a prepared script; it does not recognise your speech.'),
    );
  }

  /**
   * A progress note in the status bar while the run waits out a rate limit, or while the service's speech
   * recogniser is unavailable (it retries by itself); ends early at `onChange`.
   */
  waiting(delayMs: number, recogniserUnavailable: boolean, onChange: (done: () => void) => Disposable): void {
    const seconds = Math.ceil(delayMs / 1000);
    void vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Window,
        title: recogniserUnavailable
          ? vscode.l10n.t('Dictée: the speech recogniser of the service is unavailable; retrying in {0} s', seconds)
          : vscode.l10n.t('Dictée: the service asked to wait; next try in {0} s', seconds),
      },
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
    void vscode.window.showWarningMessage(vscode.l10n.t('Dictée: {0}. Everything dictated in this run is in this new document.', why));
  }

  /** The run's text could not go to a new document: it is in a file of the extension's own storage, and on the clipboard. */
  rescueSaved(why: string, file: vscode.Uri): void {
    void vscode.window
      .showErrorMessage(
        vscode.l10n.t(
          'Dictée: {0}, and no new document could be opened. Everything dictated in this run was saved to {1} and copied to the clipboard.',
          why,
          file.fsPath,
        ),
        vscode.l10n.t('Open'),
      )
      .then((c) => c && vscode.commands.executeCommand('vscode.open', file));
  }
}
