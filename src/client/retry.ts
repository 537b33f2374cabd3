/**
 * The one retry policy of a run, used by the session init retry and by the reconnection loop alike:
 * exponential backoff with full jitter, a bounded number of attempts in a row, and RATE_LIMITED (and an
 * INIT_ERROR that names a wait: the recogniser is not available now) waiting at least the service's
 * `retry_after_ms` (`leastRetryWaitMs`, beside the one retry table). Pure: it counts and computes; the session waits.
 */
import { leastRetryWaitMs } from '../protocol/errors';
import { DictationError } from './errors';

interface BackoffOptions {
  /** Attempts in a row before giving up. */
  maxAttempts: number;
  /** The ceiling of the first wait (ms); it doubles with each attempt… */
  baseMs: number;
  /** …up to this cap (ms). */
  maxMs: number;
  /** Random source in [0, 1) for the jitter. */
  random: () => number;
}

interface RetryDecision {
  /** 1 for the first retry after a success. */
  attempt: number;
  delayMs: number;
}

/**
 * The wait before retry `attempt` (1-based) after `cause`: random(0, min(maxMs, baseMs × 2^(attempt−1))),
 * plus the least wait the service asked for (`retry_after_ms` of RATE_LIMITED or of a retried INIT_ERROR).
 */
export function backoffDelay(attempt: number, cause: Pick<DictationError, 'code' | 'retryAfterMs'>, o: BackoffOptions): number {
  const ceiling = Math.min(o.maxMs, o.baseMs * 2 ** Math.max(0, attempt - 1));
  const jitter = Math.floor(o.random() * ceiling);
  return leastRetryWaitMs(cause.code, cause.retryAfterMs) + jitter;
}

export class Backoff {
  private attempts = 0;

  constructor(readonly options: BackoffOptions) {}

  get attempt(): number {
    return this.attempts;
  }

  /** Counts one failed attempt: the wait before the next one, or undefined once the attempts are spent. */
  next(cause: Pick<DictationError, 'code' | 'retryAfterMs'>): RetryDecision | undefined {
    this.attempts += 1;
    if (this.attempts > this.options.maxAttempts) return undefined;
    return { attempt: this.attempts, delayMs: backoffDelay(this.attempts, cause, this.options) };
  }

  /** A success that lasted: the next failure is the first of a new series. */
  reset(): void {
    this.attempts = 0;
  }
}

/** The fatal error of a run that spent its attempts: the last failure's code when it tells more than "network". */
export function gaveUpError(cause: DictationError, attempts: number, what: string, sessionId: string | undefined): DictationError {
  const code =
    cause.code === 'RATE_LIMITED' ||
    cause.code === 'PROTOCOL_ERROR' ||
    cause.code === 'INTERNAL_ERROR' ||
    cause.code === 'INIT_ERROR' ||
    cause.code === 'CONCURRENCY_LIMIT_EXCEEDED'
      ? cause.code
      : 'NETWORK_ERROR';
  return new DictationError({
    code,
    message: `gave up after ${attempts} ${what} attempts; last failure: ${cause.message}`,
    fatal: true,
    retryAfterMs: cause.retryAfterMs,
    sessionId,
  });
}
