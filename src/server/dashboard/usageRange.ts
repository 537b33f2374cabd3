/**
 * The period of the Usage page (pure): the last 24 hours by hour, the last 7 or 30 days by UTC day, or a
 * custom range of whole UTC days (at most 366); and its grouping (by key, project or person). A bad query
 * is an error naming the field, and the page keeps what was typed.
 */
import type { UsageGrouping, UsageRequest } from '../storage/dashboardData';

export const RANGES = ['24h', '7d', '30d', 'custom'] as const;
export type RangeId = (typeof RANGES)[number];
export const GROUPINGS: readonly UsageGrouping[] = ['key', 'project', 'person'];

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const MAX_CUSTOM_DAYS = 366;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

export interface UsagePeriod {
  range: RangeId;
  groupBy: UsageGrouping;
  request: UsageRequest;
  /** Every bucket of the period in order (`YYYY-MM-DDTHH` or `YYYY-MM-DD`), empty ones included. */
  buckets: string[];
  /** The custom range's days (ISO `YYYY-MM-DD`; the form writes them in the page's language). */
  fromDay: string;
  toDay: string;
}

/** What was wrong with the query: the field, what is wrong (the page words it), and in English. */
export interface PeriodProblem {
  field: 'range' | 'group' | 'from' | 'to';
  code: 'range' | 'group' | 'from_date' | 'to_date' | 'order' | 'too_long';
  message: string;
}

const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

function validDay(s: string): boolean {
  if (!DAY.test(s)) return false;
  const t = Date.parse(`${s}T00:00:00Z`);
  return Number.isFinite(t) && day(t) === s;
}

function days(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += DAY_MS) out.push(day(t));
  return out;
}

/** An ISO day as it is (the CSV export's and the tests' queries); undefined for anything else. */
function isoDay(s: string): string | undefined {
  return validDay(s) ? s : undefined;
}

/**
 * The period asked for by the page's query (`range`, `group`, `from`, `to`), at `now`; `readDay` reads a
 * custom day as typed (dayField.ts `parseDay` in the page's language) into an ISO day.
 */
export function usagePeriod(
  q: URLSearchParams,
  now: number,
  readDay: (typed: string) => string | undefined = isoDay,
): UsagePeriod | PeriodProblem {
  const range = (q.get('range') || '7d') as RangeId;
  if (!RANGES.includes(range)) return { field: 'range', code: 'range', message: 'Choose a period: 24 hours, 7 days, 30 days or custom.' };
  const groupBy = (q.get('group') || 'key') as UsageGrouping;
  if (!GROUPINGS.includes(groupBy)) return { field: 'group', code: 'group', message: 'Group by key, project or person.' };
  const today = day(now);
  if (range === '24h') {
    const end = Math.floor(now / HOUR_MS) * HOUR_MS;
    const buckets: string[] = [];
    for (let t = end - 23 * HOUR_MS; t <= end; t += HOUR_MS) buckets.push(new Date(t).toISOString().slice(0, 13));
    return {
      range,
      groupBy,
      request: { bucket: 'hour', from: new Date(end - 23 * HOUR_MS).toISOString(), to: new Date(now + 1).toISOString(), groupBy },
      buckets,
      fromDay: day(end - 23 * HOUR_MS),
      toDay: today,
    };
  }
  let fromDay: string;
  let toDay: string;
  if (range === 'custom') {
    const typedTo = (q.get('to') ?? '').trim();
    const from = readDay((q.get('from') ?? '').trim());
    const to = typedTo ? readDay(typedTo) : today;
    if (!from) return { field: 'from', code: 'from_date', message: 'The first day is not a date.' };
    if (!to) return { field: 'to', code: 'to_date', message: 'The last day is not a date.' };
    fromDay = from;
    toDay = to;
    if (fromDay > toDay) return { field: 'from', code: 'order', message: 'The first day must not be after the last day.' };
    if (days(fromDay, toDay).length > MAX_CUSTOM_DAYS)
      return { field: 'from', code: 'too_long', message: 'A custom period is at most 366 days.' };
  } else {
    toDay = today;
    fromDay = day(now - (range === '7d' ? 6 : 29) * DAY_MS);
  }
  return { range, groupBy, request: { bucket: 'day', from: fromDay, to: toDay, groupBy }, buckets: days(fromDay, toDay), fromDay, toDay };
}

/** Whether the value is a problem rather than a period. */
export function isProblem(p: UsagePeriod | PeriodProblem): p is PeriodProblem {
  return 'field' in p && 'message' in p;
}
