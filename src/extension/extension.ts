/**
 * The composition root of the Dictée extension: builds each service, hands it to
 * `context.subscriptions`, registers the commands. Behaviour lives in the classes.
 */
import * as vscode from 'vscode';
import { ApiKeyStore } from './apiKeyStore';
import { DictationController } from './dictationController';
import { Log } from './log';
import { Settings } from './settings';
import { StatusBar } from './statusBar';

let controller: DictationController | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const log = new Log();
  const settings = new Settings();
  const keys = new ApiKeyStore(context.secrets, log);
  const keybinding = process.platform === 'darwin' ? '⌥⇧⌘D' : 'Ctrl+Alt+Shift+D';
  const status = new StatusBar(keybinding);
  const dictation = new DictationController(settings, keys, log, status);
  controller = dictation;

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
  );
  log.info(`Dictée ${String((context.extension.packageJSON as { version?: unknown }).version)} activated (service ${settings.read().serverUrl})`);
}

/** VS Code does not await `dispose`: the asynchronous teardown (recorder, connection) is returned here. */
export function deactivate(): Promise<void> | undefined {
  const c = controller;
  controller = undefined;
  return c?.shutdown();
}
