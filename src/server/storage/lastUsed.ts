/**
 * `last_used_at` of the API keys, off the request path: a key let in is noted in memory (a map lookup), and
 * the notes are written in one batch a second later. A key is written at most once a minute by an instance
 * (and the row's own condition keeps the latest of several instances' writes). A failed write is logged and
 * dropped: the next use writes it again.
 */
import type { ServerLogger } from '../log';

/** A key's last use is written at most this often (ms). */
const EVERY_MS = 60_000;

export interface LastUse {
  id: string;
  at: string;
}

export class LastUsed {
  /** When each key's use was last noted for writing (ms since epoch). */
  private readonly noted = new Map<string, number>();
  private due: LastUse[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;

  constructor(
    private readonly write: (uses: LastUse[]) => Promise<void>,
    private readonly log: ServerLogger,
    private readonly flushMs = 1000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The key was let in now (called on every authentication; a map lookup unless a write is due). */
  touch(keyId: string): void {
    const now = this.now();
    const last = this.noted.get(keyId);
    if (last !== undefined && now - last < EVERY_MS) return;
    this.noted.set(keyId, now);
    this.due.push({ id: keyId, at: new Date(now).toISOString() });
    this.timer ??= setTimeout(() => void this.flush(), this.flushMs);
    this.timer.unref();
  }

  /** Writes what is due (one batch); resolves once written or given up. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.writing;
    const batch = this.due;
    this.due = [];
    const now = this.now();
    for (const [id, at] of this.noted) if (now - at >= EVERY_MS) this.noted.delete(id);
    if (!batch.length) return;
    this.writing = this.write(batch)
      .catch((e: unknown) => {
        this.log.warn('could not record the last use of API keys; the next use records it', { keys: batch.length, error: e });
        for (const u of batch) this.noted.delete(u.id);
      })
      .finally(() => (this.writing = undefined));
    await this.writing;
  }

  async close(): Promise<void> {
    await this.flush();
  }
}
