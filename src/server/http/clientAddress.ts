/**
 * The client address of a request: the one address that every count per address (failed master-key and
 * API-key attempts) and every log line uses. Without `--trust-proxy` it is the socket's peer and
 * `X-Forwarded-For` is ignored; with it, `X-Forwarded-For` is read from the right through the trusted
 * proxies (proxy-addr, as fastify's `trustProxy` does): a hop count, or the proxies' addresses and ranges.
 */
import type { IncomingMessage } from 'node:http';
import proxyAddr from 'proxy-addr';

type TrustFn = (addr: string, i: number) => boolean;

/** The named ranges proxy-addr knows. */
const NAMED = ['loopback', 'linklocal', 'uniquelocal'];

/** Longest address kept (a trusted proxy passes what it was given to its left; nothing longer is counted or logged). */
const MAX_ADDRESS_CHARS = 64;

/** A `--trust-proxy` value that cannot be used; the message says what is accepted. */
export class TrustProxyError extends Error {}

const ACCEPTED = `a hop count (1 for one proxy in front), or comma-separated addresses or ranges of the proxies (127.0.0.1, 10.0.0.0/8, ::1, ${NAMED.join(', ')})`;

/**
 * Checks a `--trust-proxy` value and makes its trust function: a whole number N trusts the N nearest hops
 * (the socket's peer and the N - 1 addresses to the right of `X-Forwarded-For`); a list trusts those
 * addresses and ranges. "true" (every hop) is refused: any client could then choose its own address.
 */
export function compileTrustProxy(spec: string): TrustFn {
  const v = spec.trim();
  if (v === '') throw new TrustProxyError(`--trust-proxy needs a value: ${ACCEPTED}`);
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    if (hops < 1 || hops > 32)
      throw new TrustProxyError(`--trust-proxy ${v}: a hop count is 1 to 32 (without --trust-proxy, X-Forwarded-For is ignored)`);
    return (_addr, i) => i < hops;
  }
  if (/^(true|all|\*)$/i.test(v)) {
    throw new TrustProxyError(`--trust-proxy ${v}: trusting every hop lets any client choose its own address; give ${ACCEPTED}`);
  }
  const parts = v.split(',').map((p) => p.trim());
  if (parts.some((p) => p === ''))
    throw new TrustProxyError(`--trust-proxy ${JSON.stringify(v)}: an empty entry in the list; give ${ACCEPTED}`);
  try {
    return proxyAddr.compile(parts);
  } catch (e) {
    throw new TrustProxyError(`--trust-proxy ${JSON.stringify(v)}: ${e instanceof Error ? e.message : String(e)}; give ${ACCEPTED}`);
  }
}

/** `::ffff:10.0.0.1` → `10.0.0.1` (one client counts once, whether it came in over IPv4 or IPv6), bounded. */
function normalise(address: string | undefined): string {
  if (!address) return 'unknown';
  const a = address.toLowerCase().startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
  return a.slice(0, MAX_ADDRESS_CHARS);
}

/** The function that gives a request's client address, for `--trust-proxy` (or without it: undefined). */
export function clientAddressFor(trustProxy: string | undefined): (req: IncomingMessage) => string {
  if (trustProxy === undefined) return (req) => normalise(req.socket.remoteAddress);
  const trust = compileTrustProxy(trustProxy);
  return (req) => {
    // A socket already destroyed has no peer: proxy-addr would throw on it.
    if (!req.socket.remoteAddress) return 'unknown';
    return normalise(proxyAddr(req, trust));
  };
}
