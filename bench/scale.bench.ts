/**
 * Several instances on PostgreSQL and Redis, each measured beside its baseline in the same run:
 *
 * 1. the cost of a final: PostgreSQL (the journal: the time until the final is durable and may be sent,
 *    one session at a time and 50 at once) beside SQLite (a synchronous write, durable when it returns);
 *    and what PostgreSQL does per final (transactions, rows), read from its statistics;
 * 2. session start latency (WebSocket open → `configured`) with the limits in Redis beside in-process
 *    (both on PostgreSQL), and the Redis commands a session start costs and a live session costs per second;
 * 3. concurrent real-time sessions two instances hold beside one (the method of server.bench.ts).
 *
 * PostgreSQL and Redis are Debian's, started here in temporary directories (test/helpers/backends.ts), with
 * their default durability (fsync on, synchronous_commit on).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import WebSocket from 'ws';
import { resolveConfig } from '../src/protocol';
import { createLogger } from '../src/server/log';
import { SqliteStore } from '../src/server/storage/db';
import { openPool } from '../src/server/storage/pg/connect';
import { prepareDatabase } from '../src/server/storage/pg/migrations';
import { PgStore } from '../src/server/storage/pg/store';
import type { CheckpointRow } from '../src/server/storage/stores';
import { type TestPostgres, type TestRedis, startPostgres, startRedis } from '../test/helpers/backends';
import { P99_LIMIT_MS, type Target, capacities, fmt, spawnLine, stepsTable } from './server.bench';

const SERVER_JS = path.resolve(__dirname, '..', 'dist', 'server.js');

function checkpoint(sessionId: string, seq: number): CheckpointRow {
  const now = new Date().toISOString();
  return {
    session_id: sessionId,
    key_id: 'key_bench',
    org_id: 'org_bench',
    next_seq: seq + 1,
    next_index: seq,
    audio_offset: seq * 32000,
    engine: JSON.stringify({
      audioOffset: seq * 32000,
      engine: { engine: 'simulated', cursor: seq * 8, voicedMs: 120 },
      vad: { noiseFloorDb: -70 },
      silenceMs: 0,
      sentenceEnded: false,
      nextIndex: seq,
      sentence: [],
    }),
    config: JSON.stringify(resolveConfig({})),
    total_frames: seq * 10,
    discarded_frames: 0,
    final_chunks: seq,
    created_at: now,
    stopped_at: null,
    updated_at: now,
  };
}

const finalJson = (seq: number): string =>
  JSON.stringify({
    type: 'transcript',
    status: 'final',
    text: 'no pleural or pericardial effusion',
    id: randomBytes(16).toString('hex'),
    index: seq,
    seq,
  });

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

// ====================================================================== 1. cost per final

interface FinalCost {
  sqliteUs: number;
  pgSerialUs: number;
  pgSerialP99Us: number;
  pgParallelUs: number;
  parallelSessions: number;
  xactPerFinal: number;
  rowsPerFinal: number;
}

export async function costPerFinal(pgServer: TestPostgres): Promise<FinalCost> {
  const N = 1000;
  // SQLite: one final of one session on its own: the journal's transaction written at once (WAL,
  // synchronous=NORMAL), durable when it returns. (Finals of many sessions at once share a transaction.)
  const sqlite = new SqliteStore(mkdtempSync(path.join(os.tmpdir(), 'dictee-bench-scale-')));
  const sqliteFinal = (sid: string, seq: number): void => {
    sqlite.persistEvent(sid, seq, finalJson(seq), checkpoint(sid, seq));
    sqlite.journal.flush();
  };
  for (let i = 1; i <= 200; i++) sqliteFinal('warm', i);
  let t = performance.now();
  for (let i = 1; i <= N; i++) sqliteFinal('s', i);
  const sqliteUs = ((performance.now() - t) * 1000) / N;
  await sqlite.close();

  const url = await pgServer.createDatabase('bench_finals');
  const pool = await openPool(url);
  const prepared = await prepareDatabase(pool, 'bench-master', () => undefined);
  const store = new PgStore({ pool, orgId: prepared.orgId, instanceId: 'bench', log: createLogger({ level: 'error' }) });
  const durable = async (sid: string, seq: number): Promise<void> => {
    store.persistEvent(sid, seq, finalJson(seq), checkpoint(sid, seq));
    const outcome = await store.pendingWrites(sid);
    if (outcome !== 'durable') throw new Error(`journal write ${outcome}`);
  };
  for (let i = 1; i <= 200; i++) await durable('warm', i);
  // One session: each final waits for its own write (what a client waits for, beyond SQLite).
  const lat: number[] = [];
  for (let i = 1; i <= N; i++) {
    const t0 = performance.now();
    await durable('serial', i);
    lat.push((performance.now() - t0) * 1000);
  }
  lat.sort((a, b) => a - b);
  const pgSerialUs = lat.reduce((a, b) => a + b, 0) / N;
  // 50 sessions at once, each writing its finals in turn: throughput per final, and what the database did.
  const sessions = 50;
  const perSession = 100;
  const stats = async (): Promise<{ xact: number; rows: number }> => {
    const r = await pool.query<{ xact: number; ins: number; upd: number; del: number }>(
      'SELECT xact_commit::float8 AS xact, tup_inserted::float8 AS ins, tup_updated::float8 AS upd, tup_deleted::float8 AS del FROM pg_stat_database WHERE datname = current_database()',
    );
    const s = r.rows[0]!;
    return { xact: s.xact, rows: s.ins + s.upd + s.del };
  };
  await pool.query('SELECT pg_stat_clear_snapshot()');
  const before = await stats();
  t = performance.now();
  await Promise.all(
    Array.from({ length: sessions }, async (_, k) => {
      for (let i = 1; i <= perSession; i++) await durable(`parallel-${k}`, i);
    }),
  );
  const pgParallelUs = ((performance.now() - t) * 1000) / (sessions * perSession);
  // pg_stat_database is updated when a backend reports (at most every 500 ms in PostgreSQL 15): wait for it.
  await new Promise((r) => setTimeout(r, 1500));
  await pool.query('SELECT pg_stat_clear_snapshot()');
  const after = await stats();
  await store.close();
  const finals = sessions * perSession;
  return {
    sqliteUs,
    pgSerialUs,
    pgSerialP99Us: percentile(lat, 99),
    pgParallelUs,
    parallelSessions: sessions,
    xactPerFinal: (after.xact - before.xact) / finals,
    rowsPerFinal: (after.rows - before.rows) / finals,
  };
}

// ====================================================================== 2. session start latency

interface Service {
  url: string;
  wsUrl: string;
  stop(): void;
}

async function startService(args: string[], masterKey: string): Promise<Service> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'dictee-bench-scale-'));
  const s = await spawnLine(
    [SERVER_JS, '--port', '0', '--data-dir', dataDir, '--concurrency-limit', '100000', '--rate-limit', '1000000', ...args],
    { ...process.env, DICTEE_MASTER_KEY: masterKey, DICTEE_LOG_LEVEL: 'warn' },
    /listening on http:\/\/127\.0\.0\.1:(\d+)/,
  );
  const port = s.match[1]!;
  return { url: `http://127.0.0.1:${port}`, wsUrl: `ws://127.0.0.1:${port}/api/v1/audio/live`, stop: () => s.child.kill('SIGTERM') };
}

async function createKey(service: Service, masterKey: string): Promise<string> {
  const res = await fetch(`${service.url}/v1/api-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${masterKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', type: 'personal' }),
  });
  return ((await res.json()) as { key: string }).key;
}

/** One session start: WebSocket open (authorised, rate counted) → configure → `configured` (slot taken, session recorded); then stopped. */
async function sessionStart(wsUrl: string, key: string): Promise<number> {
  const t0 = performance.now();
  const ws = new WebSocket(wsUrl, { headers: { authorization: `Bearer ${key}` } });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  ws.send(JSON.stringify({ type: 'configure', config: {} }));
  await new Promise<void>((resolve, reject) => {
    ws.once('message', (d) =>
      (JSON.parse(String(d)) as { type: string }).type === 'configured' ? resolve() : reject(new Error(String(d))),
    );
  });
  const ms = performance.now() - t0;
  ws.send(JSON.stringify({ type: 'control', action: 'stop' }));
  await new Promise((r) => ws.once('close', r));
  return ms;
}

