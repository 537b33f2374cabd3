/**
 * The `KeyStore` of stores.ts: API keys and the master key, over the rows of a database (`KeyRows`: SQLite
 * here, PostgreSQL in pg/store.ts). Keys are `svc_live_`, `svc_test_` or `svc_proj_` followed by 43
 * characters of base64url (32 random bytes). Only their SHA-256 (hex) is stored; a presented key is
 * hashed, looked up by hash, and compared in constant time.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { type CreateKeyRequest, type CreatedKey, type KeyListing, type Permission, KEY_PATTERN, redactKey } from '../../protocol';
import type { KeyRow, SqliteStore } from './db';
import { type GivenMasterKey, sqliteMasterHash } from './masterKey';
import { hashesEqual, sha256Hex } from './digest';

export type { KeyRow };
import { type ApiKey, type Authenticated, type KeyCreation, type KeyStore, KeyRequestError } from './stores';
import { checkShape, resolveExpiry } from './keyRules';
import type { TeamStore } from './teams';
import { SqliteTeams } from './teamsSqlite';

export function generateKey(prefix: 'svc_live_' | 'svc_test_' | 'svc_proj_'): string {
  const key = prefix + randomBytes(32).toString('base64url');
  if (!KEY_PATTERN.test(key)) throw new Error('generated key does not match the key format');
  return key;
}

/** Fewest characters a master key given in `DICTEE_MASTER_KEY` may have. */
const MIN_MASTER_KEY_LENGTH = 32;
/** Least estimated entropy (bits) of such a key. */
const MIN_MASTER_KEY_BITS = 90;

/**
 * Why a master key given by the operator is too weak to guard key management, or undefined when it is
 * acceptable: at least 32 characters; an estimated entropy of at least 90 bits (the text's own character
 * frequencies, so repetitions such as `passwordpassword…` count for little); and not mostly runs of
 * consecutive characters (`abcdef…`, `0123…`). `openssl rand -hex 32` or `-base64 32` passes easily.
 * The message never contains the key.
 */
export function masterKeyWeakness(key: string, source = 'DICTEE_MASTER_KEY'): string | undefined {
  const need = `at least ${MIN_MASTER_KEY_LENGTH} characters of high entropy, e.g. the output of: openssl rand -base64 32`;
  const chars = [...key];
  if (chars.length < MIN_MASTER_KEY_LENGTH) return `${source} is too short (${chars.length} characters); it must be ${need}`;
  const counts = new Map<string, number>();
  for (const c of chars) counts.set(c, (counts.get(c) ?? 0) + 1);
  let perChar = 0;
  for (const n of counts.values()) perChar -= (n / chars.length) * Math.log2(n / chars.length);
  const bits = perChar * chars.length;
  if (bits < MIN_MASTER_KEY_BITS)
    return `${source} is too predictable (about ${Math.floor(bits)} bits; repeated characters); it must be ${need}`;
  let sequential = 0;
  for (let i = 1; i < chars.length; i++) {
    const d = chars[i]!.codePointAt(0)! - chars[i - 1]!.codePointAt(0)!;
    if (d === 1 || d === -1) sequential++;
  }
  if (sequential * 2 > chars.length - 1) return `${source} is too predictable (runs of consecutive characters); it must be ${need}`;
  return undefined;
}

function fromRow(row: KeyRow): ApiKey {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    projectId: row.project_id,
    permissions: JSON.parse(row.permissions) as Permission[],
    environment: row.environment,
    orgId: row.org_id,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    hint: row.hint,
    personId: row.person_id ?? null,
    personRole: row.person_role ?? null,
    expiresAt: row.expires_at ?? null,
    rolledFrom: row.rolled_from ?? null,
    lastUsedAt: row.last_used_at ?? null,
  };
}

function keyListing(k: ApiKey): KeyListing {
  return {
    id: k.id,
    name: k.name,
    type: k.type,
    project_id: k.projectId,
    permissions: k.permissions,
    environment: k.environment,
    org_id: k.orgId,
    created_at: k.createdAt,
    revoked_at: k.revokedAt,
    hint: k.hint,
    person_id: k.personId,
    expires_at: k.expiresAt,
    rolled_from: k.rolledFrom,
    last_used_at: k.lastUsedAt ?? null,
  };
}

/** Whether the key has expired at `now` (ms). */
function isExpired(k: Pick<ApiKey, 'expiresAt'>, now = Date.now()): boolean {
  return k.expiresAt !== null && Date.parse(k.expiresAt) <= now;
}

