/** The session's timers: the flush timer, and a wait bounded in time. */
import { monotonicMs } from '../clock';

/**
 * Fires `flush_timeout` after the last audio frame. Frames do not move it (a timer re-armed 10 times a
 * second per session is work for nothing): when it fires early, it is armed again for what remains.
 */
export class FlushTimer {
  private timer: NodeJS.Timeout | undefined;
  /** When the last audio frame was taken (monotonic ms): the timer counts from here. */
  private lastAudio = 0;

  constructor(
    private readonly timeoutMs: number,
    private readonly fire: () => void,
  ) {}

  /** An audio frame was taken at `now` (monotonic ms). */
  audio(now: number): void {
    this.lastAudio = now;
    if (!this.timer) this.arm(this.timeoutMs);
  }

  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const remaining = this.timeoutMs - (monotonicMs() - this.lastAudio);
      if (remaining > 0) this.arm(remaining);
      else this.fire();
    }, delayMs);
    this.timer.unref();
  }
}

/** Waits for `p`, at most `ms`: its value, or `late`. */
export async function within<T>(p: Promise<T>, ms: number): Promise<T | 'late'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}
