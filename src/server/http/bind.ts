/**
 * The HTTP server of the service, listening before anything else is made, and its answers while the service
 * starts. A {@link Service} that takes the server detaches only those answers ({@link detachStartingAnswers}):
 * whatever else listens on the server (a caller's own listeners) stays.
 */
import http, { type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Timing } from '../timing';
import { HttpError, refuseUpgrade, sendError } from './util';

export function serverOptions(timing: Timing): http.ServerOptions {
  const headersTimeout = timing.headersTimeoutMs;
  return { headersTimeout, requestTimeout: Math.max(30_000, headersTimeout), connectionsCheckingInterval: Math.min(1000, headersTimeout) };
}

interface StartingAnswers {
  request: (req: IncomingMessage, res: http.ServerResponse) => void;
  upgrade: (req: IncomingMessage, socket: Duplex) => void;
}

/** The listeners {@link bindHttpServer} put on each server it made, until a service takes it. */
const startingAnswers = new WeakMap<http.Server, StartingAnswers>();

/**
 * Listens before anything is created (a master key, a database): a service that cannot have its port
 * fails first, having changed nothing. Until a {@link Service} takes the server, a request gets 503
 * (INTERNAL_ERROR with `retry_after_ms`) and an upgrade is refused the same way.
 */
export async function bindHttpServer(host: string, port: number, timing: Timing): Promise<http.Server> {
  const server = http.createServer(serverOptions(timing));
  const starting = HttpError.of('INTERNAL_ERROR', 'the service is starting; retry in 1 s', 1000, 503);
  const answers: StartingAnswers = {
    request(req, res) {
      req.resume();
      sendError(res, starting);
    },
    upgrade(_req, socket) {
      refuseUpgrade(socket, starting);
    },
  };
  server.on('request', answers.request);
  server.on('upgrade', answers.upgrade);
  startingAnswers.set(server, answers);
  await listen(server, host, port);
  return server;
}

/** Makes `server` listen; rejects with the listen error (a port in use) instead of throwing it later. */
export function listen(server: http.Server, host: string, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Removes the answers {@link bindHttpServer} gave while the service started (nothing else); none on another server. */
export function detachStartingAnswers(server: http.Server): void {
  const answers = startingAnswers.get(server);
  if (!answers) return;
  server.off('request', answers.request);
  server.off('upgrade', answers.upgrade);
  startingAnswers.delete(server);
}
