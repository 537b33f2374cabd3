/**
 * Small HTTP helpers: the error every refusal is (`HttpError`, with its headers), JSON replies, the error
 * body (on a response, or on an upgrade refused before it becomes a WebSocket), bounded body reading,
 * the presented key, URLs safe to log.
 */
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { type ErrorCode, type HttpErrorBody, HTTP_STATUS_FOR, redactUrl } from '../../protocol';
import { errorMessage } from '../../shared/errors';
import { unavailableMessage } from '../storage/stores';

const MAX_BODY_BYTES = 64 * 1024;

/**
 * On every answer of the service, success or error, and on every refused upgrade: nothing is cached (an
 * answer may carry a new key or a session's record), and no browser guesses a type other than JSON.
 */
export const API_HEADERS: Readonly<Record<string, string>> = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };

type HttpErrorCode = HttpErrorBody['error']['code'];

export class HttpError extends Error {
  /** Headers of the answer: `Retry-After` when there is a wait, `Allow` for a 405. */
  readonly headers: Record<string, string>;
  /** Fields the refusal's log line adds (why a key was refused, its hint): never a key, never a secret. */
  logFields?: Record<string, unknown>;

  constructor(
    readonly status: number,
    readonly code: HttpErrorCode,
    message: string,
    readonly retryAfterMs = 0,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.headers = retryAfterMs > 0 ? { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))), ...headers } : headers;
  }

  static of(code: ErrorCode, message: string, retryAfterMs = 0, status = HTTP_STATUS_FOR[code]): HttpError {
    return new HttpError(status, code, message, retryAfterMs);
  }

  /** A request refused while a backend (PostgreSQL, Redis) is unreachable: 503 INTERNAL_ERROR with the wait; no address, no name of a backend. */
  static unavailable(retryAfterMs: number): HttpError {
    return HttpError.of('INTERNAL_ERROR', unavailableMessage(retryAfterMs), retryAfterMs, 503);
  }

  static methodNotAllowed(method: string, allowed: readonly string[]): HttpError {
    return new HttpError(405, 'METHOD_NOT_ALLOWED', `method ${method} not allowed here; use ${allowed.join(' or ')}`, 0, {
      allow: allowed.join(', '),
    });
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    ...API_HEADERS,
    ...headers,
  });
  res.end(text);
}

function errorBody(err: HttpError): HttpErrorBody {
  return { success: false, error: { code: err.code, message: err.message, retry_after_ms: err.retryAfterMs } };
}

export function sendError(res: ServerResponse, err: HttpError): void {
  sendJson(res, err.status, errorBody(err), err.headers);
}

/**
 * Refuses a WebSocket upgrade (or a CONNECT) before it happens: the HTTP status, its headers and the error
 * body, then the socket is destroyed once that is written (at the latest 2 s later). Such a socket is no
 * longer read by the HTTP server, so it would never notice the client leaving: it must not be left open.
 */
export function refuseUpgrade(socket: Duplex, err: HttpError): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const text = JSON.stringify(errorBody(err));
  const headers = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    ...API_HEADERS,
    connection: 'close',
    ...err.headers,
  };
  const head = [`HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? ''}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  socket.on('error', () => socket.destroy());
  const cut = setTimeout(() => socket.destroy(), 2000);
  cut.unref();
  socket.end(`${head.join('\r\n')}\r\n\r\n${text}`, () => {
    clearTimeout(cut);
    socket.destroy();
  });
}

/** The request target as a URL, or undefined when it cannot be parsed (`GET //[`): a 400, never a throw. */
export function parseRequestUrl(target: string | undefined): URL | undefined {
  try {
    return new URL(target ?? '/', 'http://localhost');
  } catch {
    return undefined;
  }
}

/** `decodeURIComponent` of a path segment, or a 400 for a malformed escape (`%zz`, `%E0%A4%A`). */
export function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw HttpError.of('PROTOCOL_ERROR', 'malformed percent-encoding in the path');
  }
}

/** The client went away in the middle of its request (an aborted body): nothing to answer, nothing wrong here. */
export class ClientGoneError extends Error {}

/**
 * Answers what the HTTP parser refused before any request existed: 408 when the headers did not arrive in
 * time, 431 when they are too large, 400 otherwise; then the socket is destroyed. Logged at debug: a
 * client's mistake, not the service's.
 */
export function answerClientError(
  log: { debug(message: string, ...args: unknown[]): void },
  e: NodeJS.ErrnoException,
  socket: Duplex,
): void {
  const code = e.code ?? '';
  const status = code === 'ERR_HTTP_REQUEST_TIMEOUT' || code === 'HPE_HEADERS_TIMEOUT' ? 408 : code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
  log.debug('malformed or incomplete HTTP request refused', { status, reason: code || e.message });
  if (!socket.writable || code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const message =
    status === 408 ? 'request headers not received in time' : status === 431 ? 'request headers too large' : 'malformed HTTP request';
  const text = JSON.stringify({ success: false, error: { code: 'PROTOCOL_ERROR', message, retry_after_ms: 0 } });
  const extra = Object.entries(API_HEADERS)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(text)}\r\n${extra}connection: close\r\n\r\n${text}`,
    () => socket.destroy(),
  );
  setTimeout(() => socket.destroy(), 2000).unref();
}

/** Reads the body (at most 64 KiB, else 413). */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? '0');
    if (declared > MAX_BODY_BYTES) {
      reject(new HttpError(413, 'PAYLOAD_TOO_LARGE', `request body larger than ${MAX_BODY_BYTES} bytes`));
      req.resume();
      return;
    }
    const parts: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (d: Buffer) => {
      if (failed) return;
      size += d.length;
      if (size > MAX_BODY_BYTES) {
        failed = true;
        reject(new HttpError(413, 'PAYLOAD_TOO_LARGE', `request body larger than ${MAX_BODY_BYTES} bytes`));
        return;
      }
      parts.push(d);
    });
    req.on('end', () => {
      if (!failed) resolve(Buffer.concat(parts).toString('utf8'));
    });
    req.on('error', (e) => {
      if (!failed)
        reject(
          req.destroyed || (e as NodeJS.ErrnoException).code === 'ECONNRESET'
            ? new ClientGoneError(`request body aborted: ${e.message}`)
            : e,
        );
    });
    req.on('aborted', () => {
      if (failed) return;
      failed = true;
      reject(new ClientGoneError('request body aborted by the client'));
    });
  });
}

/** Parses an optional JSON body: empty → undefined; malformed → 400 PROTOCOL_ERROR. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw HttpError.of('PROTOCOL_ERROR', `request body is not valid JSON: ${errorMessage(e)}`);
  }
}

/** The token of an `Authorization: Bearer <token>` header, if any. */
export function bearer(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  if (typeof h !== 'string') return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m?.[1];
}

/** The key of `x-svc-key` or `Authorization: Bearer`. */
export function presentedKey(req: IncomingMessage, allowXSvcKey: boolean): string | undefined {
  const x = req.headers['x-svc-key'];
  if (allowXSvcKey && typeof x === 'string' && x.trim() !== '') return x.trim();
  return bearer(req);
}

/**
 * A URL or path safe to log or to echo in a message: see {@link redactUrl} (decided on the decoded
 * query and path, so an encoded `tok%65n=` or `%73vc_live_…` is redacted too), with the length bounded.
 */
export function safeUrl(url: string): string {
  return redactUrl(url).slice(0, 300);
}
