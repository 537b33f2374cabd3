/** The `TeamStore` (teams.ts) on PostgreSQL (tables of migration 3), through the store's queries (refused at once while the database is unreachable). */
import type pg from 'pg';
import {
  type Member,
  type NameScope,
  type Org,
  type Person,
  type Project,
  type TeamStore,
  PERSON_ROWS_SQL,
  TeamRequestError,
  isUniqueViolation,
} from '../teams';

type Query = <R extends pg.QueryResultRow>(text: string, params?: unknown[]) => Promise<pg.QueryResult<R>>;

const DUPLICATE_EMAIL = 'email: this organisation already has a person with this email';
const ORG_COLUMNS = 'id, name, created_at, max_key_lifetime_days';
const PERSON_COLUMNS = 'id, org_id, email, display_name, role, created_at';

export class PgTeams implements TeamStore {
  constructor(
    private readonly q: Query,
    readonly defaultOrgId: string,
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
    try {
      return (
        await this.rows<Person>(
          `UPDATE people SET email = COALESCE($2, email), email_lower = COALESCE(lower($2), email_lower),
             display_name = COALESCE($3, display_name), role = COALESCE($4, role)
           WHERE id = $1 RETURNING ${PERSON_COLUMNS}`,
          [id, c.email ?? null, c.display_name ?? null, c.role ?? null],
        )
      )[0];
    } catch (e) {
      if (isUniqueViolation(e)) throw new TeamRequestError('email', DUPLICATE_EMAIL);
      throw e;
    }
  }
  async deletePerson(id: string): Promise<void> {
    // One statement (so one transaction): each delete a data-modifying WITH part, the person's id as $1.
    const parts = PERSON_ROWS_SQL.map((sql) => sql.replace(/\?/g, '$1'));
    const last = parts.pop()!;
    await this.q(`WITH ${parts.map((p, i) => `d${i} AS (${p})`).join(', ')} ${last}`, [id]);
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
