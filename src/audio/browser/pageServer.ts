/**
 * The capture page's server: loopback only, on a free port. It serves the page at an address carrying a
 * single-use token that expires, and takes the page's WebSocket (its own single-use token, its own
 * origin, a loopback `Host` or the one the page's external address names) as an audio source shaped like
 * the recorder (`start()`, `stop()`, `data` and `error` events): 16 kHz mono s16le, 100 ms frames. The
 * page's report that the browser gave no microphone is, while recording, the source's `error`.
 * Whatever breaks a rule is refused before it can produce audio: a wrong, reused or expired token,
 * another origin, a rebound host name, an oversized frame, a flood (the socket is closed).
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket, type RawData } from 'ws';
import { TypedEmitter, type Disposable } from '../../shared/events';
import { errorMessage } from '../../shared/errors';
import { silentLogger, type Logger } from '../../shared/logger';
import { bytesPerSecond } from '../../protocol/config';
import { PcmFramer } from '../framer';
import { APP_JS, ENGLISH_PAGE_STRINGS, PAGE_CSS, PAGE_HEADERS, pageHtml, type PageStrings } from './pageAssets';
import { WORKLET_JS } from './pageWorklet';
import { PageMicrophoneError, parseMicrophoneReport } from './pageMicrophone';
import { ledTable } from './dictationLeds';
import { MAX_CONTROL_BYTES, MAX_FRAME_BYTES, PageRate, PeerPolicy, TokenStore, frameProblem, type Clock } from './pageSecurity';

/** The page's own path prefix (everything else is a 404). */
const PAGE_PREFIX = '/d/';
/** The page's sample rate: what the worklet sends. */
export const PAGE_SAMPLE_RATE = 16000;
/** How long `stop()` waits for the page to send what it recorded before the pause. */
const DRAIN_TIMEOUT_MS = 1000;
/** How long `close()` waits for the page to answer its socket's close before cutting it. */
const CLOSE_WAIT_MS = 1000;
/** WebSocket close codes of the page's socket. */
export const PAGE_CLOSE = { policy: 1008, tooBig: 1009, replaced: 4001, shutdown: 1001 } as const;

export type PageRequest = 'start' | 'pause' | 'stop';

interface PageServerEvents {
  /** 100 ms of 16 kHz mono s16le (shorter only for the last audio before a pause). */
  data: Buffer;
  /** While recording: the browser gave the page no microphone (a `PageMicrophoneError`). */
  error: Error;
  /** A page connected, or the connected page went away (closed, reloaded, cut). */
  page: 'connected' | 'closed';
  /** A button of the page, or its push-to-talk key. */
  request: PageRequest;
  /** The buttons of a dictation microphone, as dictation_support's mask (dictationButtons.ts). */
  buttons: number;
  /** Something was refused (for the log; never carries a token). */
  refused: string;
}

interface PageServerOptions {
  logger?: Logger;
  clock?: Clock;
  /** Time to live of the page's and the socket's tokens (ms). */
  tokenTtlMs?: number;
  /** The dictation_support library's script (dist/dictation_support.js, from the npm package), served as `hid.js`. */
  hidLibrary?: string;
}

/** What the page shows: the mode (`toggle` or `pushToTalk`), its key, its language and its words. */
interface PageSetup {
  mode: string;
  key: string;
  lang: string;
  strings: PageStrings;
}

const STATIC: Record<string, { type: string; body: string }> = {
  'app.js': { type: 'text/javascript; charset=utf-8', body: APP_JS },
  'worklet.js': { type: 'text/javascript; charset=utf-8', body: WORKLET_JS },
  'page.css': { type: 'text/css; charset=utf-8', body: PAGE_CSS },
};

export class CapturePageServer {
  private readonly emitter: TypedEmitter<PageServerEvents>;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly pageTokens: TokenStore;
  private readonly socketTokens: TokenStore;
  private readonly http: http.Server;
  private readonly wss: WebSocketServer;
  private policy: PeerPolicy | undefined;
  private page: WebSocket | undefined;
  /** The origin of the connected page (whose site permission gives it the microphone). */
  private pageOrigin: string | undefined;
  private framer = new PcmFramer();
  private capturing = false;
  private draining: (() => void) | undefined;
  private setup: PageSetup = { mode: 'toggle', key: 'Space', lang: 'en', strings: ENGLISH_PAGE_STRINGS };
  private lastState = 'idle';
  private readonly statics: Record<string, { type: string; body: string }> = { ...STATIC };
  /** Sockets closed because a newer page took over: their end pauses nothing. */
  private readonly replaced = new WeakSet<WebSocket>();
  /** Audio messages dropped because they came while not recording. */
  dropped = 0;

