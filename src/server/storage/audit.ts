/**
 * The audit log: who did what to which key, person, project or session, from where, and how it went.
 * Append-only and tamper-evident: one hash chain per organisation, each entry carrying the SHA-256 of the
 * previous one (`prev_hash`) and its own (`hash`, over `prev_hash` and a canonical serialisation of its
 * fields), appended one writer at a time (SQLite: a `BEGIN IMMEDIATE` transaction, whichever process appends —
 * the service or `users add`; PostgreSQL: the chain's head row locked `FOR UPDATE` in the appending
 * transaction, whichever instance or `users add` appends). Retention deletes the
 * oldest entries and records the last deleted entry's seq and hash as the chain's anchor, so what is left
 * still verifies. `verifyChains` finds the first broken link (`node dist/server.js audit verify`).
 *
 * An entry holds ids, actions and addresses: never a key's value, a password or dictated text (the callers
 * pass key ids and session ids; `record` refuses a value that looks like a key).
 */
import { createHash } from 'node:crypto';
import { KEY_PATTERN } from '../../protocol';
import type { ServerLogger } from '../log';

/** What a caller records (the shape of auditSink.ts's `AuditSink.record`, plus the organisation). */
interface AuditEntry {
  /** `master`, a key id, a person's id, or `cli`/`cli:<user>` (`users add`). */
  actor: string;
  /** `key.created`, `key.rolled`, `key.expired`, `key.revoked`, `session.ended`, `person.*`, `project.*`, `sign_in` … */
  action: string;
  /** The key's, session's, person's or project's id. */
  target: string | null;
  /** The client's address (clientAddress.ts), or null for what the service did by itself (an expiry). */
  ip: string | null;
  outcome: 'success' | 'failure';
  /** The organisation whose chain gets the entry (default: the store's). */
  org_id?: string;
}

/** The sink auditSink.ts names: anything that records an entry without making its caller wait. */
interface AuditSinkShape {
  record(entry: AuditEntry): void;
}

export interface StoredAudit {
  org_id: string;
  seq: number;
  at: string;
  actor: string;
  action: string;
  target: string | null;
  ip: string | null;
  outcome: string;
  prev_hash: string;
  hash: string;
}

export interface AuditAnchor {
  org_id: string;
  seq: number;
  hash: string;
}

export interface AuditQuery {
  /** undefined: every organisation (the master key). */
  orgId?: string;
  from: string;
  to: string;
  action?: string;
  limit: number;
}

/** Where the chains are kept: SQLite (sqliteAudit.ts) or PostgreSQL (pg/audit.ts). */
export interface AuditRows {
  /** Appends the entries to the chain of `orgId` in order, one writer at a time, computing each hash from the head. */
  append(orgId: string, entries: Array<Omit<StoredAudit, 'org_id' | 'seq' | 'prev_hash' | 'hash'>>): Promise<void>;
  query(q: AuditQuery): Promise<StoredAudit[]>;
  /** Deletes the entries before `before` (ISO), the last of each chain recorded as its anchor; how many went. */
  prune(before: string): Promise<number>;
  /** Everything verify needs: every entry in chain order, the anchors and the heads. */
  readAll(): Promise<{ entries: StoredAudit[]; anchors: AuditAnchor[]; heads: AuditAnchor[] }>;
}

/** The `prev_hash` of a chain's first entry. */
export const GENESIS_HASH = '0'.repeat(64);

/** The entry's fields in a fixed order, as JSON: what its hash covers (with the previous hash). */
function canonical(e: Omit<StoredAudit, 'prev_hash' | 'hash'>): string {
  return JSON.stringify([e.org_id, e.seq, e.at, e.actor, e.action, e.target, e.ip, e.outcome]);
}

function entryHash(prevHash: string, e: Omit<StoredAudit, 'prev_hash' | 'hash'>): string {
  return createHash('sha256')
    .update(`${prevHash}\n${canonical(e)}`)
    .digest('hex');
}

