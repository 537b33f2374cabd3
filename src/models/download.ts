/**
 * HTTP for `npm run models`: undici's fetch through `EnvHttpProxyAgent` (HTTPS_PROXY, HTTP_PROXY and
 * NO_PROXY honoured; Node 20's global fetch ignores them), redirects followed by hand so that the
 * hub's own headers (X-Repo-Commit, X-Linked-Etag, X-Linked-Size) are read before its CDN answers,
 * and one file downloaded into a `.part` file that a later attempt resumes with `Range`.
 */
import { errorMessage } from '../shared/errors';
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, existsSync, openSync, rmSync, statSync, truncateSync, writeSync } from 'node:fs';
import { type Dispatcher, EnvHttpProxyAgent, fetch } from 'undici';
import type { Progress } from './progress';

export class DownloadError extends Error {
  override readonly name = 'DownloadError';
  constructor(
    message: string,
    /** Worth another attempt (a stall, a cut, a 5xx), as opposed to a 404 or a wrong hash. */
    readonly retryable: boolean,
    readonly status?: number,
    /** The bytes are not the file expected (hash, size, revision): another source would not be trusted more. */
    readonly integrity = false,
  ) {
    super(message);
  }
}

/**
 * The proxy settings of `env` (both spellings), explicitly: nothing else in the process is read.
 * undici sends https:// through HTTP_PROXY when HTTPS_PROXY is unset. `ca`: certificates to trust
 * besides the system's for the hosts themselves (tests; people set NODE_EXTRA_CA_CERTS, which Node applies).
 */
export function proxyDispatcher(env: NodeJS.ProcessEnv = process.env, ca?: string | Buffer): Dispatcher {
  return new EnvHttpProxyAgent({
    httpProxy: env.HTTP_PROXY ?? env.http_proxy ?? '',
    httpsProxy: env.HTTPS_PROXY ?? env.https_proxy ?? '',
    noProxy: env.NO_PROXY ?? env.no_proxy ?? '',
    ...(ca ? { connect: { ca }, requestTls: { ca } } : {}),
  });
}

export interface HttpOptions {
  dispatcher?: Dispatcher;
  /** No byte for this long: the attempt fails (and the next one resumes). Default 60 s. */
  idleTimeoutMs?: number;
  /** Attempts per file and source. Default 5. */
  attempts?: number;
  /** Waits before a retry (Retry-After, back-off); injectable so that tests need no clock. */
  wait?: (ms: number) => Promise<void>;
  /** A Retry-After longer than this fails at once, with the delay in the message. Default 5 min. */
  maxRetryAfterMs?: number;
  progress?: Progress;
}

/** What the hub says of a file in the headers of its first answer (before any redirect). */
interface HubHeaders {
  repoCommit?: string;
  /** sha256 of an LFS file (X-Linked-Etag), when it looks like one. */
  linkedSha256?: string;
  linkedSize?: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

type Res = Awaited<ReturnType<typeof fetch>>;

function hubHeaders(res: Res): HubHeaders {
  const h: HubHeaders = {};
  const commit = res.headers.get('x-repo-commit');
  if (commit) h.repoCommit = commit;
  const etag = (res.headers.get('x-linked-etag') ?? '').replace(/^W\//, '').replace(/"/g, '');
  if (/^[0-9a-f]{64}$/.test(etag)) h.linkedSha256 = etag;
  const size = Number(res.headers.get('x-linked-size'));
  if (res.headers.get('x-linked-size') && Number.isSafeInteger(size)) h.linkedSize = size;
  return h;
}

/** GET with redirects followed by hand (at most 5); returns the last answer and the first one's hub headers. */
async function get(
  url: string,
  headers: Record<string, string>,
  o: HttpOptions,
  signal: AbortSignal,
): Promise<{ res: Res; hub: HubHeaders; finalUrl: string }> {
  let hub: HubHeaders = {};
  let current = url;
  for (let hop = 0; hop <= 5; hop++) {
    const res = await fetch(current, { headers, redirect: 'manual', signal, ...(o.dispatcher ? { dispatcher: o.dispatcher } : {}) });
    if (hop === 0) hub = hubHeaders(res);
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      await res.body?.cancel();
      current = new URL(location, current).toString();
      continue;
    }
    return { res, hub, finalUrl: current };
  }
  throw new DownloadError(`${url}: more than 5 redirects`, false);
}

/** Seconds or an HTTP date, in ms; undefined when absent or unreadable. */
function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : Math.max(0, t - now);
}