interface RedisCount {
  /** Commands Redis executed, those inside the Lua scripts included. */
  executed: number;
  /** Requests of the service (scripts and publishes): round trips. */
  requests: number;
}

interface StartLatency {
  name: string;
  p50: number;
  p99: number;
  mean: number;
}

export async function startLatency(
  pgServer: TestPostgres,
  redis: TestRedis,
): Promise<{ rows: StartLatency[]; redisPerStart: RedisCount; redisPerSecondLive: RedisCount; liveSessions: number }> {
  const masterKey = `bench_${randomBytes(24).toString('base64url')}`;
  const sqliteSvc = await startService([], masterKey);
  const pgSvc = await startService(['--database', await pgServer.createDatabase('bench_start_a')], masterKey);
  const redisSvc = await startService(['--database', await pgServer.createDatabase('bench_start_b'), '--redis', redis.url()], masterKey);
  const counter = new Redis(redis.url());
  /** Commands Redis executed (those inside the Lua scripts included; not INFO itself), and the service's requests (scripts, publishes). */
  const commands = async (): Promise<{ executed: number; requests: number }> => {
    const stats = await counter.info('commandstats');
    const calls = (name: string): number => Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
    const executed = [...stats.matchAll(/cmdstat_(\w+):calls=(\d+)/g)].filter((m) => m[1] !== 'info').reduce((n, m) => n + Number(m[2]), 0);
    return { executed, requests: calls('evalsha') + calls('eval') + calls('publish') };
  };
  try {
    const targets: Array<[string, Service]> = [
      ['SQLite, in-process limits', sqliteSvc],
      ['PostgreSQL, in-process limits (baseline)', pgSvc],
      ['PostgreSQL, Redis limits', redisSvc],
    ];
    const keys = await Promise.all(targets.map(([, s]) => createKey(s, masterKey)));
    const samples: number[][] = targets.map(() => []);
    const N = 200;
    for (let i = 0; i < 20; i++) for (let k = 0; k < targets.length; k++) await sessionStart(targets[k]![1].wsUrl, keys[k]!);
    const perStart = { executed: 0, requests: 0 };
    // Interleaved, so that every variant sees the same load.
    for (let i = 0; i < N; i++) {
      for (let k = 0; k < targets.length; k++) {
        const c0 = k === 2 ? await commands() : undefined;
        samples[k]!.push(await sessionStart(targets[k]![1].wsUrl, keys[k]!));
        if (c0) {
          const c1 = await commands();
          perStart.executed += c1.executed - c0.executed;
          perStart.requests += c1.requests - c0.requests;
        }
      }
    }
    const rows = targets.map(([name], k) => {
      const s = samples[k]!.sort((a, b) => a - b);
      return { name, p50: percentile(s, 50), p99: percentile(s, 99), mean: s.reduce((a, b) => a + b, 0) / s.length };
    });
    // A live session's cost per second: 50 sessions held open (lease renewals), commands counted for 5 s.
    const liveSessions = 50;
    const open: WebSocket[] = [];
    for (let i = 0; i < liveSessions; i++) {
      const ws = new WebSocket(redisSvc.wsUrl, { headers: { authorization: `Bearer ${keys[2]!}` } });
      await new Promise<void>((resolve) => ws.once('open', () => resolve()));
      ws.send(JSON.stringify({ type: 'configure', config: {} }));
      await new Promise((r) => ws.once('message', r));
      open.push(ws);
    }
    const c0 = await commands();
    await new Promise((r) => setTimeout(r, 5000));
    const c1 = await commands();
    for (const ws of open) ws.terminate();
    return {
      rows,
      redisPerStart: { executed: perStart.executed / N, requests: perStart.requests / N },
      redisPerSecondLive: { executed: (c1.executed - c0.executed) / 5, requests: (c1.requests - c0.requests) / 5 },
      liveSessions,
    };
  } finally {
    counter.disconnect();
    for (const [, s] of [
      ['', sqliteSvc],
      ['', pgSvc],
      ['', redisSvc],
    ] as Array<[string, Service]>)
      s.stop();
  }
}

