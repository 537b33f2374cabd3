/**
 * The live sessions of the service as they start and end: admission of a new session (asked of
 * `admission.ts`, which holds the concurrency slots), resume (decided in `resume.ts`, carried out here),
 * revocation (here, or announced by another instance), a takeover by another instance, and the sweep of what
 * expired. What this instance holds (its sessions, their connections, the drain at shutdown) is
 * `localSessions.ts`, which this builds on.
 */
import { type ClientConfig, ConfigConflictError, type EffectiveConfig, resolveConfig } from '../../protocol';
import { monotonicMs } from '../clock';
import { Connection } from './connection';
import { OUTSIDE_ENDS, type OutsideEnd, endFromOutside } from './endSession';
import { LocalSessions, type RegistryOptions } from './localSessions';
import type { LiveSession } from './session';
import { type Restoration, Resumer, configured } from './resume';
import { Retention } from './retention';
import type { ApiKey } from '../storage/stores';

export { DEFAULT_TIMING, type Timing } from '../timing';

export class SessionRegistry extends LocalSessions {
  /** Dropped sessions the sweep is ending. */
  private readonly ending = new Set<LiveSession>();
  private readonly resumer: Resumer;
  private readonly retention: Retention;

  constructor(o: RegistryOptions) {
    super(o);
    this.retention = new Retention(o.store, o.retentionDays, o.log);
    this.resumer = new Resumer({ engine: o.engine, store: o.store, log: o.log });
    o.store.onTakenOver((id) => this.takenOver(id));
  }

  async configure(conn: Connection, config: ClientConfig): Promise<void> {
    let effective: EffectiveConfig;
    try {
      effective = resolveConfig(config);
    } catch (e) {
      if (!(e instanceof ConfigConflictError)) throw e;
      conn.fail('CONFIG_ERROR', `invalid configuration: ${e.message}`);
      return;
    }
    const why = this.o.engine.unsupported(effective);
    if (why) {
      conn.fail('INIT_ERROR', why);
      return;
    }
    const resume = config.resume;
    if (resume && (await this.resume(conn, resume.session_id, resume.last_seq))) return;
    // A new session needs decoders that keep up with real time, its recogniser reached, an id, a slot and its record.
    const admitted = await this.admission.newSession(conn, effective);
    if (!admitted) return;
    const { id, link } = admitted;
    const session = this.create(id, conn.key, effective, undefined, link);
    this.sessions.set(id, session);
    if (!this.attach(session, conn)) return;
    this.counters.sessionStarted();
    session.log.info('session configured', {
      engine: this.o.engine.name,
      note: this.o.engine.name === 'simulated' ? 'simulated engine: produces text without recognising speech' : undefined,
      language: effective.language,
      specialty: effective.specialty,
      sample_rate: effective.sample_rate,
      preset: effective.preset,
      keyterms: effective.keyterms?.length,
      auto_punctuation: effective.auto_punctuation,
      resume_requested: resume ? resume.session_id : undefined,
    });
    conn.send(configured(id, this.o.engine, effective, resume ? { resumed: false, lastSeq: 0, offset: 0 } : undefined));
  }

  /** Revocation through this instance: the key's sessions end here, and the other instances are told to end theirs. */
  async revokeKey(keyId: string): Promise<void> {
    await this.endKeySessions(keyId);
    await this.o.revocations
      .announce(keyId)
      .catch((e: unknown) => this.log.error('could not announce a revocation', { key_id: keyId, error: e }));
  }

  /** The keys of the live sessions here. */
  liveKeyIds(): string[] {
    return [...new Set([...this.sessions.values()].filter((s) => s.isLive).map((s) => s.keyId))];
  }

  /**
   * A revoked key (here, or announced by another instance): each of its sessions is ended from outside
   * (endSession.ts: every word its decoder has is sent first, then AUTH_ERROR, close 4001) and can no longer
   * be resumed; the key's connections without a session get AUTH_ERROR at once.
   */
  async endKeySessions(keyId: string, end: OutsideEnd = OUTSIDE_ENDS.revoked): Promise<void> {
    const sessions = [...this.sessions.values()].filter((s) => s.keyId === keyId);
    const ending = sessions.map((s) => this.endSession(s, end).then(() => this.o.store.dropResumeData(s.id)));
    for (const conn of [...this.connections]) {
      if (conn.key.id !== keyId || (conn.session && sessions.includes(conn.session))) continue;
      if (end.error) conn.fail(end.error.code, end.error.message);
    }
    await Promise.all(ending);
  }

