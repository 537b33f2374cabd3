/**
 * Upgrade requests and CONNECTs the service refuses, against the BUILT service over raw `net` sockets: each
 * is answered (400 for a URL that cannot be parsed, 405 for CONNECT and for an upgrade with another method
 * than GET) and its socket destroyed, so no descriptor stays behind (counted in /proc); a refused
 * WebSocket that goes on sending is closed without an uncaught exception.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { UPGRADE_HEADERS, logLines, openFds, rawRequest } from '../helpers/hostile';
import { WsProbe, withServer } from '../helpers/server';
import { waitFor } from '../helpers/wait';

async function get(url: string, token?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

describe('service: refused upgrades and CONNECT (built service, raw sockets)', function () {
  this.timeout(60_000);

  describe('an upgrade request whose URL cannot be parsed', () => {
    it('is answered 400 and its socket destroyed: 200 of them leave no descriptor behind', async () => {
      await withServer({}, async (server) => {
        const pid = server.process().pid!;
        const before = openFds(pid);
        const replies = await Promise.all(
          Array.from({ length: 200 }, () => rawRequest(server.port, `GET //[ HTTP/1.1\r\n${UPGRADE_HEADERS}\r\n`, { waitMs: 5000 })),
        );
        for (const r of replies) {
          assert.equal(r.status, 400, r.text || 'no answer');
          assert.ok(r.closedByServer, 'the service closed the connection');
        }
        await waitFor(() => openFds(pid) <= before + 5, 5000, `descriptors back to ${before} (now ${openFds(pid)})`);
        assert.ok(!logLines(server.logs()).some((l) => l.level === 'error'), 'nothing at error level');
      });
    });

    it('with 256 descriptors allowed, 300 such requests leave /healthz reachable', async () => {
      await withServer({}, async (server) => {
        const pid = server.process().pid!;
        execFileSync('prlimit', ['--pid', String(pid), '--nofile=256:256']);
        for (let batch = 0; batch < 3; batch++) {
          await Promise.all(
            Array.from({ length: 100 }, () => rawRequest(server.port, `GET //[ HTTP/1.1\r\n${UPGRADE_HEADERS}\r\n`, { waitMs: 1500 })),
          );
        }
        const h = await get(`${server.url}/healthz`);
        assert.equal(h.status, 200);
      });
    });
  });

  describe('CONNECT and upgrades with another method than GET', () => {
    it('CONNECT is answered 405 with the error body and its socket closed; a POST upgrade is answered 405 too', async () => {
      await withServer({}, async (server) => {
        const pid = server.process().pid!;
        const before = openFds(pid);
        const replies = await Promise.all(
          Array.from({ length: 50 }, () => rawRequest(server.port, 'CONNECT /healthz HTTP/1.1\r\nHost: x\r\n\r\n', { waitMs: 5000 })),
        );
        for (const r of replies) {
          assert.equal(r.status, 405, r.text || 'no answer');
          assert.match(r.text, /"code":"METHOD_NOT_ALLOWED"/);
          assert.ok(r.closedByServer);
        }
        const post = await rawRequest(server.port, `POST /api/v1/audio/live HTTP/1.1\r\n${UPGRADE_HEADERS}\r\n`);
        assert.equal(post.status, 405, post.text);
        assert.match(post.text, /"code":"METHOD_NOT_ALLOWED"/);
        await waitFor(() => openFds(pid) <= before + 5, 5000, 'descriptors given back');
      });
    });
  });

  describe('a refused WebSocket that sends a frame over the size limit', () => {
    it('is closed (1009) without an uncaught exception', async () => {
      await withServer({}, async (server) => {
        const p = new WsProbe(server.wsUrl, { header: `svc_live_${'A'.repeat(43)}` });
        await p.opened;
        p.sendAudio(Buffer.alloc(300 * 1024));
        await p.closed;
        // A marker in the service's log (one stream, written in order): a request made after the close is
        // logged after whatever the frame caused.
        const marker = `/after-the-oversized-frame-${process.pid}`;
        assert.equal((await get(`${server.url}${marker}`)).status, 404);
        await waitFor(
          () => logLines(server.logs()).some((l) => l.msg === 'http error' && l.path === marker),
          5000,
          'the marker request in the log',
        );
        assert.ok(!logLines(server.logs()).some((l) => l.level === 'error'), server.logs());
      });
    });
  });
});
