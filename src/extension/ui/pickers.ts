/**
 * The quick picks of Dictée: "Select Microphone" (the real input devices of this machine, the choice
 * stored in `dictee.audio.device`) and the language item's "Change Language" (language and vocabulary
 * of the next run, stored in `dictee.language` / `dictee.specialty`; a language the service says, in
 * `GET /healthz`, that it does not serve is marked).
 */
import * as vscode from 'vscode';
import { listInputDevices, type DeviceProblem } from '../../audio/devices';
import { servedLanguages } from '../../client/http';
import { LANGUAGES, SPECIALTIES, type Language, type Specialty } from '../../protocol/config';
import type { Logger } from '../../shared/logger';
import type { Settings } from '../settings';
import { languageForUi } from '../settingsMap';
import { scopeName, unservedWarning } from './languageChoice';
import { openSettingWhereSet, writeChoice } from './settingScope';
import { languageName, languageRowNote, specialtyName } from './statusText';

interface DeviceItem extends vscode.QuickPickItem {
  device?: string;
  typeIn?: boolean;
}

/** Shows the input devices; stores the one picked. Resolves with the device set ('' = system default), or undefined if cancelled. */
export async function selectMicrophone(settings: Settings, log: Logger): Promise<string | undefined> {
  const s = settings.read();
  const qp = vscode.window.createQuickPick<DeviceItem>();
  qp.title = vscode.l10n.t('Dictée: Select Microphone');
  qp.placeholder = vscode.l10n.t('The microphone to dictate with');
  qp.matchOnDetail = true;
  qp.busy = true;
  qp.show();
  const listing = await listInputDevices(s.recorder);
  log.info(`microphones: ${listing.devices.length} input devices found${listing.problem ? ` (${listing.problem})` : ''}`);
  const current = s.device;
  const check = (on: boolean): string => (on ? '$(check) ' : '');
  const items: DeviceItem[] = [
    {
      label: `${check(current === '')}${vscode.l10n.t('System default')}`,
      description: listing.devices.find((d) => d.isDefault)?.label,
      detail: vscode.l10n.t('Follows the default input of the system.'),
      device: '',
    },
  ];
  const mics = listing.devices.filter((d) => !d.isMonitor);
  const monitors = listing.devices.filter((d) => d.isMonitor);
  if (mics.length) items.push({ label: vscode.l10n.t('Microphones'), kind: vscode.QuickPickItemKind.Separator });
  for (const d of mics)
    items.push({
      label: `${check(current === d.id)}${d.label}`,
      description: d.isDefault ? vscode.l10n.t('default') : undefined,
      detail: d.id,
      device: d.id,
    });
  if (monitors.length) items.push({ label: vscode.l10n.t('What this machine plays (monitors)'), kind: vscode.QuickPickItemKind.Separator });
  for (const d of monitors)
    items.push({
      label: `${check(current === d.id)}${d.label}`,
      description: d.isDefault ? vscode.l10n.t('default') : undefined,
      detail: d.id,
      device: d.id,
    });
  items.push({ label: '', kind: vscode.QuickPickItemKind.Separator });
  items.push({
    label: `$(edit) ${vscode.l10n.t('Type a device name…')}`,
    detail: listing.problem && problemText(listing.problem),
    typeIn: true,
  });
  qp.items = items;
  qp.activeItems = items.filter((i) => i.device === current).slice(0, 1);
  qp.busy = false;
  const picked = await new Promise<DeviceItem | undefined>((resolve) => {
    qp.onDidAccept(() => resolve(qp.selectedItems[0]));
    qp.onDidHide(() => resolve(undefined));
  });
  qp.dispose();
  if (!picked) return undefined;
  let device = picked.device;
  if (picked.typeIn) {
    device = await vscode.window.showInputBox({
      title: vscode.l10n.t('Dictée: Select Microphone'),
      prompt: vscode.l10n.t('The device name as the recorder knows it (empty: the system default).'),
      value: current,
      ignoreFocusOut: true,
    });
    if (device === undefined) return undefined;
    device = device.trim();
  }
  if (device === undefined) return undefined;
  await vscode.workspace.getConfiguration('dictee').update('audio.device', device, vscode.ConfigurationTarget.Global);
  log.info(`microphone set to ${device || '(system default)'}`);
  return device;
}

