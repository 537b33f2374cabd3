import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_TIMING, Service, bindHttpServer } from '../../src/server/app';
import { InProcessLimits } from '../../src/server/storage/limits';

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

describe('the service checks its options where it is constructed (as ws does)', () => {
  // The checks come before anything is used: the other options are never touched.
  const base = { backends: {} as never, engine: {} as never, log: {} as never, timing: DEFAULT_TIMING, retentionDays: 30 };

  it('refuses a timing, a per-key limit or a retention that is not a whole number in range, naming the option', () => {
    assert.throws(
      () => new Service({ ...base, timing: { ...DEFAULT_TIMING, pingIntervalMs: 0 } }),
      /^RangeError: option timing\.pingIntervalMs must be between 1 and \d+, got 0$/,
    );
    assert.throws(
      () => new Service({ ...base, timing: { ...DEFAULT_TIMING, idleTimeoutMs: 1.5 } }),
      /^TypeError: option timing\.idleTimeoutMs must be a whole number, got 1\.5$/,
    );
    assert.throws(() => new Service({ ...base, perKeyLimit: 0 }), /option perKeyLimit must be between 1/);
    assert.throws(() => new Service({ ...base, retentionDays: 4000 }), /option retentionDays must be between 1 and 3650, got 4000/);
  });

  it('refuses a server that does not listen yet', () => {
    assert.throws(() => new Service({ ...base, server: http.createServer() }), /option server must be a server that listens already/);
  });

  it('the in-process limits refuse a zero limit or window', () => {
    assert.throws(() => new InProcessLimits(0, 1000, 1), /option rateLimit must be between 1/);
    assert.throws(() => new InProcessLimits(10, 0, 1), /option rateWindowMs must be between 1/);
    assert.throws(() => new InProcessLimits(10, 1000, -1), /option concurrencyLimit must be between 1/);
  });
});
