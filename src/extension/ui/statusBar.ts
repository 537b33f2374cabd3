/**
 * The status-bar items of Dictée: the state of dictation (with its tooltip, level and elapsed time)
 * and the language of the next run.
 */
import * as vscode from 'vscode';
import type { Language, Specialty } from '../../protocol/config';
import { afterLanguageChange } from './languageChoice';
import { languageView, type StatusColour, type StatusInfo, statusView, TOOLTIP_COMMANDS } from './statusText';

const COLOURS: Record<StatusColour, vscode.ThemeColor | undefined> = {
  none: undefined,
  // Status-bar items may only take these two background colours; recording is marked by its icon and words too.
  recording: new vscode.ThemeColor('statusBarItem.warningBackground'),
  warning: new vscode.ThemeColor('statusBarItem.warningBackground'),
  error: new vscode.ThemeColor('statusBarItem.errorBackground'),
};

/** How often the level meter and the elapsed time are redrawn while recording. */
const TICK_MS = 250;

/**
 * The two status-bar items: `dictee.status` (the state at a glance; a click starts, stops or resumes; the
 * tooltip links to pause, resume, stop, the microphone and the log) and `dictee.language` (the language
 * and vocabulary of the next run; a click changes them). Redrawn four times a second while recording,
 * for the elapsed time and the input level.
 */
export class StatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly languageItem: vscode.StatusBarItem;
  private info: StatusInfo = { state: 'idle', elapsedMs: 0 };
  private elapsedBase = 0;
  private runningSince: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastLabel = '';
  /** What the item shows now (text, tooltip, command, label, colour). */
  private lastShown = '';

  constructor() {
    this.item = vscode.window.createStatusBarItem('dictee.status', vscode.StatusBarAlignment.Right, 1000);
    this.item.name = 'Dictée';
    this.languageItem = vscode.window.createStatusBarItem('dictee.language', vscode.StatusBarAlignment.Right, 999);
    this.languageItem.name = vscode.l10n.t('Dictée: language');
    this.languageItem.command = 'dictee.chooseLanguage';
    this.render();
    this.item.show();
  }

  /** The current view (for announcements). */
  get state(): StatusInfo {
    return this.info;
  }

  /** Updates what is shown; `elapsed` bookkeeping follows the state (running only while recording). */
  update(patch: Partial<StatusInfo>): void {
    const before = this.info.state;
    this.info = { ...this.info, ...patch };
    const now = Date.now();
    if (patch.state && patch.state !== before) {
      if (before === 'recording' && this.runningSince !== undefined) {
        this.elapsedBase += now - this.runningSince;
        this.runningSince = undefined;
      }
      if (patch.state === 'connecting' && before === 'idle') {
        this.elapsedBase = 0;
        this.info.error = patch.error;
        this.info.muted = false;
        this.info.noAudio = false;
        this.info.reconnecting = false;
        this.info.retryInS = undefined;
        this.info.level = undefined;
      }
      if (patch.state === 'recording') this.runningSince = now;
      if (patch.state !== 'recording') this.info.level = undefined;
      if (patch.state === 'idle') {
        this.info.file = undefined;
        this.info.finishing = undefined;
      }
    }
    if (this.info.state === 'recording' && !this.timer) {
      this.timer = setInterval(() => this.render(), TICK_MS);
    } else if (this.info.state !== 'recording' && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
    this.render();
  }

  /** The input level (0–1), drawn at the next tick. */
  level(level: number): void {
    this.info.level = level;
  }

  /** The language item: the language and vocabulary the next run uses. */
  setLanguage(language: Language, specialty: Specialty, auto: boolean): void {
    // A new choice: the last run's error (its language refused, say) no longer holds.
    const changed = this.info.language !== undefined && (this.info.language !== language || this.info.specialty !== specialty);
    this.info = { ...afterLanguageChange(this.info, language, changed), specialty };
    const v = languageView(vscode.l10n, language, specialty, auto);
    this.languageItem.text = v.text;
    this.languageItem.tooltip = v.tooltip;
    this.languageItem.accessibilityInformation = { label: v.accessibilityLabel, role: 'button' };
    this.languageItem.show();
    this.render();
  }

  private render(): void {
    const elapsedMs = this.elapsedBase + (this.runningSince !== undefined ? Date.now() - this.runningSince : 0);
    const view = statusView(vscode.l10n, { ...this.info, elapsedMs });
    // Every assignment is a message to the editor's window, which lays the status bar out again: a tick
    // that changes nothing shown (the same second, the same level) sends nothing.
    const shown = `${view.text}\n${view.tooltip}\n${JSON.stringify(view.command)}\n${view.accessibilityLabel}\n${view.colour}`;
    if (shown === this.lastShown) return;
    this.lastShown = shown;
    this.item.text = view.text;
    // The tooltip is rebuilt only when its words change (not at every level tick), so that an open hover stays put.
    if (view.tooltip !== this.lastLabel) {
      this.lastLabel = view.tooltip;
      const tooltip = new vscode.MarkdownString(view.tooltip, true);
      tooltip.isTrusted = { enabledCommands: TOOLTIP_COMMANDS };
      this.item.tooltip = tooltip;
    }
    this.item.command = view.command;
    this.item.accessibilityInformation = { label: view.accessibilityLabel, role: 'button' };
    this.item.backgroundColor = COLOURS[view.colour];
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    this.item.dispose();
    this.languageItem.dispose();
  }
}
