/**
 * The server bench's CPU cost per session-second (issue 31, P1): rounds of the same load on each server in
 * turn (the order rotated every round), each round's CPU time read from the kernel, and the machine's other
 * work recorded beside it (the load average, and the CPU that processes other than the servers and the
 * bench's own used meanwhile, from /proc/stat), so that a figure taken on a shared machine says what it
 * was measured beside. The figure reported is the median of the rounds with their spread, and the ratio of
 * each round to the echo's of the same round (paired: both saw nearly the same load).
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';

/** CPU seconds the whole machine spent busy so far (all cores; /proc/stat), or undefined off Linux. */
export function machineBusySeconds(): number | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal: busy is all but idle and iowait.
    const busy = cpu.slice(0, 8).reduce((a, b) => a + b, 0) - cpu[3]! - (cpu[4] ?? 0);
    return busy / 100; // in USER_HZ ticks, 100 a second on Linux
  } catch {
    return undefined;
  }
}

/** One server's cost in one round. */
export interface CostSample {
  target: string;
  round: number;
  /** CPU ms the server used per session per second of audio. */
  cpuMs: number;
  /** 1-minute load average when the round started. */
  load: number;
  /** Cores busy with other processes (not the server, not the bench's clients or itself) during the round. */
  others: number | undefined;
}

export interface CostTarget {
  /** How the section names it: `service`, `echo`, `service before`. */
  label: string;
}

/** What one round of one target measured (undefined off Linux: no cost is reported). */
export type MeasureRound<T> = (t: T) => Promise<{ cpuMs: number; others: number | undefined } | undefined>;

/**
 * `rounds` rounds after a warm-up round, each running every target once; round r starts with target
 * r mod n, so no target is always first (after a pause) or last.
 */
export async function costRounds<T extends CostTarget>(
  targets: T[],
  rounds: number,
  measure: MeasureRound<T>,
  log: (line: string) => void = console.log,
): Promise<CostSample[]> {
  const out: CostSample[] = [];
  for (let round = 0; round <= rounds; round++) {
    for (let i = 0; i < targets.length; i++) {
      const t = targets[(i + round) % targets.length]!;
      const load = os.loadavg()[0]!;
      const r = await measure(t);
      if (!r) return [];
      const others = r.others === undefined ? '' : `, other processes ${r.others.toFixed(2)} cores`;
      log(
        `  cost ${t.label} (${round === 0 ? 'warm-up' : `round ${round}`}): ${r.cpuMs.toFixed(3)} CPU ms per session-second, load ${load.toFixed(1)}${others}`,
      );
      if (round > 0) out.push({ target: t.label, round, cpuMs: r.cpuMs, load, others: r.others });
    }
  }
  return out;
}

export function median(xs: readonly number[]): number {
  const ys = [...xs].sort((a, b) => a - b);
  return ys.length ? (ys[(ys.length - 1) >> 1]! + ys[ys.length >> 1]!) / 2 : NaN;
}

/** The quartiles' values (lower, upper) by the same rule as {@link median}, over each half. */
export function quartiles(xs: readonly number[]): [number, number] {
  const ys = [...xs].sort((a, b) => a - b);
  const half = ys.length >> 1;
  return [median(ys.slice(0, half || 1)), median(ys.slice(ys.length - (half || 1)))];
}

export interface CostSummary {
  label: string;
  median: number;
  min: number;
  max: number;
  q1: number;
  q3: number;
  rounds: number[];
}

export function summary(samples: readonly CostSample[], label: string): CostSummary {
  const rounds = samples.filter((s) => s.target === label).map((s) => s.cpuMs);
  const [q1, q3] = quartiles(rounds);
  return { label, median: median(rounds), min: Math.min(...rounds), max: Math.max(...rounds), q1, q3, rounds };
}

/** `a`'s cost over `b`'s in each round both ran (paired: the same load), in round order. */
export function pairedRatios(samples: readonly CostSample[], a: string, b: string): number[] {
  const of = (label: string): Map<number, number> => new Map(samples.filter((s) => s.target === label).map((s) => [s.round, s.cpuMs]));
  const as = of(a);
  const bs = of(b);
  return [...as].filter(([r]) => bs.has(r)).map(([r, x]) => x / bs.get(r)!);
}

const f3 = (n: number): string => n.toFixed(3);
const f2 = (n: number): string => n.toFixed(2);

