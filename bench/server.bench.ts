/**
 * Capacity of one service process: how many concurrent real-time sessions (100 ms frames of 16 kHz
 * speech, each client on a real-time clock) it holds with p99 frame-to-event latency under 50 ms,
 * beside a bare `ws` echo server under the same load in the same run; plus the SQLite cost of
 * persisting one final event.
 *
 * Frame-to-event latency, precisely: the segmenter is deterministic, so running it locally on the
 * same frames tells which frame causes each event (the k-th event of a session is caused by the frame
 * after which the local segmenter has produced k events). Latency = time the event is received −
 * time that frame was handed to `ws.send`. For the echo server, the event is the echo of each frame.
 * Clients run in a child process, so they do not share the server's event loop (they do share the
 * machine's cores, as a real deployment's network stack would not).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { resolveConfig } from '../src/protocol';
import { SqliteStore } from '../src/server/db';
import { SimulatedEngine } from '../src/server/engine/simulated';
import { Segmenter } from '../src/server/segmenter';
import { framesOf, silence, speechPcm } from '../test/helpers/speech';

/** Up to where both the service and the echo server fail; `DICTEE_BENCH_STEPS=100,1600` runs other steps. */
const STEPS = process.env.DICTEE_BENCH_STEPS !== undefined ? process.env.DICTEE_BENCH_STEPS.split(',').filter(Boolean).map(Number) : [10, 50, 100, 200, 400, 800, 1200, 1600, 2000, 2500, 3000, 3500, 4000, 5000];
/** `DICTEE_BENCH_CPU_PROF=DIR`: the service runs under `node --cpu-prof` and writes its profile to DIR. */
const CPU_PROF_DIR = process.env.DICTEE_BENCH_CPU_PROF;
/**
 * The CPU cost per session: the server's CPU time per second of audio at this many sessions, in rounds
 * alternating service and echo after one warm-up round each (`DICTEE_BENCH_COST_SESSIONS`).
 */
const COST_SESSIONS = Number(process.env.DICTEE_BENCH_COST_SESSIONS ?? '') || 400;
const COST_ROUNDS = 5;
/** `DICTEE_BENCH_ONLY=service|echo`: step one target alone (for profiling). */
const ONLY = process.env.DICTEE_BENCH_ONLY;
const STEP_SECONDS = 4;
const WARMUP_MS = 1000;
export const P99_LIMIT_MS = 50;
const CONFIG = { language: 'en' as const, engine_endpointing: 0.5, silence_threshold: 1, flush_timeout: 3 };

