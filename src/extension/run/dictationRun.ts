/**
 * One dictation run: its service session, its microphone capture, its transcript model and document
 * writer, the events between them, and its end — the last words written, the provisional text hidden,
 * and everything dictated opened in a new document if it could not stay in its own. The controller
 * (dictationController.ts) owns the state machine and the commands; a run tells it what happens.
 */
import * as vscode from 'vscode';
import { MicrophoneCapture, firstAudio, type LiveAudioSource } from '../../audio/capture';
import { AudioFileSource } from '../../audio/fileSource';
import { SilenceDetector } from '../../audio/silence';
import type { NoAudioWatch } from '../../audio/noAudio';
import type { DictationError } from '../../client/errors';
import { TypedEmitter, type Disposable } from '../../shared/events';
import { DictationSession, sessionLogPrefix, type StopResult } from '../../client/session';
import { DEFAULT_STOP_MAX_WAIT_MS } from '../../client/sessionTypes';
import { TranscriptModel, type TranscriptOp } from '../../client/transcript';
import { bytesPerSecond, DEFAULTS } from '../../protocol/config';
import { errorMessage } from '../../shared/errors';
import { rewritingLogger, type Logger } from '../../shared/logger';
import type { DictatedChunks, DictationSetup } from '../editor/dictatedChunks';
import { DocumentWriter } from '../editor/documentWriter';
import { VscodeDocument } from '../editor/vscodeDocument';
import { type RescueReason, rescueText } from './rescue';
import { configFromSettings, type DicteeSettings } from '../settingsMap';
import type { DictationTarget } from './target';
import { type CaptureRun, type RunSource, watchNoAudio, wireCapture } from './runCapture';
import type { RunAudio } from '../../client/proofreading/runAudio';
import { proofreadingFor } from '../proofreading/runHooks';
import type { RunProofreading } from '../proofreading/runProofreading';
import { documentNames, type RunEvents, type RunServices } from './runTypes';

/** Seconds of all-zero audio before the muted-microphone warning. */
const MUTED_AFTER_S = 3;
/**
 * Seconds a stop may take beyond `stop_delay` before the run gives up on it: beyond the session's own
 * bound (it waits while the service shows it is working, DEFAULT_STOP_MAX_WAIT_MS at most), so the
 * session decides.
 */
const STOP_EXTRA_S = 5 + DEFAULT_STOP_MAX_WAIT_MS / 1000 + 10;
/**
 * How long Resume waits for the restarted recorder's first audio before it says "recording" anyway (a
 * recorder that delivers nothing for that long is stuck; the muted-microphone warning covers a silent one).
 */
const RESUME_FIRST_AUDIO_MS = 5000;
/** Seconds of a file's audio that may wait unsent (in the session or the socket) before decoding pauses. */
const FILE_AHEAD_S = 2;

export class DictationRun {
  readonly session: DictationSession;
  /** Every line about the run, prefixed with its session id. */
  readonly log: Logger;
  private readonly capture: LiveAudioSource | AudioFileSource;
  private readonly model: TranscriptModel;
  private readonly writer: DocumentWriter;
  /** The target document, through the editor's port (what the writer sees of VS Code). */
  private readonly target: VscodeDocument;
  private readonly silence: SilenceDetector;
  /** Told when no frame at all comes from a live source (undefined for a file). */
  private readonly noAudio: NoAudioWatch | undefined;
  private wasConnected = false;
  private fileDone = false;
  private readonly disposables: vscode.Disposable[] = [];
  private endingPromise: Promise<void> | undefined;
  private targetClosed = false;
  private fatal: DictationError | undefined;
  private recorderFailed: Error | undefined;
  private readonly stopExtraS: number;
  /** Doubtful words and alternatives of the run's chunks, when `dictee.proofreading.threshold` is above 0. */
  readonly proofreading: RunProofreading | undefined;
  /** The audio sent to the service, kept in memory for Play Back (with the proofreading's word times). */
  private readonly audio: RunAudio | undefined;
  private readonly events: TypedEmitter<RunEvents>;

