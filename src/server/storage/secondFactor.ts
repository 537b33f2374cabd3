/**
 * What the dashboard's optional second factor keeps (docs/dashboard-sign-in.md "Second factor"): a person's TOTP
 * secret (encrypted with the key of `--mfa-key-file` when there is one: dashboard/totpSecret.ts; never
 * logged, never in an export), when it was confirmed, and the last time step accepted (a code is taken
 * once); their recovery codes as argon2id hashes, each usable once; and the sign-ins waiting for a code
 * after the password (by the SHA-256 of their cookie's value). One class on SQLite and PostgreSQL alike,
 * through a small query function (as storage/dashboard.ts).
 */

/** The migration (SQLite and PostgreSQL alike): only adds tables. */
export const SECOND_FACTOR_SQL = `
CREATE TABLE second_factors (
  person_id TEXT PRIMARY KEY, secret TEXT NOT NULL, confirmed_at TEXT, last_step INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL);
CREATE TABLE recovery_codes (
  person_id TEXT NOT NULL, n INTEGER NOT NULL, hash TEXT NOT NULL, used_at TEXT, PRIMARY KEY (person_id, n));
CREATE TABLE second_factor_challenges (
  id_hash TEXT PRIMARY KEY, person_id TEXT NOT NULL, next TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE INDEX second_factor_challenges_person ON second_factor_challenges (person_id);
`;

interface SecondFactorRow {
  person_id: string;
  /** `v1:` + AES-256-GCM (iv, tag, ciphertext, base64url), or `plain:` + the base32 secret. */
  secret: string;
  confirmed_at: string | null;
  last_step: number;
  created_at: string;
}

interface Challenge {
  id_hash: string;
  person_id: string;
  next: string;
  created_at: string;
}

/** A query: its rows (a statement that returns some) and how many rows it changed. */
type Query = (sql: string, params: unknown[]) => Promise<{ rows: Array<Record<string, unknown>>; changes: number }>;

export class SecondFactorStore {
  constructor(private readonly q: Query) {}

  async get(personId: string): Promise<SecondFactorRow | undefined> {
    const { rows } = await this.q('SELECT person_id, secret, confirmed_at, last_step, created_at FROM second_factors WHERE person_id = ?', [
      personId,
    ]);
    const r = rows[0];
    if (!r) return undefined;
    return {
      person_id: String(r.person_id),
      secret: String(r.secret),
      confirmed_at: (r.confirmed_at as string | null) ?? null,
      last_step: Number(r.last_step),
      created_at: String(r.created_at),
    };
  }

  /** The people of an organisation with a confirmed second factor (one query, for the People page). */
  async confirmedIn(orgId: string): Promise<Set<string>> {
    const { rows } = await this.q(
      'SELECT f.person_id FROM second_factors f JOIN people p ON p.id = f.person_id WHERE p.org_id = ? AND f.confirmed_at IS NOT NULL',
      [orgId],
    );
    return new Set(rows.map((r) => String(r.person_id)));
  }

  /** A new, unconfirmed secret in place of any unconfirmed one; false when the person has a confirmed one. */
  async begin(personId: string, secret: string, at: string): Promise<boolean> {
    await this.q('DELETE FROM second_factors WHERE person_id = ? AND confirmed_at IS NULL', [personId]);
    const { changes } = await this.q(
      'INSERT INTO second_factors (person_id, secret, confirmed_at, last_step, created_at) VALUES (?, ?, NULL, 0, ?) ON CONFLICT (person_id) DO NOTHING',
      [personId, secret, at],
    );
    return changes > 0;
  }

  /** Confirms the unconfirmed secret with its first code's step, and sets the recovery codes' hashes; false when there was none. */
  async confirm(personId: string, step: number, at: string, recoveryHashes: string[]): Promise<boolean> {
    const { changes } = await this.q(
      'UPDATE second_factors SET confirmed_at = ?, last_step = ? WHERE person_id = ? AND confirmed_at IS NULL',
      [at, step, personId],
    );
    if (changes === 0) return false;
    await this.setRecoveryCodes(personId, recoveryHashes);
    return true;
  }

  /** Takes a time step for a person: false when it (or a later one) was taken already (a code is used once). */
  async takeStep(personId: string, step: number): Promise<boolean> {
    const { changes } = await this.q(
      'UPDATE second_factors SET last_step = ? WHERE person_id = ? AND last_step < ? AND confirmed_at IS NOT NULL',
      [step, personId, step],
    );
    return changes > 0;
  }

  /** Removes the second factor, its recovery codes and its waiting sign-ins. */
  async remove(personId: string): Promise<void> {
    await this.q('DELETE FROM recovery_codes WHERE person_id = ?', [personId]);
    await this.q('DELETE FROM second_factor_challenges WHERE person_id = ?', [personId]);
    await this.q('DELETE FROM second_factors WHERE person_id = ?', [personId]);
  }

  async setRecoveryCodes(personId: string, hashes: string[]): Promise<void> {
    await this.q('DELETE FROM recovery_codes WHERE person_id = ?', [personId]);
    for (const [n, hash] of hashes.entries()) {
      await this.q('INSERT INTO recovery_codes (person_id, n, hash, used_at) VALUES (?, ?, ?, NULL)', [personId, n, hash]);
    }
  }

  /** The recovery codes not used yet: their number and hash. */
  async unusedRecoveryCodes(personId: string): Promise<Array<{ n: number; hash: string }>> {
    const { rows } = await this.q('SELECT n, hash FROM recovery_codes WHERE person_id = ? AND used_at IS NULL ORDER BY n', [personId]);
    return rows.map((r) => ({ n: Number(r.n), hash: String(r.hash) }));
  }

  /** Marks a recovery code used: false when it was already (two uses at once: one wins). */
  async useRecoveryCode(personId: string, n: number, at: string): Promise<boolean> {
    const { changes } = await this.q('UPDATE recovery_codes SET used_at = ? WHERE person_id = ? AND n = ? AND used_at IS NULL', [
      at,
      personId,
      n,
    ]);
    return changes > 0;
  }

  async createChallenge(c: Challenge): Promise<void> {
    await this.q('INSERT INTO second_factor_challenges (id_hash, person_id, next, created_at) VALUES (?, ?, ?, ?)', [
      c.id_hash,
      c.person_id,
      c.next,
      c.created_at,
    ]);
  }

  async challenge(idHash: string): Promise<Challenge | undefined> {
    const { rows } = await this.q('SELECT id_hash, person_id, next, created_at FROM second_factor_challenges WHERE id_hash = ?', [idHash]);
    const r = rows[0];
    return r
      ? { id_hash: String(r.id_hash), person_id: String(r.person_id), next: String(r.next), created_at: String(r.created_at) }
      : undefined;
  }

  /** Ends a waiting sign-in: false when it had ended already (a code sent twice at once: one sign-in). */
  async endChallenge(idHash: string): Promise<boolean> {
    const { changes } = await this.q('DELETE FROM second_factor_challenges WHERE id_hash = ?', [idHash]);
    return changes > 0;
  }

  /** Forgets the waiting sign-ins begun before `before`. */
  async purgeChallenges(before: string): Promise<void> {
    await this.q('DELETE FROM second_factor_challenges WHERE created_at < ?', [before]);
  }
}