export interface StepResult {
  sessions: number;
  events: number;
  p50: number;
  p99: number;
  max: number;
  missing: number;
  errors: number;
  /** 1-minute load average of the machine when the step started (other work skews the result). */
  load?: number;
  attempts?: number;
  /**
   * CPU ms the server process used per session per second of audio, from the first frame to the last
   * event (session setup and teardown not counted; Linux).
   */
  cpuMsPerSessionSecond?: number;
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); undefined elsewhere. */
export function cpuSecondsOf(pid: number | undefined): number | undefined {
  if (pid === undefined || process.platform !== 'linux') return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

// ====================================================================== client (child process)

interface ClientJob {
  mode: 'service' | 'echo';
  url: string;
  /** Several instances: sessions go to these in turn (instead of `url`). */
  urls?: string[];
  key?: string;
  sessions: number;
  seconds: number;
}

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function speechFrames(seconds: number): Promise<Buffer[]> {
  const one = Buffer.concat([
    await speechPcm('The left ventricle is normal in size, with an estimated ejection fraction of sixty percent.'),
    silence(700),
    await speechPcm('No pericardial effusion. Continue the current treatment.'),
    silence(1200),
  ]);
  const frames: Buffer[] = [];
  const need = seconds * 10;
  while (frames.length < need) frames.push(...framesOf(one).filter((f) => f.length === 3200));
  return frames.slice(0, need);
}

/** For each frame, how many events the service emits after it (the deterministic segmenter, run locally). */
function eventsPerFrame(frames: Buffer[]): number[] {
  const cfg = resolveConfig(CONFIG);
  const seg = new Segmenter(cfg, new SimulatedEngine().create(cfg));
  return frames.map((f) => seg.push(f).length);
}

async function runClients(job: ClientJob): Promise<StepResult> {
  const frames = await speechFrames(job.seconds);
  const perFrame = job.mode === 'service' ? eventsPerFrame(frames) : frames.map(() => 1);
  // causeOf[k] = frame index of the (k+1)-th event.
  const causeOf: number[] = [];
  perFrame.forEach((n, i) => {
    for (let j = 0; j < n; j++) causeOf.push(i);
  });
  const latencies: number[] = [];
  let errors = 0;
  let received = 0;
  let t0 = Number.POSITIVE_INFINITY;
  const clients: Array<{ ws: WebSocket; sent: number[]; got: number; offset: number }> = [];
  await Promise.all(
    Array.from({ length: job.sessions }, async (_, i) => {
      const ws = new WebSocket(job.urls?.[i % job.urls.length] ?? job.url, job.key ? { headers: { authorization: `Bearer ${job.key}` } } : {});
      const c = { ws, sent: [] as number[], got: 0, offset: Math.random() * 100 };
      clients.push(c);
      await new Promise<void>((resolve, reject) => {
        ws.once('error', reject);
        ws.once('open', () => resolve());
      });
      if (job.mode === 'service') {
        ws.send(JSON.stringify({ type: 'configure', config: CONFIG }));
        await new Promise<void>((resolve, reject) => {
          ws.once('message', (d) => {
            const m = JSON.parse(String(d)) as { type: string };
            if (m.type === 'configured') resolve();
            else reject(new Error(String(d)));
          });
        });
      }
      ws.on('message', (d, isBinary) => {
        const now = performance.now();
        if (job.mode === 'echo') {
          if (!isBinary) return;
          const k = c.got++;
          if (c.sent[k] !== undefined && c.sent[k]! - t0 >= WARMUP_MS) latencies.push(now - c.sent[k]!);
          received++;
          return;
        }
        const m = JSON.parse(String(d)) as { type: string };
        if (m.type === 'error') {
          errors++;
          return;
        }
        if (m.type !== 'transcript' && m.type !== 'batch.replace') return;
        const k = c.got++;
        received++;
        const frame = causeOf[k];
        const sentAt = frame === undefined ? undefined : c.sent[frame];
        if (sentAt !== undefined && sentAt - t0 >= WARMUP_MS) latencies.push(now - sentAt);
      });
      ws.on('error', () => {
        errors++;
      });
    }),
  );
  // Real-time clock: frame i of client c is due at t0 + offset_c + 100 ms × i.
  t0 = performance.now() + 50;
  // The parent reads the server's CPU time from here to the last frame (session setup is not counted).
  process.stdout.write('streaming\n');
  await new Promise<void>((resolve) => {
    const tick = (): void => {
      const now = performance.now();
      let pending = false;
      for (const c of clients) {
        while (c.sent.length < frames.length && t0 + c.offset + c.sent.length * 100 <= now) {
          c.sent.push(performance.now());
          c.ws.send(frames[c.sent.length - 1]!);
        }
        if (c.sent.length < frames.length) pending = true;
      }
      if (pending) setTimeout(tick, 2);
      else resolve();
    };
    tick();
  });
  await new Promise((r) => setTimeout(r, 600));
  // Every event has arrived (or is missing): the server's CPU time is read here, before the teardown.
  process.stdout.write('sent\n');
  // The teardown waits until the parent has read the server's CPU time (a line on stdin).
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 5000);
    process.stdin.once('data', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  process.stdin.destroy();
  const counted = received;
  if (job.mode === 'service') {
    // Each dictation ends with a stop, as in use. Sockets cut instead would leave resumable sessions whose
    // flush timers all fire together (flush_timeout later) in the next step: a burst no real use makes.
    const stopped = clients.map(
      (c) =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 15_000);
          c.ws.on('message', (d, isBinary) => {
            if (!isBinary && String(d).includes('"state":"stopped"')) {
              clearTimeout(timer);
              resolve();
            }
          });
          c.ws.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
          c.ws.send(JSON.stringify({ type: 'control', action: 'stop' }));
        }),
    );
    await Promise.all(stopped);
  }
  for (const c of clients) c.ws.terminate();
  received = counted;
  const expected = job.mode === 'service' ? causeOf.length * job.sessions : frames.length * job.sessions;
  latencies.sort((a, b) => a - b);
  return {
    sessions: job.sessions,
    events: received,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies[latencies.length - 1] ?? NaN,
    missing: Math.max(0, expected - received),
    errors,
  };
}

