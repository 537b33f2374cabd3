/**
 * The composition root of the Dictée extension: builds each service, hands it to
 * `context.subscriptions`, registers the commands. Behaviour lives in the classes.
 */
import * as vscode from 'vscode';
import { Announcer } from './ui/announcer';
import { BrowserPage } from './run/browserPage';
import { ApiKeyStore } from './apiKeyStore';
import { DictationController } from './run/dictationController';
import { DoubtfulWords } from './proofreading/doubtfulWords';
import { CorrectThat } from './proofreading/correctThat';
import { CheckReport } from './proofreading/checkReport';
import { PLAYER_VIEW, PlayBack } from './proofreading/playBack';
import { FieldWarnings } from './templates/fieldWarnings';
import { transcribeAudioFile } from './run/fileTranscription';
import { ToggleKey } from './ui/keybindings';
import { Log } from './log';
import { checkRecorder, testMicrophone } from './run/microphoneTest';
import { chooseLanguage, selectMicrophone } from './ui/pickers';
import { Settings } from './settings';
import { cleartextRemote, grammarOptions } from './settingsMap';
import { StatusBar } from './ui/statusBar';
import { TemplateCommands } from './templates/templateCommands';
import { TemplateStore } from './templates/templateStore';

let controller: DictationController | undefined;

