/**
 * Whether a live session may start, and its concurrency slot: for a new session, decoders that keep up
 * with real time, the remote recogniser reached, its id (the HTTP init's, or a new one) and its record; for
 * any session, the key's limit and the organisation's slot (freed from a silent socket of the same key if
 * need be), and the slot given back. The registry asks; this is the one owner of the slots.
 */
import { randomUUID } from 'node:crypto';
import type { EffectiveConfig } from '../../protocol';
import { monotonicMs } from '../clock';
import { Connection } from './connection';
import { type Engine, type EngineLink, isConnectRefusal } from '../engine/engine';
import type { ServerLogger } from '../log';
import type { LiveSession } from './session';
import type { HttpInits } from './httpInits';
import type { Limits, SessionStore } from '../storage/stores';

interface AdmissionOptions {
  engine: Engine;
  store: SessionStore;
  limits: Limits;
  log: ServerLogger;
  /** Live sessions one key may hold (undefined: only the organisation's limit applies). */
  perKeyLimit?: number;
  /** A socket silent this long gives its session's slot up to a new session of the same key. */
  staleSocketMs: number;
  /** Session ids of the HTTP init waiting for their WebSocket. */
  httpInits: HttpInits;
  /** How long an HTTP init waits for its WebSocket (ms). */
  adoptMs: number;
  /** The sessions of the registry, by id. */
  sessions: ReadonlyMap<string, LiveSession>;
  /** A silent socket's session gives its slot up: the connection cut, the session detached (its slot released). */
  evict: (session: LiveSession, conn: Connection) => void;
}

export class Admission {
  constructor(private readonly o: AdmissionOptions) {}

  /**
   * Everything a new session needs before it exists: the engine's part (below), an id (the one an HTTP
   * init of the key left waiting, or a new one), a slot, and its record in storage. Undefined when it cannot
   * start (the connection got its error); a store's failure is thrown, everything given back first.
   */
  async newSession(conn: Connection, config: EffectiveConfig): Promise<{ id: string; link: EngineLink | undefined } | undefined> {
    const link = await this.engineFor(conn, config);
    if (link === null) return undefined;
    const key = conn.key;
    // The init may have been made on another instance (a balancer between them): the store hands it to one taker.
    const now = Date.now();
    const adopted = await this.o.store.adoptHttpInit(key.id, new Date(now - this.o.adoptMs).toISOString(), new Date(now).toISOString());
    const id = adopted ?? randomUUID();
    const giveBack = (): void => {
      if (adopted)
        void this.o.store.releaseHttpInit(adopted).catch((e: unknown) => this.o.log.warn('could not give an HTTP init back', { error: e }));
    };
    if (!(await this.admit(conn, id))) {
      link?.close();
      giveBack();
      return undefined;
    }
    try {
      const at = new Date().toISOString();
      await this.o.store.recordSession(id, key.id, key.orgId, 'ws', at);
      await this.o.store.sessionStarted(id, at);
    } catch (e) {
      link?.close();
      this.release(key.orgId, id);
      giveBack();
      throw e;
    }
    return { id, link };
  }

  /**
   * What a new session needs of the engine: decoders that keep up with real time, then its connection
   * (engines whose recogniser is another machine). Undefined when it needs none, or null when the session
   * cannot start (the connection got its error, with a retry time).
   */
  private async engineFor(conn: Connection, config: EffectiveConfig): Promise<EngineLink | undefined | null> {
    const busy = this.o.engine.busy?.();
    if (busy) {
      this.o.log.info('new session refused: decoding behind real time', { retry_after_ms: busy.retryAfterMs });
      conn.fail('CONCURRENCY_LIMIT_EXCEEDED', busy.message, { retryAfterMs: busy.retryAfterMs });
      return null;
    }
    // A remote recogniser is reached first: unreachable, the session never exists.
    if (!this.o.engine.connect) return undefined;
    const r = await this.o.engine.connect(config);
    if (isConnectRefusal(r)) {
      conn.fail('INIT_ERROR', r.message, { retryAfterMs: r.retryAfterMs });
      return null;
    }
    if (conn.closing) {
      r.close();
      return null;
    }
    return r;
  }

  /** A slot for a live session of the connection's organisation. Sends the error itself when none is free. */
  async admit(conn: Connection, sessionId: string): Promise<boolean> {
    const { orgId, id: keyId } = conn.key;
    const limits = this.o.limits;
    const perKey = this.o.perKeyLimit;
    if (perKey !== undefined) {
      const held = [...this.o.sessions.values()].filter((s) => s.keyId === keyId && s.id !== sessionId && s.isLive && s.peer).length;
      if (held >= perKey) {
        this.o.log.info('per-key limit reached', { key: conn.key.hint, limit: perKey });
        conn.fail(
          'CONCURRENCY_LIMIT_EXCEEDED',
          `concurrency limit reached: at most ${perKey} live sessions per key; stop a session of this key or try again later`,
        );
        return false;
      }
    }
    if (await limits.acquireSlot(orgId, sessionId)) return true;
    // At the limit: a session of the same key whose socket has gone silent gives its slot up.
    const now = monotonicMs();
    const stale = [...this.o.sessions.values()].find(
      (s) => s.keyId === keyId && s.isLive && s.peer instanceof Connection && now - s.peer.lastSeen >= this.o.staleSocketMs,
    );
    if (stale && stale.peer instanceof Connection) {
      const old = stale.peer;
      stale.log.info('silent socket cleaned up to free a slot', { silent_ms: Math.round(now - old.lastSeen) });
      void stale.flush({ proofread: false });
      this.o.evict(stale, old);
      if (await limits.acquireSlot(orgId, sessionId)) return true;
    }
    this.o.log.info('concurrency limit reached', { org_id: orgId, limit: limits.concurrencyLimit });
    conn.fail(
      'CONCURRENCY_LIMIT_EXCEEDED',
      `concurrency limit reached: ${limits.concurrencyLimit} live sessions for this organisation; stop a session or try again later`,
    );
    return false;
  }

  /** The session's slot given back (stopped, detached, ended, or never started). */
  release(orgId: string, sessionId: string): void {
    this.o.limits.releaseSlot(orgId, sessionId);
  }
}
