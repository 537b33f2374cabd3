/**
 * What the language picker decides, pure (no `vscode`, tested in plain Node): the settings scope it writes
 * `dictee.language` / `dictee.specialty` into, and names (the one Settings shows the value in: never a
 * Remote copy hidden behind the User tab, never a User value a workspace value overrides); whether a
 * language the service does not serve needs the user's confirmation; and the status after the language
 * changed (the last run's error is about the old language: it goes).
 */
import type { Language } from '../../protocol/config';
import type { L10n } from '../l10nText';
import { type StatusInfo, serves } from './statusText';

/** Where a setting is written and shown: VS Code's User, Remote, Workspace or Folder settings. */
export type SettingScope = 'user' | 'remote' | 'workspace' | 'folder';

/** What `WorkspaceConfiguration.inspect` gives (VS Code also gives the User value split into local and remote). */
interface ScopeValues {
  globalValue?: unknown;
  globalLocalValue?: unknown;
  globalRemoteValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/**
 * Where the picker writes: the folder's or the workspace's settings when they set it (a User value would
 * be overridden by them, and change nothing), else the User settings. In a remote window VS Code writes a
 * "User" value into the Remote settings when they already hold one, which Settings' User tab does not
 * show (it shows the local value, "Also modified in Remote"): `clearRemote`, the Remote copy is removed
 * first, so that the value goes into the User settings, where the user looks.
 */
export function writeScope(i: ScopeValues | undefined, remoteWindow: boolean): { scope: SettingScope; clearRemote: boolean } {
  if (i?.workspaceFolderValue !== undefined) return { scope: 'folder', clearRemote: false };
  if (i?.workspaceValue !== undefined) return { scope: 'workspace', clearRemote: false };
  return { scope: 'user', clearRemote: remoteWindow && i?.globalRemoteValue !== undefined };
}

/** The scope whose value is in effect (what "Open Settings" shows): the most specific one that sets it. */
export function shownScope(i: ScopeValues | undefined, remoteWindow: boolean): SettingScope {
  if (i?.workspaceFolderValue !== undefined) return 'folder';
  if (i?.workspaceValue !== undefined) return 'workspace';
  if (remoteWindow && i?.globalRemoteValue !== undefined) return 'remote';
  return 'user';
}

/** The command that opens Settings on the tab of `scope` (each takes the search as its argument). */
export function settingsCommand(scope: SettingScope): string {
  switch (scope) {
    case 'user':
      return 'workbench.action.openGlobalSettings';
    case 'remote':
      return 'workbench.action.openRemoteSettings';
    case 'workspace':
      return 'workbench.action.openWorkspaceSettings';
    case 'folder':
      return 'workbench.action.openFolderSettings';
  }
}

/** The name of the scope, as Settings' tabs say it. */
export function scopeName(l10n: L10n, scope: SettingScope): string {
  switch (scope) {
    case 'user':
      return l10n.t('User settings');
    case 'remote':
      return l10n.t('Remote settings');
    case 'workspace':
      return l10n.t('Workspace settings');
    case 'folder':
      return l10n.t('Folder settings');
  }
}

/**
 * The warning a language the service does not serve gets before it is chosen (undefined: it serves it, or
 * does not say). `served`: the languages of `GET /healthz`; `name`: the language's name, `names`: theirs.
 */
export function unservedWarning(
  l10n: L10n,
  language: Language,
  name: string,
  served: readonly string[] | undefined,
  names: readonly string[],
): string | undefined {
  if (serves(served, language)) return undefined;
  return names.length > 0
    ? l10n.t(
        'The service does not take dictation in {0}: it takes {1}. Dictation in {0} will fail until the service serves it. Choose {0} anyway?',
        name,
        names.join(', '),
      )
    : l10n.t(
        'The service does not take dictation in {0}. Dictation in {0} will fail until the service serves it. Choose {0} anyway?',
        name,
      );
}

/** The status after the language or vocabulary changed while idle: the last run's error (about the old choice) goes. */
export function afterLanguageChange(info: StatusInfo, language: Language, changed: boolean): StatusInfo {
  if (!changed || info.state !== 'idle' || info.error === undefined) return { ...info, language };
  return { ...info, language, error: undefined };
}