// ====================================================================== 3. two instances beside one

const STEPS = [10, 25, 50, 100, 200, 300, 400, 600];

async function twoInstances(pgServer: TestPostgres, redis: TestRedis): Promise<{ one: Target; two: Target }> {
  const masterKey = `bench_${randomBytes(24).toString('base64url')}`;
  const dbOne = await pgServer.createDatabase('bench_cap_one');
  const dbTwo = await pgServer.createDatabase('bench_cap_two');
  const single = await startService(['--database', dbOne, '--redis', redis.url(), '--instance-id', 'one'], masterKey);
  const a = await startService(['--database', dbTwo, '--redis', redis.url(), '--instance-id', 'a'], masterKey);
  const b = await startService(['--database', dbTwo, '--redis', redis.url(), '--instance-id', 'b'], masterKey);
  try {
    const one: Target = {
      mode: 'service',
      url: single.wsUrl,
      key: await createKey(single, masterKey),
      steps: [],
      capacity: 0,
      done: false,
    };
    const two: Target = {
      mode: 'service',
      url: a.wsUrl,
      urls: [a.wsUrl, b.wsUrl],
      key: await createKey(a, masterKey),
      steps: [],
      capacity: 0,
      done: false,
    };
    await capacities([one, two], STEPS);
    return { one, two };
  } finally {
    for (const s of [single, a, b]) s.stop();
  }
}

