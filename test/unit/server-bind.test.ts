import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { DEFAULT_TIMING, bindHttpServer } from '../../src/server/app';

describe('bindHttpServer (the service listens before it makes anything)', () => {
  it('answers 503 INTERNAL_ERROR with Retry-After until a Service takes the server', async () => {
    const server = await bindHttpServer('127.0.0.1', 0, DEFAULT_TIMING);
    try {
      const { port } = server.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      assert.equal(res.status, 503);
      assert.equal(res.headers.get('retry-after'), '1');
      const body = (await res.json()) as { success: boolean; error: { code: string; message: string } };
      assert.equal(body.success, false);
      assert.equal(body.error.code, 'INTERNAL_ERROR');
      assert.match(body.error.message, /starting/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('a port in use rejects with EADDRINUSE', async () => {
    const first = await bindHttpServer('127.0.0.1', 0, DEFAULT_TIMING);
    try {
      const { port } = first.address() as AddressInfo;
      await assert.rejects(bindHttpServer('127.0.0.1', port, DEFAULT_TIMING), /EADDRINUSE/);
    } finally {
      await new Promise((resolve) => first.close(resolve));
    }
  });
});
