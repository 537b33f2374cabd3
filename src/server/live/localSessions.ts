/**
 * What one instance holds of the live sessions: the sessions and the connections that carry them, a
 * session attached to, detached from and forgotten, the figures read for the metrics, the keep-alive, and
 * the drain at shutdown. The registry (registry.ts) builds on it with what is decided elsewhere: admission,
 * resume, revocation across instances, a takeover by another instance, the sweep of what expired.
 */
import type { WebSocket } from 'ws';
import type { ClientConfig, EffectiveConfig } from '../../protocol';
import { type ServiceCounters, Tallies } from '../counters';
import { Condition } from '../../shared/condition';
import { Admission } from './admission';
import { Connection, type ConnectionHost } from './connection';
import { OUTSIDE_ENDS, endFromOutside } from './endSession';
import type { Engine, EngineLink } from '../engine/engine';
import { HttpInits } from './httpInits';
import { keepAlive } from './keepAlive';
import type { ServerLogger } from '../log';
import { LiveSession } from './session';
import type { LiveSessionInit } from './sessionTypes';
import type { ApiKey, Limits, RevocationFeed, SessionStore } from '../storage/stores';
import type { Timing } from '../timing';

export interface RegistryOptions {
  engine: Engine;
  store: SessionStore;
  limits: Limits;
  /** Tells the other instances of a revocation (nothing to tell in one process). */
  revocations: RevocationFeed;
  log: ServerLogger;
  timing: Timing;
  /** Live sessions one key may hold (undefined: only the organisation's limit applies). */
  perKeyLimit?: number;
  /** Session records and their events are deleted this many days after the session ended. */
  retentionDays: number;
  /** What the sessions and connections count for the service's metrics (default: counted nowhere). */
  counters?: ServiceCounters;
}

export abstract class LocalSessions implements ConnectionHost {
  protected readonly sessions = new Map<string, LiveSession>();
  protected readonly connections = new Set<Connection>();
  private readonly noConnections = new Condition(() => this.connections.size === 0);
  readonly httpInits: HttpInits;
  protected readonly log: ServerLogger;
  protected readonly admission: Admission;
  readonly configureTimeoutMs: number;
  readonly maxUnsentBytes: number;
  readonly counters: ServiceCounters;

  constructor(protected readonly o: RegistryOptions) {
    this.log = o.log;
    this.counters = o.counters ?? new Tallies();
    this.httpInits = new HttpInits(o.timing.initAdoptMs);
    this.admission = new Admission({
      engine: o.engine,
      store: o.store,
      limits: o.limits,
      log: o.log,
      perKeyLimit: o.perKeyLimit,
      staleSocketMs: o.timing.staleSocketMs,
      httpInits: this.httpInits,
      adoptMs: o.timing.initAdoptMs,
      sessions: this.sessions,
      evict: (session, conn) => {
        this.cut(conn);
        this.detach(session);
      },
    });
    this.configureTimeoutMs = o.timing.configureTimeoutMs;
    this.maxUnsentBytes = o.timing.maxUnsentBytes;
  }

  /** Creates or resumes the connection's session (registry.ts). */
  abstract configure(conn: Connection, config: ClientConfig): Promise<void>;

