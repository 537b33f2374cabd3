/**
 * What the service keeps and counts, behind three interfaces, so that another implementation (PostgreSQL,
 * Redis) can be put beside today's without touching the rest:
 *
 * - `KeyStore`: API keys and the master key (today keys.ts, on SQLite);
 * - `SessionStore`: session records, and what a session needs to be resumed: its durable events and its
 *   checkpoint (today db.ts, SQLite in the data dir);
 * - `Limits`: the rate limit per key and the concurrency slots per organisation (today limits.ts, in
 *   this process).
 *
 * Synchronous or not (docs/architecture.md): what a request or a connection waits for once — authentication,
 * key management, session init, configure, resume, revocation, the sweep — returns a Promise, so that a
 * store across the network fits. What a live session writes while audio flows — its *journal*: each final
 * event with the checkpoint after it, persisted before the event is sent — is synchronous: no audio frame
 * ever waits on I/O. A journal may queue its writes in order (the PostgreSQL journal; SQLite's group commit,
 * one transaction per turn of the event loop) and makes them visible to this store's own reads of the
 * session (`getCheckpoint`, `eventsAfter`, `maxSeq`), which are asynchronous.
 * Releasing a slot does not wait either.
 *
 * Several instances (PostgreSQL and Redis, docs/deploy.md): a networked journal may lag behind the session
 * that writes it, so `pendingWrites` tells a connection what it must wait for before it sends an event
 * (nothing is sent before it is durable); `claim` and `stillOwned` make one instance at a time the owner of a
 * session's journal (fencing: the writes of an earlier owner are refused once another instance claimed it,
 * and that instance is told through `onTakenOver`).
 */
import type { CreateKeyRequest, CreatedKey, KeyListing, Permission } from '../../protocol';
import type { OrgRole, TeamStore } from './teams';

export interface ApiKey {
  id: string;
  name: string;
  type: 'personal' | 'project';
  projectId: string | null;
  permissions: Permission[];
  environment: 'live' | 'test';
  orgId: string;
  createdAt: string;
  revokedAt: string | null;
  /** Prefix and last four characters: the only form of a key that is ever logged. */
  hint: string;
  /** The person of a personal key (null: the organisation's own key, or a project key). */
  personId: string | null;
  /** That person's role in the organisation, as of the authentication (null: no person). */
  personRole: OrgRole | null;
  /** When the key stops working (ISO time; null: never). */
  expiresAt: string | null;
  /** The key this one replaced by a roll. */
  rolledFrom: string | null;
  /** When the key was last let in (null: never; written at most once a minute). */
  lastUsedAt?: string | null;
}

export type AuthFailure = 'missing' | 'malformed' | 'unknown' | 'revoked' | 'expired';
export type Authenticated = { ok: true; key: ApiKey } | { ok: false; reason: AuthFailure };

/** A key-creation request that is valid field by field but not as a whole. */
export class KeyRequestError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** What a key creation is told beside its request: the organisation, and the key a roll replaces. */
export interface KeyCreation {
  /** Default: the first organisation (`TeamStore.defaultOrgId`). */
  orgId?: string;
  rolledFrom?: string;
}

export interface KeyStore {
  /** Organisations, people, projects (teams.ts). */
  readonly teams: TeamStore;
  /** Whether this is the master key (compared with its hash, kept in memory). */
  isMaster(presented: string | undefined): boolean;
  authenticate(presented: string | undefined): Promise<Authenticated>;
  /**
   * A new key; throws KeyRequestError for a request that contradicts itself or what is stored (an unknown
   * person, an expiry in the past or beyond the organisation's maximum, a name taken in the key's scope).
   */
  create(req: CreateKeyRequest, c?: KeyCreation): Promise<CreatedKey>;
  /** A key by its id or its value. */
  find(keyOrId: string): Promise<ApiKey | undefined>;
  /**
   * Rolls a key: a new one of the same name, type, project, person, permissions and lifetime, and the old one
   * set to expire `overlapMs` from now (never later than it did). Throws KeyRequestError for a revoked or expired key.
   */
  roll(old: ApiKey, overlapMs: number): Promise<{ created: CreatedKey; old: ApiKey }>;
  list(): Promise<KeyListing[]>;
  /** Which of these key ids have expired, and when each of the others expires (those that do). */
  expiries(keyIds: string[]): Promise<{ expired: string[]; pending: Map<string, string> }>;
  /** Revokes a key given by its id or its value (idempotent): the key as revoked, or undefined when unknown. */
  revoke(keyOrId: string): Promise<ApiKey | undefined>;
  /**
   * Revokes as `revoke`, and says whether this call is the one that revoked it (false: it was already, by an
   * earlier or a concurrent call): two administrators revoking the same key at once get one revocation.
   */
  revokeOnce(keyOrId: string): Promise<{ key: ApiKey; revokedHere: boolean } | undefined>;
  /** Which of these key ids are revoked (or unknown). */
  revokedAmong(keyIds: string[]): Promise<string[]>;
  /** Revocations recorded (with the key's, durably) whose announcement to the other instances is still pending. */
  pendingRevocations(): Promise<string[]>;
  /** The revocation of this key was announced to every instance: no longer pending. */
  revocationAnnounced(keyId: string): Promise<void>;
}

