import * as vscode from 'vscode';
import { DEFAULTS } from '../protocol/config';
import { redactKey } from '../protocol/http';
import type { Logger } from '../shared/logger';
import { MicrophoneCapture, RecorderMissingError, installHint } from '../audio/capture';
import { SilenceDetector } from '../audio/silence';
import { scrubKey, toDictationError, type DictationError } from '../client/errors';
import { DictationSession, type SessionState, type StopResult } from '../client/session';
import { TranscriptModel, type TranscriptOp } from '../client/transcript';
import type { ApiKeyStore } from './apiKeyStore';
import { DocumentWriter } from './documentWriter';
import { presentError } from './errorText';
import type { Log } from './log';
import { ProvisionalDecoration } from './provisionalDecoration';
import type { Settings } from './settings';
import { configFromSettings, type DicteeSettings } from './settingsMap';
import type { StatusBar } from './statusBar';
import type { DictationState } from './statusText';
import { errorMessage } from '../shared/errors';

/** Seconds of all-zero audio before the muted-microphone warning. */
const MUTED_AFTER_S = 3;
/** How long deactivation waits for a graceful stop before closing the connection. */
const SHUTDOWN_STOP_MS = 2500;
/** Seconds a stop may take beyond `stop_delay` (including reconnecting to send it) before giving up. */
const STOP_EXTRA_S = 30;

/** Everything one dictation run owns: one session, one capture, one model, one writer, one document. */
interface Run {
  readonly id: number;
  readonly settings: DicteeSettings;
  readonly key: string;
  readonly session: DictationSession;
  readonly capture: MicrophoneCapture;
  readonly model: TranscriptModel;
  readonly writer: DocumentWriter;
  readonly silence: SilenceDetector;
  readonly log: Logger;
  readonly disposables: vscode.Disposable[];
  /** Set once the end of the run has begun (stop, failure, closed document). */
  ending?: Promise<void>;
  targetClosed: boolean;
  mutedWarned: boolean;
  fatal?: DictationError;
  recorderFailed?: Error;
}

/**
 * The state machine of dictation (`idle | connecting | recording | paused | stopping`, mirrored in the
 * `dictee.state` context key) and the owner of the current run.
 */
export class DictationController implements vscode.Disposable {
  private stateValue: DictationState = 'idle';
  private run: Run | undefined;
  private runCounter = 0;
  private starting = false;
  private readonly decoration = new ProvisionalDecoration();
  private readonly stateEmitter = new vscode.EventEmitter<DictationState>();
  readonly onDidChangeState = this.stateEmitter.event;

  constructor(
    private readonly settings: Settings,
    private readonly keys: ApiKeyStore,
    private readonly log: Log,
    private readonly status: StatusBar,
  ) {
    void vscode.commands.executeCommand('setContext', 'dictee.state', 'idle');
  }

  get state(): DictationState {
    return this.stateValue;
  }

  private setState(state: DictationState): void {
    if (state === this.stateValue) return;
    this.stateValue = state;
    this.log.info(`state: ${state}`);
    void vscode.commands.executeCommand('setContext', 'dictee.state', state);
    this.status.update({ state });
    this.stateEmitter.fire(state);
  }

  async toggle(): Promise<void> {
    if (this.stateValue === 'idle') await this.start();
    else if (this.stateValue !== 'stopping') await this.stop();
  }

  /** Starts a run at the cursor of the active editor (or in a new untitled document). */
  async start(): Promise<void> {
    if (this.stateValue !== 'idle' || this.starting) {
      this.log.info(`start ignored: dictation is ${this.starting ? 'starting' : this.stateValue}`);
      return;
    }
    this.starting = true;
    try {
      await this.startRun();
    } finally {
      this.starting = false;
    }
  }

