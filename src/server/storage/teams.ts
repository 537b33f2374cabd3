/**
 * Organisations, people and projects (docs/protocol.md, "Teams: organisations, people, projects"): what they
 * are, and `TeamStore`, where they are kept (SQLite: teamsSqlite.ts; PostgreSQL: pg/teams.ts). The rules
 * (who may do what) are the HTTP layer's (http/scope.ts); a store only refuses what would break its data:
 * a second person with the same email in an organisation, an unknown project or person.
 */

export const ORG_ROLES = ['owner', 'admin', 'member'] as const;
export type OrgRole = (typeof ORG_ROLES)[number];
const PROJECT_ROLES = ['admin', 'member'] as const;
export type ProjectRole = (typeof PROJECT_ROLES)[number];

export interface Org {
  id: string;
  name: string;
  created_at: string;
  /** Longest lifetime of a key of the organisation (null: none). */
  max_key_lifetime_days: number | null;
}

export interface Person {
  id: string;
  org_id: string;
  email: string;
  display_name: string;
  role: OrgRole;
  created_at: string;
}

export interface Project {
  id: string;
  org_id: string;
  name: string;
  created_at: string;
}

export interface Member {
  project_id: string;
  person_id: string;
  role: ProjectRole;
  created_at: string;
}

/**
 * What `TeamStore.deletePerson` did: the person removed (with the ids of the keys it revoked), or nothing,
 * because they were gone already (removed meanwhile) or are their organisation's last owner.
 */
export type PersonDeletion = { outcome: 'removed'; revokedKeys: string[] } | { outcome: 'gone' } | { outcome: 'last_owner' };

/** The store's refusal to demote the last owner (TeamRequestError on `role`). */
export const LAST_OWNER = "role: this person is the organisation's last owner; make another person owner first";

/** A request that is valid field by field but contradicts what is stored: CONFIG_ERROR naming `field`. */
export class TeamRequestError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** Where a key lives, for the rule "two live keys never share a name in the same scope" (keys.ts). */
export interface NameScope {
  orgId: string;
  projectId: string | null;
  personId: string | null;
}

export interface TeamStore {
  /** The organisation made at the first start (meta `org_id`): the master key's default. */
  readonly defaultOrgId: string;
  createOrg(org: Org): Promise<void>;
  getOrg(id: string): Promise<Org | undefined>;
  listOrgs(): Promise<Org[]>;
  updateOrg(id: string, changes: Partial<Pick<Org, 'name' | 'max_key_lifetime_days'>>): Promise<Org | undefined>;

  /** Throws TeamRequestError('email') when the organisation has a person with that email already. */
  createPerson(p: Person): Promise<void>;
  getPerson(id: string): Promise<Person | undefined>;
  listPeople(orgId: string): Promise<Person[]>;
  countOwners(orgId: string): Promise<number>;
  /**
   * Throws TeamRequestError('email') as createPerson, and TeamRequestError('role') (`LAST_OWNER`) when it
   * would demote the organisation's last owner: a role change of an owner is checked under the same lock as
   * a removal, so that two at once never leave the organisation without an owner.
   */
  updatePerson(id: string, changes: Partial<Pick<Person, 'email' | 'display_name' | 'role'>>): Promise<Person | undefined>;
  /**
   * Removes the person, unless they are their organisation's last owner, in one transaction under the
   * organisation's lock (`OWNER_SQL`): their live keys revoked at `at` (kept for the records, each marked
   * for announcement in `pending_revocations`), and all that is theirs deleted: project memberships,
   * dashboard sessions (and their flashes), second factor, recovery codes, waiting sign-ins, open
   * invitations, sign-in throttle rows (`PERSON_ROWS_SQL`). The caller ends the revoked keys' live sessions.
   */
  deletePerson(id: string, at: string): Promise<PersonDeletion>;

  createProject(p: Project): Promise<void>;
  getProject(orgId: string, id: string): Promise<Project | undefined>;
  listProjects(orgId: string): Promise<Project[]>;
  /** Adds or changes a membership. */
  setMember(orgId: string, m: Member): Promise<void>;
  /** Whether there was one. */
  removeMember(orgId: string, projectId: string, personId: string): Promise<boolean>;
  listMembers(orgId: string, projectId: string): Promise<Member[]>;
  /** The projects where the person is a member, with the role. */
  memberships(personId: string): Promise<Member[]>;

  /** Ids of the keys neither revoked nor expired (at `now`) of that scope and name. */
  liveKeysNamed(scope: NameScope, name: string, now: string): Promise<string[]>;
  /** Sets a key's expiry. */
  setKeyExpiry(keyId: string, expiresAt: string): Promise<void>;
  /** The expiries of these keys (a key without one, or unknown, is absent). */
  keyExpiries(ids: string[]): Promise<Map<string, string>>;
  /** Ids of a person's keys not yet revoked. */
  personKeys(personId: string): Promise<string[]>;
}

/**
 * What goes with a removed person, in this order, each with one parameter (the person's id): the flashes of
 * their dashboard sessions, the sessions, the second factor's rows, the open invitations, the throttle rows
 * of their account (`person:<id>`, `code:person:<id>`), the memberships, the person. SQLite and PostgreSQL
 * alike (`?` placeholders; pg/teams.ts numbers them).
 */
export const PERSON_ROWS_SQL: readonly string[] = [
  'DELETE FROM dashboard_flashes WHERE session_hash IN (SELECT id_hash FROM dashboard_sessions WHERE person_id = ?)',
  'DELETE FROM dashboard_sessions WHERE person_id = ?',
  'DELETE FROM second_factor_challenges WHERE person_id = ?',
  'DELETE FROM recovery_codes WHERE person_id = ?',
  'DELETE FROM second_factors WHERE person_id = ?',
  'DELETE FROM dashboard_invites WHERE person_id = ?',
  "DELETE FROM dashboard_throttle WHERE subject IN ('person:' || CAST(? AS TEXT), 'code:person:' || CAST(? AS TEXT))",
  'DELETE FROM project_members WHERE person_id = ?',
  'DELETE FROM people WHERE id = ?',
];

/**
 * What a removal or an owner's role change reads and writes under the organisation's lock (PostgreSQL: the
 * `orgs` row `FOR UPDATE`; SQLite: an IMMEDIATE transaction), SQLite and PostgreSQL alike (`?` placeholders;
 * pg/teams.ts numbers them).
 */
export const OWNER_SQL = {
  person: 'SELECT org_id, role FROM people WHERE id = ?',
  otherOwners: "SELECT CAST(count(*) AS INTEGER) AS n FROM people WHERE org_id = ? AND role = 'owner' AND id <> ?",
  revokeKeys: 'UPDATE api_keys SET revoked_at = ? WHERE person_id = ? AND revoked_at IS NULL RETURNING id',
  pendingRevocation: 'INSERT INTO pending_revocations (key_id, revoked_at) VALUES (?, ?) ON CONFLICT DO NOTHING',
} as const;

/** A key with its person's role, as authentication and the listings read it (SQLite and PostgreSQL alike). */
export const KEY_SELECT = 'SELECT k.*, p.role AS person_role FROM api_keys k LEFT JOIN people p ON p.id = k.person_id';

/** A session record with what scopes its reading: its key's project, person and environment. */
export const SESSION_SELECT =
  'SELECT s.*, k.project_id AS project_id, k.person_id AS person_id, k.environment AS environment FROM sessions s LEFT JOIN api_keys k ON k.id = s.key_id';

/** Whether an error is a unique-constraint violation (SQLite or PostgreSQL). */
export function isUniqueViolation(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}
