/**
 * Removing a person (`DELETE /v1/people/{id}` and the dashboard's People page alike): the person deleted,
 * unless they are their organisation's last owner, in one transaction under the organisation's lock with
 * their keys revoked and all that is theirs (storage/teams.ts `deletePerson`: memberships, dashboard
 * sessions, second factor, invitations), so that two removals at once on any instances never leave the
 * organisation without an owner nor revoke the keys of a person who stays. Then each revoked key audited
 * `key.revoked` and its live sessions ended on whichever instance holds them (every pending word delivered
 * first), as `DELETE /v1/api-keys/{id}` does; a key made for them while this ran is revoked too; audited
 * `person.deleted`.
 */
import type { Person, PersonDeletion } from '../storage/teams';
import { type Actor, record } from './actor';
import type { ApiContext } from './context';

/** The key revoked: audited, its sessions ended here and announced to the other instances. */
async function revoked(ctx: ApiContext, actor: Actor, keyId: string): Promise<void> {
  record(ctx, actor, 'key.revoked', keyId, 'success');
  await ctx.registry.revokeKey(keyId);
}

/**
 * Removes the person (the caller checked who may): `removed` with the ids of the keys revoked, or nothing
 * done, `gone` (removed meanwhile) or `last_owner` (the organisation's last owner, at the moment it was
 * checked under the lock). The caller audits and answers a refusal.
 */
export async function removePersonAs(ctx: ApiContext, actor: Actor, person: Person): Promise<PersonDeletion> {
  const done = await ctx.keys.teams.deletePerson(person.id, new Date().toISOString());
  if (done.outcome !== 'removed') return done;
  const keys = [...done.revokedKeys];
  for (const id of keys) await revoked(ctx, actor, id);
  // A key made for them while this ran (its insert after the deletion committed).
  for (const id of await ctx.keys.teams.personKeys(person.id)) {
    const late = await ctx.keys.revokeOnce(id);
    if (late?.revokedHere) await revoked(ctx, actor, id);
    keys.push(id);
  }
  record(ctx, actor, 'person.deleted', person.id, 'success');
  ctx.log.info('person removed', { person_id: person.id, keys_revoked: keys.length, actor: actor.id, address: actor.ip });
  return { outcome: 'removed', revokedKeys: keys };
}
