/**
 * Push-to-talk without a key-release event (the extension API has none): a key held down repeats, and
 * each repeat runs the command again; the key is taken as released when the repeats stop. Pure (timers
 * are given), tested in plain Node.
 *
 * - The first keydown is a `press` (start or resume recording).
 * - Repeats arrive after the system's repeat delay (250 ms–2 s, the user's setting), then every 30–400 ms.
 *   Once they come, the key is `released` when none arrives for `gap`: three times the measured repeat
 *   interval (its median), within [minGapMs, maxGapMs]; maxGapMs until an interval is measured.
 * - No repeat within `tapMs` (a short press, or key repeat turned off): the press is `latched` (recording
 *   goes on) and the next press releases it; that press's own repeats are ignored.
 */

export interface HoldTiming {
  tapMs: number;
  minGapMs: number;
  maxGapMs: number;
  gapFactor: number;
}

export const DEFAULT_HOLD_TIMING: HoldTiming = { tapMs: 2000, minGapMs: 150, maxGapMs: 600, gapFactor: 3 };

export type HoldEvent = 'press' | 'release' | 'latched';

export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
  now(): number;
}

export const REAL_TIMERS: Timers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (h) => clearTimeout(h as NodeJS.Timeout),
  now: () => Date.now(),
};

type Phase = 'idle' | 'down' | 'held' | 'latched' | 'swallow';

export class HoldDetector {
  private phase: Phase = 'idle';
  private timer: unknown;
  private last = 0;
  private intervals: number[] = [];

  constructor(
    private readonly onEvent: (e: HoldEvent) => void,
    private readonly timing: HoldTiming = DEFAULT_HOLD_TIMING,
    private readonly timers: Timers = REAL_TIMERS,
  ) {}

  /** The gap after which the repeats are taken to have stopped. */
  get gapMs(): number {
    // Until an interval is measured (only the first repeat came), the widest gap.
    if (this.intervals.length === 0) return this.timing.maxGapMs;
    const sorted = [...this.intervals].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    return Math.min(this.timing.maxGapMs, Math.max(this.timing.minGapMs, median * this.timing.gapFactor));
  }

  /** The longest interval between repeats of the current (or last) hold, in ms. */
  get longestIntervalMs(): number {
    return this.intervals.length ? Math.max(...this.intervals) : 0;
  }

  /** A keydown of the push-to-talk key (the first, or a repeat). */
  key(): void {
    const now = this.timers.now();
    switch (this.phase) {
      case 'idle':
        this.phase = 'down';
        this.intervals = [];
        this.last = now;
        this.onEvent('press');
        this.arm(this.timing.tapMs, () => {
          this.phase = 'latched';
          this.onEvent('latched');
        });
        return;
      case 'down':
        // The first repeat: the key is held.
        this.phase = 'held';
        this.last = now;
        this.armGap();
        return;
      case 'held':
        this.intervals.push(now - this.last);
        if (this.intervals.length > 20) this.intervals.shift();
        this.last = now;
        this.armGap();
        return;
      case 'latched':
        this.phase = 'swallow';
        this.last = now;
        this.onEvent('release');
        this.armSwallow();
        return;
      case 'swallow':
        this.last = now;
        this.armSwallow();
        return;
    }
  }

  /** Forget the key (the run ended by other means). */
  reset(): void {
    this.timers.clear(this.timer);
    this.phase = 'idle';
  }

  private armGap(): void {
    this.arm(this.gapMs, () => {
      this.phase = 'idle';
      this.onEvent('release');
    });
  }

  /** The repeats of the press that released a latch are ignored until they stop. */
  private armSwallow(): void {
    this.arm(Math.max(this.timing.maxGapMs, this.timing.tapMs), () => {
      this.phase = 'idle';
    });
  }

  private arm(ms: number, fn: () => void): void {
    this.timers.clear(this.timer);
    this.timer = this.timers.set(fn, ms);
  }
}
