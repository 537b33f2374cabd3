/** Session init (`POST /api/v1/live/sessions`, `/v1/live/sessions`) and session read (`GET /v1/sessions/{id}`). */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SessionInitResponse } from '../../protocol';
import { WRITE_NEEDED, authorize, type AuthorizeOptions } from '../auth';
import type { ApiContext } from './context';
import { HttpError, bearer, parseJsonBody, presentedKey, readBody, sendJson } from './util';

const INIT: AuthorizeOptions = { permission: 'write', lacking: WRITE_NEEDED, rate: true };
const READ: AuthorizeOptions = { permission: 'admin', lacking: 'reading sessions needs the master key or an "admin" key', rate: false };

/** A session id for the WebSocket to come (it adopts it); counted against the key's rate limit. */
export async function sessionInit(ctx: ApiContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const auth = await authorize(ctx.keys, ctx.limits, presentedKey(req, true), INIT);
  if (!auth.ok) {
    if (auth.why === 'rate') ctx.log.info('rate limited (session init)', { key: auth.keyHint, retry_after_ms: auth.retryAfterMs });
    throw new HttpError(auth.status, auth.code, auth.message, auth.retryAfterMs);
  }
  const key = auth.key;
  const body = parseJsonBody(await readBody(req));
  if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
    throw HttpError.of('PROTOCOL_ERROR', 'request body, when present, must be a JSON object');
  }
  const id = randomUUID();
  await ctx.store.recordSession(id, key.id, key.orgId, 'http', new Date().toISOString());
  ctx.registry.httpInits.add(key.id, id);
  ctx.log.info('session initialised', { session_id: id, key: key.hint });
  const out: SessionInitResponse = { success: true, session_id: id, org_id: key.orgId };
  sendJson(res, 200, out);
}

/** A session's record and, while it is in memory, its live state; the master key sees all, an admin key its organisation's. */
export async function readSession(ctx: ApiContext, req: IncomingMessage, id: string, res: ServerResponse): Promise<void> {
  const token = bearer(req);
  let orgId: string | undefined;
  if (!ctx.keys.isMaster(token)) {
    const auth = await authorize(ctx.keys, ctx.limits, token, READ);
    if (!auth.ok) throw new HttpError(auth.status, auth.code, auth.message, auth.retryAfterMs);
    orgId = auth.key.orgId;
  }
  const record = await ctx.store.getSession(id);
  const live = ctx.registry.lookup(id);
  if ((!record && !live) || (orgId && record && record.org_id !== orgId)) throw new HttpError(404, 'NOT_FOUND', 'no such session');
  sendJson(res, 200, {
    success: true,
    session: {
      ...(record ?? {}),
      session_id: id,
      state: live ? live.state : record?.ended_at ? 'stopped' : 'not live',
      connected: Boolean(live?.peer),
      last_seq: live?.lastSeq,
      metrics: live?.metrics(),
    },
  });
}
