/**
 * What the dashboard bench measures with: one GET over loopback timed to its first byte (the response's
 * head) and to its last, a bare node:http server holding static copies (the baseline), the sign-in through
 * the real form, and a page's render in headless Chromium (navigation to load event, first contentful paint).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { chromium } from 'playwright-core';
import { OWNER_PASSWORD } from './dashboardSeed';

export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
export const p95 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)]!;

export interface Timing {
  ttfb: number[];
  total: number[];
  bytes: number;
  body: string;
}

function getOnce(url: string, cookie?: string): Promise<{ ttfb: number; total: number; body: string; status: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.get(url, { headers: cookie ? { cookie } : {}, agent: false }, (res) => {
      const ttfb = performance.now() - t0;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ ttfb, total: performance.now() - t0, body: Buffer.concat(chunks).toString('utf8'), status: res.statusCode ?? 0 }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** `runs` GETs after one warm-up; a reply other than 200 fails the bench. */
export async function timeGet(url: string, runs: number, cookie?: string): Promise<Timing> {
  const warm = await getOnce(url, cookie);
  if (warm.status !== 200) throw new Error(`${url}: HTTP ${warm.status}`);
  const out: Timing = { ttfb: [], total: [], bytes: Buffer.byteLength(warm.body), body: warm.body };
  for (let i = 0; i < runs; i++) {
    const r = await getOnce(url, cookie);
    if (r.status !== 200) throw new Error(`${url}: HTTP ${r.status}`);
    out.ttfb.push(r.ttfb);
    out.total.push(r.total);
  }
  return out;
}

/** A bare node:http server on loopback answering each path with its static copy (`/` the page). */
export async function staticServer(files: Map<string, { type: string; body: Buffer }>): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const f = files.get((req.url ?? '/').split('?')[0]!);
    if (!f) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': f.type, 'content-length': f.body.length }).end(f.body);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}

/** The page's own scripts and styles (`/dashboard/…` paths), fetched once from the service for the static copy. */
export async function assetsOf(base: string, page: string, cookie: string): Promise<Map<string, { type: string; body: Buffer }>> {
  const out = new Map<string, { type: string; body: Buffer }>();
  for (const m of page.matchAll(/(?:src|href)="(\/dashboard\/[^"?]+\.(?:js|css|svg|png|ico))"/g)) {
    const res = await fetch(`${base}${m[1]!}`, { headers: { cookie } });
    if (res.ok)
      out.set(m[1]!, { type: res.headers.get('content-type') ?? 'application/octet-stream', body: Buffer.from(await res.arrayBuffer()) });
  }
  return out;
}

/** Signs in through the form: the session cookie. */
export async function signIn(base: string, email: string): Promise<string> {
  const page = await fetch(`${base}/dashboard/sign-in`);
  const cookies = (page.headers.getSetCookie?.() ?? []).map((c) => c.split(';')[0]).join('; ');
  const html = await page.text();
  const form = new URLSearchParams();
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"\s*\/?>/g)) form.set(m[1]!, m[2]!);
  form.set('email', email);
  form.set('password', OWNER_PASSWORD);
  const res = await fetch(`${base}/dashboard/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies, origin: base, 'sec-fetch-site': 'same-origin' },
    body: form.toString(),
  });
  const session = (res.headers.getSetCookie?.() ?? []).map((c) => c.split(';')[0]!).find((c) => c.startsWith('__Host-dictee_session='));
  if (!session) throw new Error(`sign-in failed: HTTP ${res.status}`);
  return session;
}

export const CHROMIUM = process.env.DICTEE_E2E_CHROMIUM ?? '/usr/bin/chromium';

/** Each URL loaded `runs` times (after a warm-up) in one headless Chromium: navigation → load event, and first contentful paint. */
export async function browserTimes(urls: string[], runs: number, cookie: string): Promise<Array<{ load: number[]; fcp: number[] }>> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  try {
    const out: Array<{ load: number[]; fcp: number[] }> = [];
    for (const url of urls) {
      const page = await browser.newPage();
      await page.setExtraHTTPHeaders({ cookie });
      const r = { load: [] as number[], fcp: [] as number[] };
      for (let i = 0; i <= runs; i++) {
        await page.goto(url, { waitUntil: 'load', timeout: 180_000 });
        // Run in the page (a string, so that Node's types of `performance` do not apply). A small page may load
        // before its first paint: the paint entry is awaited (buffered), for 10 s at most.
        const t = (await page.evaluate(`new Promise((resolve) => {
          const nav = performance.getEntriesByType('navigation')[0];
          const done = (fcp) => resolve({ load: nav.loadEventStart, fcp });
          new PerformanceObserver((list) => {
            const e = list.getEntriesByName('first-contentful-paint')[0];
            if (e) done(e.startTime);
          }).observe({ type: 'paint', buffered: true });
          setTimeout(() => done(-1), 10000);
        })`)) as { load: number; fcp: number };
        if (t.fcp < 0) throw new Error(`${url}: no first contentful paint`);
        if (i > 0) {
          r.load.push(t.load);
          r.fcp.push(t.fcp);
        }
      }
      await page.close();
      out.push(r);
    }
    return out;
  } finally {
    await browser.close();
  }
}
