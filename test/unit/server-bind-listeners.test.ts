/**
 * A Service that takes a server made by bindHttpServer removes only the answers given while it started:
 * the listeners its caller put on the server stay. Stand-ins for the stores and the engine, which a request
 * for an unknown path never reaches.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { DEFAULT_TIMING, Service, bindHttpServer } from '../../src/server/app';
import { createLogger } from '../../src/server/log';

describe('a Service takes over a bound server (bindHttpServer)', () => {
  it("detaches the starting answers only: the caller's own request and upgrade listeners stay", async () => {
    const server = await bindHttpServer('127.0.0.1', 0, DEFAULT_TIMING);
    try {
      const seen: string[] = [];
      const observer = (req: IncomingMessage, _res: ServerResponse): void => void seen.push(req.url ?? '');
      const otherUpgrade = (_req: IncomingMessage, _socket: Duplex): void => undefined;
      server.on('request', observer);
      server.on('upgrade', otherUpgrade);
      const starting = { request: server.listeners('request')[0], upgrade: server.listeners('upgrade')[0] };

      new Service({
        backends: {
          store: { onTakenOver: () => undefined },
          keys: {},
          limits: {},
          revocations: { subscribe: () => undefined },
          close: async () => {},
        } as never,
        engine: {} as never,
        log: createLogger({ write: () => undefined }),
        timing: DEFAULT_TIMING,
        retentionDays: 30,
        server,
      });

      const requests = server.listeners('request');
      const upgrades = server.listeners('upgrade');
      assert.ok(requests.includes(observer), "the caller's request listener stays");
      assert.ok(upgrades.includes(otherUpgrade), "the caller's upgrade listener stays");
      assert.ok(!requests.includes(starting.request!), 'the starting answer to requests is gone');
      assert.ok(!upgrades.includes(starting.upgrade!), 'the starting answer to upgrades is gone');
      assert.equal(requests.length, 2, 'the observer and the service');
      assert.equal(upgrades.length, 2, "the caller's and the service's");

      const { port } = server.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/no-such-path`);
      assert.equal(res.status, 404, 'the service answers, not the starting 503');
      assert.deepEqual(seen, ['/no-such-path']);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
