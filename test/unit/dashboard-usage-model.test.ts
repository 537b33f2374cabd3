/**
 * The Usage page's pure parts: the period asked for (24 h by hour, 7 and 30 days, a custom range and its
 * refusals), the figures (totals per group, the largest groups drawn and the rest summed, errors by code,
 * every bucket present), and the CSV export (injection-safe cells).
 */
import assert from 'node:assert/strict';
import { csvCell, fileName, toCsv } from '../../src/server/dashboard/csv';
import { bucketTime, chartData, usageCsvRows, usageModel } from '../../src/server/dashboard/usageModel';
import { isProblem, usagePeriod } from '../../src/server/dashboard/usageRange';
import { parseDay } from '../../src/server/dashboard/dayField';
import type { UsagePoint } from '../../src/server/storage/dashboardData';

const NOW = Date.parse('2026-11-28T04:30:12.000Z');
const q = (s: string): URLSearchParams => new URLSearchParams(s);

describe('dashboard usage: the period', () => {
  it('24 hours by hour, 7 and 30 days by day, by key unless asked', () => {
    const h = usagePeriod(q('range=24h&group=person'), NOW);
    assert.ok(!isProblem(h));
    assert.equal(h.buckets.length, 24);
    assert.equal(h.buckets[0], '2026-11-27T05');
    assert.equal(h.buckets.at(-1), '2026-11-28T04');
    assert.deepEqual(h.request, { bucket: 'hour', from: '2026-11-27T05:00:00.000Z', to: '2026-11-28T04:30:12.001Z', groupBy: 'person' });
    const w = usagePeriod(q(''), NOW);
    assert.ok(!isProblem(w));
    assert.deepEqual(w.request, { bucket: 'day', from: '2026-11-22', to: '2026-11-28', groupBy: 'key' });
    assert.equal(w.buckets.length, 7);
    const m = usagePeriod(q('range=30d&group=project'), NOW);
    assert.ok(!isProblem(m));
    assert.equal(m.buckets.length, 30);
    assert.equal(m.buckets[0], '2026-10-30');
  });

  it('a custom range of whole days, and what it refuses', () => {
    const c = usagePeriod(q('range=custom&from=2026-02-27&to=2026-03-01'), NOW);
    assert.ok(!isProblem(c));
    assert.deepEqual(c.buckets, ['2026-02-27', '2026-02-28', '2026-03-01']);
    assert.deepEqual(usagePeriod(q('range=custom&from=2026-02-30'), NOW), {
      field: 'from',
      code: 'from_date',
      message: 'The first day is not a date.',
    });
    // A day as typed in a French page, read by the page's reader (dayField.ts).
    const typed = usagePeriod(q('range=custom&from=27/02/2026&to=1.3.2026'), NOW, (s) => parseDay(s, 'fr'));
    assert.ok(!isProblem(typed));
    assert.deepEqual([typed.fromDay, typed.toDay], ['2026-02-27', '2026-03-01']);
    assert.equal((usagePeriod(q('range=custom&from=27/02/2026'), NOW) as { code: string }).code, 'from_date', 'ISO only by default');
    assert.equal((usagePeriod(q('range=custom&from=2026-13-01'), NOW) as { code: string }).code, 'from_date', 'a month 13 is no date');
    assert.equal((usagePeriod(q('range=custom&from=2026-01-01&to=2026-00-10'), NOW) as { code: string }).code, 'to_date');
    assert.equal((usagePeriod(q('range=custom&from=2026-03-02&to=2026-03-01'), NOW) as { field: string }).field, 'from');
    assert.equal(
      (usagePeriod(q('range=custom&from=2024-01-01&to=2026-01-01'), NOW) as { message: string }).message,
      'A custom period is at most 366 days.',
    );
    assert.equal((usagePeriod(q('range=custom&from=2026-01-01&to=x'), NOW) as { field: string }).field, 'to');
    assert.equal((usagePeriod(q('range=1y'), NOW) as { field: string }).field, 'range');
    assert.equal((usagePeriod(q('group=team'), NOW) as { field: string }).field, 'group');
  });
});

