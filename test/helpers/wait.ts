/**
 * Waiting in tests: for an event (a predicate becoming true), never for a fixed time before an assertion.
 * `sleep` is for pacing what a test *does* (audio at real-time speed, a person's pause), not for waiting
 * on what it checks.
 */

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `fn` until it returns a truthy value (which it resolves with), every `intervalMs`. After
 * `timeoutMs` it fails, saying what it waited for, the last value and the last error `fn` threw.
 */
export async function waitFor<T>(fn: () => T | Promise<T>, timeoutMs: number, what: string, intervalMs = 20): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  let lastErr: unknown;
  for (;;) {
    try {
      last = await fn();
      if (last) return last as NonNullable<T>;
    } catch (e) {
      lastErr = e;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${lastErr ? ` (last error: ${String(lastErr)})` : ''}; last value: ${JSON.stringify(last)}`,
      );
    }
    await sleep(intervalMs);
  }
}
