/**
 * The client address of a request (src/server/http/clientAddress.ts), on real requests to a loopback HTTP
 * server, and `--trust-proxy` / DICTEE_TRUST_PROXY on the command line.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { clientAddressFor } from '../../src/server/http/clientAddress';
import { UsageError, authFailureLimitFromEnv, parseArgs } from '../../src/server/commandLine';

/** The address `clientAddressFor(spec)` gives a real request from 127.0.0.1 carrying `xff`. */
async function addressOf(spec: string | undefined, xff?: string): Promise<string> {
  const of = clientAddressFor(spec);
  let seen = '';
  const server = http.createServer((req, res) => {
    seen = of(req);
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const port = (server.address() as AddressInfo).port;
    await fetch(`http://127.0.0.1:${port}/`, { headers: xff === undefined ? {} : { 'x-forwarded-for': xff } });
  } finally {
    server.close();
  }
  return seen;
}

describe('server client address', () => {
  it('without --trust-proxy: the socket address, X-Forwarded-For ignored', async () => {
    assert.equal(await addressOf(undefined), '127.0.0.1');
    assert.equal(await addressOf(undefined, '203.0.113.9'), '127.0.0.1');
  });

  it('a hop count: the entry that many hops from the socket; what a client puts to the left is ignored', async () => {
    assert.equal(await addressOf('1', '203.0.113.9, 198.51.100.7'), '198.51.100.7');
    assert.equal(await addressOf('2', '203.0.113.9, 198.51.100.7'), '203.0.113.9');
    assert.equal(await addressOf('1'), '127.0.0.1', 'no header: the socket');
  });

  it('addresses and ranges: the first untrusted address from the right', async () => {
    assert.equal(await addressOf('127.0.0.1', '203.0.113.9'), '203.0.113.9');
    assert.equal(await addressOf('loopback, 10.0.0.0/8', '203.0.113.9, 10.1.2.3'), '203.0.113.9');
    assert.equal(await addressOf('10.0.0.0/8', '203.0.113.9'), '127.0.0.1', 'the socket is not a trusted proxy: its address');
    assert.equal(await addressOf('127.0.0.1', '::ffff:198.51.100.4'), '198.51.100.4', 'an IPv4 address seen over IPv6 counts as IPv4');
  });

  it('--trust-proxy and DICTEE_TRUST_PROXY (the flag wins); a bad value is a UsageError saying what is accepted', () => {
    assert.equal(parseArgs([]).trustProxy, undefined);
    assert.equal(parseArgs([], { DICTEE_TRUST_PROXY: '1' }).trustProxy, '1');
    assert.equal(parseArgs(['--trust-proxy', ' 10.0.0.5, 10.0.1.0/24 '], { DICTEE_TRUST_PROXY: '1' }).trustProxy, '10.0.0.5, 10.0.1.0/24');
    assert.equal(parseArgs([], { DICTEE_TRUST_PROXY: '' }).trustProxy, undefined, 'an empty variable is none');
    for (const bad of ['0', '33', 'true', '*', 'proxy.internal', '10.0.0.0/40', '10.0.0.1,', '']) {
      assert.throws(
        () => parseArgs(['--trust-proxy', bad]),
        (e: unknown) => e instanceof UsageError && /--trust-proxy/.test(e.message),
        JSON.stringify(bad),
      );
    }
  });

  it('DICTEE_AUTH_FAILURE_LIMIT: 10 by default, a positive whole number', () => {
    assert.equal(authFailureLimitFromEnv({}), 10);
    assert.equal(authFailureLimitFromEnv({ DICTEE_AUTH_FAILURE_LIMIT: '3' }), 3);
    for (const bad of ['0', '-1', '2.5', 'many'])
      assert.throws(() => authFailureLimitFromEnv({ DICTEE_AUTH_FAILURE_LIMIT: bad }), UsageError);
  });
});
