import * as vscode from 'vscode';
import { type StatusInfo, statusView, TOOLTIP_COMMANDS } from './statusText';

/**
 * The one status-bar item (id `dictee.status`): the state at a glance, click toggles dictation, the
 * tooltip links to pause, resume and stop. Ticks once a second while recording to show elapsed time.
 */
export class StatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private info: StatusInfo = { state: 'idle', elapsedMs: 0 };
  private elapsedBase = 0;
  private runningSince: number | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly keybinding: string) {
    this.item = vscode.window.createStatusBarItem('dictee.status', vscode.StatusBarAlignment.Right, 1000);
    this.item.name = 'Dictée';
    this.item.command = 'dictee.toggle';
    this.render();
    this.item.show();
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
        this.info.reconnecting = false;
        this.info.retryInS = undefined;
      }
      if (patch.state === 'recording') this.runningSince = now;
    }
    if (this.info.state === 'recording' && !this.timer) {
      this.timer = setInterval(() => this.render(), 1000);
    } else if (this.info.state !== 'recording' && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
    this.render();
  }

  private render(): void {
    const elapsedMs = this.elapsedBase + (this.runningSince !== undefined ? Date.now() - this.runningSince : 0);
    const view = statusView({ ...this.info, elapsedMs, keybinding: this.keybinding });
    this.item.text = view.text;
    const tooltip = new vscode.MarkdownString(view.tooltip, true);
    tooltip.isTrusted = { enabledCommands: TOOLTIP_COMMANDS };
    this.item.tooltip = tooltip;
    this.item.accessibilityInformation = { label: view.accessibilityLabel, role: 'button' };
    this.item.backgroundColor = view.warning ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    this.item.dispose();
  }
}