  private async startRun(): Promise<void> {
    const settings = this.settings.read();
    let key = await this.keys.get();
    if (!key) {
      this.log.info('no API key stored: asking for one');
      key = await this.keys.promptAndStore(settings.serverUrl);
      if (!key) {
        void vscode.window.showWarningMessage('Dictée: dictation needs an API key. Run "Dictée: Set API Key" to set one.');
        return;
      }
    }
    const target = await this.pickTarget();
    if (!target) return;
    const { doc, anchor, selectionLength } = target;

    const id = ++this.runCounter;
    let session: DictationSession;
    try {
      session = new DictationSession({
        serverUrl: settings.serverUrl,
        apiKey: key,
        config: configFromSettings(settings),
        logger: this.log,
      });
    } catch (e) {
      this.showError(toDictationError(e), settings, key);
      return;
    }
    const runLog = this.log.forSession(() => session.sessionId);
    const model = new TranscriptModel({ onIgnored: (i) => runLog.debug(`transcript: ignored a message (${i.reason})`) });
    const writer = new DocumentWriter(doc, anchor, selectionLength, runLog, this.decoration);
    const capture = new MicrophoneCapture({
      recorder: settings.recorder,
      device: settings.device,
      sampleRate: settings.sampleRate,
      logger: this.log,
    });
    const run: Run = {
      id,
      settings,
      key,
      session,
      capture,
      model,
      writer,
      silence: new SilenceDetector({ sampleRate: settings.sampleRate, seconds: MUTED_AFTER_S }),
      log: runLog,
      disposables: [writer],
      targetClosed: false,
      mutedWarned: false,
    };
    this.run = run;
    this.status.update({ state: 'connecting', target: docName(doc), error: undefined });
    this.setState('connecting');
    runLog.info(
      `run ${id}: dictating into ${doc.uri.toString(true)} at offset ${anchor}${selectionLength ? ` (replacing a ${selectionLength}-character selection)` : ''}; service ${settings.serverUrl}, key ${redactKey(key)}, ${settings.language}/${settings.specialty}/${settings.preset}, ${settings.sampleRate} Hz, recorder ${settings.recorder}${settings.device ? ` device ${settings.device}` : ''}`,
    );

    this.wireSession(run);
    this.wireCapture(run);
    run.disposables.push(
      writer.onDidCloseTarget(() => {
        run.targetClosed = true;
        void this.endRun(run, 'the target document was closed');
      }),
    );

    // The microphone first: a missing recorder is reported before anything goes over the network.
    try {
      capture.start();
    } catch (e) {
      run.recorderFailed = e as Error;
      this.showRecorderError(e as Error, settings);
      await this.endRun(run, 'the recorder could not be started');
      return;
    }
    session.start().catch(() => {
      /* reported through the session's `error` event and its `failed` state */
    });
  }

  private wireSession(run: Run): void {
    const { session, model, writer, log } = run;
    const apply = (ops: TranscriptOp[]): void => {
      void writer.write(ops);
    };
    const subs = [
      session.on('message', (m) => {
        if (this.run !== run) return;
        apply(model.apply(m));
      }),
      session.on('generation', (g) => {
        log.info(`new service session ${g.sessionId} (generation ${g.generation}); its text follows what was already written`);
        apply(model.beginGeneration());
      }),
      session.on('configured', (c) => {
        if (c.resumed) apply(model.dropProvisional());
        this.status.update({ reconnecting: false, retryInS: undefined });
      }),
      session.on('reconnecting', (r) => {
        apply(model.dropProvisional());
        const rateLimited = r.reason.startsWith('RATE_LIMITED');
        this.status.update({ reconnecting: true, retryInS: rateLimited ? Math.ceil(r.delayMs / 1000) : undefined });
        log.info(`reconnecting: attempt ${r.attempt}/${r.maxAttempts} in ${r.delayMs} ms (${r.reason})`);
        if (rateLimited) this.showRateLimitProgress(run, r.delayMs);
      }),
      session.on('warning', (w) => {
        log.warn(w);
        void vscode.window.showWarningMessage(`Dictée: ${w}`);
      }),
      session.on('error', (e) => {
        // Logged by the session, once, with its id; a fatal one is shown when the run has ended.
        if (e.fatal) run.fatal = e;
      }),
      session.on('state', (s: SessionState) => {
        if (this.run !== run) return;
        log.info(`session state: ${s}`);
        switch (s) {
          case 'connecting':
            this.setState('connecting');
            break;
          case 'recording':
            this.status.update({ reconnecting: false, retryInS: undefined });
            if (this.stateValue !== 'stopping') this.setState('recording');
            break;
          case 'paused':
            if (this.stateValue !== 'stopping') this.setState('paused');
            break;
          case 'reconnecting':
            this.status.update({ reconnecting: true });
            break;
          case 'stopping':
            this.setState('stopping');
            break;
          case 'stopped':
          case 'failed':
            void this.endRun(run, s === 'failed' ? 'the session failed' : 'the session stopped');
            break;
          default:
            break;
        }
      }),
    ];
    run.disposables.push({ dispose: () => subs.forEach((s) => s.dispose()) });
  }

