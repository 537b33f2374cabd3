/**
 * The service: the HTTP server with its API (http/), the WebSocket upgrade on `/api/v1/audio/live`
 * (authorised before it happens, auth.ts), the session registry (registry.ts), the stores and limits
 * behind their interfaces (stores.ts; opened by backends.ts: SQLite or PostgreSQL, in-process or Redis),
 * revocations from the other instances, the keep-alive and sweep timers, and the shutdown drain.
 */
import http, { type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { type ErrorCode, MAX_AUDIO_FRAME_BYTES, type OutgoingError, PATHS, closeCodeFor } from '../protocol';
import { WRITE_NEEDED, authorize } from './http/auth';
import type { Engine } from './engine/engine';
import type { ApiContext } from './http/context';
import { httpFailure, route } from './http/routes';
import { HttpError, answerClientError, bearer, parseRequestUrl, refuseUpgrade, safeUrl, sendError } from './http/util';
import { LoopDelayMonitor } from './http/loopDelay';
import { activeResources } from './http/activeResources';
import type { ServerLogger } from './log';
import { SessionRegistry, type Timing } from './live/registry';
import { BackendUnavailableError, type KeyStore, type Limits, type SessionStore } from './storage/stores';
import type { Backends } from './storage/backends';
import { errorMessage } from '../shared/errors';
import { checkAllWhole, checkWhole } from '../shared/options';

export { DEFAULT_TIMING, type Timing } from './live/registry';

/** How long a shutdown waits for sessions to be finalised (decoders in workers decode what they have). */
const SHUTDOWN_DRAIN_MS = 30_000;

interface ServiceOptions {
  /** What the service keeps and counts (backends.ts); closed by the shutdown. */
  backends: Pick<Backends, 'store' | 'keys' | 'limits' | 'revocations' | 'close'>;
  engine: Engine;
  log: ServerLogger;
  timing: Timing;
  /** Live sessions per key (undefined: no limit of its own). */
  perKeyLimit?: number;
  /** Days session records and their events are kept after the session ended. */
  retentionDays: number;
  /** A server already listening ({@link bindHttpServer}); else {@link Service.listen} makes one listen. */
  server?: http.Server;
}

function serverOptions(timing: Timing): http.ServerOptions {
  const headersTimeout = timing.headersTimeoutMs;
  return { headersTimeout, requestTimeout: Math.max(30_000, headersTimeout), connectionsCheckingInterval: Math.min(1000, headersTimeout) };
}

/**
 * Listens before anything is created (a master key, a database): a service that cannot have its port
 * fails first, having changed nothing. Until a {@link Service} takes the server, a request gets 503
 * (INTERNAL_ERROR with `retry_after_ms`) and an upgrade is refused the same way.
 */
export async function bindHttpServer(host: string, port: number, timing: Timing): Promise<http.Server> {
  const server = http.createServer(serverOptions(timing));
  const starting = HttpError.of('INTERNAL_ERROR', 'the service is starting; retry in 1 s', 1000, 503);
  server.on('request', function startingAnswer(req: IncomingMessage, res: http.ServerResponse) {
    req.resume();
    sendError(res, starting);
  });
  server.on('upgrade', function startingUpgrade(_req: IncomingMessage, socket: Duplex) {
    refuseUpgrade(socket, starting);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

export class Service {
  readonly store: SessionStore;
  readonly keys: KeyStore;
  readonly limits: Limits;
  readonly registry: SessionRegistry;
  readonly server: http.Server;
  private readonly wss: WebSocketServer;
  private readonly log: ServerLogger;
  private readonly api: ApiContext;
  private readonly timers: NodeJS.Timeout[] = [];
  private draining = false;

  constructor(private readonly opts: ServiceOptions) {
    checkAllWhole('timing', opts.timing, 1);
    if (opts.perKeyLimit !== undefined) checkWhole('perKeyLimit', opts.perKeyLimit, 1);
    checkWhole('retentionDays', opts.retentionDays, 1, 3650);
    if (opts.server && !opts.server.listening) throw new TypeError('option server must be a server that listens already (bindHttpServer)');
    this.log = opts.log;
    const { store, keys, limits, revocations } = opts.backends;
    this.store = store;
    this.keys = keys;
    this.limits = limits;
    this.registry = new SessionRegistry({
      engine: opts.engine,
      store,
      limits,
      revocations,
      log: this.log,
      timing: opts.timing,
      perKeyLimit: opts.perKeyLimit,
      retentionDays: opts.retentionDays,
    });
    revocations.subscribe(
      (keyId) =>
        void this.registry
          .endKeySessions(keyId)
          .catch((e: unknown) => this.log.error('could not end the sessions of a revoked key', { key_id: keyId, error: e })),
      () => void this.recheckKeys(),
    );
    this.api = {
      keys: this.keys,
      store: this.store,
      limits: this.limits,
      registry: this.registry,
      log: this.log,
      engine: opts.engine,
      draining: () => this.draining,
      status: () => this.status(),
      loopDelay: () => this.healthDelay.take(),
    };
    this.server = opts.server ?? http.createServer(serverOptions(opts.timing));
    this.server.removeAllListeners('request');
    this.server.removeAllListeners('upgrade');
    this.server.on('request', (req: IncomingMessage, res: http.ServerResponse) => {
      route(this.api, req, res).catch((e: unknown) => httpFailure(this.api, req, res, e));
    });
    // Above 64 KiB so an oversized audio frame gets our PROTOCOL_ERROR instead of a bare 1009 close. UTF-8 is
    // checked by the connection, so that an invalid text frame gets a PROTOCOL_ERROR before its 1007.
    this.wss = new WebSocketServer({
      noServer: true,
      maxPayload: 4 * MAX_AUDIO_FRAME_BYTES,
      perMessageDeflate: false,
      skipUTF8Validation: true,
    });
    this.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      try {
        this.upgrade(req, socket, head);
      } catch (e) {
        this.log.error('internal error on a WebSocket upgrade', { error: e, url: safeUrl(req.url ?? '') });
        refuseUpgrade(socket, HttpError.of('INTERNAL_ERROR', 'internal error'));
      }
    });
    // CONNECT is not served: answered, never left hanging.
    this.server.on('connect', (req: IncomingMessage, socket: Duplex) => {
      this.log.debug('CONNECT refused', { url: safeUrl(req.url ?? '') });
      refuseUpgrade(socket, HttpError.methodNotAllowed('CONNECT', ['GET', 'POST', 'DELETE']));
    });
    this.server.on('clientError', (e: NodeJS.ErrnoException, socket: Duplex) => answerClientError(this.log, e, socket));
  }

  /** Event-loop delay since the previous GET /healthz, and since the previous GET /v1/status. */
  private readonly healthDelay = new LoopDelayMonitor();
  private readonly statusDelay = new LoopDelayMonitor();

  /** What GET /v1/status tells the master key: sessions, connections, memory, event-loop delay (since the last call), active handles. */
  private status(): object {
    const delay = this.statusDelay.take();
    return {
      sessions: this.registry.sessionCount,
      connected_sessions: this.registry.connectedSessions,
      connections: this.registry.connectionCount,
      rss_bytes: process.memoryUsage.rss(),
      heap_used_bytes: process.memoryUsage().heapUsed,
      event_loop_delay_p99_ms: delay?.p99 ?? 0,
      event_loop_delay_max_ms: delay?.max ?? 0,
      active_resources: activeResources(),
    };
  }

  /** Listens (unless the server given to the constructor already does) and starts the timers; the port. */
  async listen(host: string, port: number): Promise<number> {
    if (!this.server.listening) {
      await new Promise<void>((resolve, reject) => {
        this.server.once('error', reject);
        this.server.listen(port, host, () => {
          this.server.off('error', reject);
          resolve();
        });
      });
    }
    const addr = this.server.address();
    const actual = typeof addr === 'object' && addr ? addr.port : port;
    const t = this.opts.timing;
    this.timers.push(setInterval(() => this.registry.heartbeat(), Math.max(50, Math.min(t.pingIntervalMs, 1000))));
    this.timers.push(setInterval(() => void this.registry.sweep(), Math.max(1000, Math.min(t.stoppedTtlMs, 30_000))));
    void this.registry.sweep();
    return actual;
  }

  /** A WebSocket upgrade: refused over HTTP for a wrong path or a draining service; else authorised, then upgraded. */
  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = parseRequestUrl(req.url);
    if (!url) {
      this.log.debug('upgrade refused: malformed URL', { url: safeUrl(req.url ?? '') });
      refuseUpgrade(socket, HttpError.of('PROTOCOL_ERROR', 'malformed request URL'));
      return;
    }
    if (url.pathname.replace(/\/+$/, '') !== PATHS.audioLive) {
      this.log.info('upgrade refused: unknown path', { path: safeUrl(req.url ?? '') });
      refuseUpgrade(socket, new HttpError(404, 'NOT_FOUND', 'no such WebSocket endpoint'));
      return;
    }
    if (req.method !== 'GET') {
      refuseUpgrade(socket, HttpError.methodNotAllowed(req.method ?? '', ['GET']));
      return;
    }
    const token = bearer(req) ?? url.searchParams.get('token') ?? undefined;
    const where = bearer(req) ? 'header' : url.searchParams.has('token') ? 'query' : 'none';
    const shuttingDown = (): boolean => {
      if (this.draining) refuseUpgrade(socket, HttpError.of('INTERNAL_ERROR', 'service shutting down', 1000, 503));
      return this.draining;
    };
    if (shuttingDown()) return;
    authorize(this.keys, this.limits, token, { permission: 'write', lacking: WRITE_NEEDED, rate: true }).then(
      (auth) => {
        if (shuttingDown()) return;
        this.wss.handleUpgrade(req, socket, head, (ws) => {
          if (!auth.ok) {
            this.log.info('WebSocket refused', {
              reason: auth.why,
              key: auth.keyHint,
              retry_after_ms: auth.retryAfterMs || undefined,
              token_in: where,
              url: safeUrl(req.url ?? ''),
            });
            rejectSocket(ws, auth.code, auth.message, auth.retryAfterMs);
            return;
          }
          const conn = this.registry.accept(ws, auth.key);
          conn.log.info('WebSocket connected', { key: auth.key.hint, token_in: where, url: safeUrl(req.url ?? '') });
        });
      },
      (e: unknown) => {
        if (e instanceof BackendUnavailableError) {
          this.log.warn('WebSocket refused: backend unreachable', { backend: e.backend, retry_after_ms: e.retryAfterMs });
          refuseUpgrade(socket, HttpError.unavailable(e.retryAfterMs));
          return;
        }
        this.log.error('internal error while authorising a WebSocket', { error: e, url: safeUrl(req.url ?? '') });
        refuseUpgrade(socket, HttpError.of('INTERNAL_ERROR', 'internal error'));
      },
    );
  }

  /**
   * Drain: stop accepting; every live session gets `status stopping` / `stopped` (everything
   * finalised and persisted, still resumable after a restart) and a 1000 close; then close storage.
   */
  async shutdown(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    this.log.info('shutting down: draining sessions', { sessions: this.registry.sessionCount, connections: this.registry.connectionCount });
    for (const t of this.timers) clearInterval(t);
    const serverClosed = new Promise<void>((r) => this.server.close(() => r()));
    await this.registry.drain(SHUTDOWN_DRAIN_MS);
    const deadline = Date.now() + 3000;
    while (this.registry.connectionCount > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    this.registry.terminateAll();
    // Decoders in workers hand in their last finals before storage closes.
    await this.registry.settled(3000);
    this.server.closeAllConnections();
    await Promise.race([serverClosed, new Promise((r) => setTimeout(r, 1000))]);
    this.healthDelay.dispose();
    this.statusDelay.dispose();
    await this.opts.backends.close();
    this.log.info('shutdown complete');
  }

  /** Revocations may have been missed (the feed reconnected): the keys of the live sessions are checked again. */
  private async recheckKeys(): Promise<void> {
    try {
      const revoked = await this.keys.revokedAmong(this.registry.liveKeyIds());
      for (const keyId of revoked) await this.registry.endKeySessions(keyId);
      if (revoked.length) this.log.info('revocations missed while the feed was down: sessions ended', { keys: revoked.length });
    } catch (e) {
      this.log.warn('could not re-check the keys of the live sessions', { error: errorMessage(e) });
    }
  }
}

/** Refuses an upgraded WebSocket: the `error` message, then the close code of its error code. */
function rejectSocket(ws: WebSocket, code: ErrorCode, message: string, retryAfterMs = 0): void {
  // Whatever the client sends meanwhile (a frame over the limit…) must not become an uncaught error.
  ws.on('error', () => undefined);
  const error: OutgoingError = { type: 'error', code, message, retry_after_ms: Math.max(0, Math.round(retryAfterMs)) };
  ws.send(JSON.stringify(error));
  ws.close(closeCodeFor(code), code);
  setTimeout(() => ws.terminate(), 2000).unref();
}
