/**
 * The Usage page's figures (pure): from the rollup's points (storage/dashboardData.ts) to the totals per
 * group (key, project or person), the three charts (audio minutes and sessions per bucket, the largest
 * groups each a series and the rest summed as one; errors per bucket by code) with the table that carries
 * the same numbers, and the rows of the CSV export.
 */
import type { UsagePoint } from '../storage/dashboardData';
import type { CsvCell } from './csv';

/** Groups drawn as their own series; the others are summed into one. */
const TOP_SERIES = 5;

export interface GroupTotal {
  id: string | null;
  label: string;
  sessions: number;
  audioMinutes: number;
  errors: Record<string, number>;
  errorTotal: number;
}

/** One chart and its table: a value per bucket for each series. */
export interface Chart {
  id: 'minutes' | 'sessions' | 'errors';
  /** The buckets (the x axis and the table's rows). */
  buckets: string[];
  series: Array<{ label: string; values: number[] }>;
}

export interface UsageModel {
  groups: GroupTotal[];
  /** The error codes met, sorted. */
  codes: string[];
  total: { sessions: number; audioMinutes: number; errors: number };
  charts: [Chart, Chart, Chart];
}

const minutes = (seconds: number): number => Math.round((seconds / 60) * 100) / 100;
const round2 = (n: number): number => Math.round(n * 100) / 100;

/**
 * `labelOf(id)`: how a group is named (its key's name, its project's, its person's; null: none).
 * `otherLabel`: the name of the summed series.
 */
export function usageModel(
  points: readonly UsagePoint[],
  buckets: readonly string[],
  labelOf: (id: string | null) => string,
  otherLabel: string,
): UsageModel {
  const groups = new Map<string | null, GroupTotal & { seconds: number }>();
  const codes = new Set<string>();
  for (const p of points) {
    let g = groups.get(p.group);
    if (!g)
      groups.set(
        p.group,
        (g = { id: p.group, label: labelOf(p.group), sessions: 0, audioMinutes: 0, seconds: 0, errors: {}, errorTotal: 0 }),
      );
    g.sessions += p.sessions;
    g.seconds += p.audio_seconds;
    if (p.code) {
      codes.add(p.code);
      g.errors[p.code] = (g.errors[p.code] ?? 0) + p.sessions;
      g.errorTotal += p.sessions;
    }
  }
  const sorted = [...groups.values()]
    .map(({ seconds, ...g }) => ({ ...g, audioMinutes: minutes(seconds), seconds }))
    .sort((a, b) => b.seconds - a.seconds || b.sessions - a.sessions || a.label.localeCompare(b.label));
  const top = sorted.slice(0, TOP_SERIES).map((g) => g.id);
  const hasOther = sorted.length > TOP_SERIES;
  const index = new Map(buckets.map((b, i) => [b, i]));
  const seriesOf = (g: string | null): number => {
    const i = top.indexOf(g);
    return i >= 0 ? i : TOP_SERIES;
  };
  const zero = (): number[] => buckets.map(() => 0);
  const nSeries = top.length + (hasOther ? 1 : 0);
  const mins = Array.from({ length: nSeries }, zero);
  const sess = Array.from({ length: nSeries }, zero);
  const codeList = [...codes].sort();
  const errs = codeList.map(zero);
  for (const p of points) {
    const b = index.get(p.bucket);
    if (b === undefined) continue;
    const s = Math.min(seriesOf(p.group), nSeries - 1);
    mins[s]![b] = mins[s]![b]! + p.audio_seconds / 60;
    sess[s]![b] = sess[s]![b]! + p.sessions;
    if (p.code) errs[codeList.indexOf(p.code)]![b] = errs[codeList.indexOf(p.code)]![b]! + p.sessions;
  }
  const labels = [...sorted.slice(0, TOP_SERIES).map((g) => g.label), ...(hasOther ? [otherLabel] : [])];
  const total = sorted.reduce(
    (t, g) => ({ sessions: t.sessions + g.sessions, seconds: t.seconds + g.seconds, errors: t.errors + g.errorTotal }),
    { sessions: 0, seconds: 0, errors: 0 },
  );
  return {
    groups: sorted.map(({ seconds: _s, ...g }) => g),
    codes: codeList,
    total: { sessions: total.sessions, audioMinutes: minutes(total.seconds), errors: total.errors },
    charts: [
      { id: 'minutes', buckets: [...buckets], series: labels.map((label, i) => ({ label, values: mins[i]!.map(round2) })) },
      { id: 'sessions', buckets: [...buckets], series: labels.map((label, i) => ({ label, values: sess[i]! })) },
      { id: 'errors', buckets: [...buckets], series: codeList.map((label, i) => ({ label, values: errs[i]! })) },
    ],
  };
}

/** A bucket (`YYYY-MM-DD` or `YYYY-MM-DDTHH`) as Unix seconds (the chart's x). */
export function bucketTime(bucket: string): number {
  return Date.parse(bucket.length === 10 ? `${bucket}T00:00:00Z` : `${bucket}:00:00Z`) / 1000;
}

/** What the chart script reads from the page's JSON block: x in Unix seconds, one array per series. */
export interface ChartData {
  title: string;
  /** Hours (24 h) or days. */
  unit: 'hour' | 'day';
  locale: string;
  x: number[];
  series: Array<{ label: string; values: number[] }>;
}

export function chartData(c: Chart, title: string, locale: string): ChartData {
  const unit = c.buckets[0]?.length === 13 ? 'hour' : 'day';
  return { title, unit, locale, x: c.buckets.map(bucketTime), series: c.series };
}

/**
 * The CSV export: a line per bucket and group with sessions, audio minutes, errors, and a column per error
 * code. The group is named by its id and its label.
 */
export function usageCsvRows(
  points: readonly UsagePoint[],
  labelOf: (id: string | null) => string,
): { header: string[]; rows: CsvCell[][] } {
  const codes = [...new Set(points.map((p) => p.code).filter(Boolean))].sort();
  const lines = new Map<string, { bucket: string; group: string | null; sessions: number; seconds: number; errors: Map<string, number> }>();
  for (const p of points) {
    const k = `${p.bucket}\u0000${p.group ?? ''}`;
    let l = lines.get(k);
    if (!l) lines.set(k, (l = { bucket: p.bucket, group: p.group, sessions: 0, seconds: 0, errors: new Map() }));
    l.sessions += p.sessions;
    l.seconds += p.audio_seconds;
    if (p.code) l.errors.set(p.code, (l.errors.get(p.code) ?? 0) + p.sessions);
  }
  const rows = [...lines.values()]
    .sort((a, b) => a.bucket.localeCompare(b.bucket) || String(a.group ?? '').localeCompare(String(b.group ?? '')))
    .map((l) => [
      l.bucket,
      l.group ?? '',
      labelOf(l.group),
      l.sessions,
      minutes(l.seconds),
      [...l.errors.values()].reduce((a, b) => a + b, 0),
      ...codes.map((c) => l.errors.get(c) ?? 0),
    ]);
  return { header: ['period', 'group_id', 'group', 'sessions', 'audio_minutes', 'errors', ...codes.map((c) => `errors_${c}`)], rows };
}
