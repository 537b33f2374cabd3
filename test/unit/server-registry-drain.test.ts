/**
 * The shutdown's wait for the connections to close (SessionRegistry.connectionsClosed): woken by the last
 * close, not by a poll. Real WebSockets on loopback; the registry's engine and stores are never reached by
 * connections that never configure, so empty stand-ins take their place.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { DEFAULT_TIMING } from '../../src/server/app';
import { SessionRegistry } from '../../src/server/live/registry';
import { createLogger } from '../../src/server/log';
import type { ApiKey } from '../../src/server/storage/stores';

const KEY: ApiKey = {
  id: 'key-1',
  name: 'test',
  type: 'personal',
  projectId: null,
  permissions: ['read', 'write'],
  environment: 'test',
  orgId: 'org-1',
  createdAt: new Date().toISOString(),
  revokedAt: null,
  hint: 'svc_test_…abcd',
  personId: null,
  personRole: null,
  expiresAt: null,
  rolledFrom: null,
};

/** Whether `p` has settled before the next turn of the event loop. */
async function settledThisTurn(p: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void p.then(() => (settled = true));
  await new Promise((r) => setImmediate(r));
  return settled;
}

describe('session registry: the wait for the connections to close', () => {
  let wss: WebSocketServer;
  let registry: SessionRegistry;

  beforeEach(async () => {
    registry = new SessionRegistry({
      engine: {} as never,
      store: { onTakenOver: () => undefined } as never,
      limits: {} as never,
      revocations: {} as never,
      log: createLogger({ write: () => undefined }),
      timing: DEFAULT_TIMING,
      retentionDays: 30,
    });
    wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise((r) => wss.once('listening', r));
  });
  afterEach(async () => {
    registry.terminateAll();
    await new Promise((r) => wss.close(r));
  });

  /** A client connected, and its server side accepted by the registry. */
  async function connect(): Promise<{ client: WebSocket; server: WebSocket }> {
    const accepted = new Promise<WebSocket>((r) => wss.once('connection', r));
    const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`);
    const server = await accepted;
    registry.accept(server, KEY);
    await new Promise((r) => (client.readyState === WebSocket.OPEN ? r(undefined) : client.once('open', r)));
    return { client, server };
  }

  it('resolves true at once when no connection is open', async () => {
    assert.equal(await registry.connectionsClosed(10_000), true);
  });

  it('resolves in the turn the last connection closes', async () => {
    const a = await connect();
    const b = await connect();
    assert.equal(registry.connectionCount, 2);
    const waiting = registry.connectionsClosed(10_000);
    const firstGone = new Promise<boolean>((resolve) => a.server.once('close', () => resolve(settledThisTurn(waiting))));
    a.client.close();
    assert.equal(await firstGone, false, 'one connection is still open');
    const lastGone = new Promise<boolean>((resolve) => b.server.once('close', () => resolve(settledThisTurn(waiting))));
    b.client.close();
    assert.equal(await lastGone, true, 'woken by the last close, not at a later poll');
    assert.equal(await waiting, true);
  });

  it('resolves false after its time when a connection stays open', async () => {
    await connect();
    assert.equal(await registry.connectionsClosed(30), false);
  });
});
