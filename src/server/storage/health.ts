/**
 * Whether each backend answers now, for `GET /readyz` and the metrics. What the service knows without
 * asking (`Availability`, the Redis link) only changes when a query fails: an idle instance would say
 * "up" while PostgreSQL is stopped. So a check asks the backend itself (`SELECT 1`, `PING`), at most once
 * per `freshMs` however often it is asked (a load balancer every second, Prometheus, anyone: the
 * endpoint needs no key), and answers "down" after `timeoutMs` without an answer.
 *
 * A failed check of PostgreSQL that means "unreachable" is reported where a failed query would be: the
 * service then refuses new sessions at once and reconnects with backoff (backend.ts, Availability).
 */
import { monotonicMs } from '../clock';

/** The name a backend has in `/readyz` and in the metrics' `backend` label. */
export type BackendName = 'sqlite' | 'postgresql' | 'redis';

export interface BackendCheck {
  readonly name: BackendName;
  /** Whether the backend answers (checked at most once per `freshMs`). */
  up(): Promise<boolean>;
}

interface ProbeOptions {
  /** What the service already knows: false while its reconnection is under way (then nothing is asked). */
  known: () => boolean;
  /** Asks the backend; rejects when it does not answer. */
  ping: () => Promise<unknown>;
  /** How long an answer stands (default 1000 ms). */
  freshMs?: number;
  /** How long a check waits for the backend (default 2000 ms). */
  timeoutMs?: number;
}

export class BackendProbe implements BackendCheck {
  private checkedAt = -Infinity;
  private lastUp = true;
  /** The ping under way, and when it began. */
  private pending: { since: number; done: Promise<boolean> } | undefined;

  constructor(
    readonly name: BackendName,
    private readonly o: ProbeOptions,
  ) {}

  async up(): Promise<boolean> {
    if (!this.o.known()) return this.remember(false);
    const now = monotonicMs();
    if (now - this.checkedAt < (this.o.freshMs ?? 1000)) return this.lastUp;
    const timeoutMs = this.o.timeoutMs ?? 2000;
    // A ping that hangs (a partition) is not asked again meanwhile: the backend is down until it answers.
    if (this.pending && now - this.pending.since >= timeoutMs) return this.remember(false);
    if (!this.pending) {
      const done = this.o.ping().then(
        () => true,
        () => false,
      );
      const pending = { since: now, done };
      this.pending = pending;
      void done.then((up) => {
        if (this.pending === pending) this.pending = undefined;
        this.remember(up);
      });
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs - (now - this.pending!.since))));
    const up = await Promise.race([this.pending.done, late]);
    clearTimeout(timer);
    return this.remember(up && this.o.known());
  }

  private remember(up: boolean): boolean {
    this.checkedAt = monotonicMs();
    this.lastUp = up;
    return up;
  }
}

/** A backend in this process (SQLite in the data dir): up while the service runs. */
export const LOCAL_STORE: BackendCheck = { name: 'sqlite', up: () => Promise.resolve(true) };

/** Each backend's state, checked together. */
export async function checkBackends(checks: readonly BackendCheck[]): Promise<Partial<Record<BackendName, boolean>>> {
  const states = await Promise.all(checks.map((c) => c.up()));
  return Object.fromEntries(checks.map((c, i) => [c.name, states[i]]));
}
