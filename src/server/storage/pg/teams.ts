/**
 * The `TeamStore` (teams.ts) on PostgreSQL (tables of migration 3), through the store's queries (refused at
 * once while the database is unreachable). A removal and an owner's role change run in a transaction that
 * locks the organisation's `orgs` row first, so that two at once on any instances are serialised and the
 * second counts the owners the first left.
 */
import type pg from 'pg';
import {
  type Member,
  type NameScope,
  type Org,
  type Person,
  type PersonDeletion,
  type Project,
  type TeamStore,
  LAST_OWNER,
  OWNER_SQL,
  PERSON_ROWS_SQL,
  TeamRequestError,
  isUniqueViolation,
} from '../teams';
import type { Transact } from './transaction';

type Query = <R extends pg.QueryResultRow>(text: string, params?: unknown[]) => Promise<pg.QueryResult<R>>;

const DUPLICATE_EMAIL = 'email: this organisation already has a person with this email';
const ORG_COLUMNS = 'id, name, created_at, max_key_lifetime_days';
const PERSON_COLUMNS = 'id, org_id, email, display_name, role, created_at';

/** A statement of teams.ts with its `?` numbered `$1`, `$2`… */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/**
 * In a transaction: locks the person's organisation's row (waiting for a removal or a role change that holds
 * it), then reads the person again, as committed by then. Undefined when there is no such person.
 */
async function lockedPerson(c: pg.PoolClient, id: string): Promise<{ org_id: string; role: string; lastOwner: boolean } | undefined> {
  const before = (await c.query<{ org_id: string }>(numbered(OWNER_SQL.person), [id])).rows[0];
  if (!before) return undefined;
  await c.query('SELECT id FROM orgs WHERE id = $1 FOR UPDATE', [before.org_id]);
  const p = (await c.query<{ org_id: string; role: string }>(numbered(OWNER_SQL.person), [id])).rows[0];
  if (!p) return undefined;
  const others = p.role === 'owner' ? (await c.query<{ n: number }>(numbered(OWNER_SQL.otherOwners), [p.org_id, id])).rows[0]?.n : 1;
  return { ...p, lastOwner: others === 0 };
}

export class PgTeams implements TeamStore {
  constructor(
    private readonly q: Query,
    readonly defaultOrgId: string,
    private readonly transact: Transact,
  ) {}

  private async rows<R extends pg.QueryResultRow>(text: string, params: unknown[] = []): Promise<R[]> {
    return (await this.q<R>(text, params)).rows;
  }

  async createOrg(o: Org): Promise<void> {
    await this.q('INSERT INTO orgs (id, name, created_at, max_key_lifetime_days) VALUES ($1, $2, $3, $4)', [
      o.id,
      o.name,
      o.created_at,
      o.max_key_lifetime_days,
    ]);
  }
  async getOrg(id: string): Promise<Org | undefined> {
    return (await this.rows<Org>(`SELECT ${ORG_COLUMNS} FROM orgs WHERE id = $1`, [id]))[0];
  }
  listOrgs(): Promise<Org[]> {
    return this.rows<Org>(`SELECT ${ORG_COLUMNS} FROM orgs ORDER BY created_at, id`);
  }
  async updateOrg(id: string, c: Partial<Pick<Org, 'name' | 'max_key_lifetime_days'>>): Promise<Org | undefined> {
    const keep = c.max_key_lifetime_days === undefined;
    return (
      await this.rows<Org>(
        `UPDATE orgs SET name = COALESCE($2, name), max_key_lifetime_days = CASE WHEN $3 THEN max_key_lifetime_days ELSE $4::int END
         WHERE id = $1 RETURNING ${ORG_COLUMNS}`,
        [id, c.name ?? null, keep, c.max_key_lifetime_days ?? null],
      )
    )[0];
  }

