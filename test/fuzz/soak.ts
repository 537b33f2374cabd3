/**
 * `npm run soak [-- --sessions N] [--duration S] [--seed X] [--out FILE] [--no-docs]` (not in CI): N concurrent
 * real-time sessions (default 500) against the built service for S seconds (default 600), with drops and
 * resumes, revocations, clean stops and new sessions mixed in (test/fuzz/soak/run.ts). Checks every word once
 * and in order, RSS growth under 5 % after warm-up, no descriptor or active handle left once every session has
 * stopped, and that the client kept real time. Writes its figures to docs/benchmarks.md's "Soak" section
 * (unless `--no-docs`) and a JSON report; exits 1 when a check fails.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeSoakSection } from './soak/docs';
import { runSoak } from './soak/run';
import { markdown } from './soak/summary';

function arg(names: string[], fallback: number): number {
  for (const name of names) {
    const i = process.argv.indexOf(`--${name}`);
    if (i >= 0) {
      const v = Number(process.argv[i + 1]);
      if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name} takes a positive number`);
      return v;
    }
  }
  return fallback;
}

async function main(): Promise<void> {
  const sessions = Math.round(arg(['sessions'], 500));
  const durationS = arg(['duration', 'seconds'], 600);
  const seed = Math.round(arg(['seed'], Date.now() % 1_000_000));
  const outIdx = process.argv.indexOf('--out');
  const out = outIdx >= 0 ? process.argv[outIdx + 1]! : path.join('test-output', 'soak', 'report.json');
  mkdirSync(path.dirname(out), { recursive: true });
  const loadAtStart = os.loadavg();
  const report = await runSoak({
    sessions,
    durationS,
    seed,
    log: (line) => console.log(line),
    maxLagP99Ms: arg(['max-lag-p99'], 500),
    maxLagMs: arg(['max-lag'], 2000),
    serviceLogLevel: process.env.DICTEE_SOAK_SERVICE_LOG ?? 'warn',
    serviceLog: path.join(path.dirname(out), 'service.log'),
  });
  writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
  const md = markdown(report, loadAtStart);
  console.log(`\n${md}`);
  if (!process.argv.includes('--no-docs')) {
    writeSoakSection(md);
    console.log('wrote the "Soak" section of docs/benchmarks.md');
  }
  console.log(`${report.ok ? 'all checks passed' : 'CHECKS FAILED'}; report: ${out}`);
  process.exit(report.ok ? 0 : 1);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