  /** Live sessions holding a connection. */
  get connectedSessions(): number {
    return [...this.sessions.values()].filter((s) => s.isLive && s.peer).length;
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  /** For the metrics, read when scraped: live sessions, those with a connection, the audio waiting to be decoded (ms). */
  liveFigures(): { live: number; connected: number; backlogMs: number; worstBacklogMs: number } {
    const f = { live: 0, connected: 0, backlogMs: 0, worstBacklogMs: 0 };
    for (const s of this.sessions.values()) {
      if (!s.isLive) continue;
      const queued = s.queuedMs();
      f.live++;
      f.connected += s.peer ? 1 : 0;
      f.backlogMs += queued;
      f.worstBacklogMs = Math.max(f.worstBacklogMs, queued);
    }
    return f;
  }

  lookup(sessionId: string): LiveSession | undefined {
    return this.sessions.get(sessionId);
  }

  /** A WebSocket of an authorised key: it must send `configure` next. */
  accept(ws: WebSocket, key: ApiKey): Connection {
    const conn = new Connection(ws, key, this, this.log);
    this.connections.add(conn);
    return conn;
  }

  closed(conn: Connection): void {
    this.connections.delete(conn);
    this.noConnections.changed();
    const s = conn.session;
    if (s && s.peer === conn) {
      this.detach(s);
      if (s.isLive) s.log.info('session detached: resumable', { last_seq: s.lastSeq, audio_offset: s.audioOffset });
    }
  }

  /** The keep-alive of the connections (keepAlive.ts): run every second or so. */
  heartbeat(): void {
    keepAlive(this.connections, this.o.timing);
  }

  /**
   * Shutdown: every live session with a connection gets `status stopping` / `stopped` (everything final and
   * persisted, still resumable after a restart) and a 1000 close; other connections a 1001 close. A
   * decoder in a worker first decodes the audio it has: this waits for that, at most `maxMs`, then
   * frees every session.
   */
  async drain(maxMs: number): Promise<void> {
    const drains: Array<Promise<unknown>> = [];
    for (const conn of [...this.connections]) {
      const s = conn.session;
      if (s && s.peer === conn && s.isLive) {
        drains.push(s.stop({ reason: 'service shutdown', resumable: true }).then(() => conn.close(1000, 'stopped')));
      } else {
        conn.close(1001, 'service shutting down');
      }
    }
    for (const s of this.sessions.values()) {
      if (s.isLive && !s.peer) drains.push(endFromOutside(s, OUTSIDE_ENDS.shutdown, maxMs));
    }
    await within(Promise.all(drains), maxMs);
    for (const s of this.sessions.values()) s.dispose();
  }

  /** Resolves when no session waits for a decoder any more (at most `maxMs`): before storage closes. */
  settled(maxMs: number): Promise<void> {
    return within(Promise.all([...this.sessions.values()].map((s) => s.settled())), maxMs);
  }

  /** Resolves true once every connection has closed (at once when none is open), false after `maxMs`. */
  connectionsClosed(maxMs: number): Promise<boolean> {
    return this.noConnections.wait(maxMs);
  }

  /** Cuts the connections still open (after the drain's grace time). */
  terminateAll(): void {
    for (const conn of this.connections) conn.terminate();
  }

  /** The one way a LiveSession is made: new, or restored from its checkpoint. */
  protected create(id: string, key: ApiKey, config: EffectiveConfig, restore?: LiveSessionInit['restore'], link?: EngineLink): LiveSession {
    return new LiveSession({
      id,
      keyId: key.id,
      orgId: key.orgId,
      config,
      recognizer: this.o.engine.create(config, link),
      store: this.o.store,
      log: this.log.child({ session_id: id }),
      restore,
      onStop: (s) => this.admission.release(s.orgId, s.id),
      counters: this.counters,
    });
  }

  /** Gives the session its connection; false (and the slot back) when the connection went away meanwhile. */
  protected attach(session: LiveSession, conn: Connection): boolean {
    if (conn.closing) {
      this.detach(session);
      return false;
    }
    session.attach(conn);
    conn.attached(session, () => this.o.store.pendingWrites(session.id));
    return true;
  }

  /** The session loses its connection, and so its concurrency slot (it stays resumable). */
  protected detach(session: LiveSession): void {
    session.detach();
    this.admission.release(session.orgId, session.id);
  }

  /** The session ends for good (here). */
  protected forget(session: LiveSession): void {
    session.dispose();
    this.sessions.delete(session.id);
    this.admission.release(session.orgId, session.id);
    this.o.store.endJournal(session.id);
  }

  /** A connection cut off at once, and forgotten. */
  protected cut(conn: Connection): void {
    conn.terminate();
    this.connections.delete(conn);
    this.noConnections.changed();
  }
}

/** Waits for `p`, at most `ms`. */
async function within(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p.catch(() => undefined), new Promise((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}
