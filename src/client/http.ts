/**
 * HTTP side of the client: service URLs, session init and the API-key check used by "Set API Key".
 * The key travels only in the `Authorization: Bearer` header: never in a URL, a log line or a message.
 */
import { DEFAULT_SERVER_URL, PATHS, looksLikeApiKey } from '../protocol/http';
import { DictationError, errorFromHttpRefusal, errorFromRequestFailure } from './errors';

export interface HttpOptions {
  /** Per-request timeout (ms). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The fetch implementation (Node 20's global `fetch` by default). */
  fetch?: typeof fetch;
}

interface SessionInit {
  sessionId: string;
  orgId: string;
  /** The path that answered (`/api/v1/live/sessions` or the fallback `/v1/live/sessions`). */
  path: string;
}

/**
 * Parses and normalises the server URL setting: `http(s)://host[:port][/prefix]`; `ws(s)://` is
 * accepted and mapped to `http(s)://`. Throws a DictationError (CONFIG_ERROR, field `serverUrl`).
 */
function httpBaseUrl(serverUrl: string): URL {
  let url: URL;
  try {
    url = new URL(serverUrl.trim());
  } catch {
    throw new DictationError({
      code: 'CONFIG_ERROR',
      field: 'serverUrl',
      message: `the server URL "${stripCredentials(serverUrl)}" is not a valid URL (expected e.g. ${DEFAULT_SERVER_URL})`,
      fatal: true,
    });
  }
  if (url.protocol === 'ws:') url.protocol = 'http:';
  else if (url.protocol === 'wss:') url.protocol = 'https:';
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new DictationError({
      code: 'CONFIG_ERROR',
      field: 'serverUrl',
      message: `the server URL must start with http://, https://, ws:// or wss:// (got ${url.protocol}//)`,
      fatal: true,
    });
  }
  if (url.username || url.password) {
    throw new DictationError({
      code: 'CONFIG_ERROR',
      field: 'serverUrl',
      message: 'the server URL must not contain credentials; the API key is sent in a header',
      fatal: true,
    });
  }
  url.search = '';
  url.hash = '';
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}

function stripCredentials(s: string): string {
  return s.replace(/\/\/[^/@]*@/, '//');
}

function join(base: URL, path: string): string {
  return base.origin + base.pathname.replace(/\/$/, '') + path;
}

/** `ws(s)://…/api/v1/audio/live` for a server URL (keeps any path prefix). No token in it. */
export function wsUrlFor(serverUrl: string): string {
  const base = httpBaseUrl(serverUrl);
  const ws = new URL(join(base, PATHS.audioLive));
  ws.protocol = base.protocol === 'https:' ? 'wss:' : 'ws:';
  return ws.toString();
}

/**
 * `POST /api/v1/live/sessions` with the key as Bearer; on 404 tries `/v1/live/sessions`.
 * Throws a DictationError: AUTH_ERROR (401/403), RATE_LIMITED (429, with retryAfterMs),
 * CONCURRENCY_LIMIT_EXCEEDED, INTERNAL_ERROR (5xx), NETWORK_ERROR, TIMEOUT, or PROTOCOL_ERROR for an
 * answer that is not the service's.
 */
export async function initSession(serverUrl: string, key: string, options: HttpOptions = {}): Promise<SessionInit> {
  const base = httpBaseUrl(serverUrl);
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 10_000;
  let last: DictationError | undefined;
  for (const path of [PATHS.sessionInit, PATHS.sessionInitAlt]) {
    const url = join(base, path);
    let res: Response;
    try {
      const signals = [AbortSignal.timeout(timeoutMs)];
      if (options.signal) signals.push(options.signal);
      res = await doFetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json' },
        body: '{}',
        signal: AbortSignal.any(signals),
      });
    } catch (e) {
      throw errorFromRequestFailure(e, url, key, timeoutMs);
    }
    if (res.status === 404) {
      await res.body?.cancel();
      last = new DictationError({ code: 'PROTOCOL_ERROR', status: 404, fatal: true, message: `no session endpoint at ${url}` });
      continue;
    }
    if (!res.ok)
      throw errorFromHttpRefusal(
        { status: res.status, body: await jsonOrUndefined(res), retryAfterHeader: res.headers.get('retry-after'), url },
        key,
      );
    let body: { success?: unknown; session_id?: unknown; org_id?: unknown };
    try {
      body = (await res.json()) as typeof body;
    } catch {
      throw new DictationError({
        code: 'PROTOCOL_ERROR',
        fatal: true,
        status: res.status,
        message: `the answer of ${url} is not JSON: is this a Live Transcription Service?`,
      });
    }
    if (typeof body.session_id !== 'string' || body.session_id === '') {
      throw new DictationError({
        code: 'PROTOCOL_ERROR',
        fatal: true,
        status: res.status,
        message: `the answer of ${url} has no session_id: is this a Live Transcription Service?`,
      });
    }
    return { sessionId: body.session_id, orgId: typeof body.org_id === 'string' ? body.org_id : '', path };
  }
  throw new DictationError({
    code: 'PROTOCOL_ERROR',
    fatal: true,
    status: 404,
    message: `${last?.message ?? 'no session endpoint'} nor at ${PATHS.sessionInit}: is ${base.origin}${base.pathname} a Live Transcription Service?`,
  });
}

async function jsonOrUndefined(res: Response): Promise<unknown> {
  try {
    return (await res.json()) as unknown;
  } catch {
    return undefined; // not JSON
  }
}

interface KeyCheck {
  orgId: string;
  sessionId: string;
}

/**
 * Checks a key against the service before it is saved ("Set API Key"): the format first, then a real
 * session init. Resolves with the organisation; rejects with a DictationError whose message says what
 * is wrong (never the key itself).
 */
export async function verifyKey(serverUrl: string, key: string, options: HttpOptions = {}): Promise<KeyCheck> {
  if (!looksLikeApiKey(key.trim())) {
    throw new DictationError({
      code: 'AUTH_ERROR',
      fatal: true,
      message:
        'this is not an API key: keys start with svc_live_, svc_test_ or svc_proj_ followed by at least 32 letters, digits, "-" or "_"',
    });
  }
  const init = await initSession(serverUrl, key.trim(), options);
  return { orgId: init.orgId, sessionId: init.sessionId };
}

/**
 * The languages the service's engine serves, as `GET /healthz` says them (`any`: every language), or
 * undefined when the service cannot be reached in time or does not say. Needs no key.
 */
export async function servedLanguages(serverUrl: string, options: HttpOptions = {}): Promise<string[] | undefined> {
  const doFetch = options.fetch ?? fetch;
  const signals = [AbortSignal.timeout(options.timeoutMs ?? 2000)];
  if (options.signal) signals.push(options.signal);
  try {
    const res = await doFetch(join(httpBaseUrl(serverUrl), PATHS.health), {
      headers: { accept: 'application/json' },
      signal: AbortSignal.any(signals),
    });
    if (!res.ok) {
      await res.body?.cancel();
      return undefined;
    }
    const body = (await res.json()) as { languages?: unknown };
    return Array.isArray(body.languages) && body.languages.every((l) => typeof l === 'string') ? (body.languages as string[]) : undefined;
  } catch {
    return undefined; // unreachable, not JSON, a bad URL: the service does not say
  }
}
