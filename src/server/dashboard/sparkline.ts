/** A 7-day usage sparkline as inline SVG (no script, no style attribute: the CSP allows neither inline), with its figures as text for screen readers. */
import { type Html, html, raw } from './html';

const W = 70;
const H = 18;

export function sparkline(series: readonly number[], label: string): Html {
  const max = Math.max(1, ...series);
  const step = series.length > 1 ? W / (series.length - 1) : W;
  const points = series.map((v, i) => `${(i * step).toFixed(1)},${(H - 1 - (v / max) * (H - 2)).toFixed(1)}`).join(' ');
  return html`<svg class="spark" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="${label}">
    <polyline fill="none" stroke="currentColor" stroke-width="1.5" points="${raw(points)}" />
  </svg>`;
}
