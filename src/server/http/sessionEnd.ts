/**
 * `DELETE /v1/sessions/<id>`: an administrator ends a live session, on whichever instance holds it (this one,
 * or another told over the revocation feed's channel, whose end this waits for). Every pending word reaches
 * the client first. An HTTP init no WebSocket took yet is ended in its record. Audited (`session.ended`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { endHeldSession } from '../live/adminEnd';
import type { SessionRecord } from '../storage/stores';
import type { ApiContext } from './context';
import type { Owned } from './scope';
import { reader, sees } from './reader';
import { teamOf } from './usage';
import { HttpError, sendJson } from './util';

/** How often the record is read again while another instance ends the session. */
const POLL_MS = 100;

export async function deleteSession(ctx: ApiContext, req: IncomingMessage, id: string, res: ServerResponse): Promise<void> {
  teamOf(ctx);
  const who = await reader(ctx, req, 'admin');
  const out = await endSessionBy(ctx, { actor: who.actor, ip: ctx.clientAddress(req), sees: (o) => sees(who.scope, o) }, id);
  sendJson(res, 200, { success: true, ...out });
}

/** Who ends a session: the audit log's actor, the client's address, and which sessions they may end. */
interface Ender {
  actor: string;
  ip: string;
  sees(owner: Partial<Owned>): boolean;
}

/**
 * Ends a session as `DELETE /v1/sessions/<id>` does (the dashboard's **End session** too): 404 when it is
 * unknown or out of the ender's sight, audited `session.ended`; the ended record, or `already_ended`.
 */
export async function endSessionBy(ctx: ApiContext, who: Ender, id: string): Promise<{ session: object; already_ended?: true }> {
  const team = teamOf(ctx);
  const found = await ctx.store.getSession(id);
  const live = ctx.registry.lookup(id);
  if ((!found && !live) || !who.sees(found ? found : { org_id: live?.orgId })) {
    throw new HttpError(404, 'NOT_FOUND', 'no such session');
  }
  const audit = (outcome: 'success' | 'failure'): Promise<void> => {
    team.audit.record({
      actor: who.actor,
      action: 'session.ended',
      target: id,
      ip: who.ip,
      outcome,
      org_id: found?.org_id ?? live?.orgId,
    });
    return team.audit.written();
  };
  if (found?.ended_at && !live?.isLive) return { session: answer(found), already_ended: true };
  let record: SessionRecord | undefined;
  if (await endHeldSession(ctx.registry, ctx.store, id)) {
    record = await ctx.store.getSession(id);
  } else if (found && !found.started_at) {
    // An HTTP init no WebSocket took: no audio, nothing to deliver.
    await ctx.store.sessionEnded(id, {
      at: new Date().toISOString(),
      duration: 0,
      totalFrames: 0,
      finals: 0,
      reason: 'ended by an administrator',
      audioSeconds: 0,
    });
    record = await ctx.store.getSession(id);
  } else {
    if (!team.announceSessionEnd) throw HttpError.of('INTERNAL_ERROR', 'this instance cannot reach the instance that holds the session');
    await team.announceSessionEnd(id);
    const deadline = Date.now() + team.endWaitMs;
    for (;;) {
      record = await ctx.store.getSession(id);
      if (record?.ended_at || Date.now() >= deadline) break;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }
  if (!record?.ended_at) {
    await audit('failure');
    throw new HttpError(503, 'INTERNAL_ERROR', 'the session is held by an instance that did not end it in time; try again', 1000);
  }
  await audit('success');
  return { session: answer(record) };
}

function answer(r: SessionRecord): object {
  return {
    session_id: r.id,
    key_id: r.key_id,
    state: 'ended',
    created_at: r.created_at,
    ended_at: r.ended_at,
    audio_seconds: r.audio_seconds,
    end_reason: r.end_reason,
  };
}
