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
import { endHeldSession } from './live/adminEnd';
import { teamApi } from './http/teamApi';
import { httpFailure, route } from './http/routes';
import { HttpError, answerClientError, bearer, parseRequestUrl, refuseUpgrade, safeUrl } from './http/util';
import { detachStartingAnswers, serverOptions } from './http/bind';
import { LoopDelayMonitor } from './http/loopDelay';
import { clientAddressFor } from './http/clientAddress';
import { serviceMetrics } from './http/metrics';
import { closeMetricsServer, serveMetrics } from './http/metricsListener';
import { type Readiness, readiness } from './http/readiness';
import { Tallies } from './counters';
import { activeResources } from './http/activeResources';
import type { ServerLogger } from './log';
import { SessionRegistry, type Timing } from './live/registry';
import { BackendUnavailableError, type KeyStore, type Limits, type SessionStore } from './storage/stores';
import type { Backends } from './storage/backends';
import { type AuditSink, NO_AUDIT, auditSinkOf } from './storage/auditSink';
import { KeyExpiryWatch } from './live/keyExpiry';
import { errorMessage } from '../shared/errors';
import { checkAllWhole, checkWhole } from '../shared/options';
import { Dashboard } from './dashboard/dashboard';
import type { DashboardSignIn } from './dashboard/signInSetup';

export { DEFAULT_TIMING, type Timing } from './live/registry';
export { bindHttpServer } from './http/bind';

/** How long a shutdown waits for sessions to be finalised (decoders in workers decode what they have). */
const SHUTDOWN_DRAIN_MS = 30_000;

interface ServiceOptions {
  /** What the service keeps and counts (backends.ts); closed by the shutdown. */
  backends: Pick<Backends, 'store' | 'keys' | 'limits' | 'revocations' | 'checks' | 'close'> &
    Partial<Pick<Backends, 'team' | 'dashboard'>>;
  /** false: no dashboard (`--no-dashboard`); else served at /dashboard when the backends keep its data. */
  dashboard?: boolean;
  /** The dashboard's single sign-on and second factor (dashboard/signInSetup.ts). */
  dashboardSignIn?: DashboardSignIn;
  engine: Engine;
  log: ServerLogger;
  timing: Timing;
  /** Live sessions per key (undefined: no limit of its own). */
  perKeyLimit?: number;
  /** Days session records and their events are kept after the session ended. */
  retentionDays: number;
  /** A server already listening ({@link bindHttpServer}); else {@link Service.listen} makes one listen. */
  server?: http.Server;
  /** `--trust-proxy` (clientAddress.ts): whose X-Forwarded-For gives the client's address; undefined: the socket's. */
  trustProxy?: string;
  /** The metrics listener (`--metrics-port`, http/metricsListener.ts), listening already; closed after the drain. */
  metricsServer?: http.Server;
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
  private readonly clientAddress: (req: IncomingMessage) => string;
  private readonly timers: NodeJS.Timeout[] = [];
  private draining = false;
  /** A re-check of the live sessions' keys is under way. */
  private recheckingKeys = false;
  /** The periodic tasks on the stores under way (the sweep, the key re-check): awaited before the stores close. */
  private readonly background = new Set<Promise<void>>();
  /** What the sessions and the API count, for the metrics. */
  readonly tallies = new Tallies();
  /** Where the actions on keys, people and projects are told (storage/auditSink.ts; by default nowhere). */
  private readonly audit: AuditSink;
  /** Ends the sessions of keys at their expiry (live/keyExpiry.ts). */
  private readonly expiry: KeyExpiryWatch;
  /** The dashboard at /dashboard (dashboard/dashboard.ts), unless turned off. */
  private readonly dashboard?: Dashboard;

