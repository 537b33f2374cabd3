/**
 * `npm run soak [-- --sessions N] [--seconds S] [--out FILE]` (not in CI): N concurrent real-time sessions
 * (default 500) against the built service for S seconds (default 600), each sending 100 ms frames of
 * speech-like audio (tone bursts and pauses) in real time, dropping its socket now and then and resuming.
 * Samples the service's RSS, descriptors, /healthz latency and, from GET /v1/status (master key), live
 * sessions, connections and event-loop delay. Goal: no growth beyond 5 % after warm-up, no slot or
 * descriptor left once every session has stopped. Exits 1 when the goal is missed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { openFds, rawRequest, rssBytes } from '../helpers/hostile';
import { startServer } from '../helpers/server';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

interface Sample {
  t: number;
  rss: number;
  fds: number;
  healthMs: number;
  sessions?: number;
  /** Live sessions holding a connection: the concurrency slots in use. */
  slots?: number;
  connections?: number;
  eventLoopP99Ms?: number;
  clientsOpen: number;
}

const FRAME = 3200;
const tone = Buffer.alloc(FRAME);
for (let i = 0; i < FRAME / 2; i++) tone.writeInt16LE(Math.round(Math.sin(i / 4) * 9000), i * 2);
const quiet = Buffer.alloc(FRAME);

class SoakSession {
  ws: WebSocket | undefined;
  sessionId: string | undefined;
  lastSeq = 0;
  tick = 0;
  reconnects = 0;
  errors: string[] = [];
  stopped = false;
  private configured = false;

  constructor(
    private readonly url: string,
    private readonly key: string,
    private readonly phase: number,
  ) {}

  connect(): void {
    const ws = new WebSocket(this.url, { headers: { authorization: `Bearer ${this.key}` }, perMessageDeflate: false });
    this.ws = ws;
    this.configured = false;
    ws.on('open', () => {
      const config: Record<string, unknown> = { language: 'en', engine_endpointing: 0.3, silence_threshold: 1 };
      if (this.sessionId) config.resume = { session_id: this.sessionId, last_seq: this.lastSeq };
      ws.send(JSON.stringify({ type: 'configure', config }));
    });
    ws.on('message', (data) => {
      const m = JSON.parse(String(data)) as Record<string, unknown>;
      if (m.type === 'configured') {
        this.sessionId = String(m.session_id);
        this.configured = true;
      } else if (typeof m.seq === 'number') this.lastSeq = Math.max(this.lastSeq, m.seq);
      else if (m.type === 'error') this.errors.push(String(m.code));
    });
    ws.on('error', () => undefined);
    ws.on('close', () => {
      if (this.ws === ws) this.ws = undefined;
    });
  }

  /** One 100 ms frame: 1.2 s of tone, then 1.3 s of quiet. */
  send(): void {
    if (!this.ws || !this.configured || this.ws.readyState !== WebSocket.OPEN) return;
    const pos = (this.tick++ + this.phase) % 25;
    this.ws.send(pos < 12 ? tone : quiet);
  }

  drop(): void {
    this.reconnects++;
    this.ws?.terminate();
    this.ws = undefined;
    this.connect();
  }

  stop(): Promise<void> {
    this.stopped = true;
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) {
      ws?.terminate();
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      ws.once('close', () => resolve());
      ws.send(JSON.stringify({ type: 'control', action: 'stop' }));
      setTimeout(() => {
        ws.terminate();
        resolve();
      }, 15_000).unref();
    });
  }
}

