import * as vscode from 'vscode';
import type { DictationController } from './dictationController';
import { HoldDetector, type HoldEvent } from './holdDetector';
import type { Log } from './log';

/**
 * `dictee.mode: pushToTalk`: the dictation key records while it is held. Each keydown (the first and
 * every repeat of the held key) runs `dictee.pushToTalk`; holdDetector.ts tells press from release. A
 * press starts dictation (or resumes it); a release pauses it (the run stays open: Stop or Escape ends
 * it).
 */
export class PushToTalk implements vscode.Disposable {
  private readonly detector: HoldDetector;
  private readonly sub: vscode.Disposable;

  constructor(
    private readonly controller: DictationController,
    private readonly log: Log,
  ) {
    this.detector = new HoldDetector((e) => void this.on(e));
    this.sub = controller.onDidChangeState((s) => {
      if (s === 'idle') this.detector.reset();
    });
  }

  /** A keydown of the push-to-talk key. */
  key(): void {
    this.detector.key();
  }

  private async on(e: HoldEvent): Promise<void> {
    const state = this.controller.state;
    this.log.info(`push-to-talk: ${e} (dictation ${state}${e === 'release' ? `, after ${this.detector.gapMs} ms without a repeat; longest interval ${this.detector.longestIntervalMs} ms` : ''})`);
    if (e === 'press') {
      if (state === 'idle') await this.controller.start();
      else if (state === 'paused') await this.controller.resume();
    } else if (e === 'release' && (state === 'recording' || state === 'connecting')) {
      await this.controller.pause();
    }
  }

  dispose(): void {
    this.detector.reset();
    this.sub.dispose();
  }
}
