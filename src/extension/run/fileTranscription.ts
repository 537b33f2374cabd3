/**
 * "Dictée: Transcribe Audio File…": a WAV, MP3, FLAC or OGG file, decoded by SoX, streamed through a
 * normal dictation run (the same session, grammar and document writer as the microphone) into the
 * document at the cursor, as fast as the service takes it, with a progress notification and Cancel.
 * Cancel ends the run like Stop: what was transcribed so far stays in the document.
 */
import * as vscode from 'vscode';
import { audioFileSeconds } from '../../audio/fileSource';
import type { DictationController } from './dictationController';
import type { Log } from '../log';

const AUDIO_FILE_EXTENSIONS = ['wav', 'mp3', 'flac', 'ogg', 'oga', 'opus', 'aiff', 'aif'];

export async function transcribeAudioFile(controller: DictationController, log: Log, given?: vscode.Uri): Promise<void> {
  if (controller.state !== 'idle') {
    void vscode.window.showWarningMessage(vscode.l10n.t('Dictée: stop dictating first, then transcribe the file.'));
    return;
  }
  const uri =
    given ??
    (
      await vscode.window.showOpenDialog({
        title: vscode.l10n.t('Dictée: Transcribe Audio File'),
        openLabel: vscode.l10n.t('Transcribe'),
        canSelectMany: false,
        filters: { [vscode.l10n.t('Audio files')]: AUDIO_FILE_EXTENSIONS },
      })
    )?.[0];
  if (!uri) return;
  if (uri.scheme !== 'file') {
    void vscode.window.showErrorMessage(vscode.l10n.t('Dictée: only files on this machine can be transcribed.'));
    return;
  }
  const name = uri.path.slice(uri.path.lastIndexOf('/') + 1);
  const seconds = await audioFileSeconds(uri.fsPath);
  log.info(`transcribing an audio file${seconds ? ` of ${seconds.toFixed(1)} s` : ''}`);
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Dictée: transcribing {0}', name), cancellable: true },
    async (progress, token) => {
      let reported = 0;
      let sent = 0;
      progress.report({ message: vscode.l10n.t('connecting to the service…') });
      const run = await controller.start({
        kind: 'file',
        path: uri.fsPath,
        seconds,
        progress: (s) => {
          sent = s;
          if (!seconds) {
            progress.report({ message: vscode.l10n.t('{0} s sent', Math.floor(s)) });
            return;
          }
          const pct = Math.min(100, (s / seconds) * 100);
          if (pct - reported >= 1 || pct === 100) {
            progress.report({ increment: pct - reported, message: vscode.l10n.t('{0} % sent', Math.floor(pct)) });
            reported = pct;
          }
        },
      });
      if (!run) return;
      const cancel = token.onCancellationRequested(() => {
        log.info(`transcription cancelled after ${sent.toFixed(1)} s of audio`);
        void controller.stop();
      });
      const finishing = controller.onDidChangeState((s) => {
        if (s === 'stopping') progress.report({ message: vscode.l10n.t('finishing: the last words are being written…') });
      });
      try {
        await new Promise<void>((resolve) => {
          if (controller.state === 'idle') resolve();
          const d = controller.onDidChangeState((s) => {
            if (s === 'idle') {
              d.dispose();
              resolve();
            }
          });
        });
      } finally {
        cancel.dispose();
        finishing.dispose();
      }
    },
  );
}
