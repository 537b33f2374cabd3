/** The soak's figures: what the run measured, which checks failed, and the Markdown of its section. */
import os from 'node:os';
import type { LagStats } from './ticker';
import type { GenerationResult, SoakSlot } from './slot';
import type { AfterState } from './run';
import { type GcEvent, allocatedMB, floorMB, heapSizedAt, majorCount } from './gcTrace';

export interface Sample {
  /** Seconds since the load started. */
  t: number;
  rss: number;
  /** The service's JavaScript heap in use (GET /v1/status). */
  heapUsed?: number;
  fds: number;
  /** Service CPU time since the load started. */
  cpuMs: number;
  sessions?: number;
  connections?: number;
  loopP99Ms?: number;
  loopMaxMs?: number;
  /** Places whose session was live (sending audio). */
  live: number;
}

export interface SummaryInput {
  opts: { sessions: number; durationS: number; seed: number; warmupS: number; ttlS: number };
  limits: { maxLagP99Ms: number; maxLagMs: number };
  samples: Sample[];
  results: GenerationResult[];
  slots: SoakSlot[];
  actions: { reconnect: number; stop: number; revoke: number };
  notStopped: string[];
  lag: LagStats;
  load: { cpuMs: number; client: NodeJS.CpuUsage; t: number };
  before: { fds: number; rss: number; resources: Record<string, number> };
  after: AfterState;
  /** The service's collections (its --trace-gc log, gcTrace.ts); empty when the trace is missing. */
  gc: GcEvent[];
}

/** RSS growth allowed from the first half of the load after warm-up to the second (their peaks). */
export const MAX_RSS_GROWTH = 0.05;
/** Shorter than this after the fixed warm-up, RSS growth is reported but not judged (a short run). */
const MIN_JUDGED_S = 240;
/**
 * Major collections each half must hold for RSS growth to be judged: two, so that each half spans a whole GC
 * cycle (from one major collection to the next; at 150 sessions they came about 100 s apart here).
 */
const MIN_CYCLES = 2;

export type SoakReport = ReturnType<typeof summarize>;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

