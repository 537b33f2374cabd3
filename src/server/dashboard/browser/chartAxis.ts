/**
 * The Usage charts' time axis (pure, unit-tested; charts.ts draws with it): its labels, in the page's
 * language and UTC, and for days its steps. uPlot's own steps for a time scale go down to minutes, so a
 * week on a chart 600 pixels wide got a tick every 12 or 8 hours, each labelled with its day: "Nov 23 Nov 23
 * Nov 23 Nov 24 …". By days, the steps are whole days only, so each day is labelled once (or every 2, 7… when
 * they do not fit).
 */
import type uPlot from 'uplot';
import type { ChartData } from '../usageModel';

const DAY_S = 86_400;
/** The steps of a chart by day, in seconds: whole days only. */
export const DAY_INCRS: readonly number[] = [1, 2, 3, 7, 14, 28, 56, 91, 182, 365].map((d) => d * DAY_S);

export function axisFormat(data: Pick<ChartData, 'locale' | 'unit'>): (self: uPlot, splits: number[]) => string[] {
  const f = new Intl.DateTimeFormat(
    data.locale,
    data.unit === 'hour'
      ? { hour: '2-digit', minute: '2-digit', timeZoneName: 'short', timeZone: 'UTC' }
      : { day: 'numeric', month: 'short', timeZone: 'UTC' },
  );
  return (_self, splits) => splits.map((s) => f.format(new Date(s * 1000)));
}

/** The x axis's options: its labels, and by days whole-day steps. */
export function timeAxis(data: Pick<ChartData, 'locale' | 'unit'>): uPlot.Axis {
  return data.unit === 'day' ? { values: axisFormat(data), incrs: [...DAY_INCRS] } : { values: axisFormat(data) };
}