// ====================================================================== orchestration

export function spawnLine(args: string[], env: NodeJS.ProcessEnv, re: RegExp): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = re.exec(out);
      if (m) resolve({ child, match: m });
    });
    child.stderr!.resume();
    child.once('exit', (code) => reject(new Error(`child exited (${code}) before ready: ${out}`)));
  });
}

/** Runs the clients of one step; `serverPid`: the server whose CPU time is read while the frames are sent. */
function runClientChild(job: ClientJob, serverPid?: number): Promise<StepResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', __filename, 'bench-client', JSON.stringify(job)], { stdio: ['pipe', 'pipe', 'inherit'] });
    child.stdin.on('error', () => undefined); // the child stopped waiting for it
    let out = '';
    let cpu0: number | undefined;
    let cpu1: number | undefined;
    let wall0 = 0;
    let wall1 = 0;
    child.stdout.on('data', (d: Buffer) => {
      const before = out.length;
      out += d.toString();
      const fresh = out.slice(Math.max(0, before - 10));
      if (cpu0 === undefined && fresh.includes('streaming\n')) [cpu0, wall0] = [cpuSecondsOf(serverPid), performance.now()];
      if (cpu1 === undefined && fresh.includes('sent\n')) {
        [cpu1, wall1] = [cpuSecondsOf(serverPid), performance.now()];
        child.stdin.end('read\n');
      }
    });
    child.once('exit', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      try {
        const r = JSON.parse(line) as StepResult;
        // Per second of audio streamed (not of wall time): a server that falls behind still does all the work.
        if (cpu0 !== undefined && cpu1 !== undefined && wall1 > wall0) r.cpuMsPerSessionSecond = ((cpu1 - cpu0) * 1000) / (job.sessions * job.seconds);
        resolve(r);
      } catch {
        reject(new Error(`client child failed (${code}): ${out}`));
      }
    });
  });
}

export const fmt = (n: number): string => (Number.isFinite(n) ? n.toFixed(1) : '–');

/** The steps of one target as a Markdown table. */
export function stepsTable(steps: StepResult[]): string[] {
  return [
    '| sessions | events received | p50 ms | p99 ms | max ms | missing | errors | server CPU ms per session-second | load avg at start | attempt |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...steps.map(
      (s) =>
        `| ${s.sessions} | ${s.events} | ${fmt(s.p50)} | ${fmt(s.p99)} | ${fmt(s.max)} | ${s.missing} | ${s.errors} | ${s.cpuMsPerSessionSecond?.toFixed(3) ?? '–'} | ${fmt(s.load ?? NaN)} | ${s.attempts ?? 1} |`,
    ),
  ];
}

export interface Target {
  mode: 'service' | 'echo';
  url: string;
  urls?: string[];
  key?: string;
  steps: StepResult[];
  capacity: number;
  done: boolean;
  pid?: number;
}

const passes = (r: StepResult): boolean => r.p99 < P99_LIMIT_MS && r.missing === 0 && r.errors === 0;