export async function run(): Promise<{ title: string; markdown: string }> {
  const [pgServer, redis] = await Promise.all([startPostgres(), startRedis()]);
  try {
    const cost = await costPerFinal(pgServer);
    console.log('  cost per final', cost);
    const start = await startLatency(pgServer, redis);
    console.log('  session start', start);
    const cap = await twoInstances(pgServer, redis);
    const us = (n: number): string => n.toFixed(0);
    const capText = (c: number): string => (c === STEPS[STEPS.length - 1] ? `≥ ${c}` : String(c));
    const inProcess = start.rows[1]!;
    const withRedis = start.rows[2]!;
    const markdown = [
      '### Cost of a final: PostgreSQL beside SQLite',
      '',
      'A final is sent once it is durable. SQLite: `persistEvent` and its transaction (event row + checkpoint upsert, WAL,',
      '`synchronous=NORMAL`), written at once: durable when it returns. PostgreSQL 15 on loopback (fsync on,',
      '`synchronous_commit` on): `persistEvent`, then the wait until the journal has written it (one transaction: lock',
      'the checkpoint row, insert the event, upsert the checkpoint). 1000 finals of one session one after the other; then',
      `${cost.parallelSessions} sessions writing at once (the journal batches what queues up meanwhile).`,
      '',
      '| store | µs per final (mean) | p99 µs |',
      '|---|---:|---:|',
      `| SQLite (baseline) | ${us(cost.sqliteUs)} | – |`,
      `| PostgreSQL, one session | ${us(cost.pgSerialUs)} | ${us(cost.pgSerialP99Us)} |`,
      `| PostgreSQL, ${cost.parallelSessions} sessions at once (wall time / finals) | ${us(cost.pgParallelUs)} | – |`,
      '',
      `**Ratio PostgreSQL / SQLite, one session: ${(cost.pgSerialUs / cost.sqliteUs).toFixed(1)}×** (the extra time is what a final waits before it`,
      `is sent). Measured in pg_stat_database over the ${cost.parallelSessions}-session run: **${cost.xactPerFinal.toFixed(2)} transactions and ${cost.rowsPerFinal.toFixed(2)} rows`,
      'written per final** (a transaction can carry several finals of one session when they queue up).',
      '',
      '### Session start: Redis limits beside in-process',
      '',
      'Time from opening the WebSocket (the upgrade authenticates the key and counts it against the rate limit) to',
      'receiving `configured` (a concurrency slot taken, the session recorded); each session is then stopped.',
      `${200} starts per variant after 20 warm-up starts, the variants interleaved so that all see the same load.`,
      '',
      '| variant | p50 ms | p99 ms | mean ms |',
      '|---|---:|---:|---:|',
      ...start.rows.map((r) => `| ${r.name} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${fmt(r.mean)} |`),
      '',
      `**Ratio Redis / in-process (both on PostgreSQL), p50: ${(withRedis.p50 / inProcess.p50).toFixed(2)}×.** Counted by Redis (\`INFO commandstats\`),`,
      `per session start, its stop included: **${start.redisPerStart.requests.toFixed(1)} requests** of the service (Lua scripts: rate, slot,`,
      `release) executing ${start.redisPerStart.executed.toFixed(1)} Redis commands. With ${start.liveSessions} live sessions on one instance and nothing else`,
      `happening: **${start.redisPerSecondLive.requests.toFixed(1)} requests per second** (the lease renewal: one script per organisation and instance`,
      `every second, whatever the number of sessions) executing ${start.redisPerSecondLive.executed.toFixed(1)} commands per second (about two per live session).`,
      '',
      '### Concurrent sessions: two instances beside one',
      '',
      `The method of the first section (p99 frame-to-event latency < ${P99_LIMIT_MS} ms, no event missing, no error), against one`,
      'instance and against two (sessions sent to each in turn), all on the same PostgreSQL and Redis, stepped in alternation.',
      `**On this ${os.cpus().length}-core machine the two instances, PostgreSQL, Redis and the clients all share the same cores, so the ratio says`,
      'little about a deployment where each instance has cores of its own**; the load column shows how busy the machine was.',
      '',
      `**One instance: ${capText(cap.one.capacity)} sessions. Two instances: ${capText(cap.two.capacity)} sessions. Ratio two / one: ${cap.one.capacity ? (cap.two.capacity / cap.one.capacity).toFixed(2) : 'n/a'}.**`,
      '',
      'One instance (PostgreSQL + Redis):',
      '',
      ...stepsTable(cap.one.steps),
      '',
      'Two instances (PostgreSQL + Redis):',
      '',
      ...stepsTable(cap.two.steps),
    ].join('\n');
    return { title: 'Several instances: PostgreSQL, Redis, two instances', markdown };
  } finally {
    await Promise.all([pgServer.destroy(), redis.destroy()]);
  }
}
