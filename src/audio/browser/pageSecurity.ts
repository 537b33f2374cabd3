/**
 * What the capture page's server checks before anything reaches a run (pure, no I/O): single-use
 * tokens that expire, the `Host` header (loopback with the server's port, or the address a proxy such
 * as code-server's forwards), the `Origin` of a WebSocket (only the page's own), the audio frames (even
 * length, bounded) and their rate (no flood).
 */
import { createHash, randomBytes } from 'node:crypto';

/** Milliseconds since some origin; injected so that tests move time. */
export type Clock = () => number;

/** How long a page's address may wait before it is opened, and the page before its socket connects. */
const TOKEN_TTL_MS = 2 * 60_000;

/** 100 ms of 16 kHz mono s16le: the largest audio message the page may send. */
export const MAX_FRAME_BYTES = 3200;
/** The largest text (control) message the page may send. */
export const MAX_CONTROL_BYTES = 256;

function digest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('base64url');
}

/** A fresh token: 256 random bits, URL-safe. */
function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Tokens that are good once, before their deadline. Only their hashes are kept, so a lookup's timing
 * says nothing about a token's bytes.
 */
export class TokenStore {
  private readonly deadlines = new Map<string, number>();

  constructor(
    private readonly clock: Clock = () => Date.now(),
    private readonly ttlMs: number = TOKEN_TTL_MS,
  ) {}

  /** A new token, good once within the time to live. */
  issue(): string {
    this.sweep();
    const token = newToken();
    this.deadlines.set(digest(token), this.clock() + this.ttlMs);
    return token;
  }

  /** True once for a token issued and not expired; false for every other string, and for it ever after. */
  consume(token: string | undefined): boolean {
    if (typeof token !== 'string' || token.length === 0 || token.length > 128) return false;
    const key = digest(token);
    const deadline = this.deadlines.get(key);
    if (deadline === undefined) return false;
    this.deadlines.delete(key);
    return this.clock() <= deadline;
  }

  /** Forgets every token not yet used. */
  revokeAll(): void {
    this.deadlines.clear();
  }

  /** Tokens still waiting (expired ones are dropped first). */
  get size(): number {
    this.sweep();
    return this.deadlines.size;
  }

  private sweep(): void {
    const now = this.clock();
    for (const [k, d] of this.deadlines) if (now > d) this.deadlines.delete(k);
  }
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** `host[:port]` split, lower-cased; undefined when it is not a plain authority. */
export function parseHostHeader(host: string | undefined): { name: string; port: number | undefined } | undefined {
  if (typeof host !== 'string' || host.length === 0 || host.length > 255) return undefined;
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/i.exec(host.trim());
  if (!m) return undefined;
  const port = m[2] === undefined ? undefined : Number(m[2]);
  if (port !== undefined && (port < 1 || port > 65535)) return undefined;
  return { name: m[1]!.toLowerCase(), port };
}

/**
 * Which `Host` and `Origin` values the page's server accepts: a loopback name with its own port, and
 * the authorities and origins of the external addresses its page was given (code-server's proxy
 * forwards the browser's own `Host` and `Origin`). Anything else, a rebound DNS name included, is refused.
 */
export class PeerPolicy {
  private readonly hosts = new Set<string>();
  private readonly origins = new Set<string>();

  constructor(readonly port: number) {
    for (const name of LOOPBACK_NAMES) {
      this.hosts.add(`${name}:${port}`);
      this.origins.add(`http://${name}:${port}`);
    }
  }

  /** Accepts the host and origin of an external address of the page (`https://host/proxy/PORT/…`). */
  allowExternal(url: string): void {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return;
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return;
    this.hosts.add(u.host.toLowerCase());
    this.origins.add(u.origin.toLowerCase());
  }

  /** The `Host` header names a loopback address with the server's port, or an allowed external host. */
  hostAllowed(host: string | undefined): boolean {
    const h = parseHostHeader(host);
    if (!h) return false;
    return this.hosts.has(h.port === undefined ? h.name : `${h.name}:${h.port}`);
  }

  /** The `Origin` of a WebSocket is the page's own (no origin at all is refused: browsers always send one). */
  originAllowed(origin: string | undefined): boolean {
    if (typeof origin !== 'string' || origin.length === 0 || origin.length > 300) return false;
    let u: URL;
    try {
      u = new URL(origin);
    } catch {
      return false;
    }
    return this.origins.has(u.origin.toLowerCase()) && origin.replace(/\/$/, '').toLowerCase() === u.origin.toLowerCase();
  }
}

/** Why an audio message is refused, or undefined when it is good 16-bit PCM of at most 100 ms. */
export function frameProblem(bytes: number): string | undefined {
  if (bytes === 0) return 'an empty audio frame';
  if (bytes % 2 !== 0) return `an audio frame of ${bytes} bytes (not whole 16-bit samples)`;
  if (bytes > MAX_FRAME_BYTES) return `an audio frame of ${bytes} bytes (more than ${MAX_FRAME_BYTES})`;
  return undefined;
}

/** A token bucket: `capacity` units at most, refilled at `perSecond`. */
export class RateBucket {
  private level: number;
  private last: number;

  constructor(
    readonly capacity: number,
    readonly perSecond: number,
    private readonly clock: Clock = () => Date.now(),
  ) {
    this.level = capacity;
    this.last = clock();
  }

  /** Takes `n` units; false (and nothing taken) when the bucket holds fewer. */
  take(n = 1): boolean {
    const now = this.clock();
    this.level = Math.min(this.capacity, this.level + ((now - this.last) / 1000) * this.perSecond);
    this.last = now;
    if (this.level < n) return false;
    this.level -= n;
    return true;
  }
}

/** Audio ahead of real time a page may send at once (a tab held back by the browser catches up). */
const AUDIO_BURST_S = 2;
/** How much faster than real time the page's audio may come on average. */
const AUDIO_RATE_FACTOR = 1.25;
/** Messages of any kind: a burst, and per second (ten audio frames a second, a few controls). */
const MESSAGE_BURST = 40;
const MESSAGES_PER_S = 25;

/** The two buckets a page's socket must stay within: bytes of audio, and messages. */
export class PageRate {
  private readonly audio: RateBucket;
  private readonly messages: RateBucket;

  constructor(bytesPerSecond: number, clock: Clock = () => Date.now()) {
    this.audio = new RateBucket(AUDIO_BURST_S * bytesPerSecond, AUDIO_RATE_FACTOR * bytesPerSecond, clock);
    this.messages = new RateBucket(MESSAGE_BURST, MESSAGES_PER_S, clock);
  }

  /** False when this message (of `audioBytes` of audio, 0 for a control) goes beyond either bound. */
  take(audioBytes: number): boolean {
    if (!this.messages.take(1)) return false;
    return audioBytes === 0 || this.audio.take(audioBytes);
  }
}