export function summarize(x: SummaryInput) {
  const { opts, samples, results } = x;
  const sum = (f: (r: GenerationResult) => number): number => results.reduce((a, r) => a + f(r), 0);
  const words = {
    released: sum((r) => r.check.expected),
    received: sum((r) => r.check.received),
    duplicates: sum((r) => r.check.duplicates),
    lost: sum((r) => r.check.lost),
    extra: sum((r) => r.check.extra),
    outOfOrder: sum((r) => r.check.outOfOrder),
  };
  const repeats = { seqs: sum((r) => r.repeatedSeqs), finals: sum((r) => r.repeatedFinals), unknownTargets: sum((r) => r.unknownTargets) };
  const problems = results.flatMap((r) => r.problems.map((p) => `place ${r.slot}: ${p}`));
  const wrongWords = results.filter((r) => !r.check.ok);
  const count = (o: string): number => results.filter((r) => r.outcome === o).length;
  const slotSum = (k: keyof SoakSlot['counts']): number => x.slots.reduce((a, s) => a + s.counts[k], 0);

  // RSS: the peak of each half of the load after warm-up. Warm-up lasts the fixed time (opts.warmupS) and
  // until V8 has sized its heap for the load (gcTrace.ts: its committed size after a major collection within
  // 5 % of the largest a major collection leaves): RSS follows the heap's committed size up while V8 sizes it, which is no leak; a leak keeps the
  // heap growing, so it is sized late or never, and a run long enough to judge then fails. Each half must
  // hold whole GC cycles (MIN_CYCLES major collections): the collector moves RSS by tens of MiB within one.
  const gc = x.gc;
  const sized = heapSizedAt(gc, 0, opts.durationS);
  const warmEnd = Math.max(opts.warmupS, sized?.t ?? 0);
  const load = samples.filter((s) => s.t <= opts.durationS + 1);
  const mid = (warmEnd + opts.durationS) / 2;
  const peak = (xs: number[]): number => (xs.length ? Math.max(...xs) : 0);
  const rssIn = (lo: number, hi: number): number => peak(load.filter((s) => s.t >= lo && s.t <= hi).map((s) => s.rss));
  const heapIn = (lo: number, hi: number): number => peak(load.filter((s) => s.t >= lo && s.t <= hi && s.heapUsed).map((s) => s.heapUsed!));
  // The heap's floor in each half: what stays live after the major collections (a leak raises it).
  const floorIn = (lo: number, hi: number): number => {
    const fromGc = floorMB(gc, lo, hi);
    if (fromGc !== undefined) return fromGc * 1e6;
    const xs = load.filter((s) => s.t >= lo && s.t <= hi && s.heapUsed).map((s) => s.heapUsed!);
    return xs.length ? Math.min(...xs) : 0;
  };
  const heap = {
    afterWarmup: heapIn(warmEnd, mid),
    end: heapIn(mid, opts.durationS + 1),
    floorFirst: floorIn(warmEnd, mid),
    floorSecond: floorIn(mid, opts.durationS + 1),
    /** When V8 had sized the heap (s), its committed size then and its largest (bytes). */
    sizedAtS: sized?.t,
    committedAtSized: (sized?.committedMB ?? 0) * 1e6,
    committedMax: (sized?.maxMB ?? 0) * 1e6,
    majorFirst: majorCount(gc, warmEnd, mid),
    majorSecond: majorCount(gc, mid, opts.durationS + 1),
    collections: gc.length,
  };
  const rssAfterWarmup = rssIn(warmEnd, mid);
  const rssEnd = rssIn(mid, opts.durationS + 1);
  const growth = rssAfterWarmup > 0 ? (rssEnd - rssAfterWarmup) / rssAfterWarmup : 0;
  const longEnough = opts.durationS - opts.warmupS >= MIN_JUDGED_S;
  const rssJudged = longEnough && heap.majorFirst >= MIN_CYCLES && heap.majorSecond >= MIN_CYCLES;
  const steadyRss = load.filter((s) => s.t >= warmEnd).map((s) => s.rss);
  if (steadyRss.length === 0) steadyRss.push(0);

  // Mean time a place spent in each state per entry (the transitions: how long a resume, a stop, a revocation took).
  const stateTimes: Record<string, { meanMs: number; entered: number }> = {};
  for (const st of ['connecting', 'reconnecting', 'stopping', 'revoking', 'idle', 'live'] as const) {
    const ms = x.slots.reduce((a, s) => a + s.time[st].ms, 0);
    const entered = x.slots.reduce((a, s) => a + s.time[st].entered, 0);
    stateTimes[st] = { meanMs: entered ? ms / entered : 0, entered };
  }
  const meanOf = (k: 'handshake' | 'configure'): number => {
    const n = x.slots.reduce((a, s) => a + s[k].n, 0);
    return n ? x.slots.reduce((a, s) => a + s[k].ms, 0) / n : 0;
  };
  const opening = { handshakeMs: meanOf('handshake'), configureMs: meanOf('configure') };
  const liveAvg = load.length ? load.reduce((a, s) => a + s.live, 0) / load.length : 0;
  const steady = load.filter((s) => s.t >= opts.warmupS);
  const live = {
    mean: steady.length ? steady.reduce((a, s) => a + s.live, 0) / steady.length : 0,
    min: steady.length ? Math.min(...steady.map((s) => s.live)) : 0,
    max: steady.length ? Math.max(...steady.map((s) => s.live)) : 0,
  };
  // What the service allocated on its heap per session-second, over the load after the fixed warm-up.
  const allocSpanS = Math.max(1, opts.durationS - opts.warmupS);
  const allocated = allocatedMB(gc, opts.warmupS, opts.durationS);
  const allocation = {
    mbPerS: allocated / allocSpanS,
    kbPerSessionSecond: live.mean > 0 ? (allocated * 1000) / (live.mean * allocSpanS) : 0,
  };
  const service = {
    cpuPercent: (x.load.cpuMs / (x.load.t * 1000)) * 100,
    cpuMsPerSessionSecond: liveAvg > 0 ? x.load.cpuMs / (liveAvg * x.load.t) : 0,
    loopP99MaxMs: Math.max(0, ...samples.map((s) => s.loopP99Ms ?? 0)),
    loopP99MedianMs: median(samples.map((s) => s.loopP99Ms ?? 0)),
    loopMaxMs: Math.max(0, ...samples.map((s) => s.loopMaxMs ?? 0)),
  };
  const client = { cpuPercent: ((x.load.client.user + x.load.client.system) / 1000 / (x.load.t * 1000)) * 100 };

  const failures: string[] = [];
  if (results.length === 0 || words.released === 0) failures.push('no session released a word: the harness checked nothing');
  if (wrongWords.length) {
    failures.push(
      `${wrongWords.length} sessions with wrong words (duplicated ${words.duplicates}, lost ${words.lost}, extra ${words.extra}, out of order ${words.outOfOrder})`,
    );
  }
  if (repeats.seqs || repeats.finals || repeats.unknownTargets) {
    failures.push(
      `replays: ${repeats.seqs} seq handled twice, ${repeats.finals} finals repeated, ${repeats.unknownTargets} unknown batch.replace targets`,
    );
  }
  if (problems.length) failures.push(`${problems.length} protocol problems, first: ${problems.slice(0, 5).join('; ')}`);
  if (x.notStopped.length) failures.push(`places that did not stop: ${x.notStopped.slice(0, 5).join('; ')}`);
  if (rssJudged && growth > MAX_RSS_GROWTH)
    failures.push(`RSS grew ${(growth * 100).toFixed(1)} % after warm-up (limit ${MAX_RSS_GROWTH * 100} %)`);
  if (longEnough && !rssJudged) {
    failures.push(
      gc.length === 0
        ? "RSS not judged: no garbage collection in the service's log (its --trace-gc preload missing)"
        : `RSS not judged: V8 sized the heap only at t = ${warmEnd.toFixed(0)} s, leaving ${heap.majorFirst} and ${heap.majorSecond} major collections in the halves (at least ${MIN_CYCLES} each): a heap that keeps growing (a leak), or a run too short`,
    );
  }
  if (x.after.sessions || x.after.connections)
    failures.push(`left in the service: ${x.after.sessions} sessions, ${x.after.connections} connections`);
  if (x.after.fds > x.before.fds) failures.push(`descriptors: ${x.before.fds} before, ${x.after.fds} after`);
  if (x.after.above.length) failures.push(`active handles above the baseline: ${x.after.above.join(', ')}`);
  if (x.lag.p99Ms > x.limits.maxLagP99Ms || x.lag.maxMs > x.limits.maxLagMs) {
    failures.push(
      `the client did not keep real time: tick lag p99 ${x.lag.p99Ms.toFixed(0)} ms (limit ${x.limits.maxLagP99Ms}), max ${x.lag.maxMs.toFixed(0)} ms (limit ${x.limits.maxLagMs})`,
    );
  }
  return {
    ...opts,
    generations: { total: results.length, stopped: count('stopped'), revoked: count('revoked'), broken: count('broken') },
    actions: { ...x.actions, sessionsOpened: slotSum('sessions'), retries: slotSum('retries') },
    live,
    stateTimes,
    opening,
    words,
    repeats,
    problems: problems.slice(0, 50),
    problemCount: problems.length,
    rss: {
      beforeSessions: x.before.rss,
      afterWarmup: rssAfterWarmup,
      end: rssEnd,
      afterStop: x.after.rss,
      growth,
      judged: rssJudged,
      warmupEndS: warmEnd,
      min: Math.min(...steadyRss),
      max: Math.max(...steadyRss),
    },
    heap,
    allocation,
    fds: { before: x.before.fds, peak: Math.max(0, ...samples.map((s) => s.fds)), after: x.after.fds },
    resources: { before: x.before.resources, after: x.after.resources, above: x.after.above },
    left: { sessions: x.after.sessions, connections: x.after.connections },
    lag: x.lag,
    limits: x.limits,
    service,
    client,
    loadAverage: os.loadavg(),
    failures,
    ok: failures.length === 0,
    samples,
  };
}