/** One step of one target: a failing step is run once more and the better attempt counts. */
async function step(t: Target, n: number): Promise<void> {
  let r: StepResult | undefined;
  // Other work on a shared machine causes latency spikes that are not the server's.
  for (let attempt = 1; attempt <= 2 && !(r && passes(r)); attempt++) {
    const load = os.loadavg()[0]!;
    const a: StepResult = { ...(await runClientChild({ mode: t.mode, url: t.url, urls: t.urls, key: t.key, sessions: n, seconds: STEP_SECONDS }, t.pid)), load, attempts: attempt };
    const cpu = a.cpuMsPerSessionSecond === undefined ? '' : `, server CPU ${a.cpuMsPerSessionSecond.toFixed(2)} ms per session-second`;
    console.log(`  ${t.mode} ${n} sessions (attempt ${attempt}): p50 ${a.p50.toFixed(1)} ms, p99 ${a.p99.toFixed(1)} ms, missing ${a.missing}, errors ${a.errors}, load ${load.toFixed(1)}${cpu}`);
    if (!r || passes(a) || a.p99 < r.p99) r = a;
  }
  t.steps.push(r!);
  if (passes(r!)) t.capacity = n;
  else t.done = true;
}

/** Steps both targets up in alternation (service n, echo n, service next n, …), so both see the same machine load. */
export async function capacities(targets: Target[], steps: number[] = STEPS): Promise<void> {
  for (const n of steps) {
    for (const t of targets) if (!t.done) await step(t, n);
    if (targets.every((t) => t.done)) break;
  }
}

interface Cost {
  service: number[];
  echo: number[];
}

/**
 * CPU ms per session-second of each server, measured by the kernel (not by latency, so other work on
 * the machine moves it little): the cost that sets how many sessions one core holds.
 */
async function cpuCost(targets: Target[]): Promise<Cost> {
  const out: Cost = { service: [], echo: [] };
  for (let round = 0; round <= COST_ROUNDS; round++) {
    for (const t of targets) {
      const r = await runClientChild({ mode: t.mode, url: t.url, key: t.key, sessions: COST_SESSIONS, seconds: STEP_SECONDS }, t.pid);
      if (r.cpuMsPerSessionSecond === undefined) return out; // not Linux
      console.log(`  cost ${t.mode} ${COST_SESSIONS} sessions (${round === 0 ? 'warm-up' : `round ${round}`}): ${r.cpuMsPerSessionSecond.toFixed(3)} CPU ms per session-second, p99 ${r.p99.toFixed(1)} ms`);
      if (round > 0) out[t.mode].push(r.cpuMsPerSessionSecond);
    }
  }
  return out;
}

function persistCost(): { durableUs: number; memoryUs: number } {
  const measure = (dir: string | undefined): number => {
    const d = dir ?? mkdtempSync(path.join(os.tmpdir(), 'dictee-bench-mem-'));
    const store = new SqliteStore(d);
    if (!dir) store.db.pragma('synchronous = OFF');
    const json = JSON.stringify({ type: 'transcript', status: 'final', text: 'no pleural or pericardial effusion', id: randomBytes(16).toString('hex'), index: 12, seq: 40 });
    const cp = {
      session_id: 's',
      key_id: 'k',
      org_id: 'o',
      next_seq: 0,
      next_index: 13,
      audio_offset: 0,
      engine: JSON.stringify({ audioOffset: 123456, engine: { engine: 'simulated', cursor: 40, voicedMs: 120 }, vad: { noiseFloorDb: -70 }, silenceMs: 0, sentenceEnded: false, nextIndex: 13, sentence: [] }),
      config: JSON.stringify(resolveConfig({})),
      total_frames: 0,
      discarded_frames: 0,
      final_chunks: 0,
      created_at: new Date().toISOString(),
      stopped_at: null,
      updated_at: new Date().toISOString(),
    };
    const n = 3000;
    for (let i = 0; i < 200; i++) store.persistEvent('warm', i, json, { ...cp, session_id: 'warm' });
    const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) store.persistEvent('s', i, json, { ...cp, next_seq: i + 1 });
    const us = Number(process.hrtime.bigint() - t) / 1000 / n;
    void store.close();
    return us;
  };
  // "Memory" baseline: the same statements with synchronous=OFF in a throwaway dir (no durability).
  const durable = measure(mkdtempSync(path.join(os.tmpdir(), 'dictee-bench-db-')));
  const memory = measure(undefined);
  return { durableUs: durable, memoryUs: memory };
}

