/** Key management with the master key: `GET`/`POST /v1/api-keys`, `DELETE /v1/api-keys/{id or key}`. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type CreateKeyResponse, CreateKeyRequestSchema, describeZodError, redactKey } from '../../protocol';
import { KeyRequestError } from '../storage/stores';
import type { ApiContext } from './context';
import { HttpError, bearer, parseJsonBody, readBody, sendJson } from './util';
import { audited } from './teamApi';

/**
 * Only the master key manages keys: 401 without it, 403 for an API key (which is not enough). An address
 * that failed it 10 times within a minute gets 429 for every master-key request until the minute is over.
 */
export async function requireMaster(ctx: ApiContext, req: IncomingMessage): Promise<void> {
  const address = ctx.clientAddress(req);
  const wait = await ctx.limits.masterKeyWait(address);
  if (wait > 0) {
    ctx.log.info('master key attempts rate limited', { address, retry_after_ms: Math.ceil(wait) });
    throw HttpError.of('RATE_LIMITED', 'too many failed master-key attempts from this address; wait before trying again', Math.ceil(wait));
  }
  const token = bearer(req);
  if (!token) throw HttpError.of('AUTH_ERROR', 'missing master key: send Authorization: Bearer <MASTER_KEY>');
  if (ctx.keys.isMaster(token)) return;
  const auth = await ctx.keys.authenticate(token);
  if (auth.ok) throw HttpError.of('AUTH_ERROR', 'key management needs the master key; an API key is not enough', 0, 403);
  await ctx.limits.masterKeyFailed(address);
  throw HttpError.of('AUTH_ERROR', 'invalid master key');
}

export async function listKeys(ctx: ApiContext, res: ServerResponse): Promise<void> {
  sendJson(res, 200, { success: true, keys: await ctx.keys.list() });
}

export async function createKey(ctx: ApiContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = parseJsonBody(await readBody(req));
  const parsed = CreateKeyRequestSchema.safeParse(body ?? {});
  if (!parsed.success) throw HttpError.of('CONFIG_ERROR', describeZodError(parsed.error).message);
  try {
    const created = await ctx.keys.create(parsed.data);
    ctx.log.info('API key created', { key_id: created.id, key: redactKey(created.key), type: created.type });
    await audited(ctx, req, 'key.created', created.id);
    const answer: CreateKeyResponse = { success: true, ...created };
    sendJson(res, 201, answer);
  } catch (e) {
    if (e instanceof KeyRequestError) throw HttpError.of('CONFIG_ERROR', e.message);
    throw e;
  }
}

/** Revokes a key and ends its live sessions (their pending text flushed first). */
export async function revokeKey(ctx: ApiContext, req: IncomingMessage, keyOrId: string, res: ServerResponse): Promise<void> {
  const key = await ctx.keys.revoke(keyOrId);
  if (!key) throw new HttpError(404, 'NOT_FOUND', 'no such API key');
  ctx.log.info('API key revoked', { key_id: key.id, key: key.hint });
  await audited(ctx, req, 'key.revoked', key.id);
  await ctx.registry.revokeKey(key.id);
  sendJson(res, 200, { success: true, id: key.id, revoked_at: key.revokedAt });
}