/** The cost's lines of the section: method, load, each target's median and spread, the ratios. */
export function costMarkdown(
  samples: readonly CostSample[],
  opts: { sessions: number; rounds: number; seconds: number; before?: string },
): { lines: string[]; ratios: Record<string, number>; samples: Record<string, number> } {
  if (!samples.length) return { lines: [], ratios: {}, samples: {} };
  const service = summary(samples, 'service');
  const echo = summary(samples, 'echo');
  const vsEcho = pairedRatios(samples, 'service', 'echo');
  const loads = samples.map((s) => s.load);
  const others = samples.map((s) => s.others).filter((x): x is number => x !== undefined);
  const spread = (s: CostSummary): string => `${f3(s.min)}–${f3(s.max)}, middle half ${f3(s.q1)}–${f3(s.q3)}`;
  const lines = [
    `CPU cost, measured by the kernel (\`/proc/PID/stat\`, user + system) from the first frame to the last event, per session`,
    `and second of audio, at ${opts.sessions} sessions streaming ${opts.seconds} s each: ${opts.rounds} rounds after a warm-up round,`,
    'each round running every server once, in an order rotated every round. The figure is the median of the rounds, with',
    'their range and middle half; the ratio is taken in each round against the echo of the same round (both saw nearly',
    'the same load) and its median reported. Other work on the machine moves this cost much less than it moves tail',
    'latencies, but it moves it (shared caches, frequency, the scheduler): on a shared machine only the interleaved',
    "rounds and the ratio are meaningful, and the machine's load during the rounds is given beside them. When the server",
    'process is what saturates a core, the sessions it holds are inversely proportional to it.',
    '',
    `Machine during the rounds: load average ${f2(Math.min(...loads))}–${f2(Math.max(...loads))} (median ${f2(median(loads))}) on ${os.cpus().length} cores` +
      (others.length
        ? `; other processes (neither the servers nor the bench) kept ${f2(median(others))} cores busy (median; ${f2(Math.min(...others))}–${f2(Math.max(...others))}).`
        : '.'),
    '',
    `**Service ${f3(service.median)} CPU ms per session-second (rounds: ${service.rounds.map(f3).join(', ')}; ${spread(service)}); echo ${f3(echo.median)}`,
    `(${echo.rounds.map(f3).join(', ')}; ${spread(echo)}). Ratio service / echo: ${f2(median(vsEcho))} (per round: ${vsEcho.map(f2).join(', ')}).**`,
    '',
  ];
  const ratios: Record<string, number> = { 'CPU service / echo': median(vsEcho) };
  const counts: Record<string, number> = { 'CPU rounds, service': service.rounds.length, 'CPU rounds, echo': echo.rounds.length };
  if (samples.some((s) => s.target === 'sink')) {
    const sink = summary(samples, 'sink');
    const vsSink = pairedRatios(samples, 'service', 'sink');
    const sinkVsEcho = pairedRatios(samples, 'sink', 'echo');
    lines.push(
      `The sink (a bare \`ws\` server that reads every frame and answers one in four with a 188-byte text message: the`,
      `service's traffic, none of its work), in the same rounds: ${f3(sink.median)} CPU ms per session-second (rounds:`,
      `${sink.rounds.map(f3).join(', ')}; ${spread(sink)}), ${f2(median(sinkVsEcho))}× the echo. **Ratio service / sink: ${f2(median(vsSink))}**`,
      `(per round: ${vsSink.map(f2).join(', ')}): what the service's own work (the VAD, the segmenter, the engine, its events and`,
      'journal) costs on top of receiving the audio and answering as often as it does.',
      '',
    );
    ratios['CPU service / sink'] = median(vsSink);
    ratios['CPU sink / echo'] = median(sinkVsEcho);
    counts['CPU rounds, sink'] = sink.rounds.length;
  }
  if (opts.before !== undefined) {
    const before = summary(samples, 'service before');
    const vsBefore = pairedRatios(samples, 'service', 'service before');
    const beforeVsEcho = pairedRatios(samples, 'service before', 'echo');
    lines.push(
      `The service as built from ${opts.before}, in the same rounds: ${f3(before.median)} CPU ms per session-second (rounds:`,
      `${before.rounds.map(f3).join(', ')}; ${spread(before)}), ${f2(median(beforeVsEcho))}× the echo. **Ratio service now / before: ${f2(median(vsBefore))}**`,
      `(per round: ${vsBefore.map(f2).join(', ')}).`,
      '',
    );
    ratios['CPU service now / before'] = median(vsBefore);
    counts['CPU rounds, service before'] = before.rounds.length;
  }
  return { lines, ratios, samples: counts };
}
