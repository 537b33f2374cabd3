/**
 * Where the end-to-end bench's (e2e.bench.ts) time goes between the service's `final` and its text in the
 * editor: the extension host's side (the final forwarded by the proxy → the extension's "committed chunk"
 * log line, written once the editor took the edit and reported it back) and the browser's (that line → the
 * text in the editor's rendered lines, stamped by a MutationObserver), and what the editor's page did
 * meanwhile (its long tasks, whether it was visible and focused).
 */
import type { Page } from 'playwright-core';
import { stats } from './e2eBaseline';

/** The extension's log lines (LogOutputChannel: `YYYY-MM-DD HH:MM:SS.mmm [level] …`, local time). */
const COMMITTED = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d\.\d{3}) \[info\].*\bcommitted chunk (\S+) \(/gm;

/** Each chunk's "committed chunk" log line time (wall-clock ms), by chunk id, in `log`. */
export function committedTimes(log: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of log.matchAll(COMMITTED)) out.set(m[3]!, new Date(`${m[1]}T${m[2]}`).getTime());
  return out;
}

/**
 * The page-side probe, installed before a phase: every rendered token's first time in the editor's lines
 * (`window.__seen`), the page's long tasks (`window.__long`: start and duration) and, at each stamp,
 * whether the page was hidden or not focused (`window.__away`: count). A string, not a function: the
 * bundler's name helpers do not exist in the page.
 */
export const PAGE_PROBE = `(() => {
  window.__seen = {};
  window.__long = [];
  window.__away = 0;
  const root = document.querySelector('.editor-group-container.active .monaco-editor .view-lines');
  new MutationObserver(() => {
    const t = performance.timeOrigin + performance.now();
    let fresh = false;
    for (const m of (root.textContent || '').matchAll(/tok\\d{3}/gi)) { const k = m[0].toLowerCase(); if (!(k in window.__seen)) { window.__seen[k] = t; fresh = true; } }
    if (fresh && (document.visibilityState !== 'visible' || !document.hasFocus())) window.__away++;
  }).observe(root, { childList: true, subtree: true, characterData: true });
  try {
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push([performance.timeOrigin + e.startTime, e.duration, e.name + '/' + ((e.attribution && e.attribution[0] && (e.attribution[0].containerType + ':' + e.attribution[0].containerSrc)) || '')]); })
      .observe({ type: 'longtask' });
  } catch {}
})()`;

export interface PageProbe {
  seen: Record<string, number>;
  /** The editor page's long tasks: [start (wall-clock ms), duration (ms)]. */
  long: Array<[number, number, string?]>;
  /** Tokens first rendered while the editor's page was hidden or not focused. */
  away: number;
}

export async function readProbe(page: Page): Promise<PageProbe> {
  return (await page.evaluate('({ seen: window.__seen, long: window.__long, away: window.__away })')) as PageProbe;
}

/** One final's stages (ms): proxy → extension's log line, log line → rendered; NaN where a stamp is missing. */
export interface FinalStages {
  total: number;
  host: number;
  render: number;
  /** Long tasks of the editor's page that overlapped the final's way to the screen (ms in all). */
  blocked: number;
}

export function stagesOf(t0: number, t1: number, tLog: number | undefined, long: PageProbe['long']): FinalStages {
  let blocked = 0;
  for (const [s, d] of long) blocked += Math.max(0, Math.min(t1, s + d) - Math.max(t0, s));
  return { total: t1 - t0, host: tLog === undefined ? NaN : tLog - t0, render: tLog === undefined ? NaN : t1 - tLog, blocked };
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

/**
 * DICTEE_BENCH_E2E_PROFILE: a JavaScript CPU profile of the editor's page (its renderer's main thread)
 * through each phase, its heaviest functions (self time) on the console. Returns the function that stops it.
 */
export async function profilePage(page: Page, label: string): Promise<() => Promise<void>> {
  if (!process.env.DICTEE_BENCH_E2E_PROFILE) return async () => undefined;
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 1000 });
  await cdp.send('Profiler.start');
  // The editor page's WebSocket traffic (VS Code's connection to its server): frames and bytes each way.
  const urls = new Map<string, string>();
  const traffic = new Map<string, { n: number; bytes: number }>();
  const count = (dir: string) => (e: { requestId: string; response: { payloadData: string } }) => {
    const text = Buffer.from(e.response.payloadData, 'base64').toString('latin1');
    const methods = [...new Set([...text.matchAll(/\$[a-zA-Z]{4,}/g)].map((m) => m[0]))].slice(0, 3).join('+');
    const k = `${dir} ${urls.get(e.requestId) ?? e.requestId} ${methods}`;
    const t = traffic.get(k) ?? { n: 0, bytes: 0 };
    t.n++;
    t.bytes += e.response.payloadData.length;
    traffic.set(k, t);
  };
  cdp.on('Network.webSocketCreated', (e: { requestId: string; url: string }) => urls.set(e.requestId, e.url.replace(/\?.*/, '')));
  cdp.on('Network.webSocketFrameReceived', count('in'));
  cdp.on('Network.webSocketFrameSent', count('out'));
  await cdp.send('Network.enable');
  const browser = page.context().browser();
  const tracing = process.env.DICTEE_BENCH_E2E_TRACE && browser;
  if (tracing)
    await browser.startTracing(undefined, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'toplevel'] });
  return async () => {
    if (tracing) {
      const raw = await browser.stopTracing();
      const { writeFileSync } = await import('node:fs');
      writeFileSync(`${process.env.DICTEE_BENCH_E2E_PROFILE}/${label.replace(/\W+/g, '-')}.trace.json`, raw);
      summariseTrace(JSON.parse(raw.toString('utf8')) as TraceFile, label);
    }
    for (const [k, t] of [...traffic].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, 25))
      console.log(`    editor page socket ${k}: ${t.n} frames, ${t.bytes} bytes (base64)`);
    const { profile } = (await cdp.send('Profiler.stop')) as unknown as {
      profile: { nodes: ProfileNode[]; startTime: number; endTime: number; samples: number[] };
    };
    const byFn = new Map<string, number>();
    const total = profile.samples.length;
    for (const n of profile.nodes) {
      const file = n.callFrame.url.split('/').pop() ?? '';
      const key = `${n.callFrame.functionName || '(anonymous)'} ${file}:${n.callFrame.lineNumber}`;
      byFn.set(key, (byFn.get(key) ?? 0) + (n.hitCount ?? 0));
    }
    const top = [...byFn].sort((a, b) => b[1] - a[1]).slice(0, 25);
    console.log(
      `    profile of the editor's page, ${label}: ${total} samples over ${((profile.endTime - profile.startTime) / 1e6).toFixed(1)} s`,
    );
    for (const [k, v] of top) console.log(`      ${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`);
    const { writeFileSync } = await import('node:fs');
    writeFileSync(`${process.env.DICTEE_BENCH_E2E_PROFILE}/${label.replace(/\W+/g, '-')}.cpuprofile`, JSON.stringify(profile));
    await cdp.detach();
  };
}

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  dur?: number;
  args?: { name?: string; data?: { frames?: Array<{ processId?: number; url?: string }> } };
}
interface TraceFile {
  traceEvents: TraceEvent[];
}

