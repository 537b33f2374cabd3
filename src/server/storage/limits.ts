/**
 * The `Limits` of stores.ts in this process (valid for one instance of the service).
 *
 * Rate: a sliding-window log per key — at most `limit` requests (session inits plus WebSocket
 * connections) in any `windowMs`; when over, the exact wait until the oldest request leaves the window.
 * Concurrency: a set of slot holders (session ids) per organisation; the session registry takes a slot
 * when a session gets a connection and gives it back when it loses it, stops or ends.
 */
import { monotonicMs } from '../clock';
import type { KeyStore, Limits, RateDecision, RevocationFeed } from './stores';
import { checkWhole } from '../../shared/options';

export class RateLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly now: () => number = monotonicMs,
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

  /** How long until `key` may make a request (0: now), without counting one. */
  wait(key: string): number {
    const list = this.hits.get(key);
    if (!list || list.length < this.limit) return 0;
    const t = this.now();
    const oldest = list[list.length - this.limit]!;
    return Math.max(0, oldest + this.windowMs - t);
  }

  /** Forgets keys with no request in the window (call now and then). */
  sweep(): void {
    const from = this.now() - this.windowMs;
    for (const [k, list] of this.hits) if (list.length === 0 || list[list.length - 1]! <= from) this.hits.delete(k);
  }

  /** Keys with requests still counted. */
  get trackedKeys(): number {
    return this.hits.size;
  }
}

/**
 * Failed attempts allowed per client address within {@link MASTER_KEY_WINDOW_MS} (by default; the
 * environment's `DICTEE_AUTH_FAILURE_LIMIT` changes it), counted apart for the master key and for API keys.
 */
export const MASTER_KEY_FAILURES = 10;
export const MASTER_KEY_WINDOW_MS = 60_000;

export class InProcessLimits implements Limits {
  private readonly rate: RateLimiter;
  private readonly masterFailures: RateLimiter;
  private readonly keyFailures: RateLimiter;
  private readonly slots = new Map<string, Set<string>>();

  constructor(
    readonly rateLimit: number,
    readonly rateWindowMs: number,
    readonly concurrencyLimit: number,
    now: () => number = monotonicMs,
    readonly authFailureLimit = MASTER_KEY_FAILURES,
  ) {
    checkWhole('rateLimit', rateLimit, 1);
    checkWhole('rateWindowMs', rateWindowMs, 1);
    checkWhole('concurrencyLimit', concurrencyLimit, 1);
    checkWhole('authFailureLimit', authFailureLimit, 1);
    this.rate = new RateLimiter(rateLimit, rateWindowMs, now);
    this.masterFailures = new RateLimiter(authFailureLimit, MASTER_KEY_WINDOW_MS, now);
    this.keyFailures = new RateLimiter(authFailureLimit, MASTER_KEY_WINDOW_MS, now);
  }

  async masterKeyWait(address: string): Promise<number> {
    return this.masterFailures.wait(address);
  }

  async masterKeyFailed(address: string): Promise<void> {
    this.masterFailures.take(address);
  }

  async keyFailureWait(address: string): Promise<number> {
    return this.keyFailures.wait(address);
  }

  async keyFailed(address: string): Promise<void> {
    this.keyFailures.take(address);
  }

  async takeRate(keyId: string): Promise<RateDecision> {
    return this.rate.take(keyId);
  }

  async acquireSlot(orgId: string, sessionId: string): Promise<boolean> {
    let held = this.slots.get(orgId);
    if (held?.has(sessionId)) return true;
    if ((held?.size ?? 0) >= this.concurrencyLimit) return false;
    if (!held) {
      held = new Set();
      this.slots.set(orgId, held);
    }
    held.add(sessionId);
    return true;
  }

  releaseSlot(orgId: string, sessionId: string): void {
    const held = this.slots.get(orgId);
    if (!held) return;
    held.delete(sessionId);
    if (held.size === 0) this.slots.delete(orgId);
  }

  /** Slots held by an organisation's sessions. */
  slotsHeld(orgId: string): number {
    return this.slots.get(orgId)?.size ?? 0;
  }

  sweep(): void {
    this.rate.sweep();
    this.masterFailures.sweep();
    this.keyFailures.sweep();
  }

  async close(): Promise<void> {}
}

/** Revocation in one process: the registry has already ended the key's sessions; nobody else to tell (nothing stays pending). */
export class LocalRevocations implements RevocationFeed {
  private sessionEnds: ((sessionId: string) => void) | undefined;
  constructor(private readonly pending?: Pick<KeyStore, 'revocationAnnounced'>) {}
  async announce(keyId: string): Promise<void> {
    await this.pending?.revocationAnnounced(keyId);
  }
  subscribe(): void {}
  async announceSessionEnd(sessionId: string): Promise<void> {
    this.sessionEnds?.(sessionId);
  }
  onSessionEnd(end: (sessionId: string) => void): void {
    this.sessionEnds = end;
  }
  async close(): Promise<void> {}
}