  /** Throws a DictationError (CONFIG_ERROR) when the server URL of the settings is not usable. */
  constructor(
    readonly id: number,
    readonly settings: DicteeSettings,
    readonly key: string,
    target: DictationTarget,
    baseLog: Logger,
    private readonly services: RunServices,
    readonly source: RunSource = { kind: 'microphone' },
    dictation?: DictationSetup,
  ) {
    // A file's audio may reach the service much faster than it decodes it: the stop waits up to the file's length.
    const fileSeconds = source.kind === 'file' ? (source.seconds ?? 600) : 0;
    this.session = new DictationSession({
      serverUrl: settings.serverUrl,
      apiKey: key,
      config: configFromSettings(settings),
      logger: baseLog,
      ...(source.kind === 'file' ? { stopMarginMs: 5000 + fileSeconds * 1000 } : {}),
    });
    // The log carries session ids, counts and timings: never the document's name (nor dictated text).
    const hide = documentNames(target.doc.uri);
    this.log = rewritingLogger(baseLog, (m) => `${sessionLogPrefix(this.session.sessionId)} ${hide(m)}`);
    this.events = new TypedEmitter<RunEvents>((event, e) =>
      this.log.error(`run ${id}: a listener of "${event}" failed: ${errorMessage(e)}`),
    );
    this.model = new TranscriptModel({ onIgnored: (i) => this.log.debug(`transcript: ignored a message (${i.reason})`) });
    this.target = new VscodeDocument(target.doc, services.decoration, this.log);
    this.writer = new DocumentWriter(this.target, target.anchor, target.selectionLength, this.log, dictation);
    this.capture =
      source.kind === 'file'
        ? new AudioFileSource(source.path, settings.sampleRate, () => this.canTakeFileAudio())
        : (source.browser ??
          new MicrophoneCapture({
            recorder: settings.recorder,
            device: settings.device,
            sampleRate: settings.sampleRate,
            logger: this.log,
          }));
    this.silence = new SilenceDetector({ sampleRate: settings.sampleRate, seconds: MUTED_AFTER_S });
    this.stopExtraS = STOP_EXTRA_S + fileSeconds;
    const captureRun = this.captureRun();
    const noAudio = watchNoAudio(this.capture, captureRun);
    this.noAudio = noAudio?.watch;
    this.disposables.push(
      this.writer,
      this.target,
      ...this.wireSession(),
      ...wireCapture(this.capture, captureRun),
      ...(noAudio?.disposables ?? []),
    );
    const proof = proofreadingFor(services.proofreading, {
      id,
      settings,
      doc: () => this.target.doc,
      grammar: dictation !== undefined,
      log: this.log,
    });
    this.proofreading = proof?.proofreading;
    this.audio = proof?.audio;
    this.disposables.push(
      this.writer.onDidWriteLast(({ start, end }) => {
        this.events.emit('lastWritten', { start, end });
        this.proofreading?.lastWritten(start, end);
      }),
      this.writer.onDidCloseTarget(() => {
        this.targetClosed = true;
        void this.end('the target document was closed');
      }),
    );
  }

  /** Subscribes to what the run tells (runTypes.ts); the listeners are called synchronously. */
  on<K extends keyof RunEvents>(event: K, listener: (value: RunEvents[K]) => void): Disposable {
    return this.events.on(event, listener);
  }

  /** The document the run writes to. */
  get document(): vscode.TextDocument {
    return this.target.doc;
  }

  /** The dictation grammar's writer (fields, templates, commands), when the grammar is on. */
  get dictation(): DictatedChunks | undefined {
    return this.writer.dictation;
  }

  /** A file's decoding goes on while little of its audio waits unsent: as fast as the service takes it. */
  private canTakeFileAudio(): boolean {
    if (this.session.state !== 'recording') return false;
    const { queuedBytes, bufferedBytes } = this.session.audioStats;
    return queuedBytes + bufferedBytes < FILE_AHEAD_S * bytesPerSecond(this.settings.sampleRate);
  }

  /** A file run has sent its whole file: it ends by waiting for the last words, not by a stop. */
  get fileSent(): boolean {
    return this.fileDone;
  }

  /** Whether the end of the run has begun (stop, failure, closed document). */
  get isEnding(): boolean {
    return this.endingPromise !== undefined;
  }

  /** The microphone first (a missing recorder is reported before anything goes over the network), then the service. */
  async start(): Promise<void> {
    if (!this.startCapture()) {
      await this.end('the recorder could not be started');
      return;
    }
    // With push-to-talk the page pauses the run at once; its audio is awaited from the first key press.
    if (!(this.source.kind === 'microphone' && this.source.browser && this.settings.mode === 'pushToTalk')) this.noAudio?.arm();
    this.session.start().catch(() => {
      /* reported through the session's `error` event and its `failed` state */
    });
  }

