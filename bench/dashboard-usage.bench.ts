/**
 * The dashboard's Usage page over 1,000,000 sessions (the target: under 500 ms): a SQLite data dir made by
 * the built service, seeded with 1 M ended session records over 35 days (200 keys, 2 % ended by an error;
 * the rollup built from them in one statement, as migration 4 builds it), an owner signed in through the
 * form; then the BUILT service renders `/dashboard/usage` (7 and 30 days, by key, project and person; the
 * last 24 hours, read from the records) and its CSV, each timed 20 times over HTTP. The baseline: a static
 * page of the same size served by a plain Node HTTP server on the same machine (what the network and the
 * client cost alone). `DICTEE_BENCH_USAGE_SESSIONS=N` for another size.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { hashPassword } from '../src/server/dashboard/passwords';
import { USAGE_BACKFILL } from '../src/server/storage/usageSchema';
import { startServer } from '../test/helpers/server';

const SESSIONS = Number(process.env.DICTEE_BENCH_USAGE_SESSIONS ?? '') || 1_000_000;
const KEYS = 200;
const RUNS = 20;
const PASSWORD = 'a bench password of some length';

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p95 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)]!;

async function timed(runs: number, f: () => Promise<unknown>): Promise<number[]> {
  await f();
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await f();
    out.push(performance.now() - t0);
  }
  return out;
}

/** The data dir seeded: keys, sessions (the insert trigger set aside, the rollup built after), one owner with a password. */
async function seed(dataDir: string): Promise<{ email: string; seedS: number; rollupRows: number }> {
  const t0 = performance.now();
  const db = new Database(path.join(dataDir, 'dictee.sqlite'));
  const orgId = (db.prepare("SELECT v FROM meta WHERE k = 'org_id'").get() as { v: string }).v;
  const email = 'bench-owner@example.org';
  db.prepare(
    `INSERT INTO people (id, org_id, email, email_lower, display_name, role, created_at, password_hash)
     VALUES ('person_bench', ?, ?, ?, 'Bench owner', 'owner', '2026-01-01T00:00:00.000Z', ?)`,
  ).run(orgId, email, email, await hashPassword(PASSWORD));
  const triggers = db
    .prepare<[], { name: string; sql: string }>("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'sessions'")
    .all();
  db.transaction(() => {
    const key = db.prepare(
      `INSERT INTO api_keys (id, hash, hint, name, type, project_id, permissions, environment, org_id, created_at)
       VALUES (?, ?, ?, ?, 'project', ?, '["read","write"]', 'live', ?, '2026-01-01T00:00:00.000Z')`,
    );
    for (let i = 1; i <= KEYS; i++) key.run(`key_${i}`, `h${i}`, `svc_proj_…${i}`, `bench ${i}`, `proj_${i % 20}`, orgId);
    for (const t of triggers) db.exec(`DROP TRIGGER ${t.name}`);
    const s = db.prepare(
      `INSERT INTO sessions (id, key_id, org_id, origin, created_at, started_at, ended_at, duration, total_frames, final_chunks, end_reason, audio_seconds)
       VALUES (?, ?, ?, 'ws', ?, ?, ?, 60, 600, 10, ?, ?)`,
    );
    const now = Date.now();
    for (let i = 1; i <= SESSIONS; i++) {
      const t = new Date(now - Math.floor((i * 35 * 86_400_000) / SESSIONS)).toISOString();
      s.run(`ses_${i}`, `key_${1 + (i % KEYS)}`, orgId, t, t, t, i % 50 === 0 ? 'decoder failure' : 'client stop', 30 + (i % 60));
    }
    db.exec(USAGE_BACKFILL);
    for (const t of triggers) db.exec(t.sql);
  })();
  db.exec('ANALYZE');
  const rollupRows = (db.prepare('SELECT count(*) AS n FROM usage_daily').get() as { n: number }).n;
  db.close();
  return { email, seedS: (performance.now() - t0) / 1000, rollupRows };
}