/** The rows of a batch appended after a chain's head (`seq`, `hash`). */
export function chainAfter(
  head: { seq: number; hash: string },
  orgId: string,
  entries: Array<Omit<StoredAudit, 'org_id' | 'seq' | 'prev_hash' | 'hash'>>,
): StoredAudit[] {
  let { seq, hash } = head;
  return entries.map((e) => {
    const row = { ...e, org_id: orgId, seq: ++seq };
    const prev = hash;
    hash = entryHash(prev, row);
    return { ...row, prev_hash: prev, hash };
  });
}

export interface VerifyReport {
  ok: boolean;
  entries: number;
  chains: number;
  /** The first broken link: its organisation, seq and why (`reason` in English; `kind` and `found` for a translation). */
  broken?: { org_id: string; seq: number; reason: string; kind: BrokenLink; found?: number };
}

/** How a chain is broken: an entry missing, one not linked to the one before, one altered, entries removed from its end. */
export type BrokenLink = 'missing' | 'unlinked' | 'altered' | 'truncated';

/** Checks every chain from its anchor (or its start) to its head; stops at the first broken link. */
export function verifyChains(all: { entries: StoredAudit[]; anchors: AuditAnchor[]; heads: AuditAnchor[] }): VerifyReport {
  const byOrg = new Map<string, StoredAudit[]>();
  for (const e of all.entries) byOrg.set(e.org_id, [...(byOrg.get(e.org_id) ?? []), e]);
  for (const h of all.heads) if (!byOrg.has(h.org_id)) byOrg.set(h.org_id, []);
  let count = 0;
  for (const [org, rows] of [...byOrg].sort(([a], [b]) => a.localeCompare(b))) {
    rows.sort((a, b) => Number(a.seq) - Number(b.seq));
    const anchor = all.anchors.find((a) => a.org_id === org);
    let prev = anchor?.hash ?? GENESIS_HASH;
    let expected = Number(anchor?.seq ?? 0) + 1;
    const broken = (seq: number, kind: BrokenLink, reason: string, found?: number): VerifyReport => ({
      ok: false,
      entries: count,
      chains: byOrg.size,
      broken: { org_id: org, seq, reason, kind, ...(found !== undefined ? { found } : {}) },
    });
    for (const r of rows) {
      const seq = Number(r.seq);
      if (seq !== expected) return broken(expected, 'missing', `entry ${expected} is missing (the next one found is ${seq})`, seq);
      if (r.prev_hash !== prev) return broken(seq, 'unlinked', `entry ${seq} does not carry the hash of the entry before it`);
      if (entryHash(r.prev_hash, { ...r, seq }) !== r.hash)
        return broken(seq, 'altered', `entry ${seq} was altered (its hash does not match its fields)`);
      prev = r.hash;
      expected++;
      count++;
    }
    const head = all.heads.find((h) => h.org_id === org);
    if (head && (Number(head.seq) !== expected - 1 || head.hash !== prev)) {
      return broken(
        expected,
        'truncated',
        `the chain ends at entry ${expected - 1} but its head says ${Number(head.seq)}: entries were removed from its end`,
        Number(head.seq),
      );
    }
  }
  return { ok: true, entries: count, chains: byOrg.size };
}

/** Days audit entries are kept unless DICTEE_AUDIT_RETENTION_DAYS says otherwise. */
export const DEFAULT_AUDIT_RETENTION_DAYS = 365;

export class AuditRetentionError extends Error {}

/** `DICTEE_AUDIT_RETENTION_DAYS` (whole days, 1 to 36500), or the default; throws a message naming the variable. */
export function auditRetentionFromEnv(env: NodeJS.ProcessEnv): number {
  const v = env.DICTEE_AUDIT_RETENTION_DAYS;
  if (v === undefined || v === '') return DEFAULT_AUDIT_RETENTION_DAYS;
  const n = /^\d+$/.test(v) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > 36500)
    throw new AuditRetentionError(`DICTEE_AUDIT_RETENTION_DAYS must be a whole number of days from 1 to 36500 (got ${JSON.stringify(v)})`);
  return n;
}

