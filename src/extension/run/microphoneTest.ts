/**
 * "Dictée: Test Microphone" (the walkthrough's microphone step): records the chosen microphone for a few
 * seconds with the chosen recorder, shows the live input level, and says whether sound came through.
 * Nothing is sent anywhere.
 */
import * as vscode from 'vscode';
import { installCommands, MicrophoneCapture } from '../../audio/capture';
import { which } from '../../audio/spawn';
import { FLOOR_DBFS, LevelMeter } from '../../audio/level';
import { errorMessage } from '../../shared/errors';
import type { Log } from '../log';
import type { Notifications } from './notifications';
import type { Settings } from '../settings';

const TEST_SECONDS = 5;
/** Below this loudest level (dBFS) the test says it heard nothing. */
const HEARD_DBFS = -50;

/** A level meter of `width` characters for a level in 0–1. */
function meterText(level: number, width = 20): string {
  const n = Math.max(0, Math.min(width, Math.round(level * width)));
  return '█'.repeat(n) + '░'.repeat(width - n);
}

/** Records for TEST_SECONDS; resolves with the loudest level heard (dBFS), or undefined when the recorder failed. */
export async function testMicrophone(settings: Settings, log: Log, notifications: Notifications): Promise<number | undefined> {
  const s = settings.read();
  const capture = new MicrophoneCapture({ recorder: s.recorder, device: s.device, sampleRate: s.sampleRate, logger: log });
  const meter = new LevelMeter();
  let level = 0;
  let failure: Error | undefined;
  const subs = [capture.on('data', (pcm) => (level = meter.push(pcm))), capture.on('error', (e) => (failure = e))];
  try {
    capture.start();
  } catch (e) {
    const err = e instanceof Error ? e : new Error(errorMessage(e));
    log.error(`microphone test: ${err.message}`);
    notifications.recorderFailed(err, s.recorder);
    return undefined;
  }
  const device = s.device || vscode.l10n.t('the system default microphone');
  await vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: vscode.l10n.t('Dictée: microphone test ({0}), speak now', device),
      cancellable: true,
    },
    (progress, token) =>
      new Promise<void>((resolve) => {
        const started = Date.now();
        const tick = setInterval(() => {
          const left = Math.max(0, Math.ceil(TEST_SECONDS - (Date.now() - started) / 1000));
          progress.report({ message: `${meterText(level)} ${vscode.l10n.t('{0} s', left)}` });
          if (left === 0 || failure || token.isCancellationRequested) {
            clearInterval(tick);
            resolve();
          }
        }, 200);
      }),
  );
  await capture.stop();
  for (const d of subs) d.dispose();
  if (failure) {
    log.error(`microphone test: ${failure.message}`);
    notifications.recorderFailed(failure, s.recorder);
    return undefined;
  }
  const peak = meter.peakDbfs;
  log.info(`microphone test: loudest level ${Number.isFinite(peak) ? `${peak.toFixed(1)} dBFS` : 'silence'}`);
  if (peak > HEARD_DBFS) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Dictée: the microphone works (loudest level {0} dB).', Math.round(peak)));
  } else {
    const choice = await vscode.window.showWarningMessage(
      Number.isFinite(peak) && peak > FLOOR_DBFS - 30
        ? vscode.l10n.t(
            'Dictée: the microphone is very quiet (loudest level {0} dB). Speak closer, raise its volume, or choose another microphone.',
            Math.round(peak),
          )
        : vscode.l10n.t(
            'Dictée: the microphone sent only silence. It may be muted, access to it may not be permitted, or another microphone may be the right one.',
          ),
      vscode.l10n.t('Select Microphone'),
    );
    if (choice) void vscode.commands.executeCommand('dictee.selectMicrophone');
  }
  return peak;
}

/** "Dictée: Check Recorder": whether the chosen recorder is installed, and how to install it if not. */
export function checkRecorder(settings: Settings, log: Log): boolean {
  const { recorder } = settings.read();
  const found = which(recorder);
  log.info(`recorder check: ${recorder} ${found ? 'found' : 'not found'}`);
  if (found) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Dictée: the recorder "{0}" is installed ({1}).', recorder, found));
    return true;
  }
  const how = installCommands(recorder);
  void vscode.window.showErrorMessage(
    how
      ? vscode.l10n.t('Dictée: the recorder "{0}" is not installed or not on PATH. To install it: {1}.', recorder, how)
      : vscode.l10n.t('Dictée: the audio recorder "{0}" does not exist on this system: choose SoX in the settings.', recorder),
  );
  return false;
}