describe('dashboard usage: the figures', () => {
  const p = (bucket: string, group: string | null, sessions: number, seconds: number, code = ''): UsagePoint => ({
    bucket,
    group,
    code,
    sessions,
    audio_seconds: seconds,
  });

  it('totals per group, largest first; every bucket in each series, empty ones at zero', () => {
    const points = [
      p('2026-11-27', 'a', 2, 120),
      p('2026-11-28', 'a', 1, 60, 'AUTH_ERROR'),
      p('2026-11-28', 'b', 3, 600),
      p('2026-11-28', null, 1, 6),
    ];
    const m = usageModel(points, ['2026-11-26', '2026-11-27', '2026-11-28'], (id) => (id === null ? 'none' : id.toUpperCase()), 'Other');
    assert.deepEqual(
      m.groups.map((g) => [g.label, g.sessions, g.audioMinutes, g.errorTotal]),
      [
        ['B', 3, 10, 0],
        ['A', 3, 3, 1],
        ['none', 1, 0.1, 0],
      ],
    );
    assert.deepEqual(m.total, { sessions: 7, audioMinutes: 13.1, errors: 1 });
    assert.deepEqual(m.codes, ['AUTH_ERROR']);
    const [minutes, sessions, errors] = m.charts;
    assert.deepEqual(minutes.series, [
      { label: 'B', values: [0, 0, 10] },
      { label: 'A', values: [0, 2, 1] },
      { label: 'none', values: [0, 0, 0.1] },
    ]);
    assert.deepEqual(sessions.series[1], { label: 'A', values: [0, 2, 1] });
    assert.deepEqual(errors.series, [{ label: 'AUTH_ERROR', values: [0, 0, 1] }]);
  });

  it('beyond five groups, the rest is one series', () => {
    const points = Array.from({ length: 8 }, (_, i) => p('2026-11-28', `g${i}`, 1, (i + 1) * 60));
    const m = usageModel(points, ['2026-11-28'], (id) => String(id), 'Other');
    assert.deepEqual(
      m.charts[0].series.map((s) => [s.label, s.values[0]]),
      [
        ['g7', 8],
        ['g6', 7],
        ['g5', 6],
        ['g4', 5],
        ['g3', 4],
        ['Other', 6],
      ],
    );
    assert.equal(m.groups.length, 8, 'the table keeps every group');
  });

  it('chart data: hours and days as Unix seconds', () => {
    assert.equal(bucketTime('2026-11-28'), Date.parse('2026-11-28T00:00:00Z') / 1000);
    assert.equal(bucketTime('2026-11-28T04'), Date.parse('2026-11-28T04:00:00Z') / 1000);
    const c = chartData({ id: 'sessions', buckets: ['2026-11-28T03', '2026-11-28T04'], series: [] }, 'Sessions', 'fr');
    assert.equal(c.unit, 'hour');
    assert.deepEqual(c.x, [bucketTime('2026-11-28T03'), bucketTime('2026-11-28T04')]);
  });

  it('the CSV export: a line per period and group, a column per error code', () => {
    const { header, rows } = usageCsvRows(
      [p('2026-11-28', 'k1', 2, 90, ''), p('2026-11-28', 'k1', 1, 30, 'AUTH_ERROR'), p('2026-11-27', 'k2', 1, 60)],
      (id) => (id === 'k1' ? '=HYPERLINK("x")' : 'Bob, laptop'),
    );
    assert.deepEqual(header, ['period', 'group_id', 'group', 'sessions', 'audio_minutes', 'errors', 'errors_AUTH_ERROR']);
    assert.deepEqual(rows, [
      ['2026-11-27', 'k2', 'Bob, laptop', 1, 1, 0, 0],
      ['2026-11-28', 'k1', '=HYPERLINK("x")', 3, 2, 1, 1],
    ]);
    assert.equal(
      toCsv(header, rows),
      'period,group_id,group,sessions,audio_minutes,errors,errors_AUTH_ERROR\r\n' +
        '2026-11-27,k2,"Bob, laptop",1,1,0,0\r\n' +
        '2026-11-28,k1,"\'=HYPERLINK(""x"")",3,2,1,1\r\n',
    );
  });
});

describe('dashboard CSV cells', () => {
  it('neutralises formulas, quotes what must be quoted, writes numbers plainly', () => {
    assert.equal(csvCell('=1+1'), "'=1+1");
    assert.equal(csvCell('+33 6'), "'+33 6");
    assert.equal(csvCell('-2'), "'-2");
    assert.equal(csvCell('@SUM(A1)'), "'@SUM(A1)");
    assert.equal(csvCell('\tx'), "'\tx");
    assert.equal(csvCell('a"b'), '"a""b"');
    assert.equal(csvCell('line\nbreak'), '"line\nbreak"');
    assert.equal(csvCell(-2.5), '-2.5');
    assert.equal(csvCell(null), '');
    assert.equal(csvCell('plain'), 'plain');
    assert.equal(fileName('usage 2026-11-01/2026-11-28', 'csv'), 'usage-2026-11-01-2026-11-28.csv');
  });
});
