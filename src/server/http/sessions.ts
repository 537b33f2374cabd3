/** Session init (`POST /api/v1/live/sessions`, `/v1/live/sessions`) and session read (`GET /v1/sessions/{id}`). */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SessionInitResponse } from '../../protocol';
import { WRITE_NEEDED, authorize, httpRefusal, lockedOut, takeRate, type AuthorizeOptions } from './auth';
import type { ApiKey, SessionRecord } from '../storage/stores';
import type { ApiContext } from './context';
import { inScope, scopeOf } from './scope';
import { HttpError, bearer, parseJsonBody, presentedKey, readBody, sendJson } from './util';

/** The rate is counted only once the request is known to be valid (a refused init costs no slot). */
const INIT: AuthorizeOptions = { permission: 'write', lacking: WRITE_NEEDED, rate: false };
const READ: AuthorizeOptions = {
  permission: 'read',
  lacking: 'reading sessions needs the master key, or an API key with the "read" (or "admin") permission',
  rate: false,
  lockChecked: true,
};

/** A session id for the WebSocket to come (it adopts it); counted against the key's rate limit. */
export async function sessionInit(ctx: ApiContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const auth = await authorize(ctx.keys, ctx.limits, presentedKey(req, true), INIT, ctx.clientAddress(req));
  if (!auth.ok) throw httpRefusal(auth);
  const key = auth.key;
  const body = parseJsonBody(await readBody(req));
  if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
    throw HttpError.of('PROTOCOL_ERROR', 'request body, when present, must be a JSON object');
  }
  const rate = await takeRate(ctx.limits, key);
  if (!rate.ok) {
    ctx.log.info('rate limited (session init)', { key: key.hint, retry_after_ms: rate.retryAfterMs });
    throw new HttpError(rate.status, rate.code, rate.message, rate.retryAfterMs);
  }
  const id = randomUUID();
  await ctx.store.recordSession(id, key.id, key.orgId, 'http', new Date().toISOString());
  ctx.registry.httpInits.add(key.id, id);
  ctx.log.info('session initialised', { session_id: id, key: key.hint });
  const out: SessionInitResponse = { success: true, session_id: id, org_id: key.orgId };
  sendJson(res, 200, out);
}

/** A session's record and, while it is in memory, its live state; the master key sees all, a `read` or `admin` key those in its scope (scope.ts). */
export async function readSession(ctx: ApiContext, req: IncomingMessage, id: string, res: ServerResponse): Promise<void> {
  const token = bearer(req);
  const address = ctx.clientAddress(req);
  // The lockout first, even for the master key: a locked-out address learns nothing of what it presents.
  const locked = await lockedOut(ctx.limits, address);
  if (locked) throw httpRefusal(locked);
  let reader: ApiKey | undefined;
  if (!ctx.keys.isMaster(token)) {
    const auth = await authorize(ctx.keys, ctx.limits, token, READ, address);
    if (!auth.ok) throw httpRefusal(auth);
    reader = auth.key;
  }
  const found = await ctx.store.getSession(id);
  const live = ctx.registry.lookup(id);
  // Scoping (scope.ts): the organisation's, the project's, the person's; a test key's only those of test keys.
  // Anything else is "not found", so that a key learns nothing of sessions it may not read.
  const owner = found ?? (live ? { org_id: live.orgId, project_id: undefined } : undefined);
  const visible = owner !== undefined && (!reader || inScope(scopeOf(reader), owner));
  if (!visible) throw new HttpError(404, 'NOT_FOUND', 'no such session');
  const { project_id: _project, person_id: _person, environment: _environment, ...record } = found ?? ({} as Partial<SessionRecord>);
  sendJson(res, 200, {
    success: true,
    session: {
      ...record,
      session_id: id,
      state: live ? live.state : record?.ended_at ? 'stopped' : 'not live',
      connected: Boolean(live?.peer),
      last_seq: live?.lastSeq,
      metrics: live?.metrics(),
    },
  });
}
