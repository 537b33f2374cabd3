/**
 * The no-audio watch of a live run: armed when the run starts or resumes, it reports once the source has
 * delivered no frame at all for a while (a recorder stuck opening its device, a capture page that is not
 * open or has no microphone). Silence is not "no audio": a microphone in a quiet room still delivers
 * frames (of zeros or near-zeros, which the muted-microphone warning of silence.ts judges); only frames
 * that do not come count here. Pure: the timer functions are given.
 */

export type NoAudioEvent =
  /** Nothing arrived within the window; `first` for the first time in the run (the user is told once). */
  | { kind: 'none'; afterMs: number; first: boolean }
  /** Audio arrives again after a `none`. */
  | { kind: 'back' };

interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const REAL_TIMERS: Timers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (h) => clearTimeout(h as NodeJS.Timeout),
};

export class NoAudioWatch {
  private timer: unknown;
  private armed = false;
  private reported = false;
  private told = false;

  constructor(
    private readonly afterMs: number,
    private readonly onEvent: (e: NoAudioEvent) => void,
    private readonly timers: Timers = REAL_TIMERS,
  ) {}

  /** Whether the last window passed without audio (and no audio came since). */
  get silentSource(): boolean {
    return this.reported;
  }

  /** The source was started or restarted: its first frame is expected within the window. */
  arm(): void {
    this.disarm();
    this.armed = true;
    this.timer = this.timers.set(() => {
      this.timer = undefined;
      if (!this.armed) return;
      this.armed = false;
      this.reported = true;
      const first = !this.told;
      this.told = true;
      this.onEvent({ kind: 'none', afterMs: this.afterMs, first });
    }, this.afterMs);
  }

  /** A frame arrived (whatever it holds, zeros included). */
  delivered(): void {
    if (this.armed) this.disarm();
    if (this.reported) {
      this.reported = false;
      this.onEvent({ kind: 'back' });
    }
  }

  /** Paused or ended: nothing is expected. */
  disarm(): void {
    this.armed = false;
    if (this.timer !== undefined) this.timers.clear(this.timer);
    this.timer = undefined;
  }
}