interface LanguageItem extends vscode.QuickPickItem {
  language?: Language | 'auto';
  specialty?: Specialty;
}

/** Language and vocabulary of the next run, in one quick pick; a language the service says it does not serve is marked. */
export async function chooseLanguage(settings: Settings): Promise<void> {
  const s = settings.read();
  const check = (on: boolean): string => (on ? '$(check) ' : '');
  // What "the language of VS Code" is (the setting's `auto`).
  const auto = languageForUi(vscode.env.language);
  const servedNow = servedLanguages(s.serverUrl);
  const items = servedNow.then((served): LanguageItem[] => {
    return [
      { label: vscode.l10n.t('Language'), kind: vscode.QuickPickItemKind.Separator },
      {
        label: `${check(s.languageAuto)}${vscode.l10n.t('The language of VS Code')}`,
        description: languageRowNote(vscode.l10n, auto, languageName(vscode.l10n, auto), served),
        language: 'auto',
      },
      ...LANGUAGES.map((l) => ({
        label: `${check(!s.languageAuto && s.language === l)}${languageName(vscode.l10n, l)}`,
        description: languageRowNote(vscode.l10n, l, l, served),
        language: l,
      })),
      { label: vscode.l10n.t('Vocabulary'), kind: vscode.QuickPickItemKind.Separator },
      ...SPECIALTIES.map((sp) => ({ label: `${check(s.specialty === sp)}${specialtyName(vscode.l10n, sp)}`, specialty: sp })),
    ];
  });
  const picked = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('Dictée: language and vocabulary of the next dictation'),
  });
  if (!picked) return;
  if (picked.language) {
    // A language the service does not serve is chosen only once the user has read so.
    const language = picked.language === 'auto' ? auto : picked.language;
    const served = await servedNow;
    const name = languageName(vscode.l10n, language);
    const names = (served ?? [])
      .filter((l): l is Language => (LANGUAGES as readonly string[]).includes(l))
      .map((l) => languageName(vscode.l10n, l));
    const warning = unservedWarning(vscode.l10n, language, name, served, names);
    const anyway = vscode.l10n.t('Choose {0} Anyway', name);
    if (warning && (await vscode.window.showWarningMessage(warning, { modal: true }, anyway)) !== anyway) return;
    await saidWhere('language', picked.language, picked.language === 'auto' ? vscode.l10n.t('The language of VS Code') : name);
  }
  if (picked.specialty) await saidWhere('specialty', picked.specialty, specialtyName(vscode.l10n, picked.specialty));
}

/** Writes the choice where Settings shows it, and says where. */
async function saidWhere(key: 'language' | 'specialty', value: string, shown: string): Promise<void> {
  const scope = await writeChoice(key, value);
  const open = vscode.l10n.t('Open Settings');
  const message =
    key === 'language'
      ? vscode.l10n.t('Dictée: dictation language {0}, saved in your {1} (dictee.language).', shown, scopeName(vscode.l10n, scope))
      : vscode.l10n.t('Dictée: vocabulary {0}, saved in your {1} (dictee.specialty).', shown, scopeName(vscode.l10n, scope));
  if ((await vscode.window.showInformationMessage(message, open)) === open) await openSettingWhereSet(`dictee.${key}`);
}

/** Why no microphone is listed, in the user's words. */
function problemText(p: DeviceProblem): string {
  switch (p) {
    case 'arecordFailed':
      return vscode.l10n.t('arecord gave no list of devices.');
    case 'noPactl':
      return vscode.l10n.t('pactl is not installed (Debian, Ubuntu: sudo apt-get install pulseaudio-utils).');
    case 'noSoundServer':
      return vscode.l10n.t('No PulseAudio or PipeWire sound server answers.');
    case 'pactlFailed':
      return vscode.l10n.t('pactl could not list the microphones.');
    case 'systemProfilerFailed':
      return vscode.l10n.t('macOS gave no list of its microphones.');
    case 'noListOnThisSystem':
      return vscode.l10n.t('This system gives SoX no list of its microphones: type the device name.');
  }
}
