/** The `TeamStore` (teams.ts) on SQLite, in the data dir's database (tables of migration 3). */
import type Database from 'better-sqlite3';
import type { SqliteStore } from './db';
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
} from './teams';

const DUPLICATE_EMAIL = 'email: this organisation already has a person with this email';

export class SqliteTeams implements TeamStore {
  readonly defaultOrgId: string;
  private readonly db: Database.Database;

  constructor(store: SqliteStore) {
    this.db = store.db;
    this.defaultOrgId = store.orgId;
  }

  private all<T>(sql: string, ...params: unknown[]): T[] {
    return this.db.prepare(sql).all(...params) as T[];
  }
  private get<T>(sql: string, ...params: unknown[]): T | undefined {
    return this.db.prepare(sql).get(...params) as T | undefined;
  }
  private run(sql: string, ...params: unknown[]): number {
    return this.db.prepare(sql).run(...params).changes;
  }

  async createOrg(o: Org): Promise<void> {
    this.run(
      'INSERT INTO orgs (id, name, created_at, max_key_lifetime_days) VALUES (?, ?, ?, ?)',
      o.id,
      o.name,
      o.created_at,
      o.max_key_lifetime_days,
    );
  }
  async getOrg(id: string): Promise<Org | undefined> {
    return this.get<Org>('SELECT id, name, created_at, max_key_lifetime_days FROM orgs WHERE id = ?', id);
  }
  async listOrgs(): Promise<Org[]> {
    return this.all<Org>('SELECT id, name, created_at, max_key_lifetime_days FROM orgs ORDER BY created_at, id');
  }
  async updateOrg(id: string, c: Partial<Pick<Org, 'name' | 'max_key_lifetime_days'>>): Promise<Org | undefined> {
    if (c.name !== undefined) this.run('UPDATE orgs SET name = ? WHERE id = ?', c.name, id);
    if (c.max_key_lifetime_days !== undefined)
      this.run('UPDATE orgs SET max_key_lifetime_days = ? WHERE id = ?', c.max_key_lifetime_days, id);
    return this.getOrg(id);
  }

  async createPerson(p: Person): Promise<void> {
    try {
      this.run(
        'INSERT INTO people (id, org_id, email, email_lower, display_name, role, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        p.id,
        p.org_id,
        p.email,
        p.email.toLowerCase(),
        p.display_name,
        p.role,
        p.created_at,
      );
    } catch (e) {
      if (isUniqueViolation(e)) throw new TeamRequestError('email', DUPLICATE_EMAIL);
      throw e;
    }
  }
  async getPerson(id: string): Promise<Person | undefined> {
    return this.get<Person>('SELECT id, org_id, email, display_name, role, created_at FROM people WHERE id = ?', id);
  }
  async listPeople(orgId: string): Promise<Person[]> {
    return this.all<Person>(
      'SELECT id, org_id, email, display_name, role, created_at FROM people WHERE org_id = ? ORDER BY created_at, id',
      orgId,
    );
  }
  async countOwners(orgId: string): Promise<number> {
    return this.get<{ n: number }>("SELECT count(*) AS n FROM people WHERE org_id = ? AND role = 'owner'", orgId)?.n ?? 0;
  }
  /** Whether the person is an owner with no other owner in the organisation (in a transaction that holds the write lock). */
  private lastOwner(id: string): boolean {
    const p = this.get<{ org_id: string; role: string }>(OWNER_SQL.person, id);
    return p?.role === 'owner' && (this.get<{ n: number }>(OWNER_SQL.otherOwners, p.org_id, id)?.n ?? 0) === 0;
  }

