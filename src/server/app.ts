/**
 * The service: HTTP routes, the WebSocket upgrade on `/api/v1/audio/live`, the session registry
 * (resume, concurrency per organisation, HTTP-initialised session ids), rate limits, revocation and
 * the shutdown drain.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  type ClientConfig,
  ConfigConflictError,
  CreateKeyRequestSchema,
  type EffectiveConfig,
  type ErrorCode,
  MAX_AUDIO_FRAME_BYTES,
  PATHS,
  type SessionInitResponse,
  closeCodeFor,
  describeZodError,
  redactKey,
  resolveConfig,
} from '../protocol';
import { Connection, type ConnectionHost } from './connection';
import { Store } from './db';
import type { Engine } from './engine/recognizer';
import { HttpError, bearer, parseJsonBody, presentedKey, readBody, safeUrl, sendError, sendJson } from './http/util';
import { type ApiKey, KeyRequestError, KeyStore } from './keys';
import { RateLimiter } from './limits';
import type { ServerLogger } from './log';
import { LiveSession } from './session';

export interface ServiceOptions {
  dataDir: string;
  engine: Engine;
  log: ServerLogger;
  masterKey: string | undefined;
  /** Called once with a newly generated master key (to print it on stdout). */
  announceMasterKey: (key: string) => void;
  concurrencyLimit: number;
  rateLimit: number;
  rateWindowMs: number;
  timing: Timing;
}

export interface Timing {
  configureTimeoutMs: number;
  pingIntervalMs: number;
  pongTimeoutMs: number;
  /** A socket silent this long may be replaced by a new session of the same key at the concurrency limit. */
  staleSocketMs: number;
  /** How long a stopped session can still be resumed (to get its replay). */
  stoppedTtlMs: number;
  /** How long a dropped (not stopped) session can be resumed. */
  resumeTtlMs: number;
  /** How long an HTTP-initialised session id waits for its WebSocket. */
  initAdoptMs: number;
}

export const DEFAULT_TIMING: Timing = {
  configureTimeoutMs: 10_000,
  pingIntervalMs: 15_000,
  pongTimeoutMs: 30_000,
  staleSocketMs: 5_000,
  stoppedTtlMs: 5 * 60_000,
  resumeTtlMs: 30 * 60_000,
  initAdoptMs: 60_000,
};

interface HttpInit {
  id: string;
  at: number;
  used: boolean;
}

const WRITE_NEEDED = 'this API key lacks the "write" permission needed to open a live session';

export class Service implements ConnectionHost {
  readonly store: Store;
  readonly keys: KeyStore;
  readonly server: http.Server;
  private readonly wss: WebSocketServer;
  private readonly rate: RateLimiter;
  private readonly log: ServerLogger;
  private readonly sessions = new Map<string, LiveSession>();
  private readonly connections = new Set<Connection>();
  private readonly httpInits = new Map<string, HttpInit[]>();
  private readonly timers: NodeJS.Timeout[] = [];
  private draining = false;

