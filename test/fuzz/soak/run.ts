/**
 * The soak run: N places (SoakSlot) dictating at real-time pace against the built service (its own process)
 * for D seconds, with drops and resumes, revocations, clean stops and new sessions at seeded random moments;
 * the service sampled from outside; every session's words checked; at the end, once every session has stopped
 * and the service has forgotten them, its descriptors and active handles compared with the baseline.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Rng } from '../inputs';
import { scriptFile } from '../../helpers/speech';
import { startServer } from '../../helpers/server';
import { FRAME_MS, ReleasedWords } from './audio';
import { numberedScript } from './check';
import { type ServiceStatus, ServiceProbe, resourcesAbove } from './service';
import { type GenerationResult, SoakSlot } from './slot';
import { type SoakReport, type Sample, summarize } from './summary';
import { Ticker } from './ticker';
import { warmUpSession } from './warmup';
import { parseGcTrace } from './gcTrace';

export interface SoakOptions {
  sessions: number;
  durationS: number;
  seed: number;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
  /** The service's log level (default `warn`); its output goes to `serviceLog` when given. */
  serviceLogLevel?: string;
  serviceLog?: string;
  /** The client's lag limits: p99 and max of its ticks' lateness (defaults 500 ms and 2000 ms). */
  maxLagP99Ms?: number;
  maxLagMs?: number;
}

/** Ticks of the ticker per 100 ms: each place sends in one of these 10 ms slots. */
const GROUPS = 10;

