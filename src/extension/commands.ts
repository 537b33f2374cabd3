/**
 * Every command of the extension and what it does, as one table keyed by `CommandId` (commandIds.ts),
 * and `registerCommand`, typed with it: a command package.json does not contribute (nor lists as
 * internal) cannot be registered, and tsc fails when a contributed one has no entry here.
 */
import * as vscode from 'vscode';
import type { Announcer } from './ui/announcer';
import type { ApiKeyStore } from './apiKeyStore';
import type { CheckReport } from './proofreading/checkReport';
import type { CommandId } from './commandIds';
import type { CorrectThat } from './proofreading/correctThat';
import type { DictationController } from './run/dictationController';
import type { DoubtfulWords } from './proofreading/doubtfulWords';
import type { Log } from './log';
import type { Notifications } from './run/notifications';
import type { PlayBack } from './proofreading/playBack';
import type { Settings } from './settings';
import type { TemplateCommands } from './templates/templateCommands';
import { checkRecorder, testMicrophone } from './run/microphoneTest';
import { chooseLanguage, selectMicrophone } from './ui/pickers';
import { transcribeAudioFile } from './run/fileTranscription';

// The arguments of a command are whatever its caller passed (a menu, a link, executeCommand).
type CommandHandler = (...args: any[]) => unknown;

/** The services the commands act on (the composition root, container.ts, has them all). */
export interface CommandServices {
  readonly extensionId: string;
  readonly settings: Settings;
  readonly log: Log;
  readonly keys: ApiKeyStore;
  readonly announcer: Announcer;
  readonly notifications: Notifications;
  readonly dictation: DictationController;
  readonly doubtful: DoubtfulWords;
  readonly correctThat: CorrectThat;
  readonly checkReport: CheckReport;
  readonly playBack: PlayBack;
  readonly templateCommands: TemplateCommands;
}

/** A document's address as a command argument: a Uri (quick fixes) or its string (hover links). */
function asUri(u: unknown): vscode.Uri {
  return u instanceof vscode.Uri ? u : vscode.Uri.parse(String(u));
}

/** What each command does. Nothing runs until a command is called: the services are reached then. */
export function commandTable(c: CommandServices): { readonly [K in CommandId]: CommandHandler } {
  return {
    'dictee.start': () => c.dictation.start(),
    'dictee.pause': () => c.dictation.pause(),
    'dictee.resume': () => c.dictation.resume(),
    'dictee.stop': () => c.dictation.stop(),
    'dictee.toggle': () => c.dictation.toggle(),
    'dictee.setApiKey': () => c.keys.promptAndStore(c.settings.read().serverUrl),
    'dictee.clearApiKey': () => c.keys.clear(),
    'dictee.showLog': () => c.log.show(),
    'dictee.selectMicrophone': () => selectMicrophone(c.settings, c.log),
    'dictee.chooseLanguage': () => chooseLanguage(c.settings),
    'dictee.checkRecorder': () => checkRecorder(c.settings, c.log),
    'dictee.testMicrophone': () => testMicrophone(c.settings, c.log, c.notifications),
    'dictee.transcribeFile': (uri?: unknown) => transcribeAudioFile(c.dictation, c.log, uri instanceof vscode.Uri ? uri : undefined),
    'dictee.scratchThat': () => c.dictation.scratchThat(),
    'dictee.readLastSentence': () => c.announcer.say(c.dictation.lastSentence.text(), true),
    'dictee.openWalkthrough': () =>
      vscode.commands.executeCommand('workbench.action.openWalkthrough', `${c.extensionId}#dictee.gettingStarted`, false),
    'dictee.correctThat': () => c.correctThat.correct(),
    'dictee.correctRange': (uri: unknown, start: number, end: number) => c.correctThat.correctRange(asUri(uri), start, end),
    'dictee.checkReport': () => c.checkReport.run(),
    'dictee.playBack': () => c.playBack.play(),
    'dictee.playRange': (uri: unknown, start: number, end: number) => c.playBack.playRange(asUri(uri), start, end),
    'dictee.nextDoubtfulWord': () => c.doubtful.go('next'),
    'dictee.previousDoubtfulWord': () => c.doubtful.go('previous'),
    'dictee.acceptDoubtfulWord': (id?: unknown) => c.doubtful.accept(typeof id === 'string' ? id : undefined),
    'dictee.insertTemplate': () => c.templateCommands.insertTemplate(),
    'dictee.nextField': () => c.templateCommands.field('next'),
    'dictee.previousField': () => c.templateCommands.field('previous'),
    'dictee.acceptDefaults': () => c.templateCommands.acceptDefaults(),
    'dictee.whatCanISay': () => c.templateCommands.whatCanISay(),
  };
}

/** `vscode.commands.registerCommand`, for the extension's own commands only. */
function registerCommand(id: CommandId, handler: CommandHandler): vscode.Disposable {
  return vscode.commands.registerCommand(id, handler);
}

/** Registers every command of the table. */
export function registerCommands(c: CommandServices): vscode.Disposable[] {
  const table = commandTable(c);
  return (Object.keys(table) as CommandId[]).map((id) => registerCommand(id, table[id]));
}
