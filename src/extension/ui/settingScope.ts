/**
 * Writing a `dictee.*` setting the user chose in a picker where Settings shows it, and opening Settings
 * on the tab whose value is in effect (the decisions are languageChoice.ts's, pure).
 */
import * as vscode from 'vscode';
import { type SettingScope, settingsCommand, shownScope, writeScope } from './languageChoice';

const remoteWindow = (): boolean => vscode.env.remoteName !== undefined;

/** Writes `dictee.<key>` = `value` in the scope Settings shows it in; returns that scope. */
export async function writeChoice(key: string, value: unknown): Promise<SettingScope> {
  const c = vscode.workspace.getConfiguration('dictee');
  const { scope, clearRemote } = writeScope(c.inspect(key), remoteWindow());
  // VS Code writes a User value into the Remote settings while they hold one: that copy goes first.
  if (clearRemote) await c.update(key, undefined, vscode.ConfigurationTarget.Global);
  const target =
    scope === 'folder'
      ? vscode.ConfigurationTarget.WorkspaceFolder
      : scope === 'workspace'
        ? vscode.ConfigurationTarget.Workspace
        : vscode.ConfigurationTarget.Global;
  await vscode.workspace.getConfiguration('dictee').update(key, value, target);
  return scope;
}

/** Settings, searched for `setting`, on the tab of the scope whose value is in effect (a search, not one setting: the User tab). */
export function openSettingWhereSet(setting: string): Thenable<unknown> {
  const scope = setting.startsWith('dictee.') ? shownScope(vscode.workspace.getConfiguration().inspect(setting), remoteWindow()) : 'user';
  return vscode.commands.executeCommand(settingsCommand(scope), setting);
}
