/**
 * The composition root of the Dictée extension: builds each service, hands it to
 * `context.subscriptions`, registers the commands. Behaviour lives in the classes.
 */
import * as vscode from 'vscode';
import { ApiKeyStore } from './apiKeyStore';
import { DictationController } from './dictationController';
import { FieldWarnings } from './fieldWarnings';
import { Log } from './log';
import { Settings } from './settings';
import { StatusBar } from './statusBar';
import { TemplateCommands } from './templateCommands';
import { TemplateStore } from './templateStore';

let controller: DictationController | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const log = new Log();
  const settings = new Settings();
  const keys = new ApiKeyStore(context.secrets, log);
  const keybinding = process.platform === 'darwin' ? '⌥⇧⌘D' : 'Ctrl+Alt+Shift+D';
  const status = new StatusBar(keybinding);
  const templates = new TemplateStore(context.extensionUri, log, (m) => void vscode.window.showWarningMessage(`Dictée: ${m}`));
  // "Next Field" of a fields-left warning is the command's (created just below, called later).
  const fields: FieldWarnings = new FieldWarnings((doc): Promise<void> => templateCommands.field('next', doc));
  const dictation = new DictationController(settings, keys, log, status, templates, fields);
  const templateCommands = new TemplateCommands(dictation, templates, fields);
  controller = dictation;
  void templates.load(settings.read().grammar.templatesFolder);

  context.subscriptions.push(
    log,
    keys,
    status,
    dictation,
    vscode.commands.registerCommand('dictee.start', () => dictation.start()),
    vscode.commands.registerCommand('dictee.pause', () => dictation.pause()),
    vscode.commands.registerCommand('dictee.resume', () => dictation.resume()),
    vscode.commands.registerCommand('dictee.stop', () => dictation.stop()),
    vscode.commands.registerCommand('dictee.toggle', () => dictation.toggle()),
    vscode.commands.registerCommand('dictee.setApiKey', () => keys.promptAndStore(settings.read().serverUrl)),
    vscode.commands.registerCommand('dictee.clearApiKey', () => keys.clear()),
    vscode.commands.registerCommand('dictee.showLog', () => log.show()),
    templates,
    fields,
    vscode.commands.registerCommand('dictee.insertTemplate', () => templateCommands.insertTemplate()),
    vscode.commands.registerCommand('dictee.nextField', () => templateCommands.field('next')),
    vscode.commands.registerCommand('dictee.previousField', () => templateCommands.field('previous')),
    vscode.commands.registerCommand('dictee.acceptDefaults', () => templateCommands.acceptDefaults()),
    vscode.commands.registerCommand('dictee.whatCanISay', () => templateCommands.whatCanISay()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('dictee.templates.folder')) void templates.load(settings.read().grammar.templatesFolder);
    }),
  );
  log.info(`Dictée ${String((context.extension.packageJSON as { version?: unknown }).version)} activated (service ${settings.read().serverUrl})`);
}

/** VS Code does not await `dispose`: the asynchronous teardown (recorder, connection) is returned here. */
export function deactivate(): Promise<void> | undefined {
  const c = controller;
  controller = undefined;
  return c?.shutdown();
}