/** Where API keys are kept: one row per key, found by the SHA-256 of the key or by its id. */
export interface KeyRows {
  readonly orgId: string;
  insertKey(row: KeyRow): Promise<void>;
  keyByHash(hash: string): Promise<KeyRow | undefined>;
  keyById(id: string): Promise<KeyRow | undefined>;
  listKeys(): Promise<KeyRow[]>;
  /**
   * Marks the key revoked at `at` unless it already is, and its announcement to the other instances pending (one
   * transaction); whether this call revoked it (false: it was already).
   */
  revokeKey(id: string, at: string): Promise<boolean>;
  /** The ids of the revoked keys whose announcement is still pending, oldest first. */
  pendingRevocations(): Promise<string[]>;
  /** The revocation of the key was announced: no longer pending. */
  revocationAnnounced(keyId: string): Promise<void>;
  /** Which of these ids are revoked or unknown. */
  revokedAmong(ids: string[]): Promise<string[]>;
}

export class ApiKeys implements KeyStore {
  /** Told of every key let in (its `last_used_at`: lastUsed.ts). */
  onUsed: ((keyId: string) => void) | undefined;

  constructor(
    private readonly rows: KeyRows,
    private readonly masterHash: string,
    readonly teams: TeamStore,
  ) {}

  isMaster(presented: string | undefined): boolean {
    if (!presented) return false;
    return hashesEqual(sha256Hex(presented), this.masterHash);
  }

  async authenticate(presented: string | undefined): Promise<Authenticated> {
    if (!presented) return { ok: false, reason: 'missing' };
    if (!KEY_PATTERN.test(presented)) return { ok: false, reason: 'malformed' };
    const hash = sha256Hex(presented);
    const row = await this.rows.keyByHash(hash);
    if (!row || !hashesEqual(row.hash, hash)) return { ok: false, reason: 'unknown' };
    if (row.revoked_at) return { ok: false, reason: 'revoked' };
    const key = fromRow(row);
    if (isExpired(key)) return { ok: false, reason: 'expired' };
    this.onUsed?.(row.id);
    return { ok: true, key };
  }

  async create(req: CreateKeyRequest, c: KeyCreation = {}): Promise<CreatedKey> {
    const now = Date.now();
    const orgId = c.orgId ?? this.teams.defaultOrgId;
    checkShape(req);
    if (req.person_id !== undefined) {
      const person = await this.teams.getPerson(req.person_id);
      if (!person || person.org_id !== orgId)
        throw new KeyRequestError('person_id', `person_id: no person ${JSON.stringify(req.person_id)} in this organisation`);
    }
    const org = await this.teams.getOrg(orgId);
    if (!org) throw new KeyRequestError('org_id', `org_id: no organisation ${JSON.stringify(orgId)}`);
    const expiresAt = resolveExpiry(req, org.max_key_lifetime_days, now);
    const environment = req.environment ?? 'live';
    const permissions = [...new Set(req.permissions ?? (['read', 'write'] as Permission[]))];
    const projectId = req.type === 'project' ? (req.project_id ?? null) : null;
    const personId = req.type === 'personal' ? (req.person_id ?? null) : null;
    if (c.rolledFrom === undefined) {
      const taken = await this.teams.liveKeysNamed({ orgId, projectId, personId }, req.name, new Date(now).toISOString());
      if (taken.length)
        throw new KeyRequestError(
          'name',
          `name: a live key named ${JSON.stringify(req.name)} exists already in ${nameScope(projectId, personId)}; choose another name, or roll that key`,
        );
    }
    const prefix = req.type === 'project' ? 'svc_proj_' : environment === 'test' ? 'svc_test_' : 'svc_live_';
    const key = generateKey(prefix);
    const row: KeyRow = {
      id: `key_${randomUUID()}`,
      hash: sha256Hex(key),
      hint: redactKey(key),
      name: req.name,
      type: req.type,
      project_id: projectId,
      permissions: JSON.stringify(permissions),
      environment,
      org_id: orgId,
      created_at: new Date(now).toISOString(),
      revoked_at: null,
      person_id: personId,
      expires_at: expiresAt,
      rolled_from: c.rolledFrom ?? null,
    };
    await this.rows.insertKey(row);
    return {
      id: row.id,
      key,
      name: row.name,
      type: row.type,
      project_id: row.project_id,
      permissions,
      environment,
      org_id: orgId,
      created_at: row.created_at,
      person_id: personId,
      expires_at: expiresAt,
    };
  }

