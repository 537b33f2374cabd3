/**
 * A FAKE Hugging Face hub on loopback, for `npm run models` tests: no model can be downloaded where
 * this project is developed, so this server stands in for huggingface.co, its CDN and the release
 * archives. It behaves as the hub does as far as the client relies on it:
 *
 * - `GET /api/models/<repo>/revision/<rev>?blobs=true`: `{ sha, siblings: [{ rfilename, size, blobId,
 *   lfs?: { sha256, size, pointerSize } }] }` (the shape huggingface_hub's `model_info(files_metadata=True)` reads);
 * - `GET /<repo>/resolve/<rev>/<file>`: an LFS file answers 302 to the CDN (another origin) with
 *   `X-Repo-Commit`, `X-Linked-Etag` (its sha256, quoted) and `X-Linked-Size`; a small file is served by
 *   the hub itself with its git blob id as ETag;
 * - the CDN and `/releases/<archive>` honour `Range` (206 with `Content-Range`).
 *
 * Faults are queued per path and consumed by the requests that match: 404, 500, 429 with Retry-After,
 * a stalled transfer, a transfer cut in the middle, wrong bytes, a wrong published hash, a 200 in
 * answer to a Range request, a Content-Range that does not continue the file. Every request is recorded.
 */
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';

export interface FakeRepo {
  repo: string;
  /** The commit that `main` and the commit itself resolve to. */
  revision: string;
  files: Record<string, Buffer>;
  /** Files kept in git rather than LFS (no sha256 published, only a git blob id). */
  inGit?: string[];
}

export type Fault =
  | { kind: '404' | '500' }
  | { kind: '429'; retryAfter: string }
  | { kind: 'stall'; after: number }
  | { kind: 'cut'; after: number }
  | { kind: 'wrongBytes' }
  | { kind: 'wrongEtag' }
  | { kind: 'otherCommit' }
  | { kind: 'ignoreRange' }
  | { kind: 'badContentRange' };

export interface Recorded {
  server: 'hub' | 'cdn';
  url: string;
  range?: string;
  /** Set when the request came through a proxy (absolute URI in the request line). */
  proxied?: boolean;
}

export const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
export const gitBlobId = (b: Buffer): string => createHash('sha1').update(`blob ${b.length}\0`).update(b).digest('hex');

export class FakeHub extends EventEmitter {
  readonly requests: Recorded[] = [];
  private readonly repos = new Map<string, FakeRepo>();
  private readonly archives = new Map<string, Buffer>();
  private readonly faults: Array<{ match: string; fault: Fault; times: number }> = [];
  private readonly blobs = new Map<string, Buffer>();
  private hub!: http.Server;
  private cdn!: http.Server;
  hubUrl = '';
  cdnUrl = '';

  addRepo(r: FakeRepo): void {
    this.repos.set(r.repo, r);
    for (const b of Object.values(r.files)) this.blobs.set(sha256(b), b);
  }

  addArchive(fileName: string, bytes: Buffer): void {
    this.archives.set(fileName, bytes);
  }

  /** The next `times` requests whose path contains `match` meet `fault`. */
  fault(match: string, fault: Fault, times = 1): void {
    this.faults.push({ match, fault, times });
  }

  clearFaults(): void {
    this.faults.length = 0;
  }

  get releasesUrl(): string {
    return `${this.cdnUrl}/releases`;
  }

  private take(url: string): Fault | undefined {
    const i = this.faults.findIndex((f) => url.includes(f.match));
    if (i < 0) return undefined;
    const f = this.faults[i]!;
    if (--f.times <= 0) this.faults.splice(i, 1);
    return f.fault;
  }

