/**
 * Tools for tests that treat the service as an attacker would: raw HTTP over `net` (for request lines
 * no HTTP client will send), descriptor counts from /proc, and the service's JSON log lines.
 */
import { readFileSync, readdirSync } from 'node:fs';
import net from 'node:net';

export interface RawReply {
  /** HTTP status of the first response line, or 0 when nothing came back. */
  status: number;
  /** Everything the service sent. */
  text: string;
  /** Whether the service closed (or reset) the connection before the wait ended. */
  closedByServer: boolean;
}

/**
 * Sends raw bytes to the service and collects what comes back until the service closes the connection
 * or `waitMs` passes; then the client side is destroyed (unless `keepOpen`, which returns the socket).
 */
export function rawRequest(port: number, data: string | Buffer, opts: { waitMs?: number } = {}): Promise<RawReply> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let closedByServer = false;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      resolve({ status: m ? Number(m[1]) : 0, text, closedByServer });
    };
    const timer = setTimeout(finish, opts.waitMs ?? 3000);
    socket.on('connect', () => socket.write(data));
    socket.on('data', (d) => chunks.push(d));
    socket.on('end', () => {
      closedByServer = true;
      finish();
    });
    socket.on('error', () => {
      closedByServer = true;
      finish();
    });
    socket.on('close', () => {
      closedByServer = true;
      finish();
    });
  });
}

/** Opens a raw connection and leaves it to the caller. Resolves once connected. */
export function rawSocket(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
}

/** The WebSocket upgrade headers (a fixed, valid Sec-WebSocket-Key). */
export const UPGRADE_HEADERS =
  'Host: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';

/** Open file descriptors of a process (Linux /proc). */
export function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** Resident set size of a process in bytes (Linux /proc). */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /VmRSS:\s+(\d+) kB/.exec(status);
  return m ? Number(m[1]) * 1024 : 0;
}

export interface LogLine {
  level: string;
  msg: string;
  [k: string]: unknown;
}

/** The JSON log lines in a service's captured output (other lines are skipped). */
export function logLines(output: string): LogLine[] {
  const out: LogLine[] = [];
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line) as LogLine);
    } catch {
      /* a line cut by the capture */
    }
  }
  return out;
}
