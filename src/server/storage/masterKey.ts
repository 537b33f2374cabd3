/**
 * The one master key of a store (SQLite data dir or PostgreSQL database), whatever the instance that starts on
 * it. The store records the SHA-256 of its master key and how it came: `generated` (by the first start without
 * a key, shown once) or `given` (DICTEE_MASTER_KEY or DICTEE_MASTER_KEY_FILE). An instance never makes a second
 * master key for a store that has one:
 *
 * | store has        | key given      | outcome                                                        |
 * |------------------|----------------|----------------------------------------------------------------|
 * | nothing          | none           | a key generated, its hash recorded (`generated`), shown once   |
 * | nothing          | K              | K's hash recorded (`given`)                                    |
 * | hash H           | K, sha256=H    | started                                                        |
 * | hash H           | K, sha256≠H    | refused (MasterKeyConflictError, exit 2)                       |
 * | hash H, given    | none           | refused: the other instances were given it, this one must be   |
 * | hash H, generated| none           | started (today's single-instance use: the key was shown once)  |
 *
 * No message here ever contains a key or a hash.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { hashesEqual, sha256Hex } from './digest';

export function generateMasterKey(): string {
  return `msk_${randomBytes(32).toString('base64url')}`;
}

type MasterKeyOrigin = 'generated' | 'given';

interface StoredMasterKey {
  hash: string;
  origin: MasterKeyOrigin;
}

/** The master key an instance was started with, and where it came from (for messages). */
export interface GivenMasterKey {
  key: string;
  /** `DICTEE_MASTER_KEY` or `DICTEE_MASTER_KEY_FILE`. */
  source: string;
}

/** The meta rows (both stores) that hold the master key's hash and its origin. */
export const MASTER_HASH_META = 'master_key_sha256';
export const MASTER_ORIGIN_META = 'master_key_origin';

/** The store has a master key that the one given does not match, or one that must be given and was not: refuse to start (exit 2). */
export class MasterKeyConflictError extends Error {
  override readonly name = 'MasterKeyConflictError';
}

interface SettledMasterKey {
  hash: string;
  /** What to record in the store (when it had nothing). */
  record?: StoredMasterKey;
  /** A key generated now, to be shown once after it is recorded. */
  generated?: string;
}

/**
 * What the store's master key is, given what the store holds and the key this instance was started with.
 * `where` names the store for messages ("the data dir /var/lib/dictee", "the PostgreSQL database").
 */
export function settleMasterKey(stored: StoredMasterKey | undefined, given: GivenMasterKey | undefined, where: string): SettledMasterKey {
  if (!stored) {
    if (given) {
      const hash = sha256Hex(given.key);
      return { hash, record: { hash, origin: 'given' } };
    }
    const key = generateMasterKey();
    const hash = sha256Hex(key);
    return { hash, record: { hash, origin: 'generated' }, generated: key };
  }
  if (given) {
    if (hashesEqual(sha256Hex(given.key), stored.hash)) return { hash: stored.hash };
    throw new MasterKeyConflictError(
      `the master key in ${given.source} does not match the master key ${where} already has; ` +
        'start every instance with that same key (docs/server.md, "The master key"), or replace it as that section says',
    );
  }
  if (stored.origin === 'given') {
    throw new MasterKeyConflictError(
      `${where} has a master key that was given to the service, and this instance has none: ` +
        'start it with the same key in DICTEE_MASTER_KEY or DICTEE_MASTER_KEY_FILE (an instance never makes a second master key)',
    );
  }
  return { hash: stored.hash };
}

/** The stored master key from its meta rows (an origin missing, as in a database of an older version: `generated`). */
export function storedMasterKey(hash: string | undefined, origin: string | undefined, where: string): StoredMasterKey | undefined {
  if (hash === undefined) return undefined;
  if (!/^[0-9a-f]{64}$/.test(hash)) throw new Error(`the master key's hash in ${where} is not a SHA-256 hex digest`);
  return { hash, origin: origin === 'given' ? 'given' : 'generated' };
}

/** What {@link sqliteMasterHash} needs of the SQLite store (db.ts). */
interface SqliteMeta {
  getMeta(k: string): string | undefined;
  /** Sets these meta rows in one transaction. */
  setMetas(rows: Record<string, string>): void;
}

/** Where an older version kept the SHA-256 of a generated master key (imported into the database once, then removed). */
export const LEGACY_MASTER_KEY_FILE = 'master-key.sha256';

/**
 * The master key's hash of a SQLite data dir (see {@link settleMasterKey}), recorded in its database's `meta`
 * table, so that a backup of the database carries it. A `master-key.sha256` left by an older version is
 * imported as `generated`, then removed. `announce` gets a generated key once it is recorded.
 */
export function sqliteMasterHash(
  meta: SqliteMeta,
  dataDir: string,
  given: GivenMasterKey | undefined,
  announce: (masterKey: string) => void,
): string {
  const where = `the data dir ${dataDir}`;
  let stored = storedMasterKey(meta.getMeta(MASTER_HASH_META), meta.getMeta(MASTER_ORIGIN_META), where);
  const legacy = path.join(dataDir, LEGACY_MASTER_KEY_FILE);
  let importLegacy = false;
  if (!stored && existsSync(legacy)) {
    stored = storedMasterKey(readFileSync(legacy, 'utf8').trim(), 'generated', legacy);
    importLegacy = true;
  }
  const settled = settleMasterKey(stored, given, where);
  const record = settled.record ?? (importLegacy ? stored : undefined);
  if (record) meta.setMetas({ [MASTER_HASH_META]: record.hash, [MASTER_ORIGIN_META]: record.origin });
  if (importLegacy) rmSync(legacy, { force: true });
  if (settled.generated) announce(settled.generated);
  return settled.hash;
}
