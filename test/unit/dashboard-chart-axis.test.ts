/**
 * The Usage charts' time axis (browser/chartAxis.ts): by days its steps are whole days, so a 7-day chart labels
 * each day once (it said "Nov 23 Nov 23 Nov 23 Nov 24 …" with uPlot's sub-day steps), and a 30-day chart still
 * fits; by hours its labels say UTC. uPlot takes the first step whose ticks are at least `space` pixels apart
 * (50 by default for the x axis): that choice is made here as uPlot makes it.
 */
import assert from 'node:assert/strict';
import type uPlot from 'uplot';
import { DAY_INCRS, timeAxis } from '../../src/server/dashboard/browser/chartAxis';

const DAY = 86_400;
const START = Date.UTC(2026, 10, 23) / 1000;

/** The labels uPlot would draw on a chart `width` pixels wide over `days` days (one point a day, UTC midnights). */
function labels(days: number, width: number, locale = 'en'): string[] {
  const axis = timeAxis({ locale, unit: 'day' });
  const incrs = axis.incrs as number[];
  const range = (days - 1) * DAY;
  const incr = incrs.find((i) => (i / range) * width >= 50) ?? incrs[incrs.length - 1]!;
  const splits: number[] = [];
  for (let t = START; t <= START + range; t += incr) splits.push(t);
  return (axis.values as (self: uPlot, splits: number[]) => string[])({} as uPlot, splits);
}

describe('dashboard usage chart axis', () => {
  it('by days, steps of whole days only', () => {
    assert.ok(DAY_INCRS.every((i) => i % DAY === 0 && i > 0));
    assert.equal(DAY_INCRS[0], DAY);
  });

  it('a 7-day chart labels each day once, at a phone width and a wide one', () => {
    for (const width of [280, 600, 1200]) {
      const l = labels(7, width);
      assert.equal(new Set(l).size, l.length, `no day twice at ${width} px: ${l.join(' ')}`);
    }
    assert.deepEqual(labels(7, 600), ['Nov 23', 'Nov 24', 'Nov 25', 'Nov 26', 'Nov 27', 'Nov 28', 'Nov 29']);
  });

  it('a 30-day chart labels days without repeating one, fewer than 30 on a narrow chart', () => {
    const l = labels(30, 600);
    assert.equal(new Set(l).size, l.length);
    assert.ok(l.length < 30 && l.length >= 5, l.join(' '));
  });

  it('by hours, the labels say UTC', () => {
    const axis = timeAxis({ locale: 'fr', unit: 'hour' });
    assert.equal(axis.incrs, undefined, "uPlot's own steps for hours");
    assert.deepEqual((axis.values as (self: uPlot, splits: number[]) => string[])({} as uPlot, [START + 13 * 3600]), ['13:00 UTC']);
  });
});
