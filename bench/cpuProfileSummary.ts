/**
 * Where a process spent its CPU: reads a V8 `.cpuprofile` (from `node --cpu-prof`, e.g. the service run by
 * `DICTEE_BENCH_CPU_PROF=DIR npm run bench -- server`) and prints the self time summed per function and per
 * source file, the bundle's positions mapped back to src/ and node_modules/ through its source map.
 *
 *   node --import tsx bench/cpuProfileSummary.ts PROFILE.cpuprofile [--top 40] [--map dist/server.js.map] [--lines FUNCTION]
 */
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
  /** Samples per line (1-based) of the function's own code. */
  positionTicks?: Array<{ line: number; ticks: number }>;
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A row of the summary: a name and the self time spent there, in ms. */
export interface SelfTime {
  name: string;
  ms: number;
}

/** Self time (ms) per node id: each sample's time delta goes to the node sampled. */
function selfTimes(p: CpuProfile): Map<number, number> {
  const self = new Map<number, number>();
  // timeDeltas[i] is the time before sample i; the time of a sample is the next delta (V8's convention is
  // loose; either way the sums differ by one sample).
  for (let i = 0; i < p.samples.length; i++) {
    const dt = p.timeDeltas[i + 1] ?? 0;
    self.set(p.samples[i]!, (self.get(p.samples[i]!) ?? 0) + dt / 1000);
  }
  return self;
}

/** Where a bundle's position comes from (its source file and line), through the bundle's source map. */
function mapper(mapFile: string | undefined): (url: string, line: number, col: number) => { file: string; line: number } {
  const maps = new Map<string, SourceMap | undefined>();
  const load = (url: string): SourceMap | undefined => {
    if (maps.has(url)) return maps.get(url);
    let sm: SourceMap | undefined;
    // Node's own modules (`node:…`, bare names) have no map; `--map` is for the bundle it names.
    const file = url.startsWith('file://') ? fileURLToPath(url) : url;
    const candidate = mapFile && path.basename(mapFile) === `${path.basename(file)}.map` ? mapFile : `${file}.map`;
    if (path.isAbsolute(file) && existsSync(candidate)) sm = new SourceMap(JSON.parse(readFileSync(candidate, 'utf8')) as SourceMapPayload);
    maps.set(url, sm);
    return sm;
  };
  return (url, line, col) => {
    const sm = load(url);
    const e = sm?.findEntry(line, col) as { originalSource?: string; originalLine?: number } | undefined;
    if (e?.originalSource) {
      const src = e.originalSource.replace(/^.*?(node_modules\/|src\/)/, '$1');
      return { file: src, line: (e.originalLine ?? 0) + 1 };
    }
    return { file: url ? path.basename(url) : '(native)', line: line + 1 };
  };
}

/** Samples per source line of the functions named `fn` (their own code, not their callees), largest first. */
export function lineTicks(p: CpuProfile, fn: string, mapFile?: string): SelfTime[] {
  const where = mapper(mapFile);
  const ticks = new Map<string, number>();
  for (const n of p.nodes) {
    if (n.callFrame.functionName !== fn) continue;
    for (const t of n.positionTicks ?? []) {
      const loc = where(n.callFrame.url, t.line - 1, 0);
      const k = `${loc.file}:${loc.line}`;
      ticks.set(k, (ticks.get(k) ?? 0) + t.ticks);
    }
  }
  return [...ticks].map(([name, ms]) => ({ name, ms })).sort((a, b) => b.ms - a.ms);
}

/** Self time per function (`name file:line`) and per file, largest first; the total and the profile's span. */
export function summarise(p: CpuProfile, mapFile?: string): { functions: SelfTime[]; files: SelfTime[]; totalMs: number; spanMs: number } {
  const self = selfTimes(p);
  const where = mapper(mapFile);
  const byFn = new Map<string, number>();
  const byFile = new Map<string, number>();
  let total = 0;
  for (const n of p.nodes) {
    const ms = self.get(n.id) ?? 0;
    if (!ms) continue;
    const { functionName, url, lineNumber, columnNumber } = n.callFrame;
    const loc = url ? where(url, lineNumber, columnNumber) : { file: '(native)', line: 0 };
    const fn = `${functionName || '(anonymous)'} ${loc.file}${url ? `:${loc.line}` : ''}`;
    const file = url ? loc.file : functionName.startsWith('(') ? functionName : '(native)';
    byFn.set(fn, (byFn.get(fn) ?? 0) + ms);
    byFile.set(file, (byFile.get(file) ?? 0) + ms);
    if (functionName !== '(idle)') total += ms; // the process waiting is not CPU
  }
  const sorted = (m: Map<string, number>): SelfTime[] => [...m].map(([name, ms]) => ({ name, ms })).sort((a, b) => b.ms - a.ms);
  return { functions: sorted(byFn), files: sorted(byFile), totalMs: total, spanMs: (p.endTime - p.startTime) / 1000 };
}

function main(argv: string[]): void {
  const file = argv[0];
  if (!file) throw new Error('usage: cpuProfileSummary.ts PROFILE.cpuprofile [--top N] [--map FILE.map]');
  const top = Number(argv[argv.indexOf('--top') + 1] ?? '') || 40;
  const map = argv.includes('--map') ? argv[argv.indexOf('--map') + 1] : undefined;
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  if (argv.includes('--lines')) {
    // `--lines NAME`: where in the function NAME its own samples fall.
    for (const r of lineTicks(profile, argv[argv.indexOf('--lines') + 1]!, map).slice(0, top))
      console.log(`${String(r.ms).padStart(8)} samples  ${r.name}`);
    return;
  }
  const s = summarise(profile, map);
  const row = (r: SelfTime): string =>
    `${r.ms.toFixed(0).padStart(8)} ms ${((100 * r.ms) / s.totalMs).toFixed(1).padStart(5)} %  ${r.name}`;
  console.log(`sampled ${s.totalMs.toFixed(0)} ms busy (idle not counted) over ${(s.spanMs / 1000).toFixed(1)} s\n\nself time per file:`);
  for (const r of s.files.slice(0, top)) console.log(row(r));
  console.log('\nself time per function:');
  for (const r of s.functions.slice(0, top)) console.log(row(r));
}

if (require.main === module) main(process.argv.slice(2));
