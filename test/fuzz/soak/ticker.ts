/**
 * One timer for every session of the soak: it ticks every `periodMs / groups` ms and, at each tick, calls
 * `onTick(group)` for the next of `groups` groups, so that each group (each session) is called once per
 * `periodMs`, all on one absolute schedule. A late tick is run at once, and the ticks it delayed right after
 * it, so audio keeps real time on average; how late each tick ran is kept: the client's lag.
 */
import { performance } from 'node:perf_hooks';

export interface LagStats {
  ticks: number;
  meanMs: number;
  p99Ms: number;
  maxMs: number;
}

export class Ticker {
  private readonly stepMs: number;
  private t0 = 0;
  private k = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly lags: number[] = [];

  constructor(
    periodMs: number,
    private readonly groups: number,
    private readonly onTick: (group: number) => void,
  ) {
    this.stepMs = periodMs / groups;
  }

  start(): void {
    this.t0 = performance.now();
    this.k = 0;
    this.run();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private readonly run = (): void => {
    for (;;) {
      const due = this.t0 + this.k * this.stepMs;
      const now = performance.now();
      if (due > now) break;
      this.lags.push(now - due);
      this.onTick(this.k % this.groups);
      this.k++;
    }
    this.timer = setTimeout(this.run, this.t0 + this.k * this.stepMs - performance.now());
  };

  /** Lag of the ticks from `fromTick` on (all by default). */
  stats(fromTick = 0): LagStats {
    const xs = this.lags.slice(fromTick).sort((a, b) => a - b);
    if (xs.length === 0) return { ticks: 0, meanMs: 0, p99Ms: 0, maxMs: 0 };
    return {
      ticks: xs.length,
      meanMs: xs.reduce((a, b) => a + b, 0) / xs.length,
      p99Ms: xs[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))]!,
      maxMs: xs[xs.length - 1]!,
    };
  }

  get tickCount(): number {
    return this.lags.length;
  }
}
