/**
 * `npm run fuzz [-- --inputs N] [--seconds S] [--seed X] [--concurrency C] [--out FILE]`: the fuzzing
 * campaign against the built service on loopback. Prints a summary, writes the full report as JSON
 * (default test-output/fuzz/report.json), and exits 1 when there is a finding.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCampaign } from './campaign';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const v = Number(process.argv[i + 1]);
  if (!Number.isFinite(v) || v < 0) {
    process.stderr.write(`--${name} needs a number\n`);
    process.exit(2);
  }
  return v;
}

async function main(): Promise<void> {
  const inputs = arg('inputs', 100_000);
  const seconds = arg('seconds', 600);
  const seed = arg('seed', Date.now() % 1_000_000);
  const concurrency = arg('concurrency', 12);
  const outIdx = process.argv.indexOf('--out');
  const out = outIdx >= 0 ? process.argv[outIdx + 1]! : path.join('test-output', 'fuzz', 'report.json');
  console.log(`fuzz: up to ${inputs} inputs or ${seconds} s, seed ${seed}, ${concurrency} at once`);
  const report = await runCampaign({ inputs, seconds, seed, concurrency, progress: (l) => console.log(`  ${l}`) });
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
  const mb = (b: number): string => (b / 1048576).toFixed(1);
  console.log(`
inputs:        ${report.inputs.total} in ${report.seconds.toFixed(1)} s (${report.inputs.wsFrames} WebSocket frames on ${report.inputs.wsConnections} connections, ${report.inputs.httpRequests} HTTP requests, ${report.inputs.rapidConnections} rapid connect/disconnect, ${report.inputs.slowClients} slow clients)
descriptors:   ${report.fds.before} before, ${report.fds.after} after
RSS:           ${mb(report.rss.before)} MiB before, ${mb(report.rss.after)} MiB after
sessions left: ${report.sessionsLeft}
/healthz:      slowest answer ${report.healthMaxMs} ms
close codes:   ${JSON.stringify(report.closeCodes)}
error codes:   ${JSON.stringify(report.errorCodes)}
HTTP statuses: ${JSON.stringify(report.httpStatuses)}
findings:      ${report.findings.length}`);
  for (const f of report.findings.slice(0, 30)) console.log(`  - ${f.kind}: ${f.detail}${f.input ? `\n    input: ${f.input}` : ''}`);
  console.log(`report: ${out}`);
  process.exit(report.findings.length ? 1 : 0);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
