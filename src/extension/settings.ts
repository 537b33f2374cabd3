import * as vscode from 'vscode';
import { ADVANCED_FIELDS, type DicteeSettings, normaliseSettings } from './settingsMap';

/** The one typed reader of the `dictee.*` settings (read afresh at every start of dictation). */
export class Settings {
  read(): DicteeSettings {
    const c = vscode.workspace.getConfiguration('dictee');
    const raw: Record<string, unknown> = {
      serverUrl: c.get('serverUrl'),
      language: c.get('language'),
      specialty: c.get('specialty'),
      preset: c.get('preset'),
      sampleRate: c.get('sampleRate'),
      'audio.recorder': c.get('audio.recorder'),
      'audio.device': c.get('audio.device'),
      'grammar.enabled': c.get('grammar.enabled'),
      'grammar.decimalSeparator': c.get('grammar.decimalSeparator'),
      vocabulary: c.get('vocabulary'),
      'templates.folder': c.get('templates.folder'),
    };
    // Advanced fields are sent only when the user set them, so that the preset's values apply otherwise.
    for (const key of Object.keys(ADVANCED_FIELDS)) {
      const i = c.inspect(`advanced.${key}`);
      const v = i?.workspaceFolderValue ?? i?.workspaceValue ?? i?.globalValue;
      if (v !== undefined && v !== null) raw[`advanced.${key}`] = v;
    }
    return normaliseSettings(raw);
  }
}
