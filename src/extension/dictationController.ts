/**
 * The state machine of dictation (`idle | connecting | recording | paused | stopping`, mirrored in the
 * `dictee.state` context key) and its commands. It owns the current run (dictationRun.ts) and maps what
 * the run reports onto its state; notifications and the choice of the target document live beside it.
 */
import * as vscode from 'vscode';
import { toDictationError } from '../client/errors';
import type { SessionState } from '../client/session';
import type { Language } from '../dictation';
import { redactKey } from '../protocol/http';
import type { ApiKeyStore } from './apiKeyStore';
import type { DictatedChunks, DictationSetup } from './dictatedChunks';
import { DictationRun, type RunHost, type RunOutcome } from './dictationRun';
import type { FieldWarnings } from './fieldWarnings';
import type { Log } from './log';
import { Notifications } from './notifications';
import { ProvisionalDecoration } from './provisionalDecoration';
import type { Settings } from './settings';
import type { DicteeSettings } from './settingsMap';
import type { StatusBar } from './statusBar';
import type { DictationState } from './statusText';
import { docName, pickTarget, type DictationTarget } from './target';
import type { TemplateStore } from './templateStore';

/** How long deactivation waits for a graceful stop before closing the connection. */
const SHUTDOWN_STOP_MS = 2500;

export class DictationController implements vscode.Disposable, RunHost {
  private stateValue: DictationState = 'idle';
  private run: DictationRun | undefined;
  private runCounter = 0;
  private starting = false;
  private readonly decoration = new ProvisionalDecoration();
  readonly notifications: Notifications;
  private readonly listeners: vscode.Disposable[] = [];
  /** Settings problems already told (each once per window). */
  private readonly told = new Set<string>();

  constructor(
    private readonly settings: Settings,
    private readonly keys: ApiKeyStore,
    private readonly log: Log,
    readonly status: StatusBar,
    private readonly templates: TemplateStore,
    private readonly fields: FieldWarnings,
  ) {
    this.notifications = new Notifications(() => log.show());
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

  private setState(state: DictationState): void {
    if (state === this.stateValue) return;
    this.stateValue = state;
    this.log.info(`state: ${state}`);
    void vscode.commands.executeCommand('setContext', 'dictee.state', state);
    this.status.update({ state });
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
        this.notifications.needsKey();
        return;
      }
    }
    const target = await pickTarget(this.log);
    if (!target) return;
    this.tellSettingsProblems(settings);
    const dictation = settings.grammar.enabled ? await this.dictationSetup(settings, target) : undefined;
    let run: DictationRun;
    try {
      run = new DictationRun(++this.runCounter, settings, key, target, this.log, this.decoration, this, dictation);
    } catch (e) {
      const err = toDictationError(e);
      this.log.error(`dictation cannot start: ${err.code}: ${err.message}`);
      this.notifications.runFailed(err, settings.serverUrl, key);
      return;
    }
    this.run = run;
    this.status.update({ state: 'connecting', target: docName(target.doc), error: undefined });
    this.setState('connecting');
    run.log.info(
      `run ${run.id}: dictating into ${target.doc.uri.toString(true)} at offset ${target.anchor}${target.selectionLength ? ` (replacing a ${target.selectionLength}-character selection)` : ''}; service ${settings.serverUrl}, key ${redactKey(key)}, ${settings.language}/${settings.specialty}/${settings.preset}, ${settings.sampleRate} Hz, recorder ${settings.recorder}${settings.device ? ` device ${settings.device}` : ''}; dictation grammar ${dictation ? 'on' : 'off'}`,
    );
    await run.start();
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
      ui: {
        stop: () => void this.stop(),
        whatCanISay: () => void vscode.commands.executeCommand('dictee.whatCanISay'),
        tell: (message) => this.notifications.dictationNote(message),
        templateInserted: (doc) => this.fields.watch(doc),
      },
    };
  }

  async pause(): Promise<void> {
    const run = this.run;
    if (!run || this.stateValue !== 'recording') return;
    await run.pause();
    if (this.run === run && !run.isEnding) this.setState('paused');
  }

  async resume(): Promise<void> {
    const run = this.run;
    if (!run || this.stateValue !== 'paused') return;
    if (await run.resume()) this.setState('recording');
  }

  async stop(): Promise<void> {
    await this.run?.end('stopped by the user');
  }

  // ------------------------------------------------------------------ what the run reports

  sessionState(run: DictationRun, s: SessionState): void {
    if (this.run !== run) return;
    switch (s) {
      case 'connecting':
        this.setState('connecting');
        break;
      case 'recording':
      case 'paused':
        if (this.stateValue !== 'stopping') this.setState(s);
        break;
      case 'stopping':
        this.setState('stopping');
        break;
      default:
        break;
    }
  }

  ending(): void {
    this.setState('stopping');
  }

  ended(run: DictationRun, { fatal, recorderFailed }: RunOutcome): void {
    if (this.run === run) this.run = undefined;
    this.status.update({ reconnecting: false, retryInS: undefined, muted: false, error: fatal ? `${fatal.code}: ${fatal.message}`.slice(0, 200) : recorderFailed ? 'recorder failed' : undefined });
    this.setState('idle');
    if (fatal) this.notifications.runFailed(fatal, run.settings.serverUrl, run.key);
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
    for (const l of this.listeners) l.dispose();
  }
}