/** How often retention runs (and once at start). */
const PRUNE_EVERY_MS = 3600_000;
/** Entries kept in memory while the store cannot be written; beyond, the oldest are dropped (and said). */
const MAX_QUEUED = 10_000;
const RETRY_MS = 2000;

/**
 * The audit log of the service: `record` queues an entry (the caller does not wait), written in order in
 * batches; `written` waits for what is queued (an HTTP answer waits for its entry, never failing for it).
 */
export class AuditLog implements AuditSinkShape {
  private queue: Array<{ orgId: string; row: Omit<StoredAudit, 'org_id' | 'seq' | 'prev_hash' | 'hash'> }> = [];
  private writing: Promise<void> | undefined;
  private retry: NodeJS.Timeout | undefined;
  private readonly pruner: NodeJS.Timeout;
  private closed = false;

  constructor(
    readonly rows: AuditRows,
    private readonly defaultOrg: string,
    private readonly log: ServerLogger,
    readonly retentionDays = DEFAULT_AUDIT_RETENTION_DAYS,
  ) {
    this.pruner = setInterval(() => void this.prune(), PRUNE_EVERY_MS);
    this.pruner.unref();
    setImmediate(() => void this.prune());
  }

  record(entry: AuditEntry): void {
    for (const v of [entry.actor, entry.target, entry.ip]) {
      if (v && KEY_PATTERN.test(v)) throw new Error('an audit entry must name a key by its id, never by its value');
    }
    const row = {
      at: new Date().toISOString(),
      actor: entry.actor,
      action: entry.action,
      target: entry.target,
      ip: entry.ip,
      outcome: entry.outcome,
    };
    this.queue.push({ orgId: entry.org_id ?? this.defaultOrg, row });
    if (this.queue.length > MAX_QUEUED) {
      const dropped = this.queue.splice(0, this.queue.length - MAX_QUEUED);
      this.log.error('audit entries dropped: the store could not be written for too long', { entries: dropped.length });
    }
    void this.write();
  }

  /** Resolves once everything recorded so far is written (or could not be: logged, kept for a retry). */
  async written(): Promise<void> {
    while (this.writing) await this.writing;
    if (this.queue.length && !this.retry) await this.write();
  }

  private write(): Promise<void> {
    this.writing ??= this.writeQueued().finally(() => (this.writing = undefined));
    return this.writing;
  }

  private async writeQueued(): Promise<void> {
    while (this.queue.length) {
      const orgId = this.queue[0]!.orgId;
      let n = 0;
      while (n < this.queue.length && n < 500 && this.queue[n]!.orgId === orgId) n++;
      const batch = this.queue.slice(0, n);
      try {
        await this.rows.append(
          orgId,
          batch.map((b) => b.row),
        );
      } catch (e) {
        this.log.error('could not write the audit log; retrying', { entries: this.queue.length, error: e });
        if (!this.closed) {
          this.retry ??= setTimeout(() => {
            this.retry = undefined;
            void this.write();
          }, RETRY_MS);
          this.retry.unref();
        }
        return;
      }
      this.queue.splice(0, n);
    }
  }

  query(q: AuditQuery): Promise<StoredAudit[]> {
    return this.written().then(() => this.rows.query(q));
  }

  /** Deletes the entries older than the retention, the chains anchored at what went. */
  async prune(now = Date.now()): Promise<number> {
    try {
      const n = await this.rows.prune(new Date(now - this.retentionDays * 86_400_000).toISOString());
      if (n) this.log.info('audit entries past their retention deleted; the chains stay verifiable from their anchors', { entries: n });
      return n;
    } catch (e) {
      this.log.warn('could not prune the audit log; trying again later', { error: e });
      return 0;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.pruner);
    clearTimeout(this.retry);
    await this.written();
  }
}