  /** The microphone is off while paused; what the recorder delivers before it exits is sent before `control pause`. */
  async pause(): Promise<void> {
    this.noAudio?.disarm();
    await this.capture.stop();
    this.session.pause();
    this.silence.reset();
  }

  /**
   * The session first, so that the first audio of the restarted recorder is not taken for paused audio;
   * then the recorder, and the run says it records only once the recorder delivers its first audio: what
   * is said while the recorder is still opening the device (over a second for SoX on a busy machine) would
   * be lost. False when the recorder could not restart, or failed before its first audio.
   */
  async resume(): Promise<boolean> {
    this.session.resume();
    if (!this.startCapture()) {
      await this.end('the recorder could not be restarted');
      return false;
    }
    if (this.capture instanceof AudioFileSource) return true;
    this.noAudio?.arm();
    const t0 = Date.now();
    const delivered = await firstAudio(this.capture, RESUME_FIRST_AUDIO_MS);
    this.log.info(
      `run ${this.id}: the recorder ${delivered ? 'delivered its first audio' : 'has delivered no audio yet'} ${Date.now() - t0} ms after resume`,
    );
    return !this.isEnding;
  }

  /**
   * Ends the run, whatever the reason: the recorder is stopped, the session stopped (the last words are
   * written, bounded in time), the provisional text hidden; if the document was closed or an edit could
   * not be made, everything dictated in the run is opened in a new untitled document.
   */
  end(reason: string): Promise<void> {
    this.endingPromise ??= this.finish(reason);
    return this.endingPromise;
  }

  /** Deactivation: the recorder stopped, a short chance for the service to finish, then the connection closed. */
  async shutdown(graceMs: number): Promise<void> {
    await this.capture.stop().catch(() => undefined);
    await Promise.race([this.end('VS Code is shutting down'), new Promise((r) => setTimeout(r, graceMs))]);
    this.session.dispose();
  }

  /** Now, without waiting for the service (disposal). */
  dispose(): void {
    this.capture.stop().catch((e: unknown) => this.log.error(`could not stop the recorder: ${errorMessage(e)}`));
    this.session.dispose();
    for (const d of this.disposables) d.dispose();
  }

  private async finish(reason: string): Promise<void> {
    this.log.info(`run ${this.id}: ending (${reason})`);
    this.noAudio?.disarm();
    this.events.emit('ending', undefined);
    await this.capture.stop().catch((e: unknown) => this.log.error(`could not stop the recorder: ${errorMessage(e)}`));
    // Bounded: a service that never comes back must not keep the run in "stopping" for ever.
    const stopLimitMs = ((configFromSettings(this.settings).stop_delay ?? DEFAULTS.stop_delay) + this.stopExtraS) * 1000;
    let timer: NodeJS.Timeout | undefined;
    const result = await Promise.race([
      this.session.stop(),
      new Promise<StopResult>((resolve) => {
        timer = setTimeout(() => resolve({ reason: 'timeout', sessionId: this.session.sessionId }), stopLimitMs);
      }),
    ]);
    clearTimeout(timer);
    if (result.reason === 'timeout') {
      const lost = this.session.audioStats.queuedBytes;
      this.log.warn(
        `run ${this.id}: the service did not finish within ${stopLimitMs / 1000} s${lost ? `; ${lost} bytes of audio were never transcribed` : ''}`,
      );
    }
    this.log.info(
      `run ${this.id}: session ended (${result.reason})${result.metrics ? `, ${result.metrics.total_chunks} chunks, ${result.metrics.session_duration} s` : ''}`,
    );
    // The words the grammar still holds back are written after everything queued.
    await this.writer.finish();
    this.writer.clearProvisional();
    const stats = this.writer.stats;
    this.log.info(
      `run ${this.id}: ${stats.commits} chunks committed, ${stats.replaces} rewritten, ${stats.conflicts} conflicts kept, ${stats.failed} failed`,
    );
    const leftover = this.model.provisionalText();
    if (this.targetClosed || stats.failed > 0) await this.rescue(leftover, this.targetClosed ? 'closed' : 'failed');
    // The service never finished the last words: what it showed as provisional is not dropped silently.
    else if (result.reason !== 'stopped' && leftover.trim() !== '') await this.rescue(leftover, 'unfinished');
    const fatal = this.fatal ?? result.error;
    this.session.dispose();
    for (const d of this.disposables) d.dispose();
    this.events.emit('ended', { fatal, recorderFailed: this.recorderFailed, wasConnected: this.wasConnected, fileDone: this.fileDone });
    this.events.removeAllListeners();
  }

