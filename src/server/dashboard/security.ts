/**
 * The headers of every dashboard answer (a strict Content-Security-Policy with no inline script or style,
 * no framing, no sniffing, no referrer), and the checks of a state change: the same origin (Origin and
 * Sec-Fetch-Site) and the CSRF token bound to the session, compared in constant time.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export function securityHeaders(res: ServerResponse): void {
  res.setHeader('content-security-policy', CSP);
  res.setHeader('x-frame-options', 'DENY');
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'no-referrer');
  res.setHeader('cross-origin-opener-policy', 'same-origin');
  res.setHeader('cross-origin-resource-policy', 'same-origin');
}

/**
 * Whether a state-changing request comes from a page of this origin. `Sec-Fetch-Site`, which every current
 * browser sends, must be `same-origin`. Without it (an older browser), `Origin` must name this host (the
 * `Host` header: the balancer in front passes it on); `Origin: null` (what a browser sends under
 * `Referrer-Policy: no-referrer`, or from a sandboxed frame) is refused then. A request with neither is no
 * browser's and is left to the CSRF token (which it must have, with the session cookie).
 */
export function sameOrigin(req: IncomingMessage): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin';
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  try {
    return origin !== 'null' && new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

/** Constant-time comparison of a token sent with the one expected. */
export function tokensMatch(sent: unknown, expected: string): boolean {
  if (typeof sent !== 'string' || sent.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(sent), Buffer.from(expected));
}
