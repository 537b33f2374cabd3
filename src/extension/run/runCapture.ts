/**
 * A run's audio source and what its events do in the run: every frame to the service (and to Play Back's
 * copy of the run's audio); for a file, its progress and its end; for the microphone, its level and the
 * muted-microphone warning, and a live source that delivers no frame at all; a recorder or a file that fails.
 */
import type { LiveAudioSource } from '../../audio/capture';
import { PageMicrophoneError } from '../../audio/browser/pageMicrophone';
import { AudioFileSource } from '../../audio/fileSource';
import { LevelMeter } from '../../audio/level';
import { NoAudioWatch } from '../../audio/noAudio';
import type { SilenceDetector } from '../../audio/silence';
import type { RunAudio } from '../../client/proofreading/runAudio';
import type { DictationSession } from '../../client/session';
import { bytesPerSecond } from '../../protocol/config';
import type { Disposable } from '../../shared/events';
import type { Logger } from '../../shared/logger';
import type { DicteeSettings } from '../settingsMap';
import type { StatusBar } from '../ui/statusBar';
import type { Notifications } from './notifications';

/** Where a run's audio comes from: the microphone, or an audio file streamed as fast as the service takes it. */
export type RunSource =
  /** `browser`: the capture page in the user's browser records instead of the recorder (browserPage.ts). */
  | { kind: 'microphone'; browser?: LiveAudioSource }
  | {
      kind: 'file';
      path: string;
      /** Its duration, when SoX can tell (the progress, and how long the service may take to finish). */
      seconds: number | undefined;
      /** Seconds of the file sent so far. */
      progress(sentSeconds: number): void;
    };

/** The run's source as its log line names it: the capture page, the recorder (and device), or a file. */
export function sourceForLog(source: RunSource, settings: Pick<DicteeSettings, 'recorder' | 'device'>): string {
  if (source.kind === 'file') return 'audio from the file';
  if (source.browser) return 'audio from the capture page in the browser';
  return `audio from recorder ${settings.recorder}${settings.device ? ` device ${settings.device}` : ''}`;
}

/** What the capture's events reach of their run (dictationRun.ts). */
export interface CaptureRun {
  readonly id: number;
  readonly settings: DicteeSettings;
  readonly source: RunSource;
  readonly session: DictationSession;
  readonly silence: SilenceDetector;
  readonly log: Logger;
  readonly status: StatusBar;
  readonly notifications: Notifications;
  /** The audio kept for Play Back, when the run keeps it. */
  audio(): RunAudio | undefined;
  /** Whether the end of the run has begun. */
  isEnding(): boolean;
  end(reason: string): void;
  /** A file run has sent its whole file. */
  fileDone(): void;
  /** The microphone's recorder failed. */
  recorderFailed(e: Error): void;
  /** A file run cannot read its file. */
  fatalFile(e: Error): void;
}

/** The listeners of a run's capture, for the run to dispose of. */
export function wireCapture(capture: LiveAudioSource | AudioFileSource, run: CaptureRun): Disposable[] {
  const { session, silence, source } = run;
  if (capture instanceof AudioFileSource) {
    const bps = bytesPerSecond(run.settings.sampleRate);
    return [
      capture.on('data', (pcm) => {
        session.sendAudio(pcm);
        run.audio()?.append(pcm);
        if (source.kind === 'file') source.progress(capture.delivered / bps);
      }),
      capture.on('end', () => {
        run.fileDone();
        run.log.info(`run ${run.id}: the whole file was sent (${(capture.delivered / bps).toFixed(1)} s of audio)`);
        run.end('the whole file was sent');
      }),
      capture.on('error', (e) => {
        if (run.isEnding()) return;
        run.fatalFile(e);
        run.end('the audio file could not be read');
      }),
    ];
  }
  const meter = new LevelMeter();
  let mutedWarned = false;
  return [
    capture.on('data', (pcm) => {
      session.sendAudio(pcm);
      run.audio()?.append(pcm);
      run.status.level(meter.push(pcm));
      for (const ev of silence.push(pcm)) {
        if (ev.kind === 'muted') {
          run.status.update({ muted: true });
          run.log.warn(`the microphone has sent only silence for ${Math.round(ev.silentMs / 1000)} s`);
          if (!mutedWarned) {
            mutedWarned = true;
            run.notifications.microphoneMuted();
          }
        } else {
          run.status.update({ muted: false });
          run.log.info('the microphone sends sound again');
        }
      }
    }),
    capture.on('error', (e) => {
      if (run.isEnding()) return;
      run.recorderFailed(e);
      const page = e instanceof PageMicrophoneError;
      run.log.error(`${page ? 'capture page' : 'recorder'}: ${e.message}`);
      run.notifications.recorderFailed(e, run.settings.recorder);
      run.end(page ? 'the browser gave the capture page no microphone' : 'the recorder failed');
    }),
  ];
}

/**
 * How long a live run may go without a single frame from its source, after it starts or resumes, before
 * the user is told (once a run): the recorder's first audio comes within a second or two; the capture page
 * may first have to open in the browser and be given the microphone.
 */
const NO_AUDIO_MS = { recorder: 5000, page: 15000 } as const;

/**
 * The no-audio watch of a live run (the run arms it when it starts or resumes, disarms it when it pauses
 * or ends): no frame at all from the source, and the status says so and the user is told once a run;
 * audio again, and the status says no more. Undefined for a file.
 */
export function watchNoAudio(
  capture: LiveAudioSource | AudioFileSource,
  run: CaptureRun,
): { watch: NoAudioWatch; disposables: Disposable[] } | undefined {
  const { source, settings, log } = run;
  if (source.kind !== 'microphone' || capture instanceof AudioFileSource) return undefined;
  const page = source.browser !== undefined;
  const watch = new NoAudioWatch(page ? NO_AUDIO_MS.page : NO_AUDIO_MS.recorder, (e) => {
    if (run.isEnding()) return;
    if (e.kind === 'back') {
      log.info(`run ${run.id}: audio arrives again`);
      run.status.update({ noAudio: false });
      return;
    }
    const seconds = Math.round(e.afterMs / 1000);
    log.warn(
      `run ${run.id}: no audio at all from ${page ? 'the capture page' : `the recorder ${settings.recorder}`} ${seconds} s after it started or resumed${e.first ? '' : ' (told already)'}`,
    );
    run.status.update({ noAudio: true });
    if (e.first) run.notifications.noAudio(page ? { page: true } : { page: false, recorder: settings.recorder }, seconds);
  });
  return { watch, disposables: [capture.on('data', () => watch.delivered()), { dispose: () => watch.disarm() }] };
}