  async createPerson(p: Person): Promise<void> {
    try {
      await this.q(
        'INSERT INTO people (id, org_id, email, email_lower, display_name, role, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
        [p.id, p.org_id, p.email, p.email.toLowerCase(), p.display_name, p.role, p.created_at],
      );
    } catch (e) {
      if (isUniqueViolation(e)) throw new TeamRequestError('email', DUPLICATE_EMAIL);
      throw e;
    }
  }
  async getPerson(id: string): Promise<Person | undefined> {
    return (await this.rows<Person>(`SELECT ${PERSON_COLUMNS} FROM people WHERE id = $1`, [id]))[0];
  }
  listPeople(orgId: string): Promise<Person[]> {
    return this.rows<Person>(`SELECT ${PERSON_COLUMNS} FROM people WHERE org_id = $1 ORDER BY created_at, id`, [orgId]);
  }
  async countOwners(orgId: string): Promise<number> {
    return (
      (await this.rows<{ n: number }>("SELECT count(*)::int AS n FROM people WHERE org_id = $1 AND role = 'owner'", [orgId]))[0]?.n ?? 0
    );
  }
  async updatePerson(id: string, c: Partial<Pick<Person, 'email' | 'display_name' | 'role'>>): Promise<Person | undefined> {
    const update = async (query: Query): Promise<Person | undefined> =>
      (
        await query<Person>(
          `UPDATE people SET email = COALESCE($2, email), email_lower = COALESCE(lower($2), email_lower),
             display_name = COALESCE($3, display_name), role = COALESCE($4, role)
           WHERE id = $1 RETURNING ${PERSON_COLUMNS}`,
          [id, c.email ?? null, c.display_name ?? null, c.role ?? null],
        )
      ).rows[0];
    try {
      if (c.role === undefined || c.role === 'owner') return await update(this.q);
      // A demotion, perhaps of an owner: under the organisation's lock, as a removal.
      return await this.transact(async (client) => {
        if ((await lockedPerson(client, id))?.lastOwner) throw new TeamRequestError('role', LAST_OWNER);
        return { value: await update((text, params) => client.query(text, params)) };
      });
    } catch (e) {
      if (isUniqueViolation(e)) throw new TeamRequestError('email', DUPLICATE_EMAIL);
      throw e;
    }
  }
  async deletePerson(id: string, at: string): Promise<PersonDeletion> {
    return this.transact<PersonDeletion>(async (c) => {
      const p = await lockedPerson(c, id);
      if (!p) return { value: { outcome: 'gone' }, rollback: true };
      if (p.lastOwner) return { value: { outcome: 'last_owner' }, rollback: true };
      const revokedKeys = (await c.query<{ id: string }>(numbered(OWNER_SQL.revokeKeys), [at, id])).rows.map((k) => k.id);
      for (const key of revokedKeys) await c.query(numbered(OWNER_SQL.pendingRevocation), [key, at]);
      // Each `?` of a statement is the person's id.
      for (const sql of PERSON_ROWS_SQL) await c.query(sql.replace(/\?/g, '$1'), [id]);
      return { value: { outcome: 'removed', revokedKeys } };
    });
  }

  async createProject(p: Project): Promise<void> {
    try {
      await this.q('INSERT INTO projects (id, org_id, name, created_at) VALUES ($1, $2, $3, $4)', [p.id, p.org_id, p.name, p.created_at]);
    } catch (e) {
      if (isUniqueViolation(e)) throw new TeamRequestError('id', 'id: this organisation already has a project with this id');
      throw e;
    }
  }
  async getProject(orgId: string, id: string): Promise<Project | undefined> {
    return (await this.rows<Project>('SELECT id, org_id, name, created_at FROM projects WHERE org_id = $1 AND id = $2', [orgId, id]))[0];
  }
  listProjects(orgId: string): Promise<Project[]> {
    return this.rows<Project>('SELECT id, org_id, name, created_at FROM projects WHERE org_id = $1 ORDER BY created_at, id', [orgId]);
  }
  async setMember(orgId: string, m: Member): Promise<void> {
    await this.q(
      `INSERT INTO project_members (org_id, project_id, person_id, role, created_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (org_id, project_id, person_id) DO UPDATE SET role = excluded.role`,
      [orgId, m.project_id, m.person_id, m.role, m.created_at],
    );
  }
  async removeMember(orgId: string, projectId: string, personId: string): Promise<boolean> {
    const r = await this.q('DELETE FROM project_members WHERE org_id = $1 AND project_id = $2 AND person_id = $3', [
      orgId,
      projectId,
      personId,
    ]);
    return (r.rowCount ?? 0) > 0;
  }
  listMembers(orgId: string, projectId: string): Promise<Member[]> {
    return this.rows<Member>(
      'SELECT project_id, person_id, role, created_at FROM project_members WHERE org_id = $1 AND project_id = $2 ORDER BY created_at, person_id',
      [orgId, projectId],
    );
  }
  memberships(personId: string): Promise<Member[]> {
    return this.rows<Member>(
      'SELECT project_id, person_id, role, created_at FROM project_members WHERE person_id = $1 ORDER BY project_id',
      [personId],
    );
  }

  async liveKeysNamed(s: NameScope, name: string, now: string): Promise<string[]> {
    return (
      await this.rows<{ id: string }>(
        `SELECT id FROM api_keys WHERE org_id = $1 AND project_id IS NOT DISTINCT FROM $2 AND person_id IS NOT DISTINCT FROM $3
           AND lower(name) = lower($4) AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $5)`,
        [s.orgId, s.projectId, s.personId, name, now],
      )
    ).map((r) => r.id);
  }
  async setKeyExpiry(keyId: string, expiresAt: string): Promise<void> {
    await this.q('UPDATE api_keys SET expires_at = $2 WHERE id = $1', [keyId, expiresAt]);
  }
  async keyExpiries(ids: string[]): Promise<Map<string, string>> {
    const rows = await this.rows<{ id: string; expires_at: string }>(
      'SELECT id, expires_at FROM api_keys WHERE id = ANY($1) AND expires_at IS NOT NULL',
      [ids],
    );
    return new Map(rows.map((r) => [r.id, r.expires_at]));
  }
  async personKeys(personId: string): Promise<string[]> {
    return (await this.rows<{ id: string }>('SELECT id FROM api_keys WHERE person_id = $1 AND revoked_at IS NULL', [personId])).map(
      (r) => r.id,
    );
  }
}
