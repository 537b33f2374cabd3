/**
 * The metrics listener (`--metrics-port`): an HTTP server of its own, apart from the API, that answers
 * `GET /metrics` (Prometheus text format) and nothing else: any other path is a 404, any other method a
 * 405, an upgrade or a CONNECT is cut. It takes no key: it listens on loopback unless `--metrics-host`
 * says otherwise, and an address others can reach must be protected by the network or a proxy
 * (docs/server.md). It is bound at start before anything is created (a port in use fails the start),
 * answers 503 until the service serves it, and is closed at shutdown after the drain.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Registry } from 'prom-client';
import type { ServerLogger } from '../log';
import { HttpError, parseRequestUrl, sendError } from './util';
import { listen } from './bind';

const METRICS_PATH = '/metrics';

export async function bindMetricsServer(host: string, port: number): Promise<http.Server> {
  const server = http.createServer({ headersTimeout: 10_000, requestTimeout: 15_000 });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    sendError(res, HttpError.of('INTERNAL_ERROR', 'the service is starting; retry in 1 s', 1000, 503));
  });
  const cut = (_req: IncomingMessage, socket: Duplex): void => void socket.destroy();
  server.on('upgrade', cut);
  server.on('connect', cut);
  server.on('clientError', (_e: Error, socket: Duplex) => socket.destroy());
  await listen(server, host, port);
  return server;
}

/** From now on the listener answers `GET /metrics` with `registry`. */
export function serveMetrics(server: http.Server, registry: Registry, log: ServerLogger): void {
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    const path = parseRequestUrl(req.url)?.pathname;
    if (path !== METRICS_PATH) {
      sendError(res, new HttpError(404, 'NOT_FOUND', `this listener serves only GET ${METRICS_PATH}`));
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendError(res, HttpError.methodNotAllowed(req.method ?? '', ['GET', 'HEAD']));
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (e: unknown) => {
        log.error('could not collect the metrics', { error: e });
        sendError(res, HttpError.of('INTERNAL_ERROR', 'internal error'));
      },
    );
  });
}

/** Stops the listener and cuts its connections. */
export async function closeMetricsServer(server: http.Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  await closed;
}

/** The URL the metrics are scraped at, for the log. */
export function metricsUrl(server: http.Server): string {
  const a = server.address();
  if (!a || typeof a === 'string') return String(a);
  const host = a.address.includes(':') ? `[${a.address}]` : a.address;
  return `http://${host}:${a.port}${METRICS_PATH}`;
}