  constructor(private readonly opts: ServiceOptions) {
    checkAllWhole('timing', opts.timing, 1);
    if (opts.perKeyLimit !== undefined) checkWhole('perKeyLimit', opts.perKeyLimit, 1);
    checkWhole('retentionDays', opts.retentionDays, 1, 3650);
    if (opts.server && !opts.server.listening) throw new TypeError('option server must be a server that listens already (bindHttpServer)');
    this.log = opts.log;
    this.clientAddress = clientAddressFor(opts.trustProxy);
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
      counters: this.tallies,
    });
    this.audit = opts.backends.team ? auditSinkOf(opts.backends.team.audit) : NO_AUDIT;
    this.expiry = new KeyExpiryWatch(this.registry, this.log, () => void this.auditExpiries());
    revocations.subscribe(
      (keyId) =>
        void this.registry
          .endKeySessions(keyId)
          .catch((e: unknown) => this.log.error('could not end the sessions of a revoked key', { key_id: keyId, error: e })),
      () => this.inBackground(() => this.recheckKeys()),
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
      clientAddress: this.clientAddress,
      counters: this.tallies,
      readiness: () => this.readiness(),
      audit: this.audit,
      expiry: this.expiry,
      team: teamApi(opts.backends.team, revocations, opts.timing),
    };
    revocations.onSessionEnd?.(
      (id) =>
        void endHeldSession(this.registry, store, id).catch((e: unknown) =>
          this.log.error('could not end a session an administrator ended', { session_id: id, error: e }),
        ),
    );
    if (opts.metricsServer) this.serveMetrics(opts.metricsServer);
    this.server = opts.server ?? http.createServer(serverOptions(opts.timing));
    detachStartingAnswers(this.server);
    if (opts.dashboard !== false && opts.backends.dashboard)
      this.dashboard = new Dashboard(this.api, opts.backends.dashboard, { ...opts.dashboardSignIn });
    this.server.on('request', (req: IncomingMessage, res: http.ServerResponse) => {
      if (this.dashboard?.owns(req) && !this.draining) {
        this.dashboard.handle(req, res).catch((e: unknown) => httpFailure(this.api, req, res, e));
        return;
      }
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
        this.refuse(socket, HttpError.of('INTERNAL_ERROR', 'internal error'));
      }
    });
    // CONNECT is not served: answered, never left hanging.
    this.server.on('connect', (req: IncomingMessage, socket: Duplex) => {
      this.log.debug('CONNECT refused', { url: safeUrl(req.url ?? '') });
      this.refuse(socket, HttpError.methodNotAllowed('CONNECT', ['GET', 'POST', 'DELETE']));
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

  /** `GET /readyz`: not while draining, nor while a backend does not answer. */
  readiness(): Promise<Readiness> {
    return readiness(this.opts.backends.checks, this.draining);
  }

  private serveMetrics(server: http.Server): void {
    const registry = serviceMetrics({
      tallies: this.tallies,
      live: () => this.registry.liveFigures(),
      connections: () => this.registry.connectionCount,
      engineBusy: () => Boolean(this.opts.engine.busy?.()),
      readiness: () => this.readiness(),
    });
    serveMetrics(server, registry, this.log);
  }

  /** An upgrade refused (and counted) before it becomes a WebSocket. */
  private refuse(socket: Duplex, err: HttpError): void {
    this.tallies.error(err.code);
    refuseUpgrade(socket, err);
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
    this.timers.push(setInterval(() => this.inBackground(() => this.registry.sweep()), Math.max(1000, Math.min(t.stoppedTtlMs, 30_000))));
    this.inBackground(() => this.registry.sweep());
    // Revocations that could not be announced to this instance (Redis down) still end its sessions.
    this.timers.push(setInterval(() => this.inBackground(() => this.recheckKeys(true)), t.keyRecheckMs));
    return actual;
  }

  /** Runs a periodic task on the stores, unless the service is draining; shutdown waits for it before closing them. */
  private inBackground(task: () => Promise<void>): void {
    if (this.draining) return;
    const p: Promise<void> = task()
      .catch((e: unknown) => this.log.error('a periodic task failed', { error: e }))
      .finally(() => this.background.delete(p));
    this.background.add(p);
  }

  /** A WebSocket upgrade: refused over HTTP for a wrong path or a draining service; else authorised, then upgraded. */
  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = parseRequestUrl(req.url);
    if (!url) {
      this.log.debug('upgrade refused: malformed URL', { url: safeUrl(req.url ?? '') });
      this.refuse(socket, HttpError.of('PROTOCOL_ERROR', 'malformed request URL'));
      return;
    }
    if (url.pathname.replace(/\/+$/, '') !== PATHS.audioLive) {
      this.log.info('upgrade refused: unknown path', { path: safeUrl(req.url ?? '') });
      this.refuse(socket, new HttpError(404, 'NOT_FOUND', 'no such WebSocket endpoint'));
      return;
    }
    if (req.method !== 'GET') {
      this.refuse(socket, HttpError.methodNotAllowed(req.method ?? '', ['GET']));
      return;
    }
    const token = bearer(req) ?? url.searchParams.get('token') ?? undefined;
    const where = bearer(req) ? 'header' : url.searchParams.has('token') ? 'query' : 'none';
    const shuttingDown = (): boolean => {
      if (this.draining) this.refuse(socket, HttpError.of('INTERNAL_ERROR', 'service shutting down', 1000, 503));
      return this.draining;
    };
    if (shuttingDown()) return;
    const address = this.clientAddress(req);
    authorize(this.keys, this.limits, token, { permission: 'write', lacking: WRITE_NEEDED, rate: true }, address).then(
      (auth) => {
        if (shuttingDown()) return;
        this.wss.handleUpgrade(req, socket, head, (ws) => {
          if (!auth.ok) {
            this.log.info('WebSocket refused', {
              reason: auth.why,
              address,
              key: auth.keyHint,
              retry_after_ms: auth.retryAfterMs || undefined,
              token_in: where,
              url: safeUrl(req.url ?? ''),
            });
            this.tallies.error(auth.code);
            rejectSocket(ws, auth.code, auth.message, auth.retryAfterMs);
            return;
          }
          const conn = this.registry.accept(ws, auth.key);
          this.expiry.watch(auth.key.id, auth.key.expiresAt);
          conn.log.info('WebSocket connected', { key: auth.key.hint, address, token_in: where, url: safeUrl(req.url ?? '') });
        });
      },
      (e: unknown) => {
        if (e instanceof BackendUnavailableError) {
          this.log.warn('WebSocket refused: backend unreachable', { backend: e.backend, retry_after_ms: e.retryAfterMs });
          this.refuse(socket, HttpError.unavailable(e.retryAfterMs));
          return;
        }
        this.log.error('internal error while authorising a WebSocket', { error: e, url: safeUrl(req.url ?? '') });
        this.refuse(socket, HttpError.of('INTERNAL_ERROR', 'internal error'));
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
    this.expiry.close();
    this.dashboard?.close();
    // Stop accepting, drain, then close what is left (the order of the capture page's server too).
    const serverClosed = new Promise<void>((r) => this.server.close(() => r()));
    await this.registry.drain(SHUTDOWN_DRAIN_MS);
    await this.registry.connectionsClosed(3000);
    this.registry.terminateAll();
    // Decoders in workers hand in their last finals before storage closes.
    await this.registry.settled(3000);
    this.server.closeAllConnections();
    await Promise.race([serverClosed, new Promise((r) => setTimeout(r, 1000))]);
    // Scraped until the drain is over (dictee_draining 1), then closed.
    if (this.opts.metricsServer) await closeMetricsServer(this.opts.metricsServer);
    this.healthDelay.dispose();
    this.statusDelay.dispose();
    // A sweep or key re-check under way finishes before its stores close (bounded: a store that hangs does not hold the exit).
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(this.background), new Promise((r) => (timer = setTimeout(r, 3000)))]);
    clearTimeout(timer);
    await this.opts.backends.close();
    this.log.info('shutdown complete');
  }

  /** `key.expired` in the audit log for the keys whose expiry has passed (once across instances). */
  private async auditExpiries(): Promise<void> {
    try {
      await this.opts.backends.team?.auditExpiries();
    } catch (e) {
      if (!(e instanceof BackendUnavailableError)) this.log.warn('could not record the expired keys', { error: errorMessage(e) });
    }
  }

  /**
   * Revocations may have been missed (the feed reconnected; `periodic`: every `keyRecheckMs`, in case the feed
   * could not tell us): the keys of the live sessions are checked again.
   */
  private async recheckKeys(periodic = false): Promise<void> {
    // Ending a key's sessions may wait for their decoders (endFlushMs): a tick meanwhile has nothing to add.
    if (periodic && this.recheckingKeys) return;
    this.recheckingKeys = true;
    try {
      if (periodic) void this.auditExpiries();
      const live = this.registry.liveKeyIds();
      if (periodic && live.length === 0) return;
      const revoked = await this.keys.revokedAmong(live);
      if (revoked.length) {
        const why = periodic ? 'the periodic check found revoked keys with live sessions' : 'revocations missed while the feed was down';
        this.log.info(`${why}: ending their sessions`, { keys: revoked.length });
      }
      await Promise.all(revoked.map((keyId) => this.registry.endKeySessions(keyId)));
      // Expiries: those changed through another instance (a roll) are watched; those past end their sessions now.
      const { expired, pending } = await this.keys.expiries(live.filter((id) => !revoked.includes(id)));
      for (const [keyId, at] of pending) this.expiry.watch(keyId, at);
      await Promise.all(expired.map((keyId) => this.expiry.expire(keyId)));
    } catch (e) {
      // An unreachable store is logged once by its own reconnection; the next check tries again.
      if (periodic && e instanceof BackendUnavailableError) return;
      this.log.warn('could not re-check the keys of the live sessions', { error: errorMessage(e) });
    } finally {
      this.recheckingKeys = false;
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
