/**
 * `npm run bench`: runs every `bench/*.bench.ts` in turn (or those named on the command line) and writes
 * their sections, with the machine and the date, to docs/benchmarks.md.
 *
 * A bench module exports `run(): Promise<BenchSection>`. Each compares against a baseline measured in
 * the same run and reports the ratio. A section with a path without samples or a ratio that is not a number
 * fails the run before anything is written (guard.ts).
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execSync } from 'node:child_process';
import { benchProblems } from './guard';

export interface BenchSection {
  title: string;
  /** Markdown body: method, a table of results, the baseline and the ratio. */
  markdown: string;
  /** Samples behind each measured path (a row of its table): none fails the run (guard.ts). */
  samples?: Record<string, number>;
  /** The section's ratios to its baseline: one that is not a finite number above zero fails the run. */
  ratios?: Record<string, number>;
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  // DICTEE_BENCH_DIR and DICTEE_BENCH_OUT (tests of the guard): other benches, another file to write.
  const dir = process.env.DICTEE_BENCH_DIR ?? __dirname;
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.bench.ts'))
    .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
    .sort();
  const sections: BenchSection[] = [];
  for (const f of files) {
    console.log(`\n=== ${f}`);
    const mod = (await import(path.join(dir, f))) as { run: () => Promise<BenchSection> };
    const section = await mod.run();
    console.log(section.markdown);
    sections.push(section);
  }
  // A bench that measured nothing fails the run, and nothing is written (not even the other sections).
  const problems = benchProblems(sections);
  if (problems.length > 0) {
    console.error(
      `\nBENCH FAILED: measured nothing somewhere; docs/benchmarks.md left as it was.\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
    process.exit(1);
  }
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  let commit = 'uncommitted';
  try {
    commit = execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
  } catch {
    /* not a git checkout */
  }
  const header = [
    '# Benchmarks',
    '',
    'Written by `npm run bench`; do not edit by hand. Each section measures a baseline in the same run and',
    'reports the ratio, so numbers from different machines can be compared by their ratios. `npm run bench -- NAME`',
    'measures one section and keeps the others; each section says when it was measured.',
    '',
    `- Date of the last run: ${new Date().toISOString()}`,
    `- Machine: ${os.cpus().length} × ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.type()} ${os.release()}`,
    `- Node.js ${process.version}, commit ${commit}`,
    '',
  ];
  const stamp = `_Measured ${new Date().toISOString()}, commit ${commit}, load average ${os.loadavg()[0]!.toFixed(1)} at the end._`;
  const fresh = new Map(sections.map((s) => [s.title, `## ${s.title}\n\n${stamp}\n\n${s.markdown.trim()}\n`]));
  // A run of some benches (`npm run bench -- NAME`) keeps the other sections as they were measured; every
  // run keeps the "Soak" section, which `npm run soak` writes.
  const out = process.env.DICTEE_BENCH_OUT ?? path.join(__dirname, '..', 'docs', 'benchmarks.md');
  // A section measured again takes its old place (a diff shows what changed, not a move); new ones go last.
  const body: string[] = [];
  const placed = new Set<string>();
  if (existsSync(out)) {
    for (const part of readFileSync(out, 'utf8')
      .split(/^(?=## )/m)
      .slice(1)) {
      const title = /^## (.*)$/m.exec(part)?.[1];
      if (title && fresh.has(title)) {
        body.push(fresh.get(title)!);
        placed.add(title);
      } else if (title && (only.length || title === 'Soak')) body.push(`${part.trim()}\n`);
    }
  }
  for (const [title, section] of fresh) if (!placed.has(title)) body.push(section);
  writeFileSync(out, [...header, ...body].join('\n'));
  console.log('\nwrote docs/benchmarks.md');
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
