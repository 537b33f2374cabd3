#!/usr/bin/env node
// `npm test`: builds, type-checks, then runs every test suite and prints one summary line.
import { spawnSync } from 'node:child_process';

const stages = [
  { name: 'build', cmd: 'npm', args: ['run', 'build'] },
  { name: 'typecheck', cmd: 'npm', args: ['run', 'typecheck'] },
  { name: 'lint', cmd: 'npm', args: ['run', 'lint'] },
  // The Silero VAD model (`--vad silero`) from the npm registry, once: its tests run it for real.
  { name: 'vad setup', cmd: 'npm', args: ['run', '--silent', 'vad:setup'] },
  { name: 'unit', cmd: 'npm', args: ['run', 'test:unit'], mocha: true },
  { name: 'integration', cmd: 'npm', args: ['run', 'test:integration'], mocha: true },
];
if (process.env.DICTEE_SKIP_E2E === '1') {
  console.log('\n!! DICTEE_SKIP_E2E=1: the end-to-end tests in real VS Code are NOT run.\n');
} else {
  stages.push({ name: 'e2e', cmd: 'npm', args: ['run', 'test:e2e'], mocha: true });
}

let passed = 0;
let failed = 0;
let pending = 0;
const failures = [];
for (const stage of stages) {
  console.log(`\n=== ${stage.name} ===`);
  const r = spawnSync(stage.cmd, stage.args, { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  process.stdout.write(r.stdout ?? '');
  if (stage.mocha) {
    const p = /(\d+) passing/.exec(r.stdout ?? '');
    const f = /(\d+) failing/.exec(r.stdout ?? '');
    const s = /(\d+) pending/.exec(r.stdout ?? '');
    passed += p ? Number(p[1]) : 0;
    failed += f ? Number(f[1]) : 0;
    pending += s ? Number(s[1]) : 0;
  }
  if (r.status !== 0) {
    failures.push(stage.name);
    if (!stage.mocha) failed += 1;
    if (stage.name === 'build') break;
  }
}
console.log('');
if (failures.length) console.log(`failed stages: ${failures.join(', ')}`);
console.log(`${passed} passed, ${failed} failed${pending ? `, ${pending} skipped` : ''}`);
process.exit(failures.length ? 1 : 0);