/** GET returning JSON (the hub's API), with the same retries as a download. */
export async function getJson(url: string, o: HttpOptions = {}): Promise<unknown> {
  return withRetries(url, o, async (signal) => {
    const { res } = await get(url, { accept: 'application/json' }, o, signal);
    if (!res.ok) throw statusError(url, res, o);
    return res.json();
  });
}

function statusError(url: string, res: Res, o: HttpOptions): DownloadError {
  const s = res.status;
  void res.body?.cancel();
  if (s === 429 || s === 503) {
    const ms = retryAfterMs(res.headers.get('retry-after'));
    const max = o.maxRetryAfterMs ?? 300_000;
    if (ms !== undefined && ms > max)
      return new DownloadError(`${url}: HTTP ${s}, the server asks to wait ${Math.ceil(ms / 1000)} s; try again later`, false, s);
    const e = new DownloadError(`${url}: HTTP ${s} (busy)`, true, s);
    (e as DownloadError & { waitMs?: number }).waitMs = ms ?? 2000;
    return e;
  }
  if (s >= 500) return new DownloadError(`${url}: HTTP ${s}`, true, s);
  if (s === 404) return new DownloadError(`${url}: not found (HTTP 404)`, false, s);
  if (s === 401 || s === 403) return new DownloadError(`${url}: HTTP ${s} (refused; a proxy or the host denies it)`, false, s);
  return new DownloadError(`${url}: HTTP ${s}`, false, s);
}

/** undici's "fetch failed" with its cause (ENOTFOUND, ECONNREFUSED, a proxy's refusal). */
function describe(e: unknown): string {
  const cause = (e as { cause?: unknown }).cause;
  return cause ? `${errorMessage(e)}: ${errorMessage(cause)}` : errorMessage(e);
}

async function withRetries<T>(url: string, o: HttpOptions, attempt: (signal: AbortSignal, idle: () => void) => Promise<T>): Promise<T> {
  const attempts = o.attempts ?? 5;
  const wait = o.wait ?? sleep;
  const idleMs = o.idleTimeoutMs ?? 60_000;
  let last: DownloadError | undefined;
  for (let i = 0; i < attempts; i++) {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), idleMs);
    try {
      return await attempt(abort.signal, () => timer.refresh());
    } catch (e) {
      last =
        e instanceof DownloadError
          ? e
          : new DownloadError(
              abort.signal.aborted ? `${url}: no data for ${Math.round(idleMs / 1000)} s (stalled)` : `${url}: ${describe(e)}`,
              true,
            );
      if (!last.retryable) throw last;
      if (i < attempts - 1) await wait((last as DownloadError & { waitMs?: number }).waitMs ?? Math.min(30_000, 1000 * 2 ** i));
    } finally {
      clearTimeout(timer);
    }
  }
  throw new DownloadError(`${last!.message} (gave up after ${attempts} attempts)`, true, last!.status);
}

export interface Expected {
  /** null: unknown (a release archive): the answer's Content-Length / Content-Range decides. */
  size: number | null;
  /** sha256 the file must have; null when only the hub's word (headers) or `gitBlobSha1` is known. */
  sha256: string | null;
  /** git's blob id (sha1 of "blob <size>\0" + bytes) of a small file the hub keeps outside LFS. */
  gitBlobSha1?: string;
  /** No hash at all is expected (a release archive, whose files are checked once extracted). */
  unhashed?: boolean;
}

export function sha256Of(file: string): Promise<string> {
  return hashOf(file, 'sha256');
}

/** git's blob id of a file: sha1 of "blob <size>\0" and its bytes. */
export function gitBlobIdOf(file: string): Promise<string> {
  return hashOf(file, 'sha1', `blob ${statSync(file).size}\0`);
}

function hashOf(file: string, algo: 'sha256' | 'sha1', prefix?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash(algo);
    if (prefix) h.update(prefix);
    createReadStream(file)
      .on('data', (d) => h.update(d))
      .on('error', reject)
      .on('end', () => resolve(h.digest('hex')));
  });
}

/**
 * Downloads `url` into `part` (resuming what is there with `Range`), checks its size and hash, and
 * returns its sha256 and the hub's headers. A wrong hash deletes the part file.
 */
