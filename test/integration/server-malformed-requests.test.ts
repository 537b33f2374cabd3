/**
 * Requests no ordinary client sends, against the BUILT service over raw sockets: malformed percent-encoding
 * and URLs (400 or 404 with the error body, nothing at error level, no stack trace), a body the client
 * aborts (logged at debug), headers that never end (408) or are too large (431), and invalid UTF-8 in a
 * WebSocket text frame (PROTOCOL_ERROR, then close 1007).
 */
import assert from 'node:assert/strict';
import { logLines, rawRequest, rawSocket } from '../helpers/hostile';
import { WsProbe, useServer, withServer } from '../helpers/server';
import { sleep, waitFor } from '../helpers/wait';

describe('service: malformed and stalled requests (built service, raw sockets)', function () {
  this.timeout(60_000);

  describe('malformed percent-encoding and URLs', () => {
    const server = useServer({ env: { DICTEE_LOG_LEVEL: 'debug' } });
    const cases: Array<[string, string, (m: string) => string]> = [
      ['GET /v1/sessions/%E0%A4%A before authentication', 'GET /v1/sessions/%E0%A4%A', () => ''],
      ['DELETE /v1/api-keys/%zz with the master key', 'DELETE /v1/api-keys/%zz', (m) => `Authorization: Bearer ${m}\r\n`],
      ['GET //[', 'GET //[', () => ''],
      ['GET /v1/sessions/%', 'GET /v1/sessions/%', () => ''],
      ['GET /%00/%ff?%zz=%', 'GET /%00/%ff?%zz=%', () => ''],
    ];
    for (const [name, line, headers] of cases) {
      it(`${name} → 400 or 404 with the error body, nothing at error level`, async () => {
        const before = server.logs().length;
        const r = await rawRequest(server.port, `${line} HTTP/1.1\r\nHost: x\r\n${headers(server.masterKey)}Connection: close\r\n\r\n`);
        assert.ok(r.status === 400 || r.status === 404, r.text || 'no answer');
        const body = JSON.parse(r.text.slice(r.text.indexOf('\r\n\r\n') + 4)) as { success: boolean; error: { code: string } };
        assert.equal(body.success, false);
        assert.ok(['PROTOCOL_ERROR', 'NOT_FOUND'].includes(body.error.code), body.error.code);
        const lines = logLines(server.logs().slice(before));
        assert.ok(!lines.some((l) => l.level === 'error'), JSON.stringify(lines));
        assert.ok(!server.logs().slice(before).includes('"stack"'), 'no stack trace');
      });
    }
  });

  describe('aborted bodies, stalled and oversized headers', () => {
    it('a client that aborts its body is logged at debug, not as an internal error', async () => {
      await withServer({ env: { DICTEE_LOG_LEVEL: 'debug' } }, async (server) => {
        const { key } = await server.createKey();
        const s = await rawSocket(server.port);
        s.write(
          `POST /api/v1/live/sessions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":`,
        );
        await new Promise((r) => setTimeout(r, 200));
        s.destroy();
        await waitFor(() => /request body aborted/.test(server.logs()), 5000, 'the aborted body in the log');
        const lines = logLines(server.logs());
        assert.ok(!lines.some((l) => l.level === 'error'), JSON.stringify(lines.filter((l) => l.level === 'error')));
        assert.equal(lines.find((l) => /request body aborted/.test(l.msg))?.level, 'debug');
      });
    });

    it('headers that never end → 408; headers over 16 KiB → 431', async () => {
      await withServer({ env: { DICTEE_HEADERS_TIMEOUT_MS: '1000' } }, async (server) => {
        const slow = await rawRequest(server.port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n', { waitMs: 8000 });
        assert.equal(slow.status, 408, slow.text || 'no answer');
        const big = await rawRequest(server.port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
        assert.equal(big.status, 431, big.text || 'no answer');
      });
    });
  });

  describe('invalid UTF-8 in a text frame', () => {
    const server = useServer();
    let key: string;
    before(async () => {
      key = (await server.createKey()).key;
    });
    for (const configured of [false, true]) {
      it(`${configured ? 'after' : 'before'} configure: error PROTOCOL_ERROR first, then close 1007`, async () => {
        const p = new WsProbe(server.wsUrl, { header: key });
        await p.opened;
        if (configured) await p.configure();
        p.ws.send(Buffer.from([0x7b, 0x22, 0x74, 0xff, 0xfe, 0x22, 0x7d]), { binary: false });
        const err = await p.waitType('error');
        assert.equal(err.code, 'PROTOCOL_ERROR');
        assert.match(String(err.message), /UTF-8/);
        assert.equal((await p.closed).code, 1007);
      });
    }
  });
});