  constructor(options: PageServerOptions = {}) {
    this.logger = options.logger ?? silentLogger;
    this.clock = options.clock ?? (() => Date.now());
    this.pageTokens = new TokenStore(this.clock, options.tokenTtlMs);
    this.socketTokens = new TokenStore(this.clock, options.tokenTtlMs);
    this.emitter = new TypedEmitter((event, e) => this.logger.error(`capture page: ${event} listener failed: ${errorMessage(e)}`));
    this.http = http.createServer((req, res) => this.serve(req, res));
    this.http.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(req, socket, head));
    this.http.on('clientError', (_e, socket) => socket.destroy());
    if (options.hidLibrary !== undefined) this.statics['hid.js'] = { type: 'text/javascript; charset=utf-8', body: options.hidLibrary };
    this.wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES, perMessageDeflate: false });
  }

  on<K extends keyof PageServerEvents>(event: K, listener: (v: PageServerEvents[K]) => void): Disposable {
    return this.emitter.on(event, listener);
  }

  /** Binds 127.0.0.1 on a free port; resolves with the port. */
  async listen(): Promise<number> {
    if (this.policy) return this.policy.port;
    await new Promise<void>((resolve, reject) => {
      this.http.once('error', reject);
      this.http.listen(0, '127.0.0.1', () => {
        this.http.off('error', reject);
        resolve();
      });
    });
    const port = (this.http.address() as AddressInfo).port;
    this.policy = new PeerPolicy(port);
    this.logger.info(`capture page: listening on 127.0.0.1:${port}`);
    return port;
  }

  get port(): number | undefined {
    return this.policy?.port;
  }

  /** A page is connected now. */
  get connected(): boolean {
    return this.page !== undefined;
  }

  /** A new address for the page (the tokens of earlier addresses not yet opened are revoked). */
  newPageUrl(): string {
    if (!this.policy) throw new Error('the capture page server is not listening');
    this.pageTokens.revokeAll();
    return `http://127.0.0.1:${this.policy.port}${PAGE_PREFIX}${this.pageTokens.issue()}`;
  }

  /** Accepts the host and origin of the address the page is opened at (code-server's proxy). */
  allowExternal(url: string): void {
    this.policy?.allowExternal(url);
  }

  /** The page's mode, key, language and words (for pages served from now on). */
  configure(setup: PageSetup): void {
    this.setup = setup;
  }

  /** Tells the page the dictation's state (`idle`, `connecting`, `recording`, `paused`, `stopping`). */
  setState(state: string): void {
    this.lastState = state;
    this.sendPage({ t: 'state', state });
  }

  /** Audio from the page is taken from now on (the page is told to record). */
  start(): void {
    this.capturing = true;
    this.draining?.();
    this.sendPage({ t: 'capture', on: true });
  }

  /** The page is told to stop recording; resolves once what it recorded before is delivered (bounded). */
  async stop(): Promise<void> {
    if (!this.capturing) return;
    this.capturing = false;
    if (this.page) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => done(), DRAIN_TIMEOUT_MS);
        const done = (): void => {
          clearTimeout(timer);
          if (this.draining === done) this.draining = undefined;
          resolve();
        };
        this.draining = done;
        this.sendPage({ t: 'capture', on: false });
      });
    }
    this.flush();
  }

  /**
   * Closes in the order of the service's shutdown (src/server/app.ts): stops accepting (no new page, no new
   * socket), closes the page's socket (1001: the page does not reconnect; its close awaited, at most
   * {@link CLOSE_WAIT_MS}), then cuts what is left (a socket that did not close, an HTTP connection still
   * sending) and resolves once the server is closed.
   */
  async close(): Promise<void> {
    this.capturing = false;
    const closed = new Promise<void>((resolve) => this.http.close(() => resolve()));
    this.pageTokens.revokeAll();
    this.socketTokens.revokeAll();
    this.draining?.();
    const page = this.page;
    if (page && page.readyState !== page.CLOSED) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, CLOSE_WAIT_MS);
        page.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
        page.close(PAGE_CLOSE.shutdown, 'closing');
      });
    }
    for (const c of this.wss.clients) c.terminate();
    this.http.closeAllConnections();
    await closed;
  }

  private flush(): void {
    const rest = this.framer.flush();
    this.framer.reset();
    if (rest) this.emitter.emit('data', rest);
  }

  private sendPage(m: object): void {
    if (this.page?.readyState === 1) this.page.send(JSON.stringify(m));
  }

  private refuse(reason: string): void {
    this.logger.warn(`capture page: refused ${reason}`);
    this.emitter.emit('refused', reason);
  }

  private serve(req: http.IncomingMessage, res: http.ServerResponse): void {
    const reply = (status: number, type: string, body: string): void => {
      res.writeHead(status, { ...PAGE_HEADERS, 'content-type': type, 'content-length': Buffer.byteLength(body) });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (!this.policy?.hostAllowed(req.headers.host)) {
      this.refuse("a request with a Host header that is not the page's");
      return reply(403, 'text/plain; charset=utf-8', 'Forbidden');
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return reply(405, 'text/plain; charset=utf-8', 'Method Not Allowed');
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === '/favicon.ico') {
      res.writeHead(204, PAGE_HEADERS);
      return void res.end();
    }
    if (!path.startsWith(PAGE_PREFIX)) return reply(404, 'text/plain; charset=utf-8', 'Not Found');
    const name = path.slice(PAGE_PREFIX.length);
    const asset = Object.prototype.hasOwnProperty.call(this.statics, name) ? this.statics[name] : undefined;
    if (asset) return reply(200, asset.type, asset.body);
    if (req.method === 'HEAD' || !this.pageTokens.consume(name)) {
      this.refuse('a page address with a wrong, used or expired token');
      return reply(404, 'text/plain; charset=utf-8', 'Not Found');
    }
    this.logger.info('capture page: served');
    reply(
      200,
      'text/html; charset=utf-8',
      pageHtml({ ...this.setup, hid: 'hid.js' in this.statics, leds: ledTable(), socket: this.socketTokens.issue() }),
    );
  }

  private upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    const deny = (status: number, reason: string): void => {
      this.refuse(reason);
      socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ''}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`, () =>
        socket.destroy(),
      );
    };
    if (!this.policy?.hostAllowed(req.headers.host)) return deny(403, "a socket with a Host header that is not the page's");
    if (!this.policy.originAllowed(req.headers.origin)) return deny(403, 'a socket from another origin');
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== `${PAGE_PREFIX}ws`) return deny(404, 'a socket at another path');
    if (!this.socketTokens.consume(url.searchParams.get('s') ?? undefined))
      return deny(403, 'a socket with a wrong, used or expired token');
    const origin = req.headers.origin;
    this.wss.handleUpgrade(req, socket, head, (ws) => this.attach(ws, origin));
  }

  private attach(ws: WebSocket, origin: string | undefined): void {
    const previous = this.page;
    this.page = ws;
    this.pageOrigin = origin;
    if (previous) {
      this.replaced.add(previous);
      previous.close(PAGE_CLOSE.replaced, 'another page took over');
    }
    this.framer = new PcmFramer();
    const rate = new PageRate(bytesPerSecond(PAGE_SAMPLE_RATE), this.clock);
    this.logger.info('capture page: connected');
    this.emitter.emit('page', 'connected');
    this.sendPage({ t: 'state', state: this.lastState });
    if (this.capturing) this.sendPage({ t: 'capture', on: true });
    const cut = (code: number, reason: string): void => {
      this.refuse(reason);
      // What such a socket left incomplete is not audio of the run.
      if (this.page === ws) this.framer.reset();
      if (this.page === ws) this.page = undefined;
      ws.close(code, reason.slice(0, 100));
    };
    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (this.page !== ws) return;
      const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
      if (!isBinary) return this.control(bytes, rate, cut);
      const problem = frameProblem(bytes.length);
      if (problem) return cut(PAGE_CLOSE.policy, problem);
      if (!rate.take(bytes.length)) return cut(PAGE_CLOSE.policy, 'a flood of audio frames');
      if (!this.capturing && !this.draining) {
        this.dropped++;
        return;
      }
      for (const frame of this.framer.push(bytes)) this.emitter.emit('data', frame);
    });
    ws.on('error', (e: Error & { code?: string }) => {
      if (e.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') this.refuse('an oversized message');
      else this.logger.warn(`capture page: socket error: ${e.message}`);
      if (this.page === ws) {
        this.framer.reset();
        this.page = undefined;
      }
    });
    ws.on('close', (code) => {
      if (this.page === ws) this.page = undefined;
      if (this.replaced.has(ws)) return;
      this.logger.info(`capture page: closed (${code})`);
      this.draining?.();
      this.flush();
      if (!this.page) this.emitter.emit('page', 'closed');
    });
  }

  private control(bytes: Buffer, rate: PageRate, cut: (code: number, reason: string) => void): void {
    if (bytes.length > MAX_CONTROL_BYTES) return cut(PAGE_CLOSE.policy, 'an oversized control message');
    if (!rate.take(0)) return cut(PAGE_CLOSE.policy, 'a flood of control messages');
    let m: unknown;
    try {
      m = JSON.parse(bytes.toString('utf8'));
    } catch {
      return cut(PAGE_CLOSE.policy, 'a control message that is not JSON');
    }
    const t = (m as { t?: unknown }).t;
    if (t === 'paused') {
      this.draining?.();
      this.flush();
    } else if (t === 'buttons') {
      const mask = (m as { mask?: unknown }).mask;
      if (typeof mask === 'number' && Number.isInteger(mask) && mask >= 0 && mask <= 0x7fffffff) this.emitter.emit('buttons', mask);
      else cut(PAGE_CLOSE.policy, 'a button mask that is not one');
    } else if (t === 'microphone') {
      const report = parseMicrophoneReport(m);
      if (!report) return cut(PAGE_CLOSE.policy, 'a microphone report that is not one');
      this.logger.warn(
        `capture page: the browser gave no microphone (${report.name}: ${report.message})${this.capturing ? '' : ' while not recording'}`,
      );
      // The run's source failed; out of a run (Start clicked in the page), the page shows it itself.
      if (this.capturing) this.emitter.emit('error', new PageMicrophoneError(report.name, report.message, this.pageOrigin));
    } else if (t === 'request') {
      const action = (m as { action?: unknown }).action;
      if (action === 'start' || action === 'pause' || action === 'stop') this.emitter.emit('request', action);
      else cut(PAGE_CLOSE.policy, 'an unknown request');
    } else cut(PAGE_CLOSE.policy, 'an unknown control message');
  }
}
