/**
 * The service's garbage collections as V8's `--trace-gc` prints them in its log (servicePreload.cjs turns it
 * on in the service's process): one line per collection, with the heap's size before and after and the
 * heap's committed size (what V8 holds from the system for it). Pure: the soak's summary reads from them
 * - the bytes allocated: between two collections, the heap grew by what was allocated (the size before a
 *   collection less the size after the previous one);
 * - the heap's floor: its size after each major collection (what stays live: a leak raises it);
 * - when V8 has finished sizing the heap for the load: its committed size after the major collections stops
 *   growing (the warm-up's end).
 */

export interface GcEvent {
  /** Seconds on the soak's clock (since the load started). */
  t: number;
  kind: 'minor' | 'major';
  /** The heap in use before and after the collection, and committed after it (MB as V8 prints them: 10^6 bytes). */
  beforeMB: number;
  afterMB: number;
  committedMB: number;
}

// `[pid:0x…]   1234 ms: Scavenge 12.3 (15.0) -> 11.2 (16.0) MB, …` (and Mark-Compact, Mark-Compact (reduce),
// Minor Mark-Compact / Minor Mark-Sweep, Mark-Sweep-Compact across Node versions).
const LINE = /\s(\d+(?:\.\d+)?) ms: ((?:Minor )?Mark-[\w-]+(?: \(reduce\))?|Scavenge) +([\d.]+) \(([\d.]+)\) -> ([\d.]+) \(([\d.]+)\) MB/;

/**
 * The collections in `log`; `offsetS`: the soak's clock when the service's clock (its isolate's start) was 0,
 * negated: a line at `ms` is at `ms / 1000 − offsetS` on the soak's clock.
 */
export function parseGcTrace(log: string, offsetS: number): GcEvent[] {
  const out: GcEvent[] = [];
  for (const line of log.split('\n')) {
    const m = LINE.exec(line);
    if (!m) continue;
    out.push({
      t: Number(m[1]) / 1000 - offsetS,
      kind: m[2] === 'Scavenge' || m[2]!.startsWith('Minor') ? 'minor' : 'major',
      beforeMB: Number(m[3]),
      afterMB: Number(m[5]),
      committedMB: Number(m[6]),
    });
  }
  return out;
}

/** MB allocated on the heap between `lo` and `hi` (s): the growth up to each collection in that span. */
export function allocatedMB(events: readonly GcEvent[], lo: number, hi: number): number {
  let sum = 0;
  for (let i = 1; i < events.length; i++) {
    const e = events[i]!;
    if (e.t > lo && e.t <= hi) sum += Math.max(0, e.beforeMB - events[i - 1]!.afterMB);
  }
  return sum;
}

/** The least heap size after a major collection between `lo` and `hi` (undefined: none there). */
export function floorMB(events: readonly GcEvent[], lo: number, hi: number): number | undefined {
  const xs = events.filter((e) => e.kind === 'major' && e.t >= lo && e.t <= hi).map((e) => e.afterMB);
  return xs.length ? Math.min(...xs) : undefined;
}

/** Major collections between `lo` and `hi`. */
export function majorCount(events: readonly GcEvent[], lo: number, hi: number): number {
  return events.filter((e) => e.kind === 'major' && e.t >= lo && e.t <= hi).length;
}

/** The share of its largest committed size the heap must reach for V8's sizing to count as done. */
const SIZED_FRACTION = 0.95;

/**
 * When V8 has sized the heap for the load: the first major collection between `lo` and `hi` that leaves the
 * heap's committed size at least {@link SIZED_FRACTION} of the largest a major collection leaves there. V8
 * sizes its old generation at the major collections; between two, the committed size swings with the load
 * of the moment (and comes back down at the next). A heap that grows to the end (a leak: more stays live
 * after each major collection) is sized only at the end; undefined when no major collection happened there.
 */
export function heapSizedAt(
  events: readonly GcEvent[],
  lo: number,
  hi: number,
): { t: number; committedMB: number; maxMB: number } | undefined {
  const span = events.filter((e) => e.kind === 'major' && e.t >= lo && e.t <= hi);
  if (span.length === 0) return undefined;
  const maxMB = Math.max(...span.map((e) => e.committedMB));
  const first = span.find((e) => e.committedMB >= SIZED_FRACTION * maxMB)!;
  return { t: first.t, committedMB: first.committedMB, maxMB };
}
