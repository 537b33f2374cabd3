/**
 * One WebSocket connection of a run to `/api/v1/audio/live`: the key in the `Authorization` header,
 * the deadline for `configured`, the idle deadline (no message or ping), and the cause of its end. Once
 * the session lets go of it (`close`), it reports nothing more: a late event of an old connection can
 * never touch the run.
 */
import WebSocket from 'ws';
import type { Logger } from '../shared/logger';
import { errorMessage } from '../shared/errors';
import { CLOSE_CODES } from '../protocol/errors';
import { DictationError, errorFromUpgradeRefusal } from './errors';

interface SocketOptions {
  url: string;
  apiKey: string;
  /** Handshake + `configured` deadline (ms). */
  connectTimeoutMs: number;
  /** A connection with no message, ping or pong for this long is dead (ms). */
  idleTimeoutMs: number;
  /** The client pings this often (ms), so a frozen service shows as silence. */
  pingIntervalMs: number;
  log: Logger;
  /** Removes the key from a text (socket errors may quote what they were given). */
  scrub: (text: string) => string;
}

interface SocketHandlers {
  open(): void;
  text(text: string): void;
  /** A pong (or ping) from the service: it is alive and reads this connection. */
  alive?(): void;
  /** The connection is gone; `cause` is what ended it, when known (a timeout, a refusal, a service error). */
  closed(code: number, reason: string, cause: DictationError | undefined): void;
}

/** After an `error` message the service closes the connection; it is cut if it does not within this time. */
const ERROR_CLOSE_MS = 2000;
/** A close handshake the session started is bounded by this; then the socket is cut. */
const CLOSE_HANDSHAKE_MS = 1000;

export class ServiceSocket {
  private readonly ws: WebSocket | undefined;
  private cause: DictationError | undefined;
  private released = false;
  private configureTimer: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private endTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly o: SocketOptions,
    private readonly on: SocketHandlers,
  ) {
    let ws: WebSocket;
    try {
      ws = new WebSocket(o.url, {
        headers: { Authorization: `Bearer ${o.apiKey}` },
        handshakeTimeout: o.connectTimeoutMs,
        perMessageDeflate: false,
      });
    } catch (e) {
      this.ws = undefined;
      const why = o.scrub(errorMessage(e));
      setImmediate(() => this.closed(1006, `could not open the connection: ${why}`));
      return;
    }
    this.ws = ws;
    this.configureTimer = setTimeout(
      () => this.fail(new DictationError({ code: 'TIMEOUT', message: `no "configured" within ${o.connectTimeoutMs} ms`, fatal: false })),
      o.connectTimeoutMs,
    );
    ws.on('open', () => {
      if (this.released) return;
      this.touch();
      this.pingTimer = setInterval(() => {
        if (ws.readyState === WebSocket.OPEN) ws.ping();
      }, o.pingIntervalMs);
      this.on.open();
    });
    ws.on('message', (data: WebSocket.RawData, isBinary: boolean) => {
      if (this.released) return;
      this.touch();
      if (isBinary) o.log.warn('ignored a binary frame from the service');
      else this.on.text(rawToString(data));
    });
    ws.on('ping', () => {
      if (this.released) return;
      this.touch();
      this.on.alive?.();
    });
    ws.on('pong', () => {
      if (this.released) return;
      this.touch();
      this.on.alive?.();
    });
    ws.on('unexpected-response', (_req, res) => {
      if (this.released) return;
      this.cause = errorFromUpgradeRefusal(res.statusCode ?? 0, res.headers['retry-after'] as string | undefined, o.apiKey);
      res.resume();
      ws.terminate();
    });
    ws.on('error', (err: Error) => {
      if (this.released) return;
      o.log.debug(`socket error: ${o.scrub(err.message)}`);
      this.cause ??= new DictationError({
        code: 'NETWORK_ERROR',
        message: `connection to ${o.url} failed: ${o.scrub(err.message)}`,
        fatal: false,
      });
    });
    ws.on('close', (code: number, reason: Buffer) => this.closed(code, reason.toString('utf8')));
  }

  get isOpen(): boolean {
    return this.ws?.readyState === WebSocket.OPEN;
  }

  /** Bytes handed to the socket that it has not yet written to the network. */
  get bufferedBytes(): number {
    return this.ws?.bufferedAmount ?? 0;
  }

  /** `configured` arrived: the connect deadline no longer applies. */
  configured(): void {
    clearTimeout(this.configureTimer);
    this.configureTimer = undefined;
  }

  sendJson(message: object): void {
    if (this.isOpen) this.ws!.send(JSON.stringify(message));
  }

  sendAudio(frame: Buffer): void {
    this.ws!.send(frame);
  }

  /** The connection is to end with `cause` (a service error, or a resume it refused): cut it unless the service closes it first. */
  endWith(cause: DictationError): void {
    this.cause = cause;
    clearTimeout(this.endTimer);
    this.endTimer = setTimeout(() => this.ws?.terminate(), ERROR_CLOSE_MS);
  }

  /** Lets go of the connection: a close handshake bounded to 1 s, or at once (`graceful` false). Nothing is reported after this. */
  release(reason: string, graceful = true): void {
    if (this.released) return;
    this.released = true;
    this.clearTimers();
    const ws = this.ws;
    if (!ws) return;
    ws.removeAllListeners('message');
    ws.on('error', () => {}); // a late socket error must not become an unhandled 'error' event
    if (ws.readyState === WebSocket.OPEN && graceful) {
      ws.close(CLOSE_CODES.NORMAL, reason.slice(0, 100));
      const t = setTimeout(() => ws.terminate(), CLOSE_HANDSHAKE_MS);
      ws.once('close', () => clearTimeout(t));
    } else if (ws.readyState !== WebSocket.CLOSED) {
      ws.terminate();
    }
  }

  private fail(cause: DictationError): void {
    if (this.released) return;
    this.cause = cause;
    this.ws?.terminate();
  }

  private touch(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(
      () =>
        this.fail(
          new DictationError({
            code: 'TIMEOUT',
            message: `the service did not answer for ${this.o.idleTimeoutMs} ms (no message, ping or pong): unresponsive`,
            fatal: false,
          }),
        ),
      this.o.idleTimeoutMs,
    );
  }

  private clearTimers(): void {
    for (const t of [this.configureTimer, this.idleTimer, this.endTimer]) clearTimeout(t);
    clearInterval(this.pingTimer);
    this.configureTimer = this.idleTimer = this.endTimer = this.pingTimer = undefined;
  }

  private closed(code: number, reason: string): void {
    if (this.released) return;
    this.released = true;
    this.clearTimers();
    this.on.closed(code, reason, this.cause);
  }
}

function rawToString(data: WebSocket.RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