export interface SessionRecord {
  id: string;
  key_id: string;
  org_id: string;
  origin: 'http' | 'ws';
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  duration: number | null;
  total_frames: number;
  final_chunks: number;
  end_reason: string | null;
  /** The project of the key that opened the session (null for a personal key): read scoping. */
  project_id: string | null;
  /** The person of the key that opened the session (null: none), and the key's environment: read scoping. */
  person_id?: string | null;
  environment?: 'live' | 'test' | null;
  /** Seconds of audio received (bytes / 2 / sample rate), written with the end; null before it. */
  audio_seconds: number | null;
}

export interface SessionEnd {
  at: string;
  duration: number;
  totalFrames: number;
  finals: number;
  reason: string;
  /** Seconds of audio the session received: bytes of PCM / 2 / its sample rate (not wall time). */
  audioSeconds: number;
}

/** What a session needs to be resumed after a restart, as of its last durable event. */
export interface CheckpointRow {
  session_id: string;
  key_id: string;
  org_id: string;
  next_seq: number;
  next_index: number;
  audio_offset: number;
  engine: string; // JSON of the segmenter checkpoint
  config: string; // JSON of the effective config
  total_frames: number;
  discarded_frames: number;
  /** `final` transcripts sent so far in the session (metrics survive a restart). */
  final_chunks: number;
  created_at: string;
  stopped_at: string | null;
  updated_at: string;
}

/** A durable event (`transcript` final or `batch.replace`) as it was sent. */
export interface StoredEvent {
  seq: number;
  json: string;
}

/** Durable events kept per session for replay. */
export const MAX_EVENTS_PER_SESSION = 2000;

/** How the journal writes queued for a session ended. */
export type JournalOutcome =
  /** written */
  | 'durable'
  /** failed for good (logged by the store): the events are sent all the same, as with a failed SQLite write */
  | 'failed'
  /** not written and never will be: another instance claimed the session, or the store closed first */
  | 'abandoned';

/**
 * A backend (PostgreSQL, Redis) is unreachable: the request is refused with INTERNAL_ERROR and
 * `retry_after_ms`; live sessions go on. The message names the backend, never its address or password.
 */
/** What a client is told while a backend is unreachable (HTTP and WebSocket alike). */
export function unavailableMessage(retryAfterMs: number): string {
  return `service temporarily unavailable; retry in ${Math.max(1, Math.ceil(retryAfterMs / 1000))} s`;
}

export class BackendUnavailableError extends Error {
  override readonly name = 'BackendUnavailableError';
  constructor(
    readonly backend: 'PostgreSQL' | 'Redis',
    readonly retryAfterMs: number,
    options?: { cause?: unknown },
  ) {
    super(`${backend} is unreachable`, options);
  }
}

export interface SessionStore {
  // -------- records (awaited once per session)
  recordSession(id: string, keyId: string, orgId: string, origin: 'http' | 'ws', at: string): Promise<void>;
  sessionStarted(id: string, at: string): Promise<void>;
  sessionEnded(id: string, end: SessionEnd): Promise<void>;
  getSession(id: string): Promise<SessionRecord | undefined>;
  /**
   * One dictation, one record, on any instance: the latest session of `keyId` made by an HTTP init since
   * `createdAfter` (ISO) and not yet taken by a WebSocket, now marked started at `at` (atomically: one taker);
   * undefined when none waits.
   */
  adoptHttpInit(keyId: string, createdAfter: string, at: string): Promise<string | undefined>;
  /** An adopted init whose session could not start after all: it waits again. */
  releaseHttpInit(id: string): Promise<void>;

