/**
 * The Usage page's charts, drawn in the browser with uPlot (bundled by esbuild to dist/dashboard/charts.js,
 * loaded only by that page). No inline script: each chart's figures are in a `<script type="application/json">`
 * block (data, never run) named by its container's `data-chart` attribute. The chart is a picture of the
 * table beside it (the table is what a screen reader reads), so its container is `aria-hidden`. The DOM
 * types it uses are declared here (the project's TypeScript has no DOM library).
 */
import uPlot from 'uplot';
import type { ChartData } from '../usageModel';
import { timeAxis } from './chartAxis';

interface Box {
  getAttribute(name: string): string | null;
  textContent: string | null;
  clientWidth: number;
}
declare const document: {
  readyState: string;
  querySelectorAll(sel: string): ArrayLike<Box>;
  getElementById(id: string): Box | null;
  addEventListener(t: string, fn: () => void): void;
};
declare class ResizeObserver {
  constructor(fn: () => void);
  observe(el: Box): void;
}
declare const console: { error(...args: unknown[]): void };

/** Colours with at least 3:1 contrast on white (WCAG 1.4.11), told apart by their dash too. */
const COLOURS = ['#1f5fa8', '#b3471b', '#2e7d32', '#7b3fa0', '#8a6d00', '#4a4a4a', '#c2185b', '#00796b'];
const DASHES: number[][] = [[], [6, 3], [2, 2], [8, 3, 2, 3], [1, 3], [10, 4]];

function options(data: ChartData, width: number): uPlot.Options {
  const nf = new Intl.NumberFormat(data.locale);
  return {
    title: data.title,
    width,
    height: 240,
    // The legend names the series only: the table beside the chart has the figures (a live legend would show
    // uPlot's own English "Time" and "--" until the pointer rests on a point).
    legend: { live: false },
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
    scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
    axes: [timeAxis(data), { values: (_u, splits) => splits.map((v) => nf.format(v)) }],
    series: [
      {},
      ...data.series.map((s, i) => ({
        label: s.label,
        stroke: COLOURS[i % COLOURS.length],
        dash: DASHES[i % DASHES.length],
        width: 2,
        points: { show: true, size: 5 },
        value: (_u: uPlot, v: number | null) => (v === null ? '' : nf.format(v)),
      })),
    ],
  };
}

function draw(container: Box): void {
  const source = document.getElementById(container.getAttribute('data-chart') ?? '');
  if (!source?.textContent) return;
  const data = JSON.parse(source.textContent) as ChartData;
  if (data.series.length === 0 || data.x.length === 0) return;
  const width = (): number => Math.max(280, container.clientWidth || 600);
  const plot = new uPlot(options(data, width()), [data.x, ...data.series.map((s) => s.values)], container as never);
  new ResizeObserver(() => plot.setSize({ width: width(), height: 240 })).observe(container);
}

function start(): void {
  const all = document.querySelectorAll('[data-chart]');
  for (let i = 0; i < all.length; i++) {
    try {
      draw(all[i]!);
    } catch (e) {
      // The table beside the chart holds the same figures: a chart that cannot be drawn loses nothing.
      console.error('chart not drawn', e);
    }
  }
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