const ms = (t: { meanMs: number } | undefined): string => `${(t?.meanMs ?? 0).toFixed(0)} ms`;
const mib = (b: number): string => (b / 2 ** 20).toFixed(1);

/** The body of docs/benchmarks.md's "Soak" section. */
export function markdown(r: SoakReport, loadAtStart: number[]): string {
  const pct = (v: number): string => `${v >= 0 ? '+' : ''}${(v * 100).toFixed(1)} %`;
  const rows: Array<[string, string]> = [
    [
      'sessions (places), duration',
      `${r.sessions} concurrent real-time sessions, ${r.durationS} s (warm-up ${r.warmupS} s), seed ${r.seed}`,
    ],
    [
      'sessions checked',
      `${r.generations.total}: ${r.generations.stopped} stopped, ${r.generations.revoked} revoked, ${r.generations.broken} broken`,
    ],
    [
      'sessions live (sending audio) after warm-up',
      `mean ${r.live.mean.toFixed(0)}, min ${r.live.min}, max ${r.live.max} (the others between a drop and its resume, stopping, or opening the next)`,
    ],
    [
      'mean time to open a session, resume, stop, revoke; pause between sessions',
      `${ms(r.stateTimes.connecting)}, ${ms(r.stateTimes.reconnecting)}, ${ms(r.stateTimes.stopping)}, ${ms(r.stateTimes.revoking)}; ${ms(r.stateTimes.idle)} (a socket: handshake ${r.opening.handshakeMs.toFixed(0)} ms, then \`configured\` ${r.opening.configureMs.toFixed(0)} ms)`,
    ],
    [
      'actions mixed in',
      `${r.actions.reconnect} drops and resumes, ${r.actions.stop} clean stops, ${r.actions.revoke} revocations; ${r.actions.retries} sockets given up after 20 s without \`configured\` and opened again`,
    ],
    ['words released / received', `${r.words.released} / ${r.words.received}`],
    ['duplicated, lost, extra, out of order', `${r.words.duplicates}, ${r.words.lost}, ${r.words.extra}, ${r.words.outOfOrder}`],
    ['protocol problems, replayed seq handled twice', `${r.problemCount}, ${r.repeats.seqs}`],
    [
      'service RSS',
      `${mib(r.rss.beforeSessions)} MiB before the sessions; peak ${mib(r.rss.afterWarmup)} MiB in the first half after warm-up (t = ${r.rss.warmupEndS.toFixed(0)} s), ${mib(r.rss.end)} MiB in the second: **${pct(r.rss.growth)}**${r.rss.judged ? '' : ' (not judged)'} (samples after warm-up between ${mib(r.rss.min)} and ${mib(r.rss.max)} MiB); ${mib(r.rss.afterStop)} MiB once every session stopped`,
    ],
    [
      'service heap: V8 sizing it for the load',
      r.heap.sizedAtS === undefined
        ? 'no collection in the trace'
        : `committed ${mib(r.heap.committedAtSized)} MiB at t = ${r.heap.sizedAtS.toFixed(0)} s, at most ${mib(r.heap.committedMax)} MiB; ${r.heap.collections} collections, ${r.heap.majorFirst} and ${r.heap.majorSecond} major ones in the halves`,
    ],
    [
      'service JavaScript heap in use (not judged)',
      `peak ${mib(r.heap.afterWarmup)} MiB in the first half, ${mib(r.heap.end)} MiB in the second (${pct(r.heap.afterWarmup ? (r.heap.end - r.heap.afterWarmup) / r.heap.afterWarmup : 0)}); its floor (least live after a major collection) ${mib(r.heap.floorFirst)} MiB, then ${mib(r.heap.floorSecond)} MiB`,
    ],
    [
      'service heap allocation (after the fixed warm-up)',
      `${r.allocation.mbPerS.toFixed(2)} MB/s, ${r.allocation.kbPerSessionSecond.toFixed(1)} kB per session-second`,
    ],
    ['service descriptors', `${r.fds.before} before, ${r.fds.peak} at the peak, ${r.fds.after} after every session stopped`],
    ['service active handles', `before ${fmtResources(r.resources.before)}; after ${fmtResources(r.resources.after)}`],
    ['sessions, connections left', `${r.left.sessions}, ${r.left.connections}`],
    [
      'service CPU',
      `${r.service.cpuPercent.toFixed(0)} % of a core (${r.service.cpuMsPerSessionSecond.toFixed(3)} ms per session-second); event-loop delay p99 ${r.service.loopP99MedianMs} ms (median of the samples), at most ${r.service.loopP99MaxMs} ms; longest delay ${r.service.loopMaxMs} ms`,
    ],
    [
      'client (one process, one timer)',
      `${r.client.cpuPercent.toFixed(0)} % of a core; tick lag mean ${r.lag.meanMs.toFixed(1)} ms, p99 ${r.lag.p99Ms.toFixed(0)} ms, max ${r.lag.maxMs.toFixed(0)} ms`,
    ],
    [
      'machine load (1 min)',
      `${loadAtStart[0]!.toFixed(1)} at the start, ${r.loadAverage[0]!.toFixed(1)} at the end (${os.cpus().length} cores)`,
    ],
  ];
  return [
    '`npm run soak` (`test/fuzz/soak.ts`): the built service (`node dist/server.js`, simulated engine: **the',
    "service's own cost, without speech recognition**) in its own process; one client process holds N places, each",
    'dictating session after session at real-time pace (16 kHz PCM, 100 ms frames every 100 ms from one timer for all',
    'sessions; a loop of 1.2 s of tone and 1.3 s of silence, so sentences end and are proofread). At seeded random',
    "moments a live session is dropped (socket destroyed) and resumed with its last `seq` and the service's",
    '`resume_audio_offset`, stopped cleanly, or has its key revoked through the API (its pending text must come as',
    'finals, then `AUTH_ERROR`, close 4001; the place gets a new key); a new session follows each end. Every',
    "session's final text (finals and `batch.replace` applied) is compared with the words the engine released for",
    'the audio the service accounted for (the segmenter run locally on the same frames): each word once and in',
    'order. The service is sampled from outside: RSS (`/proc/PID/status`), descriptors (`/proc/PID/fd`), CPU',
    '(`/proc/PID/stat`), and `GET /v1/status` (sessions, connections, event-loop delay, `active_resources`). RSS',
    "growth: the peak of the second half of the load after warm-up against the first half's (limit 5 %). Warm-up",
    "lasts the fixed time in the table's first row and until V8 has sized its heap for the load: the heap's committed",
    "size after a major collection (from `--trace-gc` in the service's process) within 5 % of the largest a major",
    'collection leaves during the load; while V8 sizes the heap, RSS follows it up. Each half must hold at least 2 major collections',
    '(a whole GC cycle); a heap that keeps growing (a leak) is sized late or never, and then the check fails. The',
    "heap's allocation is read from the same trace (the heap's growth between collections). Once every session",
    'has stopped and the service has forgotten them (stopped sessions are kept',
    `${r.ttlS} s here instead of 5 min, dropped ones 60 s instead of 30), descriptors and active handles must be back at the baseline taken`,
    'after one warm-up session.',
    '',
    '| | |',
    '|---|---|',
    ...rows.map(([k, v]) => `| ${k} | ${v} |`),
    '',
    r.ok ? '**Every check passed.**' : `**Checks failed:** ${r.failures.join('; ')}`,
    '',
  ].join('\n');
}

function fmtResources(r: Record<string, number>): string {
  return (
    Object.entries(r)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k} ${v}`)
      .join(', ') || 'none'
  );
}
