/**
 * The service's event-loop delay (perf_hooks): how long ready work waited for the loop (decoding runs in
 * worker threads precisely so that this stays small). Each reader (`GET /healthz`, `GET /v1/status`) owns
 * a monitor and reads the interval since its own previous read.
 */
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';

export interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
}

export class LoopDelayMonitor {
  private readonly histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: 10 });

  constructor() {
    this.histogram.enable();
  }

  /** Delay percentiles in ms since the previous call (or since the monitor started); undefined without a sample. */
  take(): LoopDelay | undefined {
    const h = this.histogram;
    const ms = (ns: number): number => Math.round(ns / 1e4) / 100;
    const out = h.count > 0 ? { p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max) } : undefined;
    h.reset();
    return out;
  }

  dispose(): void {
    this.histogram.disable();
  }
}
