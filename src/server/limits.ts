/**
 * Limits. Rate: a sliding-window log per key — at most `limit` requests (session inits plus WebSocket
 * connections) in any `windowMs`; when over, the exact wait until the oldest request leaves the window.
 * Concurrency (per organisation) is counted by the session registry in app.ts.
 */

export type RateDecision = { allowed: true } | { allowed: false; retryAfterMs: number };

export class RateLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one request for `key` if allowed. */
  take(key: string): RateDecision {
    const t = this.now();
    const from = t - this.windowMs;
    let list = this.hits.get(key);
    if (!list) {
      list = [];
      this.hits.set(key, list);
    }
    let drop = 0;
    while (drop < list.length && list[drop]! <= from) drop++;
    if (drop) list.splice(0, drop);
    if (list.length >= this.limit) {
      const oldest = list[list.length - this.limit]!;
      return { allowed: false, retryAfterMs: Math.max(1, oldest + this.windowMs - t) };
    }
    list.push(t);
    return { allowed: true };
  }

  /** Forgets keys with no request in the window (call now and then). */
  sweep(): void {
    const from = this.now() - this.windowMs;
    for (const [k, list] of this.hits) if (list.length === 0 || list[list.length - 1]! <= from) this.hits.delete(k);
  }
}