  /** Everything dictated in the run, and the words left provisional, into a new document: nothing is lost. */
  private async rescue(leftover: string, reason: RescueReason): Promise<void> {
    const text = [this.model.committedText(), leftover].filter((t) => t.trim() !== '').join(' ');
    await rescueText(text, reason, {
      languageId: this.target.doc.languageId,
      dir: this.services.rescueDir,
      notifications: this.services.notifications,
      log: this.log,
      runId: this.id,
    });
  }

  private startCapture(): boolean {
    try {
      this.capture.start();
      return true;
    } catch (e) {
      this.recorderFailed = e instanceof Error ? e : new Error(errorMessage(e));
      this.log.error(`recorder: ${this.recorderFailed.message}`);
      if (this.source.kind === 'file') this.fatalFile(this.recorderFailed);
      else this.services.notifications.recorderFailed(this.recorderFailed, this.settings.recorder);
      return false;
    }
  }

  /** What the capture's events reach of the run (runCapture.ts). */
  private captureRun(): CaptureRun {
    const { id, settings, source, session, silence, log, services } = this;
    return {
      id,
      settings,
      source,
      session,
      silence,
      log,
      status: services.status,
      notifications: services.notifications,
      audio: () => this.audio,
      isEnding: () => this.isEnding,
      end: (reason) => void this.end(reason),
      fileDone: () => {
        this.fileDone = true;
      },
      recorderFailed: (e) => {
        this.recorderFailed = e;
      },
      fatalFile: (e) => this.fatalFile(e),
    };
  }

  private wireSession(): vscode.Disposable[] {
    const { session, model, writer, services, events } = this;
    const apply = (ops: TranscriptOp[]): void => void writer.write(ops);
    return [
      session.on('message', (m) => {
        const ops = model.apply(m);
        // Written whether or not proofreading follows the run (`?.` would skip evaluating the argument).
        const written = writer.write(ops);
        this.proofreading?.message(m, ops, written);
        for (const op of ops) if (op.kind === 'insert' && op.text.trim() !== '') events.emit('committed', op.text);
      }),
      session.on('generation', () => {
        this.audio?.beginGeneration();
        apply(model.beginGeneration());
      }),
      session.on('configured', (c) => {
        if (c.resumed) apply(model.dropProvisional());
        services.status.update({ reconnecting: false, retryInS: undefined });
        if (c.engine) events.emit('engine', c.engine);
      }),
      session.on('reconnecting', (r) => {
        apply(model.dropProvisional());
        // The service asked to wait (a rate limit), or its speech recogniser is unavailable (INIT_ERROR, or
        // CONCURRENCY_LIMIT_EXCEEDED while its decoders are behind real time, with a wait).
        const recogniserUnavailable = r.code === 'INIT_ERROR' || r.code === 'CONCURRENCY_LIMIT_EXCEEDED';
        const waited = r.code === 'RATE_LIMITED' || recogniserUnavailable;
        services.status.update({ reconnecting: true, retryInS: waited ? Math.ceil(r.delayMs / 1000) : undefined, recogniserUnavailable });
        if (waited) services.notifications.waiting(r.delayMs, recogniserUnavailable, (done) => session.on('state', done));
      }),
      // Logged by the session, once, with its id.
      session.on('warning', (w) => services.notifications.warning(w)),
      session.on('error', (e) => {
        if (e.fatal) this.fatal = e; // shown once the run has ended
      }),
      session.on('state', (s) => {
        this.log.info(`session state: ${s}`);
        if (s === 'recording') {
          this.wasConnected = true;
          services.status.update({ reconnecting: false, retryInS: undefined });
        } else if (s === 'reconnecting') services.status.update({ reconnecting: true });
        events.emit('state', s);
        if (s === 'stopped' || s === 'failed') void this.end(s === 'failed' ? 'the session failed' : 'the session stopped');
      }),
    ];
  }

  /** A file run cannot read its file: the error is logged (without the file name) and the user told, with SoX's words. */
  private fatalFile(e: Error): void {
    this.recorderFailed = e;
    this.log.error(`the audio file could not be read (${e.name})`);
    void vscode.window.showErrorMessage(vscode.l10n.t('Dictée: the audio file could not be read: {0}', e.message));
  }
}