  async roll(old: ApiKey, overlapMs: number): Promise<{ created: CreatedKey; old: ApiKey }> {
    const now = Date.now();
    if (old.revokedAt) throw new KeyRequestError('id', `id: key ${old.id} is revoked; a revoked key cannot be rolled (create a new key)`);
    if (isExpired(old, now))
      throw new KeyRequestError('id', `id: key ${old.id} has expired; an expired key cannot be rolled (create a new key)`);
    // The new key lives as long as the old one was meant to (the organisation's maximum applies).
    const lifetimeMs = old.expiresAt ? Date.parse(old.expiresAt) - Date.parse(old.createdAt) : undefined;
    const created = await this.create(
      {
        name: old.name,
        type: old.type,
        project_id: old.projectId ?? undefined,
        person_id: old.personId ?? undefined,
        permissions: old.permissions,
        environment: old.type === 'personal' ? old.environment : undefined,
        expires_at: lifetimeMs !== undefined ? new Date(now + lifetimeMs).toISOString() : undefined,
      },
      { orgId: old.orgId, rolledFrom: old.id },
    );
    const end = now + overlapMs;
    const oldEnd = old.expiresAt ? Math.min(Date.parse(old.expiresAt), end) : end;
    await this.teams.setKeyExpiry(old.id, new Date(oldEnd).toISOString());
    return { created, old: (await this.find(old.id)) ?? old };
  }

  async list(): Promise<KeyListing[]> {
    return (await this.rows.listKeys()).map((r) => keyListing(fromRow(r)));
  }

  /** Finds a key by its id or by its value. */
  async find(keyOrId: string): Promise<ApiKey | undefined> {
    const row = KEY_PATTERN.test(keyOrId) ? await this.rows.keyByHash(sha256Hex(keyOrId)) : await this.rows.keyById(keyOrId);
    return row ? fromRow(row) : undefined;
  }

  async revoke(keyOrId: string): Promise<ApiKey | undefined> {
    return (await this.revokeOnce(keyOrId))?.key;
  }

  async revokeOnce(keyOrId: string): Promise<{ key: ApiKey; revokedHere: boolean } | undefined> {
    const key = await this.find(keyOrId);
    if (!key) return undefined;
    const revokedHere = key.revokedAt ? false : await this.rows.revokeKey(key.id, new Date().toISOString());
    const after = await this.find(key.id);
    return after ? { key: after, revokedHere } : undefined;
  }

  revokedAmong(keyIds: string[]): Promise<string[]> {
    return keyIds.length ? this.rows.revokedAmong(keyIds) : Promise.resolve([]);
  }

  async expiries(keyIds: string[]): Promise<{ expired: string[]; pending: Map<string, string> }> {
    const all = keyIds.length ? await this.teams.keyExpiries(keyIds) : new Map<string, string>();
    const now = Date.now();
    const expired: string[] = [];
    const pending = new Map<string, string>();
    for (const [id, at] of all) {
      if (Date.parse(at) <= now) expired.push(id);
      else pending.set(id, at);
    }
    return { expired, pending };
  }

  pendingRevocations(): Promise<string[]> {
    return this.rows.pendingRevocations();
  }

  revocationAnnounced(keyId: string): Promise<void> {
    return this.rows.revocationAnnounced(keyId);
  }
}

function nameScope(projectId: string | null, personId: string | null): string {
  return projectId !== null
    ? `project ${JSON.stringify(projectId)}`
    : personId !== null
      ? 'the keys of this person'
      : "the organisation's own keys";
}

/** The KeyStore on SQLite (one instance): rows in the data dir's database, the master key's hash in its `meta` table. */
export class SqliteKeyStore extends ApiKeys {
  /**
   * @param given the master key this instance was started with (a string: from `DICTEE_MASTER_KEY`), or
   *   undefined; settled against the data dir's own by `sqliteMasterHash` (masterKey.ts), which throws
   *   MasterKeyConflictError when they disagree, and hands a key generated at a first start to `announce` once.
   */
  constructor(store: SqliteStore, dataDir: string, given: string | GivenMasterKey | undefined, announce: (masterKey: string) => void) {
    const g = typeof given === 'string' ? { key: given, source: 'DICTEE_MASTER_KEY' } : given;
    super(sqliteKeyRows(store), sqliteMasterHash(store, dataDir, g, announce), new SqliteTeams(store));
  }
}

function sqliteKeyRows(store: SqliteStore): KeyRows {
  return {
    orgId: store.orgId,
    insertKey: async (row) => store.insertKey(row),
    keyByHash: async (hash) => store.keyByHash(hash),
    keyById: async (id) => store.keyById(id),
    listKeys: async () => store.listKeys(),
    revokeKey: async (id, at) => store.revokeKey(id, at),
    revokedAmong: async (ids) => ids.filter((id) => store.keyById(id)?.revoked_at !== null),
    pendingRevocations: async () => store.pendingRevocations(),
    revocationAnnounced: async (keyId) => store.revocationAnnounced(keyId),
  };
}