async function main(): Promise<void> {
  const n = arg('sessions', 500);
  const seconds = arg('seconds', 600);
  const warmup = Math.min(60, seconds * 0.2);
  const outIdx = process.argv.indexOf('--out');
  const out = outIdx >= 0 ? process.argv[outIdx + 1]! : path.join('test-output', 'soak', 'report.json');
  const server = await startServer({
    args: ['--concurrency-limit', String(n * 2), '--rate-limit', '10000000'],
    env: { DICTEE_LOG_LEVEL: 'warn', DICTEE_RESUME_TTL_MS: '5000', DICTEE_STOPPED_TTL_MS: '5000' },
  });
  const pid = server.process().pid!;
  const keys: string[] = [];
  for (let i = 0; i < Math.ceil(n / 10); i++) keys.push((await server.createKey({ name: `soak ${i}` })).key);
  const fdsBefore = openFds(pid);
  const rssBefore = rssBytes(pid);
  const sessions = Array.from({ length: n }, (_, i) => new SoakSession(server.wsUrl, keys[i % keys.length]!, i % 25));
  for (const [i, s] of sessions.entries()) {
    s.connect();
    if (i % 50 === 49) await sleep(100);
  }
  console.log(`soak: ${n} sessions for ${seconds} s (warm-up ${warmup} s), service pid ${pid}`);
  const sender = setInterval(() => {
    for (const s of sessions) s.send();
  }, 100);
  const samples: Sample[] = [];
  const started = Date.now();
  const status = async (): Promise<Partial<Sample>> => {
    try {
      const r = await fetch(`${server.url}/v1/status`, { headers: { authorization: `Bearer ${server.masterKey}` } });
      if (r.status !== 200) return {};
      const j = (await r.json()) as {
        sessions?: number;
        connected_sessions?: number;
        connections?: number;
        event_loop_delay_p99_ms?: number;
      };
      return { sessions: j.sessions, slots: j.connected_sessions, connections: j.connections, eventLoopP99Ms: j.event_loop_delay_p99_ms };
    } catch {
      return {};
    }
  };
  while (Date.now() - started < seconds * 1000) {
    await sleep(5000);
    // Each session drops its socket about once every two minutes and resumes.
    for (const s of sessions) if (Math.random() < 5 / 120) s.drop();
    const t0 = Date.now();
    await rawRequest(server.port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', { waitMs: 10_000 });
    const sample: Sample = {
      t: Math.round((Date.now() - started) / 1000),
      rss: rssBytes(pid),
      fds: openFds(pid),
      healthMs: Date.now() - t0,
      clientsOpen: sessions.filter((s) => s.ws?.readyState === WebSocket.OPEN).length,
      ...(await status()),
    };
    samples.push(sample);
    console.log(
      `  t=${sample.t}s rss=${(sample.rss / 1048576).toFixed(0)}MiB fds=${sample.fds} healthz=${sample.healthMs}ms open=${sample.clientsOpen} sessions=${sample.sessions ?? '?'} loop_p99=${sample.eventLoopP99Ms ?? '?'}ms`,
    );
  }
  clearInterval(sender);
  await Promise.all(sessions.map((s) => s.stop()));
  let fdsAfter = openFds(pid);
  for (let i = 0; i < 100 && fdsAfter > fdsBefore + 5; i++) {
    await sleep(100);
    fdsAfter = openFds(pid);
  }
  // Stopped sessions stay replayable for the stopped TTL (5 s here), then the sweep forgets them.
  let final = await status();
  for (let i = 0; i < 40 && (final.sessions ?? 0) > 0; i++) {
    await sleep(500);
    final = await status();
  }
  const rssEnd = rssBytes(pid);
  // RSS moves with the garbage collector: compare the median of the first quarter after warm-up with the
  // median of the last quarter.
  const late = samples.filter((s) => s.t >= warmup);
  const afterWarmup = late.length >= 2 ? late : samples;
  const quarter = Math.max(1, Math.floor(afterWarmup.length / 4));
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const base = { ...afterWarmup[0]!, rss: median(afterWarmup.slice(0, quarter).map((s) => s.rss)) };
  const last = { ...afterWarmup[afterWarmup.length - 1]!, rss: median(afterWarmup.slice(-quarter).map((s) => s.rss)) };
  const growth = (last.rss - base.rss) / base.rss;
  const errors = sessions.flatMap((s) => s.errors);
  const report = {
    sessions: n,
    seconds,
    warmupSeconds: warmup,
    reconnects: sessions.reduce((a, s) => a + s.reconnects, 0),
    errors: errors.reduce<Record<string, number>>((a, c) => ({ ...a, [c]: (a[c] ?? 0) + 1 }), {}),
    rss: { beforeSessions: rssBefore, afterWarmup: base.rss, atEnd: last.rss, afterStop: rssEnd, growthAfterWarmup: growth },
    fds: { before: fdsBefore, afterWarmup: base.fds, atEnd: last.fds, afterStop: fdsAfter },
    healthMs: { max: Math.max(...samples.map((s) => s.healthMs)) },
    eventLoopP99Ms: {
      afterWarmup: base.eventLoopP99Ms,
      atEnd: last.eventLoopP99Ms,
      max: Math.max(...samples.map((s) => s.eventLoopP99Ms ?? 0)),
    },
    slotsAfterStop: final.slots,
    sessionsAfterStop: final.sessions,
    samples,
  };
  await server.stop();
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
  const ok = growth <= 0.05 && fdsAfter <= fdsBefore + 5 && final.slots === 0 && final.sessions === 0;
  console.log(`
reconnects:   ${report.reconnects}; errors: ${JSON.stringify(report.errors)}
RSS:          ${(base.rss / 1048576).toFixed(1)} MiB after warm-up, ${(last.rss / 1048576).toFixed(1)} MiB at the end (medians of the first and last quarter: ${(growth * 100).toFixed(1)} %)
descriptors:  ${fdsBefore} before, ${base.fds} after warm-up, ${last.fds} at the end, ${fdsAfter} after every session stopped
event loop:   p99 ${report.eventLoopP99Ms.afterWarmup ?? '?'} ms after warm-up, ${report.eventLoopP99Ms.atEnd ?? '?'} ms at the end (max ${report.eventLoopP99Ms.max})
/healthz:     slowest ${report.healthMs.max} ms
slots left:   ${final.slots ?? 'not reported'}; sessions left in memory: ${final.sessions ?? 'not reported'}
${ok ? 'goal met' : 'GOAL MISSED'}; report: ${out}`);
  process.exit(ok ? 0 : 1);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