/** Signs in through the form: the session cookie. */
async function signIn(base: string, email: string): Promise<string> {
  const page = await fetch(`${base}/dashboard/sign-in`);
  const cookies = (page.headers.getSetCookie?.() ?? []).map((c) => c.split(';')[0]).join('; ');
  const html = await page.text();
  const form = new URLSearchParams();
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) form.set(m[1]!, m[2]!);
  form.set('email', email);
  form.set('password', PASSWORD);
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

export async function run(): Promise<{ title: string; markdown: string; samples: Record<string, number>; ratios: Record<string, number> }> {
  const masterKey = `master_${randomBytes(24).toString('base64url')}`;
  let service = await startServer({ env: { DICTEE_MASTER_KEY: masterKey } });
  const dataDir = service.dataDir;
  await service.stop();
  const { email, seedS, rollupRows } = await seed(dataDir);
  console.log(`  seeded ${SESSIONS} sessions in ${seedS.toFixed(1)} s; rollup rows: ${rollupRows}`);
  service = await startServer({ dataDir, env: { DICTEE_MASTER_KEY: masterKey }, startTimeoutMs: 180_000 });
  const rows: string[] = [];
  const samples: Record<string, number> = {};
  let month = 0;
  let monthBytes = 0;
  try {
    const cookie = await signIn(service.url, email);
    for (const p of [
      '/dashboard/usage?range=30d&group=key',
      '/dashboard/usage?range=30d&group=project',
      '/dashboard/usage?range=7d&group=person',
      '/dashboard/usage?range=24h&group=key',
      '/dashboard/usage.csv?range=30d&group=key',
    ]) {
      let bytes = 0;
      const r = await timed(RUNS, async () => {
        const res = await fetch(`${service.url}${p}`, { headers: { cookie } });
        const body = await res.text();
        if (res.status !== 200) throw new Error(`${p}: HTTP ${res.status}`);
        bytes = Buffer.byteLength(body);
      });
      samples[p] = r.length;
      if (p === '/dashboard/usage?range=30d&group=key') {
        month = median(r);
        monthBytes = bytes;
      }
      rows.push(`| \`GET ${p}\` | ${(bytes / 1024).toFixed(0)} | ${median(r).toFixed(1)} | ${p95(r).toFixed(1)} |`);
      console.log(`  ${p}: median ${median(r).toFixed(1)} ms, p95 ${p95(r).toFixed(1)} ms (${bytes} bytes)`);
    }
  } finally {
    await service.stop();
  }
  // The baseline: a static page of the same size, from a plain Node server.
  const page = Buffer.alloc(monthBytes, 'x');
  const plain = http.createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html', 'content-length': page.length }).end(page),
  );
  await new Promise<void>((ok) => plain.listen(0, '127.0.0.1', ok));
  const staticMs = median(
    await timed(RUNS, async () => {
      await (await fetch(`http://127.0.0.1:${(plain.address() as AddressInfo).port}/`)).text();
    }),
  );
  await new Promise<void>((ok) => plain.close(() => ok()));
  return {
    title: 'The dashboard: Usage over a million sessions (SQLite)',
    samples,
    ratios: { 'usage page / static page': month / staticMs },
    markdown: [
      `${SESSIONS.toLocaleString('en')} ended session records over 35 days (${KEYS} keys in 20 projects, 2 % ended by an error) in a`,
      `SQLite data dir, seeded in ${seedS.toFixed(1)} s; the daily rollup built from them as migration 4 does: ${rollupRows} rows. An`,
      `owner signed in through the form; each page rendered by the built service over HTTP, ${RUNS} runs after a warm-up.`,
      '',
      '| request | KiB | median ms | p95 ms |',
      '|---|---|---|---|',
      ...rows,
      '',
      `Baseline: a static page of the same size (${(monthBytes / 1024).toFixed(0)} KiB) from a plain Node HTTP server: median ${staticMs.toFixed(1)} ms.`,
      '',
      `**The Usage page over 30 days of ${SESSIONS.toLocaleString('en')} sessions, by key: median ${month.toFixed(1)} ms (target < 500 ms);`,
      `a static page of its size ${staticMs.toFixed(1)} ms.**`,
    ].join('\n'),
  };
}