  constructor(private readonly opts: ServiceOptions) {
    this.log = opts.log;
    this.store = new Store(opts.dataDir);
    this.keys = new KeyStore(this.store, opts.dataDir, opts.masterKey, opts.announceMasterKey);
    this.rate = new RateLimiter(opts.rateLimit, opts.rateWindowMs);
    this.server = http.createServer((req, res) => {
      this.route(req, res).catch((e: unknown) => this.httpFailure(req, res, e));
    });
    this.server.headersTimeout = 15_000;
    this.server.requestTimeout = 30_000;
    // Above 64 KiB so an oversized audio frame gets our PROTOCOL_ERROR instead of a bare 1009 close.
    this.wss = new WebSocketServer({ noServer: true, maxPayload: 4 * MAX_AUDIO_FRAME_BYTES, perMessageDeflate: false });
    this.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(req, socket, head));
    this.server.on('clientError', (_e, socket) => {
      if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    });
  }

  get configureTimeoutMs(): number {
    return this.opts.timing.configureTimeoutMs;
  }

  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        const addr = this.server.address();
        const actual = typeof addr === 'object' && addr ? addr.port : port;
        const t = this.opts.timing;
        this.timers.push(setInterval(() => this.heartbeat(), Math.max(50, Math.min(t.pingIntervalMs, 1000))));
        this.timers.push(setInterval(() => this.sweep(), Math.max(1000, Math.min(t.stoppedTtlMs, 30_000))));
        resolve(actual);
      });
    });
  }

  // ================================================================== HTTP

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const p = url.pathname.replace(/\/+$/, '') || '/';
    const method = req.method ?? 'GET';
    this.log.debug('http request', { method, path: safeUrl(url.pathname) });
    if (p === PATHS.health) {
      this.allow(method, ['GET', 'HEAD']);
      sendJson(res, 200, { ok: true, engine: this.opts.engine.name, draining: this.draining });
      return;
    }
    if (this.draining) throw HttpError.of('INTERNAL_ERROR', 'service shutting down', 1000, 503);
    if (p === PATHS.sessionInit || p === PATHS.sessionInitAlt) {
      this.allow(method, ['POST']);
      await this.sessionInit(req, res);
      return;
    }
    if (p === PATHS.apiKeys) {
      this.allow(method, ['GET', 'POST']);
      this.requireMaster(req);
      if (method === 'GET') sendJson(res, 200, { success: true, keys: this.keys.list() });
      else await this.createKey(req, res);
      return;
    }
    if (p.startsWith(`${PATHS.apiKeys}/`)) {
      this.allow(method, ['DELETE']);
      this.requireMaster(req);
      this.revokeKey(decodeURIComponent(p.slice(PATHS.apiKeys.length + 1)), res);
      return;
    }
    if (p.startsWith('/v1/sessions/')) {
      this.allow(method, ['GET']);
      this.getSession(req, decodeURIComponent(p.slice('/v1/sessions/'.length)), res);
      return;
    }
    if (p === PATHS.audioLive) {
      throw new HttpError(400, 'PROTOCOL_ERROR', `${PATHS.audioLive} is a WebSocket endpoint; open it with a WebSocket upgrade`);
    }
    throw new HttpError(404, 'NOT_FOUND', `no such endpoint: ${method} ${safeUrl(url.pathname)}`);
  }

  private allow(method: string, allowed: string[]): void {
    if (!allowed.includes(method)) {
      const e = new HttpError(405, 'METHOD_NOT_ALLOWED', `method ${method} not allowed here; use ${allowed.join(' or ')}`);
      (e as HttpError & { allow?: string }).allow = allowed.join(', ');
      throw e;
    }
  }

  private httpFailure(req: IncomingMessage, res: ServerResponse, e: unknown): void {
    let err: HttpError;
    if (e instanceof HttpError) err = e;
    else {
      this.log.error('internal error on an HTTP request', { error: e, method: req.method, path: safeUrl(req.url ?? '') });
      err = HttpError.of('INTERNAL_ERROR', 'internal error');
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (err.status >= 400 && err.status !== 500) this.log.info('http error', { status: err.status, code: err.code, path: safeUrl(req.url ?? '') });
    sendError(res, err);
  }

  private requireMaster(req: IncomingMessage): void {
    const token = bearer(req);
    if (!token) throw HttpError.of('AUTH_ERROR', 'missing master key: send Authorization: Bearer <MASTER_KEY>');
    if (this.keys.isMaster(token)) return;
    const auth = this.keys.authenticate(token);
    if (auth.ok) throw HttpError.of('AUTH_ERROR', 'key management needs the master key; an API key is not enough', 0, 403);
    throw HttpError.of('AUTH_ERROR', 'invalid master key');
  }

  /** Authenticates an API key for an HTTP request: 401 when missing/unknown/revoked. */
  private authenticate(token: string | undefined): ApiKey {
    const auth = this.keys.authenticate(token);
    if (auth.ok) return auth.key;
    throw HttpError.of('AUTH_ERROR', authMessage(auth.reason));
  }

  private async sessionInit(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const key = this.authenticate(presentedKey(req, true));
    if (!key.permissions.includes('write')) throw HttpError.of('AUTH_ERROR', WRITE_NEEDED, 0, 403);
    const decision = this.rate.take(key.id);
    if (!decision.allowed) {
      this.log.info('rate limited (session init)', { key: key.hint, retry_after_ms: decision.retryAfterMs });
      throw HttpError.of('RATE_LIMITED', rateMessage(this.opts.rateLimit, this.opts.rateWindowMs), decision.retryAfterMs);
    }
    const body = parseJsonBody(await readBody(req));
    if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
      throw HttpError.of('PROTOCOL_ERROR', 'request body, when present, must be a JSON object');
    }
    const id = randomUUID();
    const at = Date.now();
    this.store.recordSession(id, key.id, key.orgId, 'http', new Date(at).toISOString());
    const list = (this.httpInits.get(key.id) ?? []).filter((i) => !i.used && at - i.at < this.opts.timing.initAdoptMs);
    list.push({ id, at, used: false });
    this.httpInits.set(key.id, list.slice(-50));
    this.log.info('session initialised', { session_id: id, key: key.hint });
    const out: SessionInitResponse = { success: true, session_id: id, org_id: key.orgId };
    sendJson(res, 200, out);
  }

  private async createKey(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = parseJsonBody(await readBody(req));
    const parsed = CreateKeyRequestSchema.safeParse(body ?? {});
    if (!parsed.success) {
      const d = describeZodError(parsed.error);
      throw HttpError.of('CONFIG_ERROR', d.message);
    }
    try {
      const created = this.keys.create(parsed.data, this.store.orgId);
      this.log.info('API key created', { key_id: created.id, key: redactKey(created.key), type: created.type });
      sendJson(res, 201, created);
    } catch (e) {
      if (e instanceof KeyRequestError) throw HttpError.of('CONFIG_ERROR', e.message);
      throw e;
    }
  }

  private revokeKey(keyOrId: string, res: ServerResponse): void {
    const key = this.keys.revoke(keyOrId);
    if (!key) throw new HttpError(404, 'NOT_FOUND', 'no such API key');
    this.log.info('API key revoked', { key_id: key.id, key: key.hint });
    this.closeSessionsOfKey(key.id);
    sendJson(res, 200, { success: true, id: key.id, revoked_at: key.revokedAt });
  }

  private getSession(req: IncomingMessage, id: string, res: ServerResponse): void {
    const token = bearer(req);
    let orgId: string | undefined;
    if (!this.keys.isMaster(token)) {
      const key = this.authenticate(token);
      if (!key.permissions.includes('admin')) throw HttpError.of('AUTH_ERROR', 'reading sessions needs the master key or an "admin" key', 0, 403);
      orgId = key.orgId;
    }
    const record = this.store.getSession(id);
    const live = this.sessions.get(id);
    if ((!record && !live) || (orgId && record && record.org_id !== orgId)) throw new HttpError(404, 'NOT_FOUND', 'no such session');
    sendJson(res, 200, {
      success: true,
      session: {
        ...(record ?? {}),
        session_id: id,
        state: live ? live.state : record?.ended_at ? 'stopped' : 'not live',
        connected: Boolean(live?.peer),
        last_seq: live?.lastSeq,
        metrics: live?.metrics(),
      },
    });
  }

  // ================================================================== WebSocket

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname.replace(/\/+$/, '');
    if (path !== PATHS.audioLive) {
      this.log.info('upgrade refused: unknown path', { path: safeUrl(req.url ?? '') });
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n' +
        JSON.stringify({ success: false, error: { code: 'NOT_FOUND', message: 'no such WebSocket endpoint', retry_after_ms: 0 } }));
      return;
    }
    if (this.draining) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\n\r\n');
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.connected(ws, req, url));
  }

  private connected(ws: WebSocket, req: IncomingMessage, url: URL): void {
    const token = bearer(req) ?? url.searchParams.get('token') ?? undefined;
    const auth = this.keys.authenticate(token);
    const where = bearer(req) ? 'header' : url.searchParams.has('token') ? 'query' : 'none';
    if (!auth.ok) {
      this.log.info('WebSocket refused: auth', { reason: auth.reason, token_in: where, url: safeUrl(req.url ?? '') });
      rejectSocket(ws, 'AUTH_ERROR', authMessage(auth.reason));
      return;
    }
    const key = auth.key;
    if (!key.permissions.includes('write')) {
      this.log.info('WebSocket refused: no write permission', { key: key.hint });
      rejectSocket(ws, 'AUTH_ERROR', WRITE_NEEDED);
      return;
    }
    const decision = this.rate.take(key.id);
    if (!decision.allowed) {
      this.log.info('WebSocket refused: rate limited', { key: key.hint, retry_after_ms: decision.retryAfterMs });
      rejectSocket(ws, 'RATE_LIMITED', rateMessage(this.opts.rateLimit, this.opts.rateWindowMs), decision.retryAfterMs);
      return;
    }
    const conn = new Connection(ws, key, this, this.log);
    this.connections.add(conn);
    conn.log.info('WebSocket connected', { key: key.hint, token_in: where, url: safeUrl(req.url ?? '') });
  }

  closed(conn: Connection): void {
    this.connections.delete(conn);
    const s = conn.session;
    if (s && s.peer === conn) {
      s.detach();
      if (s.isLive) s.log.info('session detached: resumable', { last_seq: s.lastSeq, audio_offset: s.audioOffset });
    }
  }

  configure(conn: Connection, config: ClientConfig): void {
    let effective: EffectiveConfig;
    try {
      effective = resolveConfig(config);
    } catch (e) {
      if (e instanceof ConfigConflictError) {
        conn.fail('CONFIG_ERROR', `invalid configuration: ${e.message}`);
        return;
      }
      throw e;
    }
    const why = this.opts.engine.unsupported(effective);
    if (why) {
      conn.fail('INIT_ERROR', why);
      return;
    }
    const key = conn.key;
    const resume = config.resume;
    if (resume) {
      if (this.tryResume(conn, resume.session_id, resume.last_seq)) return;
    }
    // A new session needs a slot.
    if (!this.takeSlot(conn)) return;
    const id = this.adoptHttpInit(key.id) ?? randomUUID();
    const log = this.log.child({ session_id: id });
    const session = new LiveSession({ id, keyId: key.id, orgId: key.orgId, config: effective, recognizer: this.opts.engine.create(effective), store: this.store, log });
    this.store.recordSession(id, key.id, key.orgId, 'ws', new Date().toISOString());
    this.store.sessionStarted(id, new Date().toISOString());
    this.sessions.set(id, session);
    session.attach(conn);
    conn.attached(session);
    log.info('session configured', {
      engine: this.opts.engine.name,
      note: this.opts.engine.name === 'simulated' ? 'simulated engine: produces text without recognising speech' : undefined,
      language: effective.language,
      specialty: effective.specialty,
      sample_rate: effective.sample_rate,
      preset: effective.preset,
      resume_requested: resume ? resume.session_id : undefined,
    });
    conn.send({
      type: 'configured',
      session_id: id,
      engine: this.opts.engine.name,
      ...(resume ? { resumed: false, last_seq: 0, resume_audio_offset: 0 } : {}),
    });
  }

  /** Resumes a session (in memory, or from storage after a restart). Returns false to start a new one. */
  private tryResume(conn: Connection, sessionId: string, lastSeq: number): boolean {
    const key = conn.key;
    let session = this.sessions.get(sessionId);
    if (session && session.keyId !== key.id) {
      this.log.info('resume refused: session of another key', { session_id: sessionId });
      return false;
    }
    if (session) {
      if (!session.isLive) {
        this.replayStopped(conn, session.id, lastSeq, session.lastSeq, session.audioOffset, session.metrics());
        return true;
      }
      const old = session.peer;
      if (old instanceof Connection && old !== conn) {
        // Take-over: the old socket is dead or dying; its slot passes to the new one.
        old.log.info('connection replaced by a resuming one');
        old.terminate();
        this.connections.delete(old);
        session.detach();
      } else if (!this.takeSlot(conn, true)) {
        return true;
      }
    } else {
      const row = this.store.getCheckpoint(sessionId);
      if (!row || row.key_id !== key.id) {
        this.log.info('resume refused: unknown or expired session', { session_id: sessionId });
        return false;
      }
      if (row.stopped_at) {
        const lastIssued = Math.max(this.store.maxSeq(sessionId), row.next_seq - 1);
        this.replayStopped(conn, sessionId, lastSeq, lastIssued, row.audio_offset, { total_chunks: row.total_frames, session_duration: (Date.parse(row.stopped_at) - Date.parse(row.created_at)) / 1000, discarded_chunks: row.discarded_frames });
        return true;
      }
      let config: EffectiveConfig;
      try {
        config = JSON.parse(row.config) as EffectiveConfig;
      } catch {
        this.log.warn('resume refused: unreadable checkpoint', { session_id: sessionId });
        return false;
      }
      if (!this.takeSlot(conn)) return true;
      try {
        session = new LiveSession({
          id: sessionId,
          keyId: key.id,
          orgId: key.orgId,
          config,
          recognizer: this.opts.engine.create(config),
          store: this.store,
          log: this.log.child({ session_id: sessionId }),
          restore: { row, lastSeq },
        });
      } catch (e) {
        this.log.warn('resume refused: checkpoint cannot be restored', { session_id: sessionId, error: e });
        return false;
      }
      this.sessions.set(sessionId, session);
      session.log.info('session restored from storage', { audio_offset: row.audio_offset });
    }
    session.attach(conn);
    conn.attached(session);
    const issued = session.lastSeq;
    conn.send({ type: 'configured', session_id: session.id, engine: session.engineName, resumed: true, last_seq: issued, resume_audio_offset: session.audioOffset });
    const replayed = session.replay(lastSeq);
    session.log.info('session resumed', { client_last_seq: lastSeq, last_seq: issued, replayed, resume_audio_offset: session.audioOffset });
    return true;
  }

  private replayStopped(conn: Connection, id: string, lastSeq: number, issued: number, offset: number, metrics: object): void {
    conn.session = undefined;
    conn.send({ type: 'configured', session_id: id, engine: this.opts.engine.name, resumed: true, last_seq: issued, resume_audio_offset: offset });
    let n = 0;
    for (const row of this.store.eventsAfter(id, lastSeq)) {
      conn.send(JSON.parse(row.json) as object);
      n++;
    }
    conn.send({ type: 'status', state: 'stopped', message: 'session already stopped (replayed)', metrics });
    this.log.info('stopped session replayed', { session_id: id, replayed: n });
    conn.close(1000, 'stopped');
  }

  /** Counts a slot for a new live session of the connection's org. Sends the error itself when none is free. */
  private takeSlot(conn: Connection, resuming = false): boolean {
    const org = conn.key.orgId;
    const live = [...this.sessions.values()].filter((s) => s.orgId === org && s.peer && s.isLive);
    if (live.length < this.opts.concurrencyLimit) return true;
    const now = Date.now();
    const stale = live.find((s) => s.keyId === conn.key.id && s.peer instanceof Connection && now - s.peer.lastSeen >= this.opts.timing.staleSocketMs);
    if (stale && stale.peer instanceof Connection) {
      const old = stale.peer;
      stale.log.info('silent socket cleaned up to free a slot', { silent_ms: now - old.lastSeen });
      stale.flush({ proofread: false });
      old.terminate();
      this.connections.delete(old);
      stale.detach();
      return true;
    }
    this.log.info('concurrency limit reached', { org_id: org, limit: this.opts.concurrencyLimit, resuming });
    conn.fail(
      'CONCURRENCY_LIMIT_EXCEEDED',
      `concurrency limit reached: ${this.opts.concurrencyLimit} live sessions for this organisation; stop a session or try again later`,
    );
    return false;
  }

  private adoptHttpInit(keyId: string): string | undefined {
    const list = this.httpInits.get(keyId);
    if (!list) return undefined;
    const now = Date.now();
    for (let i = list.length - 1; i >= 0; i--) {
      const init = list[i]!;
      if (!init.used && now - init.at < this.opts.timing.initAdoptMs && !this.sessions.has(init.id)) {
        init.used = true;
        return init.id;
      }
    }
    return undefined;
  }

  private closeSessionsOfKey(keyId: string): void {
    for (const conn of [...this.connections]) {
      if (conn.key.id !== keyId) continue;
      conn.fail('AUTH_ERROR', 'API key revoked');
    }
    for (const s of this.sessions.values()) {
      if (s.keyId !== keyId) continue;
      if (s.isLive) {
        s.flush({ proofread: false });
        s.recordEnd('key revoked');
      }
      s.dispose();
      this.sessions.delete(s.id);
      this.store.dropResumeData(s.id);
    }
  }

  // ================================================================== timers

  private heartbeat(): void {
    const now = Date.now();
    const t = this.opts.timing;
    for (const conn of this.connections) {
      if (conn.closing) continue;
      if (now - conn.lastSeen >= t.pongTimeoutMs) {
        conn.log.warn('peer silent: connection dropped', { silent_ms: now - conn.lastSeen });
        conn.terminate();
        continue;
      }
      if (now - conn.lastPing >= t.pingIntervalMs) {
        conn.lastPing = now;
        try {
          conn.ws.ping();
        } catch {
          /* closing */
        }
      }
    }
  }

  private sweep(): void {
    const now = Date.now();
    const t = this.opts.timing;
    this.rate.sweep();
    for (const s of [...this.sessions.values()]) {
      const expired = s.isLive ? !s.peer && s.detachedAt !== undefined && now - s.detachedAt >= t.resumeTtlMs : now - (s.stoppedAt ?? now) >= t.stoppedTtlMs;
      if (!expired || s.peer) continue;
      if (s.isLive) {
        s.flush({ proofread: true });
        s.recordEnd('dropped and not resumed');
        s.log.info('dropped session expired');
      }
      s.dispose();
      this.sessions.delete(s.id);
    }
    try {
      const stoppedBefore = new Date(now - t.stoppedTtlMs).toISOString();
      const idleBefore = new Date(now - t.resumeTtlMs).toISOString();
      const gone = this.store.expireResumeData(stoppedBefore, idleBefore).filter((id) => !this.sessions.has(id));
      if (gone.length) this.log.debug('resume data expired', { sessions: gone.length });
    } catch (e) {
      this.log.error('could not expire resume data', { error: e });
    }
    for (const [k, list] of this.httpInits) {
      const keep = list.filter((i) => !i.used && now - i.at < t.initAdoptMs);
      if (keep.length) this.httpInits.set(k, keep);
      else this.httpInits.delete(k);
    }
  }

  // ================================================================== shutdown

  /**
   * Drain: stop accepting; every live session gets `status stopping` / `stopped` (everything
   * finalised and persisted, still resumable after a restart) and a 1000 close; then close storage.
   */
  async shutdown(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    this.log.info('shutting down: draining sessions', { sessions: this.sessions.size, connections: this.connections.size });
    for (const t of this.timers) clearInterval(t);
    const serverClosed = new Promise<void>((r) => this.server.close(() => r()));
    for (const conn of [...this.connections]) {
      const s = conn.session;
      if (s && s.peer === conn && s.isLive) {
        s.stop({ reason: 'service shutdown', resumable: true });
        conn.close(1000, 'stopped');
      } else {
        conn.close(1001, 'service shutting down');
      }
    }
    for (const s of this.sessions.values()) {
      if (s.isLive && !s.peer) s.flush({ proofread: true });
      s.dispose();
    }
    const deadline = Date.now() + 3000;
    while (this.connections.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    for (const conn of this.connections) conn.terminate();
    this.server.closeAllConnections();
    await Promise.race([serverClosed, new Promise((r) => setTimeout(r, 1000))]);
    this.store.close();
    this.log.info('shutdown complete');
  }
}

function rejectSocket(ws: WebSocket, code: ErrorCode, message: string, retryAfterMs = 0): void {
  ws.send(JSON.stringify({ type: 'error', code, message, retry_after_ms: Math.max(0, Math.round(retryAfterMs)) }));
  ws.close(closeCodeFor(code), code);
  setTimeout(() => ws.terminate(), 2000).unref();
}

function authMessage(reason: 'missing' | 'malformed' | 'unknown' | 'revoked'): string {
  switch (reason) {
    case 'missing':
      return 'missing API key: send it as Authorization: Bearer <API_KEY> (or ?token= on the WebSocket, x-svc-key on session init)';
    case 'malformed':
      return 'invalid API key: not of the form svc_live_…, svc_test_… or svc_proj_…';
    case 'unknown':
      return 'invalid API key: unknown to this service';
    case 'revoked':
      return 'API key revoked';
  }
}

function rateMessage(limit: number, windowMs: number): string {
  return `rate limit exceeded: at most ${limit} session inits and WebSocket connections per key per ${windowMs / 1000} s`;
}