export async function downloadFile(
  url: string,
  part: string,
  want: Expected,
  o: HttpOptions = {},
): Promise<{ sha256: string; hub: HubHeaders }> {
  let hub: HubHeaders = {};
  let total = want.size;
  await withRetries(url, o, async (signal, idle) => {
    let have = existsSync(part) ? statSync(part).size : 0;
    if (total !== null && have > total) {
      o.progress?.rewind(have);
      truncateSync(part, 0);
      have = 0;
    }
    if (have === total && total > 0) return; // complete from an earlier run: checked below
    // identity: byte offsets must be those of the file, not of a compressed rendering of it
    const { res, hub: h } = await get(url, { 'accept-encoding': 'identity', ...(have > 0 ? { range: `bytes=${have}-` } : {}) }, o, signal);
    hub = h;
    if (res.status === 416) {
      void res.body?.cancel();
      o.progress?.rewind(have);
      rmSync(part, { force: true });
      throw new DownloadError(`${url}: the server refused to resume (HTTP 416); starting over`, true, 416);
    }
    if (!res.ok) throw statusError(url, res, o);
    if (h.linkedSha256 && want.sha256 && h.linkedSha256 !== want.sha256) {
      void res.body?.cancel();
      throw new DownloadError(
        `${url}: the hub publishes sha256 ${h.linkedSha256}, ${want.sha256} expected; nothing was installed`,
        false,
        undefined,
        true,
      );
    }
    if (h.linkedSize !== undefined && want.size !== null && h.linkedSize !== want.size) {
      void res.body?.cancel();
      throw new DownloadError(
        `${url}: the hub says ${h.linkedSize} bytes, ${want.size} expected; nothing was installed`,
        false,
        undefined,
        true,
      );
    }
    let append = false;
    if (res.status === 206) {
      const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(res.headers.get('content-range') ?? '');
      if (!m || Number(m[1]) !== have || (m[3] !== '*' && total !== null && Number(m[3]) !== total)) {
        void res.body?.cancel();
        o.progress?.rewind(have);
        rmSync(part, { force: true });
        throw new DownloadError(
          `${url}: a resumed answer with Content-Range ${JSON.stringify(res.headers.get('content-range'))} does not continue the ${have} bytes here; starting over`,
          true,
        );
      }
      append = true;
      if (total === null && m[3] !== '*') {
        total = Number(m[3]);
        o.progress?.setTotal(total);
      }
    } else {
      if (have > 0) o.progress?.rewind(have); // a 200 to a Range request: the whole file again
      const length = res.headers.get('content-length');
      if (total === null && length && /^\d+$/.test(length)) {
        total = Number(length);
        o.progress?.setTotal(total);
      }
    }
    const fd = openSync(part, append ? 'a' : 'w');
    let size = append ? have : 0;
    try {
      if (!res.body) throw new DownloadError(`${url}: an answer without a body`, true);
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
        idle();
        size += chunk.length;
        if (total !== null && size > total)
          throw new DownloadError(
            `${url} sent more than the ${total} bytes expected; it is not the file the lock or catalogue names`,
            false,
            undefined,
            true,
          );
        writeSync(fd, chunk);
        o.progress?.add(chunk.length);
      }
    } finally {
      closeSync(fd);
    }
    if (total === null) total = size; // no length announced: what came is all there is
    if (size < total) throw new DownloadError(`${url}: the transfer ended after ${size} of ${total} bytes (cut); resuming`, true);
  });
  if (want.unhashed) return { sha256: await sha256Of(part), hub };
  const sha256 = await sha256Of(part);
  const expectSha = want.sha256 ?? hub.linkedSha256 ?? null;
  if (expectSha && sha256 !== expectSha) {
    rmSync(part, { force: true });
    throw new DownloadError(
      `${url}: sha256 is ${sha256}, ${expectSha} expected (${want.sha256 ? 'the lock or catalogue' : 'published by the hub'}); the file was deleted, nothing was installed`,
      false,
      undefined,
      true,
    );
  }
  if (!expectSha && want.gitBlobSha1) {
    const sha1 = await gitBlobIdOf(part);
    if (sha1 !== want.gitBlobSha1) {
      rmSync(part, { force: true });
      throw new DownloadError(
        `${url}: its git blob id is ${sha1}, the hub publishes ${want.gitBlobSha1}; the file was deleted, nothing was installed`,
        false,
        undefined,
        true,
      );
    }
  } else if (!expectSha) {
    rmSync(part, { force: true });
    throw new DownloadError(
      `${url}: no hash to check it against (neither pinned, locked nor published); nothing was installed`,
      false,
      undefined,
      true,
    );
  }
  return { sha256, hub };
}