  private wireCapture(run: Run): void {
    const { capture, session, silence, log } = run;
    const subs = [
      capture.on('data', (pcm) => {
        session.sendAudio(pcm);
        for (const ev of silence.push(pcm)) {
          if (ev.kind === 'muted') {
            this.status.update({ muted: true });
            log.warn(`the microphone has sent only silence for ${Math.round(ev.silentMs / 1000)} s`);
            if (!run.mutedWarned) {
              run.mutedWarned = true;
              void vscode.window
                .showWarningMessage(
                  'Dictée: the microphone sends only silence. It may be muted, or access to it may not be permitted (check the system microphone permission and dictee.audio.device).',
                  'Open Settings',
                )
                .then((c) => c && vscode.commands.executeCommand('workbench.action.openSettings', 'dictee.audio'));
            }
          } else {
            this.status.update({ muted: false });
            log.info('the microphone sends sound again');
          }
        }
      }),
      capture.on('error', (e) => {
        if (this.run !== run || run.ending) return;
        run.recorderFailed = e;
        log.error(`recorder: ${e.message}`);
        this.showRecorderError(e, run.settings);
        void this.endRun(run, 'the recorder failed');
      }),
    ];
    run.disposables.push({ dispose: () => subs.forEach((s) => s.dispose()) });
  }

  async pause(): Promise<void> {
    const run = this.run;
    if (!run || this.stateValue !== 'recording') return;
    // The microphone is off while paused. The recorder is stopped first so that what it still
    // delivers before it exits is sent before `control pause`.
    await run.capture.stop();
    run.session.pause();
    run.silence.reset();
    if (this.run === run && !run.ending) this.setState('paused');
  }

  async resume(): Promise<void> {
    const run = this.run;
    if (!run || this.stateValue !== 'paused') return;
    // The session first, so that the first audio of the restarted recorder is not taken for paused audio.
    run.session.resume();
    try {
      run.capture.start();
    } catch (e) {
      run.recorderFailed = e as Error;
      this.showRecorderError(e as Error, run.settings);
      await this.endRun(run, 'the recorder could not be restarted');
      return;
    }
    this.setState('recording');
  }

  async stop(): Promise<void> {
    const run = this.run;
    if (!run) return;
    await this.endRun(run, 'stopped by the user');
  }

  /**
   * Ends a run, whatever the reason: the recorder is killed, the session stopped (the last words are
   * written), the provisional text hidden; if the document was closed or an edit could not be made,
   * everything dictated in the run is opened in a new untitled document.
   */
  private endRun(run: Run, reason: string): Promise<void> {
    if (run.ending) return run.ending;
    run.ending = (async () => {
      run.log.info(`run ${run.id}: ending (${reason})`);
      this.setState('stopping');
      await run.capture.stop().catch((e: unknown) => run.log.error(`could not stop the recorder: ${errorMessage(e)}`));
      // Bounded: a service that never comes back must not keep the run in "stopping" for ever.
      const stopLimitMs = ((configFromSettings(run.settings).stop_delay ?? DEFAULTS.stop_delay) + STOP_EXTRA_S) * 1000;
      let timer: NodeJS.Timeout | undefined;
      const result = await Promise.race([
        run.session.stop(),
        new Promise<StopResult>((resolve) => {
          timer = setTimeout(() => resolve({ reason: 'timeout', sessionId: run.session.sessionId }), stopLimitMs);
        }),
      ]);
      clearTimeout(timer);
      if (result.reason === 'timeout') {
        const lost = run.session.audioStats.queuedBytes;
        run.log.warn(`run ${run.id}: the service did not finish within ${stopLimitMs / 1000} s${lost ? `; ${lost} bytes of audio were never transcribed` : ''}`);
      }
      run.log.info(
        `run ${run.id}: session ended (${result.reason})${result.metrics ? `, ${result.metrics.total_chunks} chunks, ${result.metrics.session_duration} s` : ''}`,
      );
      await run.writer.flush();
      run.writer.clearProvisional();
      const stats = run.writer.stats;
      run.log.info(
        `run ${run.id}: ${stats.commits} chunks committed, ${stats.replaces} rewritten, ${stats.conflicts} conflicts kept, ${stats.failed} failed`,
      );
      const leftover = run.model.provisionalText();
      if (run.targetClosed || stats.failed > 0) await this.rescue(run, leftover);
      const fatal = run.fatal ?? result.error;
      run.session.dispose();
      for (const d of run.disposables) d.dispose();
      if (this.run === run) this.run = undefined;
      this.status.update({ reconnecting: false, retryInS: undefined, muted: false, error: fatal ? shortError(fatal) : run.recorderFailed ? 'recorder failed' : undefined });
      this.setState('idle');
      if (fatal) this.showError(fatal, run.settings, run.key);
    })();
    return run.ending;
  }

