/**
 * What the remote engines share: the upstream's socket (credential in a header, TLS verified against
 * the system's or a given CA, messages bounded in size), the errors that tell a refusal from an outage,
 * and the {@link UpstreamLink} that each protocol (realtime.ts, vosk.ts) implements. docs/engines.md.
 */
import WebSocket from 'ws';
import type { ServerLogger } from '../../log';
import { type AuthScheme, authHeader } from './auth';

/** A message larger than this from the upstream closes its connection (then reconnected). */
const MAX_UPSTREAM_MESSAGE_BYTES = 1 << 20;

/** The upstream refused us (credential, model, endpoint): no session can work; the service does not start. */
export class UpstreamRefusedError extends Error {}
/** The upstream cannot be reached now (down, timeout, TLS): a session opened now gets INIT_ERROR and a retry time. */
export class UpstreamUnreachableError extends Error {}

export interface UpstreamSettings {
  /** ws:// or wss:// URL, without credentials. */
  url: string;
  /** Sent in the header of `auth` (auth.ts); never logged, never in a URL or a message. */
  apiKey?: string;
  /** How the key is presented: `Authorization: Bearer …` (default) or Azure OpenAI's `api-key: …`. */
  auth?: AuthScheme;
  /** PEM CA bundle that replaces the system's for wss:// (`--engine-ca`). */
  ca?: Buffer;
  model?: string;
  connectTimeoutMs: number;
  log: ServerLogger;
}

/** What a protocol tells the port (remotePort.ts), as the upstream's messages arrive. */
export interface UpstreamEvents {
  /** The upstream's current utterance, its whole text so far (it replaces the previous partial). */
  partial(text: string): void;
  /** The upstream's current utterance is finished with this text; `covered`: session bytes it covers. */
  final(text: string, covered: number): void;
  /** The last {@link UpstreamLink.settle} is answered: results for the first `covered` bytes sent are in. */
  settled(covered: number): void;
  /** Any message came (the upstream is alive). */
  activity(): void;
  /**
   * The connection is gone (not after {@link UpstreamLink.close}). `refused`: the upstream refused the
   * session's model or credential: connecting again cannot help.
   */
  lost(reason: string, refused?: boolean): void;
}

/** One session's connection to the upstream. */
export interface UpstreamLink {
  /** Protocol dialect (logs, docs/engines.md). */
  readonly dialect: string;
  /** Sample rate the upstream is sent. */
  readonly rate: number;
  /** Wires the port's handlers (the link is opened before the session exists). */
  attach(events: UpstreamEvents): void;
  /** Session-rate PCM, resampled if the upstream wants another rate. */
  send(pcm: Buffer): void;
  /** Asks for the results of everything sent so far (ends the upstream's utterance where the protocol can). */
  settle(): void;
  close(): void;
}

export interface UpstreamProtocol {
  readonly name: 'realtime' | 'vosk';
  /** A new connection for a session whose audio comes at `sampleRate`. */
  open(sampleRate: number, opts: { language: string; keyterms?: readonly string[] }): Promise<UpstreamLink>;
  /** At start: connects once and checks the credential and the model. Throws UpstreamRefusedError or UpstreamUnreachableError. */
  probe(): Promise<{ dialect: string; rate: number | undefined }>;
}

/** The URL to show: scheme, host and path; never a query, a fragment or user information. */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

/**
 * Why an upstream URL cannot be used, or undefined: the scheme must be ws or wss, and a credential
 * never goes in it (user information or a key-like query parameter): it goes in DICTEE_ENGINE_API_KEY.
 */
export function urlProblem(url: string, flag: string, schemes: readonly string[] = ['ws:', 'wss:']): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `${flag} is not a URL`;
  }
  if (!schemes.includes(u.protocol)) return `${flag} must start with ${schemes.map((s) => `${s}//`).join(' or ')}`;
  if (u.username || u.password) return `${flag} must not carry a user or password: put the credential in DICTEE_ENGINE_API_KEY`;
  for (const k of u.searchParams.keys()) {
    if (/key|token|secret|auth|password/i.test(k)) return `${flag} must not carry a credential (${k}=…): put it in DICTEE_ENGINE_API_KEY`;
  }
  return undefined;
}

type Handler = (data: WebSocket.RawData, binary: boolean) => void;

/**
 * The socket's one message listener, there from the start: a message that comes in the same packet
 * as the handshake's answer is kept until a handler takes it, never lost between two awaits.
 */
