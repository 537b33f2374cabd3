/** Writes (or replaces) the "Soak" section of docs/benchmarks.md, keeping every other section as it is. */
import { execSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const SOAK_TITLE = 'Soak';
export const BENCHMARKS_MD = path.resolve(__dirname, '..', '..', '..', 'docs', 'benchmarks.md');

export function writeSoakSection(body: string, file = BENCHMARKS_MD): void {
  let commit = 'uncommitted';
  try {
    commit = execSync('git rev-parse --short HEAD', { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    /* not a git checkout */
  }
  const section = `## ${SOAK_TITLE}\n\n_Measured ${new Date().toISOString()}, commit ${commit}, by \`npm run soak\`._\n\n${body.trim()}\n`;
  const text = readFileSync(file, 'utf8');
  const parts = text.split(/^(?=## )/m);
  const at = parts.findIndex((p) => /^## (.*)$/m.exec(p)?.[1] === SOAK_TITLE && p.startsWith('## '));
  if (at >= 0) parts[at] = `${section}\n`;
  else parts.push(`${parts[parts.length - 1]!.endsWith('\n\n') ? '' : '\n'}${section}`);
  writeFileSync(file, parts.join('').replace(/\n+$/, '\n'));
}