export async function runSoak(opts: SoakOptions): Promise<SoakReport> {
  const log = opts.log ?? ((): void => undefined);
  const n = opts.sessions;
  const durationMs = opts.durationS * 1000;
  const rng = new Rng(opts.seed);
  // Stopped sessions stay resumable (replayable) this long: shortened from 5 minutes so that the service's
  // memory reaches its steady state early in the run and is empty soon after the end. Dropped sessions keep
  // 60 s (30 minutes by default): every drop here is resumed within a second or so.
  const ttlMs = Math.round(Math.min(30_000, Math.max(2000, durationMs / 20)));
  const resumeTtlMs = 60_000;
  // Actions come every 2 % to 15 % of the run (12 s to 90 s in 10 minutes), at least 1.5 s apart.
  const gapLo = Math.max(1500, Math.min(20_000, durationMs * 0.02));
  const gapHi = Math.max(3000, Math.min(90_000, durationMs * 0.15));
  const warmupMs = Math.min(60_000, durationMs * 0.1);
  // Enough words that no session reaches the end of its script (at most 4 words per 2.5 s loop).
  const script = numberedScript(Math.ceil((durationMs / 2500) * 4) + 100);
  const released = new ReleasedWords(script.join(' '));
  // The service runs with --trace-gc (servicePreload.cjs): its collections tell how much it allocates and when
  // V8 has sized its heap for the load (gcTrace.ts). Its clock starts about when it is spawned.
  const preload = path.join(__dirname, 'servicePreload.cjs');
  const spawnedAt = performance.now();
  const server = await startServer({
    script: scriptFile(script.join(' ')),
    args: ['--concurrency-limit', String(n * 2 + 10), '--rate-limit', '10000000'],
    env: {
      DICTEE_LOG_LEVEL: opts.serviceLogLevel ?? 'warn',
      DICTEE_STOPPED_TTL_MS: String(ttlMs),
      DICTEE_RESUME_TTL_MS: String(resumeTtlMs),
      NODE_OPTIONS: [process.env.NODE_OPTIONS, `--require ${JSON.stringify(preload)}`].filter(Boolean).join(' '),
    },
  });
  const probe = new ServiceProbe(server.url, server.masterKey, server.process().pid!);
  try {
    const keys = [];
    for (let i = 0; i < n; i += 20) {
      const batch = Array.from({ length: Math.min(20, n - i) }, (_, j) => probe.createKey(`soak ${i + j}`));
      keys.push(...(await Promise.all(batch)));
    }
    // One session before the baseline, so that what the service sets up once (the journal's statements,
    // timers started with the first session) is in it; then wait until the service has forgotten it.
    await warmUpSession(server.wsUrl, await probe.createKey('soak warm-up'));
    const idle = await waitIdle(probe, ttlMs);
    const before = { fds: probe.fds(), rss: probe.rss(), resources: idle.active_resources ?? {} };
    log(`soak: ${n} sessions for ${opts.durationS} s (warm-up ${warmupMs / 1000} s, seed ${opts.seed}), service pid ${probe.pid}`);
    log(`baseline: ${before.fds} descriptors, ${JSON.stringify(before.resources)}`);

    const results: GenerationResult[] = [];
    let ending = false;
    const slots: SoakSlot[] = [];
    // Two live keys never share a name.
    let keysMade = 0;
    const ctx = {
      wsUrl: server.wsUrl,
      released,
      script,
      createKey: () => probe.createKey(`soak replacement ${++keysMade}`),
      revokeKey: (id: string) => probe.revokeKey(id),
      onResult: (r: GenerationResult) => results.push(r),
      ending: () => ending,
      nextGapMs: () => gapLo + rng.next() * (gapHi - gapLo),
      pauseMs: () => 100 + rng.next() * 900,
    };
    keys.forEach((k, i) => slots.push(new SoakSlot(i, k, ctx)));
    const groups: SoakSlot[][] = Array.from({ length: GROUPS }, () => []);
    for (const s of slots) groups[s.index % GROUPS]!.push(s);
    const ticker = new Ticker(FRAME_MS, GROUPS, (g) => {
      for (const s of groups[g]!) s.tick();
    });

    const samples: Sample[] = [];
    const t0 = performance.now();
    const cpu0 = { service: probe.cpuMs(), client: process.cpuUsage() };
    const sampleMs = Math.max(1000, Math.min(5000, durationMs / 60));
    // One sample at a time: a slow answer (a loaded service) skips a sample rather than queueing them.
    let sampling: Promise<void> | undefined;
    const takeSample = async (): Promise<void> => {
      let st: ServiceStatus | undefined;
      try {
        st = await probe.status();
      } catch {
        /* counted as a missing sample */
      }
      const s: Sample = {
        t: (performance.now() - t0) / 1000,
        rss: probe.rss(),
        fds: probe.fds(),
        cpuMs: probe.cpuMs() - cpu0.service,
        heapUsed: st?.heap_used_bytes,
        sessions: st?.sessions,
        connections: st?.connections,
        loopP99Ms: st?.event_loop_delay_p99_ms,
        loopMaxMs: st?.event_loop_delay_max_ms,
        live: slots.filter((x) => x.state === 'live').length,
      };
      samples.push(s);
      log(
        `  t=${s.t.toFixed(0)}s rss=${(s.rss / 2 ** 20).toFixed(1)}MiB fds=${s.fds} live=${s.live} sessions=${s.sessions ?? '?'} loop_p99=${s.loopP99Ms ?? '?'}ms lag_max=${ticker.stats().maxMs.toFixed(0)}ms load=${os.loadavg()[0]!.toFixed(1)}`,
      );
    };
    const sampler = setInterval(() => {
      sampling ??= takeSample().finally(() => {
        sampling = undefined;
      });
    }, sampleMs);

    ticker.start();
    const rampMs = Math.min(10_000, durationMs * 0.1);
    slots.forEach((s) => setTimeout(() => s.start(), (s.index * rampMs) / n));
    const actions = { reconnect: 0, stop: 0, revoke: 0 };
    const actor = setInterval(() => {
      const now = Date.now();
      for (const s of slots) {
        if (s.state !== 'live' || s.nextActionAt > now) continue;
        const x = rng.next();
        if (x < 0.6) {
          actions.reconnect++;
          s.reconnect();
        } else if (x < 0.85) {
          actions.stop++;
          s.stop();
        } else {
          actions.revoke++;
          s.revoke();
        }
      }
    }, 250);
    await sleep(durationMs);
    clearInterval(actor);
    const loadEnd = { cpuMs: probe.cpuMs() - cpu0.service, client: process.cpuUsage(cpu0.client), t: (performance.now() - t0) / 1000 };
    const lag = ticker.stats();
    ending = true;
    clearInterval(sampler);
    await sampling;
    await takeSample(); // the end of the load
    for (const s of slots) if (s.state === 'live') s.stop();
    const stopDeadline = Date.now() + 90_000;
    while (slots.some((s) => !s.quiet) && Date.now() < stopDeadline) await sleep(200);
    ticker.stop();
    const notStopped = slots.filter((s) => !s.quiet).map((s) => `place ${s.index}: ${s.state}`);

    // Every session stopped: once the service has forgotten them, what they held must be back to the baseline.
    const after = await waitBaseline(probe, ttlMs, before);
    const report = summarize({
      opts: { sessions: n, durationS: opts.durationS, seed: opts.seed, warmupS: warmupMs / 1000, ttlS: ttlMs / 1000 },
      limits: { maxLagP99Ms: opts.maxLagP99Ms ?? 500, maxLagMs: opts.maxLagMs ?? 2000 },
      samples,
      results,
      slots,
      actions,
      notStopped,
      lag,
      load: loadEnd,
      before,
      after,
      gc: parseGcTrace(server.logs(), (t0 - spawnedAt) / 1000),
    });
    return report;
  } finally {
    await server.stop();
    if (opts.serviceLog) writeFileSync(opts.serviceLog, server.logs());
  }
}

/** Waits until the service holds no session and no connection (stopped sessions go after their TTL). */
async function waitIdle(probe: ServiceProbe, ttlMs: number): Promise<ServiceStatus> {
  const deadline = Date.now() + ttlMs * 2 + 35_000;
  let st = await probe.status();
  while ((st.sessions > 0 || st.connections > 0) && Date.now() < deadline) {
    await sleep(250);
    st = await probe.status();
  }
  return st;
}

export interface AfterState {
  sessions: number;
  connections: number;
  fds: number;
  rss: number;
  resources: Record<string, number>;
  /** Resource types above the baseline. */
  above: string[];
}

/** Waits (as long as the service may take to forget stopped sessions) until descriptors and handles are back. */
async function waitBaseline(
  probe: ServiceProbe,
  ttlMs: number,
  before: { fds: number; resources: Record<string, number> },
): Promise<AfterState> {
  let st = await waitIdle(probe, ttlMs);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const fds = probe.fds();
    const above = resourcesAbove(before.resources, st.active_resources ?? {});
    if ((fds <= before.fds && above.length === 0) || Date.now() > deadline) {
      return { sessions: st.sessions, connections: st.connections, fds, rss: probe.rss(), resources: st.active_resources ?? {}, above };
    }
    await sleep(250);
    st = await probe.status();
  }
}