export class Inbox {
  private queue: Array<[WebSocket.RawData, boolean]> = [];
  private handler: Handler | undefined;

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data, binary) => {
      if (this.handler) this.handler(data, binary);
      else this.queue.push([data, binary]);
    });
  }

  /** Messages go to `handler` from now on (those kept first); undefined keeps them. */
  set(handler: Handler | undefined): void {
    this.handler = handler;
    while (handler && this.handler === handler && this.queue.length) {
      const [data, binary] = this.queue.shift()!;
      handler(data, binary);
    }
  }
}

/** Opens the socket; rejects with UpstreamRefusedError (HTTP 401, 403, 404) or UpstreamUnreachableError. */
export function openSocket(s: UpstreamSettings, url = s.url, headers: Record<string, string> = {}): Promise<Inbox> {
  const shown = shownUrl(url);
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, {
      headers: { ...headers, ...authHeader(s.auth ?? 'bearer', s.apiKey) },
      maxPayload: MAX_UPSTREAM_MESSAGE_BYTES,
      handshakeTimeout: s.connectTimeoutMs,
      perMessageDeflate: false,
      ...(s.ca ? { ca: s.ca } : {}),
    });
    const inbox = new Inbox(ws);
    let done = false;
    const settle = (e?: Error): void => {
      if (done) return;
      done = true;
      if (e) {
        ws.removeAllListeners();
        ws.on('error', () => undefined);
        ws.terminate();
        reject(e);
      } else resolve(inbox);
    };
    ws.once('open', () => settle());
    ws.once('unexpected-response', (_req, res) => {
      const status = res.statusCode ?? 0;
      res.resume();
      if (status === 401 || status === 403)
        settle(new UpstreamRefusedError(`the recogniser at ${shown} refused the credential (HTTP ${status}); check DICTEE_ENGINE_API_KEY`));
      else if (status === 404) settle(new UpstreamRefusedError(`the recogniser has no endpoint at ${shown} (HTTP 404)`));
      else settle(new UpstreamUnreachableError(`the recogniser at ${shown} answered HTTP ${status}`));
    });
    ws.once('error', (e: Error & { code?: string }) =>
      settle(new UpstreamUnreachableError(`cannot reach the recogniser at ${shown}: ${e.code ?? e.message}`)),
    );
  });
}

/** Waits for the first message matching `pick` (a parsed JSON object), at most `ms`. */
export function firstMessage<T>(inbox: Inbox, ms: number, what: string, pick: (m: Record<string, unknown>) => T | undefined): Promise<T> {
  const ws = inbox.ws;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new UpstreamUnreachableError(`the recogniser sent no ${what} within ${ms} ms`)), ms);
    const onMessage = (data: WebSocket.RawData, binary: boolean): void => {
      if (binary) return;
      const m = parseObject(data);
      if (!m) return;
      const v = pick(m);
      if (v !== undefined) finish(undefined, v);
    };
    const onClose = (code: number): void =>
      finish(new UpstreamUnreachableError(`the recogniser closed the connection (code ${code}) before its ${what}`));
    const finish = (e?: Error, v?: T): void => {
      clearTimeout(timer);
      inbox.set(undefined);
      ws.off('close', onClose);
      if (e) reject(e);
      else resolve(v as T);
    };
    ws.on('close', onClose);
    inbox.set(onMessage);
  });
}

/** A JSON object, or undefined for anything else (garbage is never echoed anywhere). */
export function parseObject(data: WebSocket.RawData): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(data.toString());
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** An event type safe to log (the upstream chose it: bounded, plain characters only). */
export function shownType(t: unknown): string {
  return typeof t === 'string' ? t.replace(/[^\w.-]/g, '?').slice(0, 64) : typeof t;
}

/** Size of a message, for logs that never carry its text. */
export function sizeOf(data: WebSocket.RawData): number {
  if (Buffer.isBuffer(data)) return data.length;
  if (Array.isArray(data)) return data.reduce((n, b) => n + b.length, 0);
  return data.byteLength;
}

/** Why a connection failed, in words (a message over the size bound has its own). */
export function failure(e: Error & { code?: string }): string {
  if (e.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') return `the recogniser sent a message over ${MAX_UPSTREAM_MESSAGE_BYTES} bytes`;
  return `the recogniser connection failed: ${e.code ?? e.message}`;
}