  /** Opens everything dictated in the run in a new untitled document: nothing is lost. */
  private async rescue(run: Run, leftover: string): Promise<void> {
    const committed = run.model.committedText();
    const text = [committed, leftover].filter((t) => t.trim() !== '').join(' ');
    const why = run.targetClosed ? 'the document was closed during dictation' : 'some text could not be written into the document';
    run.log.warn(`run ${run.id}: ${why}; opening the run's text (${text.length} characters) in a new document`);
    if (text === '') return;
    try {
      const doc = await vscode.workspace.openTextDocument({ content: text, language: run.writer.doc.languageId || 'plaintext' });
      await vscode.window.showTextDocument(doc, { preview: false });
      void vscode.window.showWarningMessage(`Dictée: ${why}. Everything dictated in this run is in this new document.`);
    } catch (e) {
      run.log.error(`could not open a new document for the run's text: ${errorMessage(e)}`);
      void vscode.window.showErrorMessage(`Dictée: ${why}, and no new document could be opened. The text is in the log (Dictée: Show Log).`);
      run.log.error(`text of run ${run.id}: ${text}`);
    }
  }

  private showRateLimitProgress(run: Run, delayMs: number): void {
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: `Dictée: rate limited, retrying in ${Math.ceil(delayMs / 1000)} s` },
      () =>
        new Promise<void>((resolve) => {
          const t = setTimeout(resolve, delayMs);
          const sub = run.session.on('state', () => {
            clearTimeout(t);
            sub.dispose();
            resolve();
          });
        }),
    );
  }

  private showRecorderError(e: Error, settings: DicteeSettings): void {
    const text =
      e instanceof RecorderMissingError
        ? `Dictée: the audio recorder "${settings.recorder}" is not installed or not on PATH. To install it: ${installHint(settings.recorder)}. Or choose another recorder in dictee.audio.recorder.`
        : `Dictée: the microphone could not be recorded: ${e.message}. Check dictee.audio.device and that no other program holds the microphone.`;
    void vscode.window.showErrorMessage(text, 'Open Settings', 'Show Log').then((c) => {
      if (c === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'dictee.audio');
      else if (c === 'Show Log') this.log.show();
    });
  }

  private showError(e: DictationError, settings: DicteeSettings, key: string): void {
    const p = presentError(e, settings.serverUrl);
    const show = p.severity === 'error' ? vscode.window.showErrorMessage : vscode.window.showWarningMessage;
    void show(scrubKey(p.text, key), ...p.actions).then((choice) => {
      if (choice === 'Set API Key') void vscode.commands.executeCommand('dictee.setApiKey');
      else if (choice === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', p.setting ?? '@ext:dictee.dictee');
      else if (choice === 'Show Log') this.log.show();
    });
  }

  /** The document and offset dictation goes to: the active editor's cursor (or selection), else a new document. */
  private async pickTarget(): Promise<{ doc: vscode.TextDocument; anchor: number; selectionLength: number } | undefined> {
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
      this.log.info('no editable editor was active: dictating into a new untitled document');
      return { doc, anchor: 0, selectionLength: 0 };
    } catch (e) {
      void vscode.window.showErrorMessage(`Dictée: open a document to dictate into (${errorMessage(e)}).`);
      return undefined;
    }
  }

  /** Deactivation: kill the recorder, give the service a short chance to finish, close the connection. */
  async shutdown(): Promise<void> {
    const run = this.run;
    if (!run) return;
    await run.capture.stop().catch(() => undefined);
    await Promise.race([this.endRun(run, 'VS Code is shutting down'), new Promise((r) => setTimeout(r, SHUTDOWN_STOP_MS))]);
    run.session.dispose();
  }

  dispose(): void {
    const run = this.run;
    if (run) {
      void run.capture.stop();
      run.session.dispose();
      for (const d of run.disposables) d.dispose();
      this.run = undefined;
    }
    this.decoration.dispose();
    this.stateEmitter.dispose();
  }
}

function docName(doc: vscode.TextDocument): string {
  const p = doc.uri.path;
  return doc.isUntitled ? doc.uri.path : p.slice(p.lastIndexOf('/') + 1);
}

function shortError(e: DictationError): string {
  return `${e.code}: ${e.message}`.slice(0, 200);
}
