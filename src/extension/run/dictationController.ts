/**
 * The state machine of dictation (`idle | connecting | recording | paused | stopping`, mirrored in the
 * `dictee.state` context key) and its commands. It owns the current run (dictationRun.ts) and maps what
 * the run reports onto its state; notifications and the choice of the target document live beside it.
 */
import * as vscode from 'vscode';
import { toDictationError } from '../../client/errors';
import type { SessionState } from '../../client/session';
import type { Language } from '../../dictation';
import { redactKey } from '../../protocol/http';
import type { Announcer } from '../ui/announcer';
import type { ApiKeyStore } from '../apiKeyStore';
import type { DictatedChunks, DictationSetup } from '../editor/dictatedChunks';
import { DictationRun } from './dictationRun';
import type { LiveAudioSource } from '../../audio/capture';
import type { RunOutcome, RunServices } from './runTypes';
import { sourceForLog, type RunSource } from './runCapture';
import type { FieldWarnings } from '../templates/fieldWarnings';
import type { Log } from '../log';
import { LastSentence } from '../editor/lastSentence';
import type { Notifications } from './notifications';
import { ProvisionalDecoration } from '../editor/provisionalDecoration';
import type { Settings } from '../settings';
import type { DicteeSettings } from '../settingsMap';
import type { StatusBar } from '../ui/statusBar';
import type { DictationState } from '../ui/statusText';
import type { ProofreadingServices } from '../proofreading/runHooks';
import { sourceFailedCause } from './errorText';
import { docName, pickTarget, type DictationTarget } from './target';
import type { TemplateStore } from '../templates/templateStore';

/** How long deactivation waits for a graceful stop before closing the connection. */
const SHUTDOWN_STOP_MS = 2500;

/** What the controller is built from (by the composition root, container.ts). */
interface DictationControllerOptions {
  readonly settings: Settings;
  readonly keys: ApiKeyStore;
  readonly log: Log;
  readonly status: StatusBar;
  readonly templates: TemplateStore;
  readonly fields: FieldWarnings;
  readonly announcer: Announcer;
  readonly notifications: Notifications;
  /** Where the text of a run goes when no document can be opened for it (the extension's own storage). */
  readonly rescueDir: vscode.Uri;
  /** Doubtful words, Correct That, Play Back: handed to each run. */
  readonly proofreading: ProofreadingServices;
}

/**
 * A live run about to start: a listener of `onWillChooseSource` (the capture page, browserPage.ts) may
 * offer its own source instead of the recorder, with the run's settings for it.
 */
export interface SourceChoice {
  readonly settings: DicteeSettings;
  offer(choice: { source: LiveAudioSource; settings: DicteeSettings }): void;
}

export class DictationController implements vscode.Disposable {
  private stateValue: DictationState = 'idle';
  private run: DictationRun | undefined;
  private runCounter = 0;
  private starting = false;
  /** Resume waits for the restarted recorder's first audio: until then the status stays "paused". */
  private resuming = false;
  private readonly decoration = new ProvisionalDecoration();
  private readonly stateEmitter = new vscode.EventEmitter<DictationState>();
  /** Fires at every change of state. */
  readonly onDidChangeState = this.stateEmitter.event;
  readonly notifications: Notifications;
  private readonly listeners: vscode.Disposable[] = [];
  /** Settings problems already told (each once per window). */
  private readonly told = new Set<string>();
  /** The last dictated text of this window, where it stands in its document (for "Read Last Dictated Sentence"). */
  readonly lastSentence = new LastSentence();
  private readonly sourceEmitter = new vscode.EventEmitter<SourceChoice>();
  /** Fires as a live run from the microphone is about to start: a listener may offer another source. */
  readonly onWillChooseSource = this.sourceEmitter.event;
  private readonly settings: Settings;
  private readonly keys: ApiKeyStore;
  private readonly log: Log;
  private readonly status: StatusBar;
  private readonly templates: TemplateStore;
  private readonly fields: FieldWarnings;
  private readonly announcer: Announcer;
  /** What every run is given (read-only). */
  private readonly services: RunServices;

  constructor(options: DictationControllerOptions) {
    const { templates } = options;
    this.settings = options.settings;
    this.keys = options.keys;
    this.log = options.log;
    this.status = options.status;
    this.templates = templates;
    this.fields = options.fields;
    this.announcer = options.announcer;
    this.notifications = options.notifications;
    this.services = {
      status: options.status,
      notifications: this.notifications,
      decoration: this.decoration,
      proofreading: options.proofreading,
      rescueDir: options.rescueDir,
    };
    void vscode.commands.executeCommand('setContext', 'dictee.state', 'idle');
    // New or changed templates are there for the run going on.
    this.listeners.push(templates.onDidChange(() => this.run?.dictation?.setOptions({ templates: templates.all() })));
  }

  /** The grammar writer of the run that dictates into `doc`, if one does. */
  dictationIn(doc: vscode.TextDocument): DictatedChunks | undefined {
    const run = this.run;
    return run && !run.isEnding && run.document.uri.toString() === doc.uri.toString() ? run.dictation : undefined;
  }

