/**
 * `GET /v1/usage` over 1,000,000 sessions on PostgreSQL (the target: under 200 ms for 30 days): a database
 * (started by test/helpers/backends.ts) seeded by `generate_series` with 1 M ended session records over 35
 * days, 200 keys in 20 projects, 2 % of them ended by an error; the daily rollup built from them as the
 * migration builds it for an upgraded database; then the BUILT service answers `GET /v1/usage` (by key,
 * project and day) and `GET /v1/sessions` over HTTP, each timed 20 times. The baseline: the same sums read
 * from the session records themselves (what the rollup spares), in the same database.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { prepareDatabase } from '../src/server/storage/pg/migrations';
import { seedPostgresKeysAndSessions } from './dashboardSeed';
import { startPostgres } from '../test/helpers/backends';
import { startServer } from '../test/helpers/server';

const SESSIONS = Number(process.env.DICTEE_BENCH_USAGE_SESSIONS ?? '') || 1_000_000;
const KEYS = 200;
const RUNS = 20;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p95 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)]!;

async function timed(runs: number, f: () => Promise<unknown>): Promise<number[]> {
  await f(); // warm-up
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await f();
    out.push(performance.now() - t0);
  }
  return out;
}

export async function run(): Promise<{ title: string; markdown: string }> {
  const server = await startPostgres();
  const masterKey = `master_${randomBytes(24).toString('base64url')}`;
  try {
    const url = await server.createDatabase('usage_bench');
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const { orgId } = await prepareDatabase(pool, { key: masterKey, source: 'DICTEE_MASTER_KEY' }, () => undefined);
    const t0 = performance.now();
    await seedPostgresKeysAndSessions(pool, orgId, { keys: KEYS, activeKeys: KEYS, sessions: SESSIONS });
    const seedS = (performance.now() - t0) / 1000;
    const rollupRows = Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM usage_daily')).rows[0]!.n);
    console.log(`  seeded ${SESSIONS} sessions in ${seedS.toFixed(1)} s; rollup rows: ${rollupRows}`);
    const since = new Date(Date.now() - 30 * 86_400_000).toISOString();
    const baseline = await timed(5, () =>
      pool.query(
        'SELECT key_id, end_reason, count(*), sum(audio_seconds) FROM sessions WHERE org_id = $1 AND created_at >= $2 GROUP BY 1, 2',
        [orgId, since],
      ),
    );
    await pool.end();
    const service = await startServer({ args: ['--database', url], env: { DICTEE_MASTER_KEY: masterKey } });
    const rows: string[] = [];
    const results: Record<string, number[]> = {};
    try {
      for (const path of ['/v1/usage?group_by=key', '/v1/usage?group_by=project', '/v1/usage?group_by=day', '/v1/sessions?limit=100']) {
        let lines = 0;
        results[path] = await timed(RUNS, async () => {
          const res = await fetch(`${service.url}${path}`, { headers: { authorization: `Bearer ${masterKey}` } });
          const body = (await res.json()) as { usage?: unknown[]; sessions?: unknown[] };
          if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status}`);
          lines = (body.usage ?? body.sessions ?? []).length;
        });
        const r = results[path];
        rows.push(`| \`GET ${path}\` | ${lines} | ${median(r).toFixed(1)} | ${p95(r).toFixed(1)} |`);
        console.log(`  ${path}: median ${median(r).toFixed(1)} ms, p95 ${p95(r).toFixed(1)} ms (${lines} lines)`);
      }
    } finally {
      await service.stop();
    }
    const byKey = median(results['/v1/usage?group_by=key']!);
    const base = median(baseline);
    return {
      title: 'Usage over a million sessions (PostgreSQL)',
      markdown: [
        `${SESSIONS.toLocaleString('en')} ended session records over 35 days (${KEYS} keys in 20 projects, 2 % ended by an error),`,
        `seeded with \`generate_series\` in ${seedS.toFixed(1)} s; the daily rollup (\`usage_daily\`, kept by a trigger as sessions end) built`,
        `from them in one statement as migration 4 does: ${rollupRows} rows. Each request over HTTP to the built service, the master`,
        `key, the default period (the last 30 days); ${RUNS} runs after a warm-up.`,
        '',
        '| request | lines | median ms | p95 ms |',
        '|---|---|---|---|',
        ...rows,
        '',
        `Baseline: the same sums read from the session records (\`GROUP BY\` over the month's rows, no rollup), in the same`,
        `database: median ${base.toFixed(1)} ms.`,
        '',
        `**\`GET /v1/usage\` by key over 30 days of ${SESSIONS.toLocaleString('en')} sessions: median ${byKey.toFixed(1)} ms (target < 200 ms);`,
        `the records' own sums ${base.toFixed(1)} ms (ratio ${(base / byKey).toFixed(1)}).**`,
      ].join('\n'),
    };
  } finally {
    await server.destroy();
  }
}
