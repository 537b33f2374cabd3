/**
 * The `dictee.*` settings read through VS Code (settingsMap.ts and grammarSettings.ts make them typed
 * values, in plain Node).
 */
import * as vscode from 'vscode';
import { ADVANCED_FIELDS, normaliseSettings, type DicteeSettings } from './settingsMap';

/** Only what the user set (in any scope): `null` and unset values leave the choice to the preset. */
function userValue(c: vscode.WorkspaceConfiguration, key: string): unknown {
  const i = c.inspect(key);
  return i?.workspaceFolderValue ?? i?.workspaceValue ?? i?.globalValue;
}

/** The one typed reader of the `dictee.*` settings (read afresh at every start of dictation). */
export class Settings {
  read(): DicteeSettings {
    const c = vscode.workspace.getConfiguration('dictee');
    const raw: Record<string, unknown> = {
      serverUrl: c.get('serverUrl'),
      language: c.get('language'),
      uiLanguage: vscode.env.language,
      specialty: c.get('specialty'),
      preset: c.get('preset'),
      'advanced.sampleRate': userValue(c, 'advanced.sampleRate'),
      sampleRate: userValue(c, 'sampleRate'),
      'audio.recorder': c.get('audio.recorder'),
      'audio.device': c.get('audio.device'),
      'audio.source': c.get('audio.source'),
      mode: c.get('mode'),
      'pushToTalk.key': c.get('pushToTalk.key'),
      'dictationMicrophone.buttons': c.get('dictationMicrophone.buttons'),
      'grammar.enabled': c.get('grammar.enabled'),
      autoPunctuation: c.get('autoPunctuation'),
      'grammar.decimalSeparator': c.get('grammar.decimalSeparator'),
      vocabulary: c.get('vocabulary'),
      'templates.folder': c.get('templates.folder'),
      'accessibility.announceSentences': c.get('accessibility.announceSentences'),
      'proofreading.threshold': c.get('proofreading.threshold'),
    };
    // Advanced fields are sent only when the user set them, so that the preset's values apply otherwise.
    for (const key of Object.keys(ADVANCED_FIELDS)) {
      const v = userValue(c, `advanced.${key}`);
      if (v !== undefined && v !== null) raw[`advanced.${key}`] = v;
    }
    return normaliseSettings(raw, vscode.l10n);
  }
}
