/**
 * The composition root of the extension: every service built in one constructor, in dependency order
 * (each from those built before it: no setter, no closure over what comes later), the wiring between
 * them made by subscribing to their events, the commands registered (commands.ts), and everything
 * disposed in the reverse order of its making.
 */
import * as vscode from 'vscode';
import { Announcer } from './ui/announcer';
import { ApiKeyStore } from './apiKeyStore';
import { BrowserPage } from './run/browserPage';
import { CheckReport } from './proofreading/checkReport';
import { CorrectThat } from './proofreading/correctThat';
import { DictationController } from './run/dictationController';
import { DoubtfulWords } from './proofreading/doubtfulWords';
import { FieldWarnings } from './templates/fieldWarnings';
import { Log } from './log';
import { Notifications } from './run/notifications';
import { PLAYER_VIEW, PlayBack } from './proofreading/playBack';
import type { ProofreadingServices } from './proofreading/runHooks';
import { Settings } from './settings';
import { StatusBar } from './ui/statusBar';
import { TemplateCommands } from './templates/templateCommands';
import { TemplateStore } from './templates/templateStore';
import { ToggleKey } from './ui/keybindings';
import { cleartextRemote, grammarOptions } from './settingsMap';
import { registerCommands, type CommandServices } from './commands';

/** What the container reads of the extension's own package.json. */
interface Manifest {
  version?: unknown;
  contributes?: { keybindings?: { command: string; key: string; mac?: string }[]; configuration?: { properties?: object } };
}

export class Container implements vscode.Disposable, CommandServices {
  readonly extensionId: string;
  readonly status: StatusBar;
  readonly log: Log;
  readonly settings: Settings;
  readonly keys: ApiKeyStore;
  readonly announcer: Announcer;
  readonly notifications: Notifications;
  readonly templates: TemplateStore;
  readonly fields: FieldWarnings;
  readonly doubtful: DoubtfulWords;
  readonly correctThat: CorrectThat;
  readonly checkReport: CheckReport;
  readonly playBack: PlayBack;
  readonly proofreading: ProofreadingServices;
  readonly dictation: DictationController;
  readonly templateCommands: TemplateCommands;
  readonly browserPage: BrowserPage;
  readonly toggleKey: ToggleKey;
  /** Everything to dispose, in the order it was made (disposed in reverse). */
  private readonly disposables: vscode.Disposable[] = [];

  constructor(context: vscode.ExtensionContext) {
    const own = <T extends vscode.Disposable>(d: T): T => {
      this.disposables.push(d);
      return d;
    };
    this.extensionId = context.extension.id;
    const manifest = context.extension.packageJSON as Manifest;
    // The status-bar item first, in its neutral state: it is what a user looks for as the window opens.
    this.status = own(new StatusBar());
    this.log = own(new Log());
    this.settings = new Settings();
    this.keys = own(new ApiKeyStore(context.secrets, this.log, () => this.settings.read().serverUrl));
    this.announcer = own(new Announcer());
    this.notifications = new Notifications(() => this.log.show());
    this.templates = own(new TemplateStore(context.extensionUri, this.log, (m) => void vscode.window.showWarningMessage(`Dictée: ${m}`)));
    this.fields = own(new FieldWarnings());
    this.doubtful = own(new DoubtfulWords());
    const settings = this.settings;
    this.correctThat = own(new CorrectThat(this.doubtful, () => grammarOptions(settings.read())));
    this.checkReport = own(new CheckReport(this.doubtful));
    this.playBack = own(new PlayBack(this.doubtful, this.log));
    // The player, in the panel: kept while hidden, so that a Play Back does not wait for it to be made again.
    own(vscode.window.registerWebviewViewProvider(PLAYER_VIEW, this.playBack, { webviewOptions: { retainContextWhenHidden: true } }));
    this.proofreading = { doubtfulWords: this.doubtful, correctThat: this.correctThat, playBack: this.playBack };
    this.dictation = own(
      new DictationController({
        settings: this.settings,
        keys: this.keys,
        log: this.log,
        status: this.status,
        templates: this.templates,
        fields: this.fields,
        announcer: this.announcer,
        notifications: this.notifications,
        rescueDir: vscode.Uri.joinPath(context.globalStorageUri, 'rescued'),
        proofreading: this.proofreading,
      }),
    );
    this.templateCommands = new TemplateCommands(this.dictation, this.templates, this.fields);
    // "Next Field" of a fields-left warning goes to the field in the warning's document.
    own(this.fields.onDidChooseNextField((doc) => void this.templateCommands.field('next', doc)));
    // The capture page subscribes to the controller: its state, and the choice of a live run's source.
    this.browserPage = own(new BrowserPage(this.dictation, this.log, context.asAbsolutePath('dist/dictation_support.js')));
    const defaultBinding = manifest.contributes?.keybindings?.find((k) => k.command === 'dictee.toggle');
    this.toggleKey = own(
      new ToggleKey(
        context.globalStorageUri,
        process.platform === 'darwin' ? (defaultBinding?.mac ?? defaultBinding?.key) : defaultBinding?.key,
      ),
    );
    const showKey = (k: string | undefined): void => this.status.update({ keybinding: k });
    own(this.toggleKey.onDidChange(showKey));
    const settingNames = Object.keys(manifest.contributes?.configuration?.properties ?? {});
    own(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!e.affectsConfiguration('dictee')) return;
        // The names only, never the values.
        this.log.info(`settings: changed ${settingNames.filter((n) => e.affectsConfiguration(n)).join(', ') || 'dictee'}`);
        this.showSettings();
        if (e.affectsConfiguration('dictee.serverUrl')) {
          this.warnIfCleartext();
          void this.keys.showHasKey(); // keys are per service address
        }
        if (e.affectsConfiguration('dictee.templates.folder')) void this.templates.load(this.settings.read().grammar.templatesFolder);
      }),
    );
    for (const d of registerCommands(this)) own(d);

    void this.templates.load(this.settings.read().grammar.templatesFolder);
    this.showSettings();
    void this.toggleKey.read().then(showKey);
    this.warnIfCleartext();
  }

  /** The language, specialty and (while idle) microphone of the settings, in the status bar. */
  private showSettings(): void {
    const s = this.settings.read();
    this.status.setLanguage(s.language, s.specialty, s.languageAuto);
    if (this.dictation.state === 'idle') this.status.update({ device: s.device });
  }

  /** `dictee.serverUrl` with http:// or ws:// to another machine: the key and the audio would travel in clear. */
  private warnIfCleartext(): void {
    const url = this.settings.read().serverUrl;
    if (!cleartextRemote(url)) return;
    void vscode.window
      .showWarningMessage(
        vscode.l10n.t(
          'Dictée: the server address {0} is not encrypted (http://) and not on this machine: your API key and your dictation would travel in clear over the network. Use an https:// address.',
          url,
        ),
        vscode.l10n.t('Open Settings'),
      )
      .then((c) => c && vscode.commands.executeCommand('workbench.action.openSettings', 'dictee.serverUrl'));
  }

  /** Deactivation: the asynchronous teardown of dictation (recorder, connection), which VS Code awaits. */
  shutdown(): Promise<void> {
    return this.dictation.shutdown();
  }

  /** Everything, in the reverse order of its making (the commands first, the status-bar item last). */
  dispose(): void {
    for (const d of this.disposables.splice(0).reverse()) {
      try {
        d.dispose();
      } catch (e) {
        console.error('Dictée: a service failed to dispose', e);
      }
    }
  }
}