  // -------- resume (awaited at configure, resume and sweep)
  getCheckpoint(sessionId: string): Promise<CheckpointRow | undefined>;
  /** The durable events after `seq`, in order. */
  eventsAfter(sessionId: string, seq: number): Promise<StoredEvent[]>;
  /** The highest durable seq kept (0 when none). */
  maxSeq(sessionId: string): Promise<number>;
  /** Removes the resume data of sessions stopped before `stoppedBefore`, or idle since `idleBefore` (ISO times); their ids. */
  expireResumeData(stoppedBefore: string, idleBefore: string): Promise<string[]>;
  dropResumeData(sessionId: string): Promise<void>;
  /**
   * Retention: deletes what belongs to sessions that ended (or, never ended, were created) before
   * `before` (ISO time) and are no longer live: records, checkpoints, transcript events.
   */
  pruneBefore(before: string): Promise<{ sessions: number; events: number }>;

  // -------- the journal of a live session (synchronous: written while audio flows; see above)
  /** One durable event and the checkpoint after it, together. */
  persistEvent(sessionId: string, seq: number, json: string, cp: CheckpointRow): void;
  /** Keeps the latest MAX_EVENTS_PER_SESSION events of a session. */
  trimEvents(sessionId: string): void;
  saveCheckpoint(cp: CheckpointRow): void;
  markStopped(sessionId: string, nextSeq: number, at: string): void;
  /**
   * The journal writes queued so far for the session: undefined when none is waiting, else a promise of
   * how they ended. What a session sends after a journal write waits for it.
   */
  pendingWrites(sessionId: string): Promise<JournalOutcome> | undefined;
  /** The cause of the last failed journal write, for the session's log, when the store keeps it. */
  lastWriteError?(): unknown;
  /** The session ended on this instance: once its queued writes are done, its journal is forgotten here. */
  endJournal(sessionId: string): void;

  // -------- ownership (several instances; awaited at resume)
  /**
   * Makes this instance the owner of a session's journal, taking it from the instance that had it (whose
   * writes are refused from now on): the checkpoint as claimed, or undefined when there is none.
   */
  claim(sessionId: string): Promise<CheckpointRow | undefined>;
  /** Whether this instance still owns the journal of a session it has in memory (no other instance claimed it). */
  stillOwned(sessionId: string): Promise<boolean>;
  /** Called when another instance claimed a session this one journals (its writes were refused). */
  onTakenOver(listener: (sessionId: string) => void): void;

  close(): Promise<void>;
}

export type RateDecision = { allowed: true } | { allowed: false; retryAfterMs: number };

export interface Limits {
  /** Session inits plus WebSocket connections allowed per key per window. */
  readonly rateLimit: number;
  readonly rateWindowMs: number;
  /** Live sessions (with a connection) per organisation. */
  readonly concurrencyLimit: number;
  /** Counts one request of a key if the rate allows it; else how long until it would. */
  takeRate(keyId: string): Promise<RateDecision>;
  /** Takes a slot for a live session of the organisation (idempotent per session); false when none is free. */
  acquireSlot(orgId: string, sessionId: string): Promise<boolean>;
  /** Gives the session's slot back (idempotent; does not wait). */
  releaseSlot(orgId: string, sessionId: string): void;
  /** How long (ms) an address must wait because it failed the master key too often; 0 when it may try. */
  masterKeyWait(address: string): Promise<number>;
  /** Counts one failed master-key attempt of an address. */
  masterKeyFailed(address: string): Promise<void>;
  /** How long (ms) an address must wait because it presented unknown or malformed API keys too often; 0 when it may try. */
  keyFailureWait(address: string): Promise<number>;
  /** Counts one failed API-key attempt (an unknown or malformed key) of an address. */
  keyFailed(address: string): Promise<void>;
  /** Forgets what no longer counts (now and then). */
  sweep(): void;
  close(): Promise<void>;
}

/**
 * Revocation across instances: a key revoked through one instance ends its live sessions on every
 * instance (Redis pub/sub; in one process, nothing to tell).
 */
export interface RevocationFeed {
  /** Tells every instance (this one included) that the key is revoked. */
  announce(keyId: string): Promise<void>;
  /** `revoked` is called with each key id announced by any instance; `resync` when announcements may have been missed (the feed reconnected). */
  subscribe(revoked: (keyId: string) => void, resync: () => void): void;
  /** Tells every instance (this one included) to end a session by an administrator's request (`DELETE /v1/sessions/<id>`). */
  announceSessionEnd?(sessionId: string): Promise<void>;
  /** `end` is called with each session an administrator ended through any instance. */
  onSessionEnd?(end: (sessionId: string) => void): void;
  close(): Promise<void>;
}