/** `dictee.serverUrl` with http:// or ws:// to another machine: the key and the audio would travel in clear. */
function warnIfCleartext(settings: Settings): void {
  const url = settings.read().serverUrl;
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

/** A document's address as a command argument: a Uri (quick fixes) or its string (hover links). */
function asUri(u: unknown): vscode.Uri {
  return u instanceof vscode.Uri ? u : vscode.Uri.parse(String(u));
}

export function activate(context: vscode.ExtensionContext): void {
  const began = performance.now();
  // The status-bar item first, in its neutral state: it is what a user looks for as the window opens.
  const status = new StatusBar();
  const log = new Log();
  const settings = new Settings();
  const keys = new ApiKeyStore(context.secrets, log, () => settings.read().serverUrl);
  const announcer = new Announcer();
  const templates = new TemplateStore(context.extensionUri, log, (m) => void vscode.window.showWarningMessage(`Dictée: ${m}`));
  // "Next Field" of a fields-left warning is the command's (created just below, called later).
  const fields: FieldWarnings = new FieldWarnings((doc): Promise<void> => templateCommands.field('next', doc));
  const doubtful = new DoubtfulWords();
  const correctThat = new CorrectThat(doubtful, () => grammarOptions(settings.read()));
  const checkReport = new CheckReport(doubtful);
  const playBack = new PlayBack(doubtful, log);
  const dictation = new DictationController(
    settings,
    keys,
    log,
    status,
    templates,
    fields,
    announcer,
    vscode.Uri.joinPath(context.globalStorageUri, 'rescued'),
    doubtful,
    correctThat,
    playBack,
  );
  const templateCommands = new TemplateCommands(dictation, templates, fields);
  const browserPage = new BrowserPage(dictation, log, context.asAbsolutePath('dist/dictation_support.js'));
  dictation.browserPage = browserPage;
  const manifest = context.extension.packageJSON as {
    version?: unknown;
    contributes?: { keybindings?: { command: string; key: string; mac?: string }[] };
  };
  const defaultBinding = manifest.contributes?.keybindings?.find((k) => k.command === 'dictee.toggle');
  const toggleKey = new ToggleKey(
    context.globalStorageUri,
    process.platform === 'darwin' ? (defaultBinding?.mac ?? defaultBinding?.key) : defaultBinding?.key,
  );
  controller = dictation;
  void templates.load(settings.read().grammar.templatesFolder);

  const showSettings = (): void => {
    const s = settings.read();
    status.setLanguage(s.language, s.specialty, s.languageAuto);
    if (dictation.state === 'idle') status.update({ device: s.device });
  };
  showSettings();
  const showKey = (k: string | undefined): void => status.update({ keybinding: k });
  void toggleKey.read().then(showKey);
  warnIfCleartext(settings);

  context.subscriptions.push(
    log,
    keys,
    status,
    announcer,
    dictation,
    browserPage,
    toggleKey,
    toggleKey.onDidChange(showKey),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('dictee')) showSettings();
      if (e.affectsConfiguration('dictee.serverUrl')) {
        warnIfCleartext(settings);
        void keys.showHasKey(); // keys are per service address
      }
    }),
    vscode.commands.registerCommand('dictee.start', () => dictation.start()),
    vscode.commands.registerCommand('dictee.pause', () => dictation.pause()),
    vscode.commands.registerCommand('dictee.resume', () => dictation.resume()),
    vscode.commands.registerCommand('dictee.stop', () => dictation.stop()),
    vscode.commands.registerCommand('dictee.toggle', () => dictation.toggle()),
    vscode.commands.registerCommand('dictee.setApiKey', () => keys.promptAndStore(settings.read().serverUrl)),
    vscode.commands.registerCommand('dictee.clearApiKey', () => keys.clear()),
    vscode.commands.registerCommand('dictee.showLog', () => log.show()),
    vscode.commands.registerCommand('dictee.selectMicrophone', () => selectMicrophone(settings, log)),
    vscode.commands.registerCommand('dictee.chooseLanguage', () => chooseLanguage(settings)),
    vscode.commands.registerCommand('dictee.checkRecorder', () => checkRecorder(settings, log)),
    vscode.commands.registerCommand('dictee.testMicrophone', () => testMicrophone(settings, log, dictation.notifications)),
    vscode.commands.registerCommand('dictee.transcribeFile', (uri?: vscode.Uri) =>
      transcribeAudioFile(dictation, log, uri instanceof vscode.Uri ? uri : undefined),
    ),
    vscode.commands.registerCommand('dictee.scratchThat', () => dictation.scratchThat()),
    vscode.commands.registerCommand('dictee.readLastSentence', () => announcer.say(dictation.lastSentence.text(), true)),
    vscode.commands.registerCommand('dictee.openWalkthrough', () =>
      vscode.commands.executeCommand('workbench.action.openWalkthrough', `${context.extension.id}#dictee.gettingStarted`, false),
    ),
    templates,
    fields,
    doubtful,
    correctThat,
    vscode.commands.registerCommand('dictee.correctThat', () => correctThat.correct()),
    // The quick fix of a doubtful word (not in the command palette).
    vscode.commands.registerCommand('dictee.correctRange', (uri: unknown, start: number, end: number) =>
      correctThat.correctRange(asUri(uri), start, end),
    ),
    checkReport,
    vscode.commands.registerCommand('dictee.checkReport', () => checkReport.run()),
    playBack,
    // The player, in the panel: kept while hidden, so that a Play Back does not wait for it to be made again.
    vscode.window.registerWebviewViewProvider(PLAYER_VIEW, playBack, { webviewOptions: { retainContextWhenHidden: true } }),
    vscode.commands.registerCommand('dictee.playBack', () => playBack.play()),
    // The quick fix and hover of a doubtful word (not in the command palette).
    vscode.commands.registerCommand('dictee.playRange', (uri: unknown, start: number, end: number) =>
      playBack.playRange(asUri(uri), start, end),
    ),
    vscode.commands.registerCommand('dictee.nextDoubtfulWord', () => doubtful.go('next')),
    vscode.commands.registerCommand('dictee.previousDoubtfulWord', () => doubtful.go('previous')),
    vscode.commands.registerCommand('dictee.acceptDoubtfulWord', (id?: unknown) =>
      doubtful.accept(typeof id === 'string' ? id : undefined),
    ),
    vscode.commands.registerCommand('dictee.insertTemplate', () => templateCommands.insertTemplate()),
    vscode.commands.registerCommand('dictee.nextField', () => templateCommands.field('next')),
    vscode.commands.registerCommand('dictee.previousField', () => templateCommands.field('previous')),
    vscode.commands.registerCommand('dictee.acceptDefaults', () => templateCommands.acceptDefaults()),
    vscode.commands.registerCommand('dictee.whatCanISay', () => templateCommands.whatCanISay()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('dictee.templates.folder')) void templates.load(settings.read().grammar.templatesFolder);
    }),
  );
  log.info(
    `Dictée ${String(manifest.version)} activated in ${Math.round(performance.now() - began)} ms (service ${settings.read().serverUrl}, display language ${vscode.env.language})`,
  );
}

/** VS Code does not await `dispose`: the asynchronous teardown (recorder, connection) is returned here. */
export function deactivate(): Promise<void> | undefined {
  const c = controller;
  controller = undefined;
  return c?.shutdown();
}