  async updatePerson(id: string, c: Partial<Pick<Person, 'email' | 'display_name' | 'role'>>): Promise<Person | undefined> {
    try {
      // IMMEDIATE: the write lock taken first, so the owners counted are those written (teams.ts OWNER_SQL).
      this.db
        .transaction(() => {
          if (c.role !== undefined && c.role !== 'owner' && this.lastOwner(id)) throw new TeamRequestError('role', LAST_OWNER);
          if (c.email !== undefined)
            this.run('UPDATE people SET email = ?, email_lower = ? WHERE id = ?', c.email, c.email.toLowerCase(), id);
          if (c.display_name !== undefined) this.run('UPDATE people SET display_name = ? WHERE id = ?', c.display_name, id);
          if (c.role !== undefined) this.run('UPDATE people SET role = ? WHERE id = ?', c.role, id);
        })
        .immediate();
    } catch (e) {
      if (isUniqueViolation(e)) throw new TeamRequestError('email', DUPLICATE_EMAIL);
      throw e;
    }
    return this.getPerson(id);
  }
  async deletePerson(id: string, at: string): Promise<PersonDeletion> {
    return this.db
      .transaction((): PersonDeletion => {
        if (!this.get(OWNER_SQL.person, id)) return { outcome: 'gone' };
        if (this.lastOwner(id)) return { outcome: 'last_owner' };
        const revokedKeys = this.all<{ id: string }>(OWNER_SQL.revokeKeys, at, id).map((k) => k.id);
        for (const key of revokedKeys) this.run(OWNER_SQL.pendingRevocation, key, at);
        // Each `?` of a statement is the person's id.
        for (const sql of PERSON_ROWS_SQL) this.run(sql, ...Array<string>(sql.split('?').length - 1).fill(id));
        return { outcome: 'removed', revokedKeys };
      })
      .immediate();
  }

  async createProject(p: Project): Promise<void> {
    try {
      this.run('INSERT INTO projects (id, org_id, name, created_at) VALUES (?, ?, ?, ?)', p.id, p.org_id, p.name, p.created_at);
    } catch (e) {
      if (isUniqueViolation(e)) throw new TeamRequestError('id', 'id: this organisation already has a project with this id');
      throw e;
    }
  }
  async getProject(orgId: string, id: string): Promise<Project | undefined> {
    return this.get<Project>('SELECT id, org_id, name, created_at FROM projects WHERE org_id = ? AND id = ?', orgId, id);
  }
  async listProjects(orgId: string): Promise<Project[]> {
    return this.all<Project>('SELECT id, org_id, name, created_at FROM projects WHERE org_id = ? ORDER BY created_at, id', orgId);
  }
  async setMember(orgId: string, m: Member): Promise<void> {
    this.run(
      `INSERT INTO project_members (org_id, project_id, person_id, role, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (org_id, project_id, person_id) DO UPDATE SET role = excluded.role`,
      orgId,
      m.project_id,
      m.person_id,
      m.role,
      m.created_at,
    );
  }
  async removeMember(orgId: string, projectId: string, personId: string): Promise<boolean> {
    return this.run('DELETE FROM project_members WHERE org_id = ? AND project_id = ? AND person_id = ?', orgId, projectId, personId) > 0;
  }
  async listMembers(orgId: string, projectId: string): Promise<Member[]> {
    return this.all<Member>(
      'SELECT project_id, person_id, role, created_at FROM project_members WHERE org_id = ? AND project_id = ? ORDER BY created_at, person_id',
      orgId,
      projectId,
    );
  }
  async memberships(personId: string): Promise<Member[]> {
    return this.all<Member>(
      'SELECT project_id, person_id, role, created_at FROM project_members WHERE person_id = ? ORDER BY project_id',
      personId,
    );
  }

  async liveKeysNamed(s: NameScope, name: string, now: string): Promise<string[]> {
    return this.all<{ id: string }>(
      `SELECT id FROM api_keys WHERE org_id = ? AND project_id IS ? AND person_id IS ? AND lower(name) = lower(?)
         AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)`,
      s.orgId,
      s.projectId,
      s.personId,
      name,
      now,
    ).map((r) => r.id);
  }
  async setKeyExpiry(keyId: string, expiresAt: string): Promise<void> {
    this.run('UPDATE api_keys SET expires_at = ? WHERE id = ?', expiresAt, keyId);
  }
  async keyExpiries(ids: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const id of ids) {
      const at = this.get<{ expires_at: string | null }>('SELECT expires_at FROM api_keys WHERE id = ?', id)?.expires_at;
      if (at) out.set(id, at);
    }
    return out;
  }
  async personKeys(personId: string): Promise<string[]> {
    return this.all<{ id: string }>('SELECT id FROM api_keys WHERE person_id = ? AND revoked_at IS NULL', personId).map((r) => r.id);
  }
}