  /** The language dictated in: the run's, else the settings'. */
  language(): Language {
    return this.run?.settings.language ?? this.settings.read().language;
  }

  /** Tells each problem of the settings once (the log has them every time). */
  tellSettingsProblems(settings: DicteeSettings): void {
    for (const p of settings.grammar.problems) {
      this.log.warn(`settings: ${p}`);
      if (this.told.has(p)) continue;
      this.told.add(p);
      this.notifications.settingsProblem(p);
    }
  }

  get state(): DictationState {
    return this.stateValue;
  }

  /** The current run writes from a file (pause does not apply). */
  get isFileRun(): boolean {
    return this.run?.source.kind === 'file';
  }

  private setState(state: DictationState): void {
    if (state === this.stateValue) return;
    const before = this.stateValue;
    this.stateValue = state;
    this.log.info(`state: ${state}`);
    void vscode.commands.executeCommand('setContext', 'dictee.state', state);
    this.status.update({ state });
    this.announcer.stateChanged(before, state, this.isFileRun);
    this.stateEmitter.fire(state);
  }

  async toggle(): Promise<void> {
    if (this.stateValue === 'idle') await this.start();
    else if (this.stateValue === 'paused') await this.resume();
    else if (this.stateValue !== 'stopping') await this.stop();
  }

  /** Starts a run at the cursor of the active editor (or in a new untitled document). Resolves once it runs (or failed to start). */
  async start(source: RunSource = { kind: 'microphone' }): Promise<DictationRun | undefined> {
    if (this.stateValue !== 'idle' || this.starting) {
      this.log.info(`start ignored: dictation is ${this.starting ? 'starting' : this.stateValue}`);
      return undefined;
    }
    this.starting = true;
    try {
      return await this.startRun(source);
    } finally {
      this.starting = false;
    }
  }

  private async startRun(source: RunSource): Promise<DictationRun | undefined> {
    let settings = this.settings.read();
    let key = await this.keys.get();
    if (!key) {
      this.log.info('no API key stored: asking for one');
      key = await this.keys.promptAndStore(settings.serverUrl);
      if (!key) {
        this.notifications.needsKey();
        return undefined;
      }
    }
    const target = await pickTarget(this.log);
    if (!target) return undefined;
    this.tellSettingsProblems(settings);
    const dictation = settings.grammar.enabled ? await this.dictationSetup(settings, target) : undefined;
    // The capture page records instead of the recorder where the settings (or `auto`) choose it.
    const page = source.kind === 'microphone' && !source.browser ? this.offeredSource(settings) : undefined;
    if (page) {
      source = { kind: 'microphone', browser: page.source };
      settings = page.settings;
    }
    let run: DictationRun;
    try {
      run = new DictationRun(++this.runCounter, settings, key, target, this.log, this.services, source, dictation);
    } catch (e) {
      const err = toDictationError(e);
      this.log.error(`dictation cannot start: ${err.code}: ${err.message}`);
      this.notifications.runFailed(
        err,
        { serverUrl: settings.serverUrl, language: settings.language, sampleRate: settings.sampleRate },
        key,
      );
      return undefined;
    }
    this.run = run;
    this.follow(run);
    this.status.update({
      state: 'connecting',
      target: docName(target.doc),
      error: undefined,
      device: settings.device,
      file: source.kind === 'file' ? source.path.slice(source.path.replace(/\\/g, '/').lastIndexOf('/') + 1) : undefined,
    });
    void vscode.commands.executeCommand('setContext', 'dictee.fileRun', source.kind === 'file');
    this.setState('connecting');
    // Never the document's name or the file's: the log carries ids, counts and timings only.
    run.log.info(
      `run ${run.id}: dictating from ${source.kind === 'file' ? `an audio file${source.seconds ? ` (${source.seconds.toFixed(1)} s)` : ''}` : 'the microphone'} at offset ${target.anchor}${target.selectionLength ? ` (replacing a ${target.selectionLength}-character selection)` : ''}; service ${settings.serverUrl}, key ${redactKey(key)}, ${settings.language}${settings.languageAuto ? ' (auto)' : ''}/${settings.specialty}/${settings.preset}, ${settings.sampleRate} Hz, ${sourceForLog(source, settings)}; dictation grammar ${dictation ? 'on' : 'off'}`,
    );
    await run.start();
    return run;
  }

  /** What a listener of `onWillChooseSource` offers instead of the recorder (the first offer), if any. */
  private offeredSource(settings: DicteeSettings): { source: LiveAudioSource; settings: DicteeSettings } | undefined {
    let offered: { source: LiveAudioSource; settings: DicteeSettings } | undefined;
    this.sourceEmitter.fire({ settings, offer: (c) => void (offered ??= c) });
    return offered;
  }

