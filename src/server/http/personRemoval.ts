/**
 * Removing a person (`DELETE /v1/people/{id}` and the dashboard's People page alike): their keys revoked
 * first, each as `DELETE /v1/api-keys/{id}` revokes it (audited `key.revoked` once, its live sessions ended on
 * whichever instance holds them, every pending word delivered first), then the person deleted with all that
 * is theirs (storage/teams.ts `deletePerson`: memberships, dashboard sessions, second factor, invitations),
 * audited `person.deleted`. A key made for them while this ran is revoked too.
 */
import type { Person } from '../storage/teams';
import { type Actor, record } from './actor';
import type { ApiContext } from './context';

async function revokePersonKeys(ctx: ApiContext, actor: Actor, personId: string): Promise<string[]> {
  const ids = await ctx.keys.teams.personKeys(personId);
  for (const id of ids) {
    const done = await ctx.keys.revokeOnce(id);
    if (done?.revokedHere) record(ctx, actor, 'key.revoked', id, 'success');
    await ctx.registry.revokeKey(id);
  }
  return ids;
}

/** Removes the person (the caller checked the rules); the ids of the keys revoked. */
export async function removePersonAs(ctx: ApiContext, actor: Actor, person: Person): Promise<string[]> {
  const revoked = await revokePersonKeys(ctx, actor, person.id);
  await ctx.keys.teams.deletePerson(person.id);
  revoked.push(...(await revokePersonKeys(ctx, actor, person.id)));
  record(ctx, actor, 'person.deleted', person.id, 'success');
  ctx.log.info('person removed', { person_id: person.id, keys_revoked: revoked.length, actor: actor.id, address: actor.ip });
  return revoked;
}
