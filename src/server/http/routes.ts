/** The HTTP API of the service: every path of `PATHS`, its methods, and the error body for every failure. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PATHS } from '../../protocol';
import { BackendUnavailableError } from '../storage/stores';
import type { ApiContext } from './context';
import { requireMaster } from './actor';
import { createKey, listKeys, revokeKey } from './keys';
import { teamRoute } from './teamRoutes';
import { readSession, sessionInit } from './sessions';
import { getAudit } from './audit';
import { deleteSession } from './sessionEnd';
import { getUsage, listSessions } from './usage';
import { ClientGoneError, HttpError, decodePathSegment, parseRequestUrl, safeUrl, sendError, sendJson } from './util';

export async function route(ctx: ApiContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = parseRequestUrl(req.url);
  if (!url) throw HttpError.of('PROTOCOL_ERROR', 'malformed request URL');
  const p = url.pathname.replace(/\/+$/, '') || '/';
  const method = req.method ?? 'GET';
  ctx.log.debug('http request', { method, path: safeUrl(url.pathname) });
  const allow = (...allowed: string[]): void => {
    if (!allowed.includes(method)) throw HttpError.methodNotAllowed(method, allowed);
  };
  const under = (prefix: string): string | undefined =>
    p.startsWith(`${prefix}/`) ? decodePathSegment(p.slice(prefix.length + 1)) : undefined;
  if (p === PATHS.health) {
    allow('GET', 'HEAD');
    sendJson(res, 200, {
      ok: true,
      engine: ctx.engine.name,
      languages: ctx.engine.languages,
      busy: Boolean(ctx.engine.busy?.()),
      draining: ctx.draining(),
      event_loop_delay_ms: ctx.loopDelay(),
    });
    return;
  }
  if (p === PATHS.ready) {
    allow('GET', 'HEAD');
    const r = await ctx.readiness();
    sendJson(res, r.ready ? 200 : 503, r);
    return;
  }
  if (ctx.draining()) throw HttpError.of('INTERNAL_ERROR', 'service shutting down', 1000, 503);
  if (p === PATHS.sessionInit || p === PATHS.sessionInitAlt) {
    allow('POST');
    await sessionInit(ctx, req, res);
    return;
  }
  if (p === PATHS.apiKeys) {
    allow('GET', 'POST');
    if (method === 'GET') await listKeys(ctx, req, res);
    else await createKey(ctx, req, res);
    return;
  }
  if (await teamRoute(ctx, req, res, p, url)) return;
  if (p === PATHS.status) {
    allow('GET');
    await requireMaster(ctx, req);
    sendJson(res, 200, { success: true, ...ctx.status() });
    return;
  }
  if (p === PATHS.usage) {
    allow('GET');
    await getUsage(ctx, req, url, res);
    return;
  }
  if (p === PATHS.sessions) {
    allow('GET');
    await listSessions(ctx, req, url, res);
    return;
  }
  if (p === PATHS.audit) {
    allow('GET');
    await getAudit(ctx, req, url, res);
    return;
  }
  const keyOrId = under(PATHS.apiKeys);
  if (keyOrId !== undefined) {
    allow('DELETE');
    await revokeKey(ctx, req, keyOrId, res);
    return;
  }
  const sessionId = under(PATHS.sessions);
  if (sessionId !== undefined) {
    allow('GET', 'DELETE');
    if (method === 'DELETE') await deleteSession(ctx, req, sessionId, res);
    else await readSession(ctx, req, sessionId, res);
    return;
  }
  if (p === PATHS.audioLive) {
    throw new HttpError(400, 'PROTOCOL_ERROR', `${PATHS.audioLive} is a WebSocket endpoint; open it with a WebSocket upgrade`);
  }
  throw new HttpError(404, 'NOT_FOUND', `no such endpoint: ${method} ${safeUrl(url.pathname)}`);
}

/** Any failure of a request: an HttpError as it is; anything else a 500 that exposes nothing (and is logged). */
export function httpFailure(ctx: ApiContext, req: IncomingMessage, res: ServerResponse, e: unknown): void {
  if (e instanceof ClientGoneError) {
    // Nobody to answer: not an error of the service.
    ctx.log.debug(e.message, { method: req.method, path: safeUrl(req.url ?? '') });
    res.destroy();
    return;
  }
  let err: HttpError;
  if (e instanceof HttpError) err = e;
  else if (e instanceof BackendUnavailableError) {
    ctx.log.warn('request refused: backend unreachable', {
      backend: e.backend,
      retry_after_ms: e.retryAfterMs,
      method: req.method,
      path: safeUrl(req.url ?? ''),
    });
    err = HttpError.unavailable(e.retryAfterMs);
  } else {
    ctx.log.error('internal error on an HTTP request', { error: e, method: req.method, path: safeUrl(req.url ?? '') });
    err = HttpError.of('INTERNAL_ERROR', 'internal error');
  }
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (err.status >= 400 && err.status !== 500)
    ctx.log.info('http error', {
      status: err.status,
      code: err.code,
      path: safeUrl(req.url ?? ''),
      address: ctx.clientAddress(req),
      ...err.logFields,
    });
  ctx.counters.error(err.code);
  sendError(res, err);
}
