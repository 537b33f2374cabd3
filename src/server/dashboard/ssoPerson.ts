/**
 * Who a single sign-on is (docs/dashboard-sign-in.md "Single sign-on"): the person of the organisation with the
 * provider's verified email (compared without case), their role taken from their groups through the role
 * map (the highest one when several groups map); created at their first sign-in when a group maps to a role,
 * their role brought in line with their groups at each later one. An owner stays an owner (the operator made
 * them; a change of groups never takes the organisation's last owner away) and may sign in without a mapped
 * group; anyone else without one is refused (`no_role`), so that leaving the hospital's group ends access.
 */
import { ORG_ROLES, TeamRequestError, type OrgRole, type Person, type TeamStore } from '../storage/teams';
import { newId, now } from '../http/teamUtil';
import { SsoError, type SsoIdentity } from './oidcClient';

interface SsoPersonResult {
  person: Person;
  created: boolean;
  /** The role before, when this sign-in changed it. */
  previousRole?: OrgRole;
}

/** The highest role any of the groups maps to (owner > admin > member), or undefined. */
export function roleOfGroups(groups: readonly string[], roleMap: ReadonlyMap<string, OrgRole>): OrgRole | undefined {
  let best: number | undefined;
  for (const g of groups) {
    const role = roleMap.get(g);
    if (role === undefined) continue;
    const rank = ORG_ROLES.indexOf(role);
    if (best === undefined || rank < best) best = rank;
  }
  return best === undefined ? undefined : ORG_ROLES[best];
}

async function personByEmail(team: TeamStore, orgId: string, email: string): Promise<Person | undefined> {
  const lower = email.toLowerCase();
  return (await team.listPeople(orgId)).find((p) => p.email.toLowerCase() === lower);
}

export async function ssoPerson(
  team: TeamStore,
  orgId: string,
  identity: SsoIdentity,
  roleMap: ReadonlyMap<string, OrgRole>,
): Promise<SsoPersonResult> {
  if (!(await team.getOrg(orgId))) throw new SsoError('no_organisation', `the organisation ${orgId} of --oidc-org does not exist`);
  if (!identity.email)
    throw new SsoError('email_missing', 'the OpenID provider gave no email for this account (is the email scope granted?)');
  if (!identity.emailVerified) throw new SsoError('email_not_verified', 'the OpenID provider does not say that this email is verified');
  const role = roleOfGroups(identity.groups, roleMap);
  let person = await personByEmail(team, orgId, identity.email);
  if (person?.role === 'owner') return { person, created: false };
  if (!role) {
    throw new SsoError(
      'no_role',
      'none of this account’s groups gives a role in the dashboard; ask the administrator to add you to a group',
    );
  }
  if (!person) {
    const fresh: Person = {
      id: newId('person'),
      org_id: orgId,
      email: identity.email,
      display_name: identity.name?.trim() || identity.email,
      role,
      created_at: now(),
    };
    try {
      await team.createPerson(fresh);
      return { person: fresh, created: true };
    } catch (e) {
      // Two first sign-ins at once: the other one created the person.
      if (!(e instanceof TeamRequestError)) throw e;
      person = await personByEmail(team, orgId, identity.email);
      if (!person) throw e;
    }
  }
  if (person.role === role || person.role === 'owner') return { person, created: false };
  const updated = await team.updatePerson(person.id, { role });
  return { person: updated ?? { ...person, role }, created: false, previousRole: person.role };
}