  /**
   * Ends a session from outside (endSession.ts) and forgets it here: revocation, the sweep of a dropped
   * session, and what is to come (an administrator's DELETE /v1/sessions/<id>, a key's expiry). Bounded by
   * `Timing.endFlushMs`.
   */
  async endSession(s: LiveSession, end: OutsideEnd): Promise<void> {
    try {
      await endFromOutside(s, end, this.o.timing.endFlushMs);
    } catch (e) {
      s.log.error('could not end the session cleanly', { reason: end.reason, error: e });
    } finally {
      if (this.sessions.get(s.id) === s) this.forget(s);
    }
  }

  /** Ends what expired: dropped sessions never resumed, stopped sessions past their replay time, their resume data. */
  async sweep(): Promise<void> {
    const now = monotonicMs();
    const wall = Date.now();
    const t = this.o.timing;
    this.o.limits.sweep();
    for (const s of [...this.sessions.values()]) {
      const expired = s.isLive
        ? !s.peer && s.detachedAt !== undefined && now - s.detachedAt >= t.resumeTtlMs
        : now - (s.stoppedAt ?? now) >= t.stoppedTtlMs;
      if (!expired || s.peer || this.ending.has(s)) continue;
      if (s.isLive) {
        s.log.info('dropped session expired');
        this.ending.add(s);
        void this.endSession(s, OUTSIDE_ENDS.dropped).finally(() => this.ending.delete(s));
      } else this.forget(s);
    }
    try {
      const gone = (
        await this.o.store.expireResumeData(new Date(wall - t.stoppedTtlMs).toISOString(), new Date(wall - t.resumeTtlMs).toISOString())
      ).filter((id) => !this.sessions.has(id));
      if (gone.length) this.log.debug('resume data expired', { sessions: gone.length });
    } catch (e) {
      this.log.error('could not expire resume data', { error: e });
    }
    this.httpInits.sweep();
    await this.retention.due();
  }

  /** A `configure` with `resume`: what the resumer decides, carried out. Resolves false to start a new session instead. */
  private async resume(conn: Connection, sessionId: string, lastSeq: number): Promise<boolean> {
    const d = await this.resumer.decide(conn.key, sessionId, lastSeq, this.sessions.get(sessionId));
    let session: LiveSession | undefined;
    switch (d.kind) {
      case 'refuse':
        return false;
      case 'invalid':
        conn.fail('CONFIG_ERROR', d.message);
        return true;
      case 'replay':
        await this.resumer.replay(conn, d.replay);
        return true;
      case 'stale':
        this.takenOver(sessionId);
        return this.resume(conn, sessionId, lastSeq);
      case 'takeOver': {
        const old = d.session.peer;
        if (old instanceof Connection && old !== conn) {
          old.log.info('connection replaced by a resuming one');
          this.cut(old);
          d.session.detach();
        } else if (!(await this.admission.admit(conn, sessionId))) return true;
        session = d.session;
        break;
      }
      case 'restore':
        if (!(await this.admission.admit(conn, sessionId))) return true;
        // Another connection may have restored it meanwhile (a store across the network answers later).
        if (this.sessions.has(sessionId)) return this.resume(conn, sessionId, lastSeq);
        session = await this.restore(conn.key, sessionId, lastSeq);
        if (!session) return false;
    }
    const events = await this.resumer.unseenEvents(session, lastSeq);
    if (this.attach(session, conn)) {
      this.counters.sessionResumed();
      this.resumer.resumed(session, conn, lastSeq, events);
    }
    return true;
  }

  /** A session from storage (its slot taken), claimed and rebuilt; undefined (the slot given back) when it cannot be. */
  private async restore(key: ApiKey, id: string, lastSeq: number): Promise<LiveSession | undefined> {
    let claimed: Restoration | Error | undefined;
    try {
      claimed = await this.resumer.claim(key, id, lastSeq);
      if (claimed instanceof Error) throw claimed;
      const session = this.create(id, key, claimed.config, claimed.restore);
      this.sessions.set(id, session);
      const { row } = claimed.restore;
      session.log.info('session restored from storage', {
        audio_offset: row.audio_offset,
        previous_owner: (row as { previous_owner?: string }).previous_owner,
      });
      return session;
    } catch (e) {
      this.admission.release(key.orgId, id);
      if (!claimed) throw e; // the store failed: so does the `configure`
      this.log.warn('resume refused: checkpoint cannot be restored', { session_id: id, error: e });
      return undefined;
    }
  }

  /** Another instance claimed a session this one has: it ends here without a word (its client is over there). */
  private takenOver(sessionId: string): void {
    const s = this.sessions.get(sessionId);
    if (!s) return;
    const conn = s.peer instanceof Connection ? s.peer : undefined;
    s.log.warn('session resumed on another instance: ended here');
    this.forget(s);
    if (conn) this.cut(conn);
  }
}