export async function run(): Promise<{ title: string; markdown: string }> {
  const masterKey = `bench_${randomBytes(16).toString('hex')}`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'dictee-bench-'));
  // `DICTEE_BENCH_SERVER_JS=FILE`: measure another build of the service (e.g. the previous commit's).
  const serverJs = process.env.DICTEE_BENCH_SERVER_JS ?? path.resolve(__dirname, '..', 'dist', 'server.js');
  const env = { ...process.env, DICTEE_MASTER_KEY: masterKey, DICTEE_LOG_LEVEL: 'warn' };
  const svc = await spawnLine(
    [...(CPU_PROF_DIR ? ['--cpu-prof', '--cpu-prof-dir', CPU_PROF_DIR] : []), serverJs, '--port', '0', '--data-dir', dataDir, '--concurrency-limit', '100000', '--rate-limit', '1000000'],
    env,
    /listening on http:\/\/127\.0\.0\.1:(\d+)/,
  );
  const echoSrc = `
    const { WebSocketServer } = require(${JSON.stringify(require.resolve('ws'))});
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
    wss.on('connection', (ws) => ws.on('message', (d, b) => ws.send(d, { binary: b })));
    wss.on('listening', () => console.log('listening on http://127.0.0.1:' + wss.address().port));`;
  const echo = await spawnLine(['-e', echoSrc], env, /listening on http:\/\/127\.0\.0\.1:(\d+)/);
  try {
    const port = svc.match[1]!;
    const res = await fetch(`http://127.0.0.1:${port}/v1/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${masterKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench', type: 'personal' }),
    });
    const { key } = (await res.json()) as { key: string };
    const service: Target = { mode: 'service', url: `ws://127.0.0.1:${port}/api/v1/audio/live`, key, steps: [], capacity: 0, done: false, pid: svc.child.pid };
    const baseline: Target = { mode: 'echo', url: `ws://127.0.0.1:${echo.match[1]!}`, steps: [], capacity: 0, done: false, pid: echo.child.pid };
    await capacities([service, baseline].filter((t) => !ONLY || t.mode === ONLY));
    const cost = await cpuCost([service, baseline]);
    const persist = persistCost();
    const table = stepsTable;
    const median = (xs: number[]): number => {
      const ys = [...xs].sort((a, b) => a - b);
      return ys.length ? (ys[(ys.length - 1) >> 1]! + ys[ys.length >> 1]!) / 2 : NaN;
    };
    const costService = median(cost.service);
    const costEcho = median(cost.echo);
    const costLines = cost.service.length
      ? [
          `CPU cost, measured by the kernel (\`/proc/PID/stat\`, user + system) from the first frame to the last event, per session`,
          `and second of audio, at ${COST_SESSIONS} sessions, ${COST_ROUNDS} rounds alternating the two servers after a warm-up round each: other`,
          'work on the machine moves it much less than it moves tail latencies. When the server process is what saturates a core,',
          'the sessions it holds are inversely proportional to it.',
          '',
          `**Service ${costService.toFixed(3)} CPU ms per session-second (rounds: ${cost.service.map((x) => x.toFixed(3)).join(', ')}); echo ${costEcho.toFixed(3)}`,
          `(${cost.echo.map((x) => x.toFixed(3)).join(', ')}). Ratio echo / service: ${(costEcho / costService).toFixed(2)}.**`,
          '',
        ]
      : [];
    const capText = (c: number): string => (c === STEPS[STEPS.length - 1] ? `≥ ${c}` : String(c));
    const ratio = baseline.capacity > 0 ? (service.capacity / baseline.capacity).toFixed(2) : 'n/a';
    // When both reach the same step, their p99 there is the finer comparison.
    const common = [...service.steps].reverse().find((st) => baseline.steps.some((b) => b.sessions === st.sessions));
    const commonBase = common ? baseline.steps.find((b) => b.sessions === common.sessions) : undefined;
    const p99Line =
      common && commonBase
        ? `At ${common.sessions} sessions (the largest step both ran): p99 service ${fmt(common.p99)} ms, echo ${fmt(commonBase.p99)} ms (ratio ${(common.p99 / commonBase.p99).toFixed(2)}).`
        : '';
    const markdown = [
      `Concurrent real-time sessions one process holds with p99 frame-to-event latency < ${P99_LIMIT_MS} ms (and no event missing,`,
      `no error). Each session streams ${STEP_SECONDS} s of espeak speech as 3200-byte frames (100 ms at 16 kHz) on a real-time`,
      `clock; steps ${STEPS.join(', ')}; the first ${WARMUP_MS} ms of each step are not measured. Frame-to-event latency: time from`,
      'handing to `ws.send` the frame that causes a transcript/batch.replace event (known exactly by running the deterministic',
      'segmenter locally on the same frames) to receiving that event. Baseline: a bare `ws` echo server, in its own process, under',
      'the same load; its event is the echo of each frame. Clients run in a separate process on the same machine. A failing',
      'step is run once more (the better attempt is shown); stepping stops at the first step that fails twice. The two',
      'targets are stepped in alternation (service n, echo n, then the next n) so both see the same load. The load',
      `average column shows other work on the machine (${os.cpus().length} cores): a`,
      'load above the core count makes tail latencies, and so the capacities, lower than on an idle machine.',
      '',
      `**Service capacity: ${capText(service.capacity)} sessions. Echo baseline: ${capText(baseline.capacity)} sessions. Ratio service / echo: ${ratio}.**`,
      '',
      p99Line,
      '',
      ...costLines,
      'Reading the ratio: the echo server does no work per frame but sends the whole 3200-byte frame back (10 events per',
      'session per second, twice the bytes on the loopback); the service analyses every frame (VAD on five 20 ms windows,',
      'the segmenter, a synchronous SQLite write per final) and answers only the frames that cause an event (about 3 per',
      'session per second, ~200 bytes each). Clients and servers share the cores, so results move with other work on the',
      'machine; compare ratios, not absolute numbers, across machines.',
      '',
      'Service (simulated engine, SQLite persistence of every final):',
      '',
      ...table(service.steps),
      '',
      'Bare `ws` echo server:',
      '',
      ...table(baseline.steps),
      '',
      `SQLite persist cost per final event (event row + checkpoint upsert, one transaction, WAL, synchronous=NORMAL): ` +
        `**${persist.durableUs.toFixed(1)} µs**; the same statements with synchronous=OFF: ${persist.memoryUs.toFixed(1)} µs ` +
        `(ratio ${(persist.durableUs / persist.memoryUs).toFixed(2)}). A 100 ms frame budget holds ${Math.floor(100_000 / persist.durableUs)} such writes.`,
    ].join('\n');
    return { title: 'Live Transcription Service: concurrent real-time sessions', markdown };
  } finally {
    const exited = new Promise((r) => svc.child.once('exit', r));
    svc.child.kill('SIGTERM');
    echo.child.kill('SIGTERM');
    await exited; // a --cpu-prof profile is written as the service exits
  }
}

if (process.argv[2] === 'bench-client' && require.main === module) {
  runClients(JSON.parse(process.argv[3]!) as ClientJob).then(
    (r) => {
      process.stdout.write(JSON.stringify(r) + '\n');
      process.exit(0);
    },
    (e: unknown) => {
      process.stderr.write(String((e as Error).stack ?? e) + '\n');
      process.exit(1);
    },
  );
}
