/**
 * Session ids handed out by the HTTP session init, waiting for their WebSocket: the next new session of
 * the same key adopts the latest one still unused (within `adoptMs`), so the id the client tracked is
 * the id of its session.
 */
import { monotonicMs } from '../clock';

interface HttpInit {
  id: string;
  at: number;
  used: boolean;
}

/** At most this many waiting ids are kept per key. */
const MAX_PER_KEY = 50;

export class HttpInits {
  private readonly byKey = new Map<string, HttpInit[]>();

  constructor(
    private readonly adoptMs: number,
    private readonly now: () => number = monotonicMs,
  ) {}

  add(keyId: string, id: string): void {
    const at = this.now();
    const list = this.fresh(keyId, at);
    list.push({ id, at, used: false });
    this.byKey.set(keyId, list.slice(-MAX_PER_KEY));
  }

  /** The latest unused id of the key that `taken` does not refuse, now marked used; undefined when none. */
  adopt(keyId: string, taken: (id: string) => boolean): string | undefined {
    const list = this.byKey.get(keyId);
    if (!list) return undefined;
    const now = this.now();
    for (let i = list.length - 1; i >= 0; i--) {
      const init = list[i]!;
      if (!init.used && now - init.at < this.adoptMs && !taken(init.id)) {
        init.used = true;
        return init.id;
      }
    }
    return undefined;
  }

  /** An adopted id whose session could not be created after all: it waits again. */
  giveBack(keyId: string, id: string): void {
    const init = this.byKey.get(keyId)?.find((i) => i.id === id);
    if (init) init.used = false;
  }

  /** Forgets used and expired ids. */
  sweep(): void {
    const now = this.now();
    for (const keyId of [...this.byKey.keys()]) {
      const keep = this.fresh(keyId, now);
      if (keep.length) this.byKey.set(keyId, keep);
      else this.byKey.delete(keyId);
    }
  }

  private fresh(keyId: string, now: number): HttpInit[] {
    return (this.byKey.get(keyId) ?? []).filter((i) => !i.used && now - i.at < this.adoptMs);
  }
}
