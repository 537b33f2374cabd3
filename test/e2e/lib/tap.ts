/**
 * A transparent loopback proxy in front of the service, for measurements: HTTP requests are forwarded as
 * they are, WebSocket connections are relayed frame by frame, and every `final` transcript the service
 * sends is time-stamped as it is forwarded; its proofread sentences (`batch.replace`) and the audio each
 * connection sends are kept (the PCM the service was sent, to compare with what is played back). It changes nothing in what either side sends.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import WebSocket, { WebSocketServer } from 'ws';

export interface TappedFinal {
  /** Connection label: `x-dictee-tap` request header, or `client`. */
  conn: string;
  id: string;
  text: string;
  /** The chunk's place in the session's audio (`start_ms`, `end_ms`), when the service gives it. */
  startMs?: number;
  endMs?: number;
  /** Wall-clock ms (performance.timeOrigin + performance.now()) when forwarded. */
  t: number;
}

/** A `batch.replace` the service sent: a proofread sentence, its place in the session's audio (with `details`). */
export interface TappedSentence {
  conn: string;
  text: string;
  startMs?: number;
  endMs?: number;
}

/** The binary frames (audio) one connection sent to the service, in order. */
export interface TappedAudio {
  conn: string;
  frames: Buffer[];
}

export interface Tap {
  url: string;
  finals: TappedFinal[];
  sentences: TappedSentence[];
  /** One entry per WebSocket connection, in the order they opened. */
  audio: TappedAudio[];
  close(): Promise<void>;
}

export const now = (): number => performance.timeOrigin + performance.now();

export async function startTap(target: string): Promise<Tap> {
  const finals: TappedFinal[] = [];
  const sentences: TappedSentence[] = [];
  const audio: TappedAudio[] = [];
  const upstreamBase = new URL(target);
  const sockets = new Set<WebSocket>();
  const server = http.createServer((req, res) => {
    const up = http.request(
      { host: upstreamBase.hostname, port: upstreamBase.port, method: req.method, path: req.url, headers: req.headers },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', (e) => {
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ success: false, error: { code: 'INTERNAL_ERROR', message: `tap: ${e.message}`, retry_after_ms: 0 } }));
    });
    req.pipe(up);
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    const label = String(req.headers['x-dictee-tap'] ?? 'client');
    const headers: Record<string, string> = {};
    if (req.headers.authorization) headers.authorization = req.headers.authorization;
    const upstream = new WebSocket(`ws://${upstreamBase.host}${req.url ?? '/'}`, { headers });
    sockets.add(upstream);
    upstream.once('error', () => socket.destroy());
    upstream.once('open', () => {
      wss.handleUpgrade(req, socket, head, (client) => {
        sockets.add(client);
        const sent: TappedAudio = { conn: label, frames: [] };
        audio.push(sent);
        upstream.on('message', (data, isBinary) => {
          if (!isBinary) {
            try {
              const m = JSON.parse(data.toString()) as {
                type?: string;
                status?: string;
                id?: string;
                text?: string;
                start_ms?: number;
                end_ms?: number;
                data?: { new_chunk?: { text?: string; start_ms?: number; end_ms?: number } };
              };
              if (m.type === 'transcript' && m.status === 'final')
                finals.push({ conn: label, id: m.id ?? '', text: m.text ?? '', startMs: m.start_ms, endMs: m.end_ms, t: now() });
              const c = m.type === 'batch.replace' ? m.data?.new_chunk : undefined;
              if (c) sentences.push({ conn: label, text: c.text ?? '', startMs: c.start_ms, endMs: c.end_ms });
            } catch {
              /* not JSON: forwarded as is */
            }
          }
          client.send(data, { binary: isBinary });
        });
        client.on('message', (data, isBinary) => {
          if (isBinary) sent.frames.push(Buffer.isBuffer(data) ? data : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]));
          if (upstream.readyState === WebSocket.OPEN) upstream.send(data, { binary: isBinary });
        });
        upstream.on(
          'close',
          (code, reason) =>
            client.readyState === WebSocket.OPEN &&
            client.close(code >= 1000 && code < 5000 && code !== 1005 && code !== 1006 ? code : 1011, reason),
        );
        client.on('close', () => upstream.close());
        client.on('error', () => upstream.terminate());
        upstream.on('error', () => client.terminate());
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    finals,
    sentences,
    audio,
    async close() {
      for (const s of sockets) s.terminate();
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