  /** The controller subscribes to what its run tells (until the run has ended: the run drops its listeners then). */
  private follow(run: DictationRun): void {
    run.on('state', (s) => this.sessionState(run, s));
    run.on('ending', () => this.ending(run));
    run.on('engine', (e) => this.engine(run, e));
    run.on('committed', (text) => this.committed(run, text));
    run.on('lastWritten', ({ start, end }) => this.lastWritten(run, start, end));
    run.on('ended', (outcome) => this.ended(run, outcome));
  }

  /** The grammar of a run: its options from the settings and the templates, and what its commands need. */
  private async dictationSetup(settings: DicteeSettings, target: DictationTarget): Promise<DictationSetup> {
    await this.templates.load(settings.grammar.templatesFolder);
    this.fields.watch(target.doc);
    const g = settings.grammar;
    return {
      options: {
        language: settings.language,
        specialty: settings.specialty,
        vocabulary: g.vocabulary[settings.language],
        templates: this.templates.all(),
        ...(g.decimalSeparator ? { decimalSeparator: g.decimalSeparator } : {}),
      },
      l10n: vscode.l10n,
      ui: {
        stop: () => void this.stop(),
        whatCanISay: () => void vscode.commands.executeCommand('dictee.whatCanISay'),
        tell: (message) => this.notifications.dictationNote(message),
        templateInserted: () => this.fields.watch(target.doc),
      },
    };
  }

  async pause(): Promise<void> {
    const run = this.run;
    if (!run || this.stateValue !== 'recording' || run.source.kind === 'file') return;
    await run.pause();
    if (this.run === run && !run.isEnding) this.setState('paused');
  }

  async resume(): Promise<void> {
    const run = this.run;
    if (!run || this.stateValue !== 'paused' || this.resuming) return;
    this.resuming = true;
    try {
      if (!(await run.resume())) return;
    } finally {
      this.resuming = false;
    }
    // What the session said meanwhile ("recording", or "connecting" for a connection lost during the wait).
    if (this.run === run && !run.isEnding) this.sessionState(run, run.session.state);
  }

  async stop(): Promise<void> {
    await this.run?.end('stopped by the user');
  }

  /** "Scratch that" given otherwise than said (a dictation microphone's button): the run's last utterance is deleted. */
  async scratchThat(): Promise<void> {
    const run = this.run;
    const dictation = run && !run.isEnding ? run.dictation : undefined;
    if (!dictation) {
      this.notifications.dictationNote(vscode.l10n.t('Nothing dictated is left to delete.'));
      return;
    }
    await dictation.scratchThat();
  }

  // ------------------------------------------------------------------ what the run reports

  private sessionState(run: DictationRun, s: SessionState): void {
    if (this.run !== run) return;
    switch (s) {
      case 'connecting':
        this.setState('connecting');
        break;
      case 'recording':
      case 'paused':
        // The session resumes before the recorder has started again: "recording" only once it records.
        if (this.stateValue !== 'stopping' && !(s === 'recording' && this.resuming)) this.setState(s);
        break;
      case 'stopping':
        this.setState('stopping');
        break;
      default:
        break;
    }
  }

  private ending(run: DictationRun): void {
    // A file sent to its end is still being transcribed (the service writes its last words): not "stopping".
    this.status.update({ finishing: run.source.kind === 'file' && run.fileSent });
    this.setState('stopping');
  }

  private engine(run: DictationRun, engine: string): void {
    if (this.run !== run) return;
    this.status.update({ engine });
    if (engine === 'simulated') this.notifications.simulatedEngine(run.settings.serverUrl);
  }

  private committed(run: DictationRun, text: string): void {
    if (run.settings.announceSentences) this.announcer.sentence(text.trim());
  }

  private lastWritten(run: DictationRun, start: number, end: number): void {
    this.lastSentence.written(run.document, start, end);
  }

  ended(run: DictationRun, { fatal, recorderFailed, wasConnected }: RunOutcome): void {
    if (this.run === run) this.run = undefined;
    let told = recorderFailed ? sourceFailedCause(vscode.l10n, recorderFailed) : undefined;
    if (fatal) {
      // A file is not started again by "Retry": its first part may already be in the document.
      const retry = run.source.kind === 'microphone' ? () => void this.start() : undefined;
      const ctx = { serverUrl: run.settings.serverUrl, wasConnected, language: run.settings.language, sampleRate: run.settings.sampleRate };
      // The status says the cause, as the notification does (not "stopped after an error" twice).
      told = this.notifications.runFailed(fatal, ctx, run.key, retry);
    }
    this.status.update({ reconnecting: false, retryInS: undefined, muted: false, noAudio: false, error: told });
    this.setState('idle');
    if (run.dictation) this.fields.runEnded(run.document);
  }

  // ------------------------------------------------------------------ teardown

  /** Deactivation: kill the recorder, give the service a short chance to finish, close the connection. */
  async shutdown(): Promise<void> {
    await this.run?.shutdown(SHUTDOWN_STOP_MS);
  }

  dispose(): void {
    this.run?.dispose();
    this.run = undefined;
    this.decoration.dispose();
    this.lastSentence.dispose();
    for (const l of this.listeners) l.dispose();
    this.stateEmitter.dispose();
    this.sourceEmitter.dispose();
  }
}