  /** `tls`: serve https (a certificate for 127.0.0.1), as the real hub and its CDN do. */
  async start(tls?: { key: string; cert: string }): Promise<void> {
    const make = (h: http.RequestListener): http.Server => (tls ? https.createServer(tls, h) : http.createServer(h));
    this.hub = make((req, res) => this.onHub(req, res));
    this.cdn = make((req, res) => this.onCdn(req, res));
    for (const s of [this.hub, this.cdn]) await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
    const scheme = tls ? 'https' : 'http';
    this.hubUrl = `${scheme}://127.0.0.1:${(this.hub.address() as AddressInfo).port}`;
    this.cdnUrl = `${scheme}://127.0.0.1:${(this.cdn.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const s of [this.hub, this.cdn]) {
      s.closeAllConnections();
      await new Promise<void>((r) => s.close(() => r()));
    }
  }

  private record(server: Recorded['server'], req: http.IncomingMessage): { path: string; fault: Fault | undefined } {
    const raw = req.url ?? '';
    const proxied = /^https?:\/\//.test(raw);
    const path = proxied ? new URL(raw).pathname + new URL(raw).search : raw;
    this.requests.push({ server, url: path, ...(req.headers.range ? { range: req.headers.range } : {}), ...(proxied ? { proxied } : {}) });
    return { path, fault: this.take(path) };
  }

  private onHub(req: http.IncomingMessage, res: http.ServerResponse): void {
    const { path, fault } = this.record('hub', req);
    if (fault && this.early(fault, res)) return;
    const api = /^\/api\/models\/([^/]+\/[^/]+)\/revision\/([^/?]+)/.exec(path);
    if (api) {
      const repo = this.repos.get(api[1]!);
      const rev = decodeURIComponent(api[2]!);
      if (!repo || (rev !== 'main' && rev !== repo.revision))
        return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Revision Not Found"}');
      const siblings = Object.entries(repo.files).map(([rfilename, b]) => {
        const inGit = repo.inGit?.includes(rfilename);
        return {
          rfilename,
          size: b.length,
          blobId: gitBlobId(b),
          ...(inGit ? {} : { lfs: { sha256: sha256(b), size: b.length, pointerSize: 134 } }),
        };
      });
      return void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ id: repo.repo, sha: repo.revision, siblings }));
    }
    const m = /^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(path);
    const repo = m ? this.repos.get(m[1]!) : undefined;
    const rev = m ? decodeURIComponent(m[2]!) : '';
    const file = m ? decodeURIComponent(m[3]!) : '';
    const bytes = repo && (rev === 'main' || rev === repo.revision) ? repo.files[file] : undefined;
    if (!repo || !bytes) return void res.writeHead(404, { 'x-error-code': 'EntryNotFound' }).end('Entry not found');
    const headers: Record<string, string> = { 'x-repo-commit': fault?.kind === 'otherCommit' ? 'c'.repeat(40) : repo.revision };
    if (repo.inGit?.includes(file)) {
      headers.etag = `"${gitBlobId(bytes)}"`;
      return this.serve(req, res, bytes, headers, fault);
    }
    const sha = fault?.kind === 'wrongEtag' ? 'f'.repeat(64) : sha256(bytes);
    res
      .writeHead(302, {
        ...headers,
        'x-linked-etag': `"${sha}"`,
        'x-linked-size': String(bytes.length),
        location: `${this.cdnUrl}/blobs/${sha256(bytes)}?file=${encodeURIComponent(file)}`,
      })
      .end();
  }

  private onCdn(req: http.IncomingMessage, res: http.ServerResponse): void {
    const { path, fault } = this.record('cdn', req);
    if (fault && this.early(fault, res)) return;
    const blob = /^\/blobs\/([0-9a-f]{64})/.exec(path);
    const rel = /^\/releases\/([^/?]+)$/.exec(path);
    const bytes = blob ? this.blobs.get(blob[1]!) : rel ? this.archives.get(decodeURIComponent(rel[1]!)) : undefined;
    if (!bytes) return void res.writeHead(404).end('not found');
    this.serve(req, res, bytes, {}, fault);
  }

  /** Faults answered before any body: true when the answer is sent. */
  private early(f: Fault, res: http.ServerResponse): boolean {
    if (f.kind === '404' || f.kind === '500') {
      res.writeHead(Number(f.kind)).end();
      return true;
    }
    if (f.kind === '429') {
      res.writeHead(429, { 'retry-after': f.retryAfter }).end('Too Many Requests');
      return true;
    }
    return false;
  }

  private serve(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    whole: Buffer,
    headers: Record<string, string>,
    fault: Fault | undefined,
  ): void {
    let bytes = whole;
    if (fault?.kind === 'wrongBytes') {
      bytes = Buffer.from(whole);
      bytes[0] = bytes[0]! ^ 0xff;
    }
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    let status = 200;
    let body = bytes;
    const h: Record<string, string> = { ...headers, 'accept-ranges': 'bytes', 'content-type': 'application/octet-stream' };
    if (range && fault?.kind !== 'ignoreRange') {
      const start = Number(range[1]);
      if (start >= bytes.length) return void res.writeHead(416, { 'content-range': `bytes */${bytes.length}` }).end();
      status = 206;
      body = bytes.subarray(start);
      const shown = fault?.kind === 'badContentRange' ? start + 1 : start;
      h['content-range'] = `bytes ${shown}-${bytes.length - 1}/${bytes.length}`;
    }
    h['content-length'] = String(body.length);
    res.writeHead(status, h);
    if (fault?.kind === 'stall') {
      res.write(body.subarray(0, fault.after), () => this.emit('stalled', req.url));
      return; // nothing more, the connection left open
    }
    if (fault?.kind === 'cut') {
      res.write(body.subarray(0, fault.after), () => {
        this.emit('cut', req.url);
        res.socket?.destroy();
      });
      return;
    }
    res.end(body);
  }
}

/** A forward HTTP proxy on loopback (CONNECT tunnels and absolute-URI requests), recording what went through it. */
export async function startProxy(): Promise<{ url: string; seen: string[]; stop: () => Promise<void> }> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.url ?? '');
    const target = new URL(req.url ?? '');
    const up = http.request(
      { host: target.hostname, port: target.port, path: target.pathname + target.search, method: req.method, headers: req.headers },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => res.writeHead(502).end());
    req.pipe(up);
  });
  // CONNECT: the tunnel that undici's proxy agent opens (for https://, and by default for http:// too).
  const tunnels = new Set<net.Socket>();
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    seen.push(`CONNECT ${req.url ?? ''}`);
    const [host, port] = (req.url ?? '').split(':');
    const up = net.connect(Number(port), host ?? '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      up.write(head);
      up.pipe(client);
      client.pipe(up);
    });
    tunnels.add(up).add(client);
    up.on('error', () => client.destroy());
    client.on('error', () => up.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    stop: async () => {
      for (const t of tunnels) t.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
