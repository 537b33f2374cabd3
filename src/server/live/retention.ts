/**
 * Retention: the session records and transcript events of sessions that ended more than `retentionDays`
 * ago are deleted, at most once an hour (the sweep asks every few seconds).
 */
import { monotonicMs } from '../clock';
import type { ServerLogger } from '../log';
import type { SessionStore } from '../storage/stores';

/** How often old session records are pruned. */
const PRUNE_EVERY_MS = 60 * 60_000;

export class Retention {
  private lastPrune = -Infinity;

  constructor(
    private readonly store: SessionStore,
    private readonly retentionDays: number,
    private readonly log: ServerLogger,
  ) {}

  /** Prunes when the last pruning is an hour old (the first call prunes). */
  async due(): Promise<void> {
    const now = monotonicMs();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    await this.prune();
  }

  private async prune(): Promise<void> {
    try {
      const before = new Date(Date.now() - this.retentionDays * 86_400_000).toISOString();
      const r = await this.store.pruneBefore(before);
      if (r.sessions || r.events)
        this.log.info('retention: old session records deleted', {
          sessions: r.sessions,
          events: r.events,
          retention_days: this.retentionDays,
        });
    } catch (e) {
      this.log.error('could not prune old session records', { error: e });
    }
  }
}
