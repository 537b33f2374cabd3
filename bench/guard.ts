/**
 * The guard on every bench's section before `npm run bench` writes docs/benchmarks.md: a bench that measured
 * nothing must fail loudly and write nothing, not leave a table of zeros in the docs (issue 31).
 *
 * A section fails when
 * - a path it declares (`samples`) has no sample;
 * - a ratio it declares (`ratios`) is not a finite number above zero;
 * - its text holds `NaN`, `Infinity`, `∞` or `n/a`: what the benches print for a figure or a ratio that
 *   could not be computed (an empty path, a zero baseline), in a table cell or a sentence alike.
 */
import type { BenchSection } from './run';

const NOT_A_FIGURE = /(?<![\w/])(NaN|-?Infinity|∞|n\/a)(?![\w/])/u;

/** What is wrong with `section` (empty when it may be written). */
export function sectionProblems(section: BenchSection): string[] {
  const problems: string[] = [];
  for (const [path, n] of Object.entries(section.samples ?? {})) {
    if (!(Number.isFinite(n) && n > 0)) problems.push(`path "${path}" has no samples (${n})`);
  }
  for (const [name, r] of Object.entries(section.ratios ?? {})) {
    if (!(Number.isFinite(r) && r > 0)) problems.push(`ratio "${name}" is ${r}`);
  }
  section.markdown.split('\n').forEach((line, i) => {
    const m = NOT_A_FIGURE.exec(line);
    if (m) problems.push(`line ${i + 1} holds "${m[1]}": ${line.trim().slice(0, 160)}`);
  });
  return problems;
}

/** The problems of every section, each prefixed with its title; empty when all may be written. */
export function benchProblems(sections: readonly BenchSection[]): string[] {
  return sections.flatMap((s) => sectionProblems(s).map((p) => `${s.title}: ${p}`));
}
