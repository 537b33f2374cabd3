/**
 * Keys that expire while sessions use them (docs/protocol.md, "Key expiry and roll"): a timer per key at
 * its exact expiry, set when a connection of the key is accepted here and when a roll shortens the key's
 * life on this instance; the periodic key re-check (app.ts) sets it for expiries changed through another
 * instance, and ends at once the sessions of keys found expired. At the expiry, the key's sessions here end
 * as a revoked key's do (endSession.ts): every pending word sent as `final`, then `AUTH_ERROR` "API key expired".
 */
import type { ServerLogger } from '../log';
import { OUTSIDE_ENDS } from './endSession';
import type { SessionRegistry } from './registry';

/** setTimeout's longest delay (about 24.8 days); a later expiry is set by a later re-check. */
const MAX_DELAY_MS = 2 ** 31 - 1;

export class KeyExpiryWatch {
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();

  constructor(
    private readonly registry: SessionRegistry,
    private readonly log: ServerLogger,
    /** A key's sessions here were ended by its expiry (the audit's `key.expired`). */
    private readonly onEnded: (keyId: string) => void = () => undefined,
  ) {}

  /** Ends the key's sessions here at `expiresAt` (at once when it is past); an earlier expiry replaces a later one. */
  watch(keyId: string, expiresAt: string | null): void {
    if (expiresAt === null) return;
    const at = Date.parse(expiresAt);
    if (!Number.isFinite(at)) return;
    const current = this.timers.get(keyId);
    if (current && current.at <= at) return;
    const delay = at - Date.now();
    if (delay > MAX_DELAY_MS) return;
    if (current) clearTimeout(current.timer);
    const timer = setTimeout(() => void this.expire(keyId), Math.max(0, delay));
    timer.unref();
    this.timers.set(keyId, { at, timer });
  }

  /** The key has expired: its sessions and connections here end now. */
  async expire(keyId: string): Promise<void> {
    const t = this.timers.get(keyId);
    if (t) clearTimeout(t.timer);
    this.timers.delete(keyId);
    const had = this.registry.liveKeyIds().includes(keyId);
    try {
      await this.registry.endKeySessions(keyId, OUTSIDE_ENDS.expired);
    } catch (e) {
      this.log.error('could not end the sessions of an expired key', { key_id: keyId, error: e });
    }
    if (had) {
      this.log.info('API key expired: its sessions ended', { key_id: keyId });
      this.onEnded(keyId);
    }
  }

  close(): void {
    for (const t of this.timers.values()) clearTimeout(t.timer);
    this.timers.clear();
  }
}
