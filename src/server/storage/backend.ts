/**
 * What the PostgreSQL and Redis backends share: their URLs said without the password, the check of a
 * URL given on the command line, and `Availability`: whether a backend answers, and the reconnection
 * with exponential backoff (and jitter) after it stopped answering.
 */
import { errorMessage } from '../../shared/errors';
import type { ServerLogger } from '../log';

/** A backend could not be opened at start (bad URL, unreachable, failed migration): the message names what failed, never a password. */
export class BackendStartError extends Error {
  override readonly name = 'BackendStartError';
}

/** The URL with its password replaced by `***` (for messages and logs); a string that is not a URL is not shown at all. */
export function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(not a URL)';
  }
}

/** A message (an error's) with the URL's password masked, should it ever appear in it. */
export function maskPassword(message: string, url: string): string {
  let password = '';
  try {
    password = decodeURIComponent(new URL(url).password);
  } catch {
    /* not a URL */
  }
  return password ? message.split(password).join('***') : message;
}

/** Checks a backend URL of the command line: a URL of one of `protocols`, with a host. */
export function checkUrl(flag: string, url: string, protocols: string[], example: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new BackendStartError(`${flag} is not a URL; expected ${example}`);
  }
  if (!protocols.includes(u.protocol)) {
    throw new BackendStartError(
      `${flag} ${redactedUrl(url)}: the scheme must be ${protocols.map((p) => `${p}//`).join(' or ')}; expected ${example}`,
    );
  }
  if (!u.hostname) throw new BackendStartError(`${flag} ${redactedUrl(url)}: no host; expected ${example}`);
  return u;
}

/** Delay before reconnection attempt `n` (0, 1, …): 250 ms doubling up to 5 s, ±20 % jitter. */
export function backoffMs(n: number): number {
  const base = Math.min(5000, 250 * 2 ** Math.min(n, 10));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

/**
 * Whether a backend answers. `lost(e)` (a query failed for want of a connection) logs once and probes
 * with backoff until the backend answers again, then logs that and wakes whoever waits in `whenUp()`.
 */
export class Availability {
  private upFlag = true;
  private attempt = 0;
  private nextProbeAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private waiters: Array<() => void> = [];
  private downWaiters: Array<() => void> = [];
  private closed = false;

  constructor(
    readonly name: 'PostgreSQL' | 'Redis',
    private readonly probe: () => Promise<void>,
    private readonly log: ServerLogger,
  ) {}

  get up(): boolean {
    return this.upFlag;
  }

  /** How long a refused request should wait before it tries again. */
  retryAfterMs(): number {
    return Math.max(1000, this.nextProbeAt - Date.now());
  }

  lost(e: unknown): void {
    if (!this.upFlag || this.closed) return;
    this.upFlag = false;
    this.attempt = 0;
    this.wakeDown();
    this.log.error(
      `${this.name} connection lost: new sessions are refused (INTERNAL_ERROR with retry_after_ms) until it is back; reconnecting with backoff`,
      { error: errorMessage(e) },
    );
    this.schedule();
  }

  /** Resolves once the backend is lost (at once when it is), or when closed. */
  whenDown(): Promise<void> {
    if (!this.upFlag || this.closed) return Promise.resolve();
    return new Promise((resolve) => this.downWaiters.push(resolve));
  }

  /** Resolves once the backend answers again (at once when it does), or when closed. */
  whenUp(): Promise<void> {
    if (this.upFlag || this.closed) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.wake();
    this.wakeDown();
  }

  private schedule(): void {
    const delay = backoffMs(this.attempt++);
    this.nextProbeAt = Date.now() + delay;
    this.timer = setTimeout(() => void this.tryProbe(), delay);
  }

  private async tryProbe(): Promise<void> {
    this.timer = undefined;
    if (this.closed) return;
    try {
      await this.probe();
    } catch (e) {
      this.log.debug(`${this.name} still unreachable`, { attempt: this.attempt, error: errorMessage(e) });
      if (!this.closed) this.schedule();
      return;
    }
    this.upFlag = true;
    this.log.info(`${this.name} connection restored`, { attempts: this.attempt });
    this.wake();
  }

  private wakeDown(): void {
    const w = this.downWaiters;
    this.downWaiters = [];
    for (const f of w) f();
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}
