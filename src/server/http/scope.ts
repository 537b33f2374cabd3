/**
 * What an API key may reach and do (docs/protocol.md, "Scoping"): `scopeOf(key)` says whose sessions and
 * usage it reads and whose keys it manages; `can(key, action)` whether its permissions allow an action.
 * The master key is the operator's: it reaches everything and may do everything.
 *
 * - A project key: its project.
 * - A personal key of a person: that person's; but an `admin` key of an owner or admin of the organisation
 *   (and a personal key of no person: the organisation's own, as keys made by the master key before people
 *   existed): the whole organisation.
 * - A test key (`svc_test_`): only what test keys did (`testOnly`): never a live key's session.
 */
import type { ApiKey } from '../storage/stores';

interface Scope {
  orgId: string;
  /** Only this project's. */
  projectId?: string;
  /** Only this person's. */
  personId?: string;
  /** Only sessions of test keys (a test key's scope). */
  testOnly?: boolean;
}

export type Action =
  /** open a live session */
  | 'dictate'
  /** read sessions and usage in scope */
  | 'read'
  /** create, roll, revoke, list the keys in scope */
  | 'manage_keys'
  /** people and projects of the organisation */
  | 'manage_org'
  /** the organisation's own settings (`max_key_lifetime_days`): owners */
  | 'own_org';

export const MASTER = 'master' as const;
export type Acting = ApiKey | typeof MASTER;

export function scopeOf(key: ApiKey): Scope {
  const scope: Scope = { orgId: key.orgId };
  if (key.type === 'project' && key.projectId !== null) scope.projectId = key.projectId;
  else if (key.personId !== null && !isOrgAdmin(key)) scope.personId = key.personId;
  if (key.environment === 'test') scope.testOnly = true;
  return scope;
}

/** An `admin` personal key that reaches the whole organisation: of an owner or admin, or of no person. */
function isOrgAdmin(key: ApiKey): boolean {
  if (key.type !== 'personal' || !key.permissions.includes('admin')) return false;
  return key.personId === null || key.personRole === 'owner' || key.personRole === 'admin';
}

export function can(key: Acting, action: Action): boolean {
  if (key === MASTER) return true;
  const has = (p: ApiKey['permissions'][number]): boolean => key.permissions.includes(p);
  switch (action) {
    case 'dictate':
      return has('write');
    case 'read':
      return has('read') || has('admin');
    case 'manage_keys':
      return has('admin') && key.environment !== 'test';
    case 'manage_org':
      return isOrgAdmin(key) && key.environment !== 'test';
    case 'own_org':
      return isOrgAdmin(key) && key.environment !== 'test' && (key.personId === null || key.personRole === 'owner');
  }
}

/** What a session record says of where it belongs. */
export interface Owned {
  org_id: string;
  project_id?: string | null;
  person_id?: string | null;
  environment?: 'live' | 'test' | null;
}

/** Whether a session (or usage) of this owner is in the scope. */
export function inScope(scope: Scope, o: Owned): boolean {
  if (o.org_id !== scope.orgId) return false;
  if (scope.projectId !== undefined && o.project_id !== scope.projectId) return false;
  if (scope.personId !== undefined && o.person_id !== scope.personId) return false;
  if (scope.testOnly && o.environment !== 'test') return false;
  return true;
}

/**
 * Whether a key of this owner (org, project, person) is among those `manager` manages: its scope's, and the
 * projects where the manager's person is a project admin (`adminProjects`).
 */
export function managesKey(
  manager: Acting,
  target: { orgId: string; projectId: string | null; personId: string | null },
  adminProjects: ReadonlySet<string> = new Set(),
): boolean {
  if (manager === MASTER) return true;
  if (!can(manager, 'manage_keys')) return false;
  const s = scopeOf(manager);
  if (target.orgId !== s.orgId) return false;
  if (s.projectId !== undefined) return target.projectId === s.projectId;
  if (s.personId !== undefined) return target.personId === s.personId || (target.projectId !== null && adminProjects.has(target.projectId));
  return true;
}
