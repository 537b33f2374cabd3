/**
 * The soak's view of the service from outside: its process in /proc (RSS, descriptors, CPU time) and
 * `GET /v1/status` with the master key. HTTP requests go on connections of their own, closed after each
 * answer, so that the client's keep-alive pool never shows up among the service's sockets.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { openFds, rssBytes } from '../../helpers/hostile';

export interface ServiceStatus {
  sessions: number;
  connected_sessions: number;
  connections: number;
  rss_bytes: number;
  heap_used_bytes?: number;
  event_loop_delay_p99_ms: number;
  event_loop_delay_max_ms: number;
  active_resources?: Record<string, number>;
}

export interface HttpReply {
  status: number;
  body: unknown;
}

/** One request with `Connection: close`, JSON in and out. */
export function httpJson(url: string, method: string, bearer: string, body?: unknown): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = http.request(
      url,
      {
        method,
        agent: false,
        headers: {
          authorization: `Bearer ${bearer}`,
          connection: 'close',
          ...(data ? { 'content-type': 'application/json', 'content-length': data.length } : {}),
        },
        timeout: 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            /* not JSON: kept as text */
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} timed out`)));
    req.on('error', reject);
    req.end(data);
  });
}

const CLK_TCK = ((): number => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU time (user + system) of a process, in ms (Linux /proc). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at state (field 3): utime is 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
}

export class ServiceProbe {
  constructor(
    readonly url: string,
    private readonly masterKey: string,
    readonly pid: number,
  ) {}

  async status(): Promise<ServiceStatus> {
    const r = await httpJson(`${this.url}/v1/status`, 'GET', this.masterKey);
    if (r.status !== 200) throw new Error(`GET /v1/status: HTTP ${r.status}`);
    return r.body as ServiceStatus;
  }

  async createKey(name: string): Promise<{ key: string; id: string }> {
    const r = await httpJson(`${this.url}/v1/api-keys`, 'POST', this.masterKey, { name, type: 'personal' });
    if (r.status !== 201) throw new Error(`key creation: HTTP ${r.status}`);
    return r.body as { key: string; id: string };
  }

  async revokeKey(id: string): Promise<void> {
    const r = await httpJson(`${this.url}/v1/api-keys/${encodeURIComponent(id)}`, 'DELETE', this.masterKey);
    if (r.status !== 200) throw new Error(`key revocation: HTTP ${r.status}`);
  }

  rss(): number {
    return rssBytes(this.pid);
  }

  fds(): number {
    return openFds(this.pid);
  }

  cpuMs(): number {
    return cpuMs(this.pid);
  }
}

/** Resource types whose count is above the baseline's, as `Type: before → after`. */
export function resourcesAbove(before: Record<string, number>, after: Record<string, number>): string[] {
  return Object.entries(after)
    .filter(([type, n]) => n > (before[type] ?? 0))
    .map(([type, n]) => `${type}: ${before[type] ?? 0} → ${n}`);
}
