/**
 * The service's event-loop delay (perf_hooks), reported by `GET /healthz` for the interval since the
 * previous `/healthz` request: how long ready work waited for the loop (decoding runs in worker
 * threads precisely so that this stays small).
 */
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';

let histogram: IntervalHistogram | undefined;

export interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
}

/** Delay percentiles in ms since the previous call (the first call starts the monitor). */
export function takeLoopDelay(): LoopDelay | undefined {
  if (!histogram) {
    histogram = monitorEventLoopDelay({ resolution: 10 });
    histogram.enable();
    return undefined;
  }
  const ms = (ns: number): number => Math.round(ns / 1e4) / 100;
  const out = histogram.count > 0 ? { p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), max: ms(histogram.max) } : undefined;
  histogram.reset();
  return out;
}