/** DICTEE_BENCH_E2E_TRACE: each renderer's main thread, what its time went to (ms by event name). */
function summariseTrace(trace: TraceFile, label: string): void {
  const threads = new Map<string, string>();
  const procs = new Map<number, string>();
  for (const e of trace.traceEvents) {
    if (e.ph === 'M' && e.name === 'thread_name') threads.set(`${e.pid}/${e.tid}`, e.args?.name ?? '');
    for (const f of e.args?.data?.frames ?? []) if (f.processId && f.url) procs.set(f.processId, f.url.replace(/\?.*/, '').slice(-50));
  }
  const by = new Map<string, Map<string, number>>();
  for (const e of trace.traceEvents) {
    if (e.ph !== 'X' || !e.dur) continue;
    const thread = threads.get(`${e.pid}/${e.tid}`) ?? '?';
    if (!/CrRendererMain|VizCompositor|CrBrowserMain|Compositor|RasterWorker|AudioWorklet/.test(thread)) continue;
    const key = `${e.pid} ${procs.get(e.pid) ?? ''} ${thread}`;
    const m = by.get(key) ?? new Map<string, number>();
    const type = (e.args?.data as { type?: string } | undefined)?.type;
    const name = type ? `${e.name}:${type}` : e.name;
    m.set(name, (m.get(name) ?? 0) + e.dur / 1000);
    by.set(key, m);
  }
  console.log(`    trace, ${label}:`);
  for (const [k, m] of by) {
    const top = [...m].sort((a, b) => b[1] - a[1]).slice(0, 9);
    console.log(`      ${k}: ${top.map(([n, ms]) => `${n} ${ms.toFixed(0)}`).join(', ')}`);
  }
}

/** The stages of one phase, on the console: where the time of its slow finals went. */
export function logStages(label: string, stages: FinalStages[], probe: PageProbe): void {
  const f = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : '-');
  const pick = (k: keyof FinalStages) => stats(stages.map((s) => s[k]).filter(Number.isFinite));
  const line = (k: keyof FinalStages) => {
    const s = pick(k);
    return `${k} p50 ${f(s.p50)} p95 ${f(s.p95)} p99 ${f(s.p99)} max ${f(s.max)}`;
  };
  const longMs = probe.long.reduce((n, [, d]) => n + d, 0);
  console.log(`  ${label}: ${line('total')} | ${line('host')} | ${line('render')} | ${line('blocked')}`);
  const kinds = new Map<string, number>();
  for (const [, d, k] of probe.long) kinds.set(k ?? '?', (kinds.get(k ?? '?') ?? 0) + d);
  console.log(`    page long tasks: ${probe.long.length} (${f(longMs)} ms), tokens rendered while the page was away: ${probe.away}`);
  console.log(`    long tasks by attribution (ms): ${[...kinds].map(([k, d]) => `${k} ${f(d)}`).join(', ')}`);
  const worst = [...stages].sort((a, b) => b.total - a.total).slice(0, 6);
  console.log(
    `    slowest (total/host/render/blocked): ${worst.map((s) => `${f(s.total)}/${f(s.host)}/${f(s.render)}/${f(s.blocked)}`).join(' ')}`,
  );
}

/** Where the time went, per source, in a sentence each (for docs/benchmarks.md). */
export function whereTimeGoes(phases: ReadonlyArray<{ source: 'recorder' | 'browser'; stages: FinalStages[] }>): string[] {
  type Source = 'recorder' | 'browser';
  const stage = (source: Source, k: 'host' | 'render' | 'blocked') =>
    stats(phases.filter((p) => p.source === source).flatMap((p) => p.stages.map((x) => x[k]).filter(Number.isFinite)));
  const where = (['recorder', 'browser'] as const).map((src) => {
    const [h, r, b] = (['host', 'render', 'blocked'] as const).map((k) => stage(src, k));
    const f = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : '-');
    return `${src === 'recorder' ? 'recorder' : 'capture page'}: to the extension's "committed" log line p50 ${f(h!.p50)} / p99 ${f(h!.p99)} ms, from it to the screen p50 ${f(r!.p50)} / p99 ${f(r!.p99)} ms, the editor page's long tasks within each final's way p99 ${f(b!.p99)} ms`;
  });
  return where;
}
