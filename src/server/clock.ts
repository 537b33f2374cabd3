/**
 * The service's clock for durations: monotonic milliseconds (`performance.now()`), which a step of the
 * wall clock (NTP, an operator, a VM resumed) does not move. The wall clock (`Date`) is only for the
 * times the service records or sends (ISO timestamps) and for ages that must survive a restart.
 */
import { performance } from 'node:perf_hooks';

export function monotonicMs(): number {
  return performance.now();
}
