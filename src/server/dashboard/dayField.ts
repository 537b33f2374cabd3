/**
 * The day fields of the dashboard (the Usage page's custom period, the Audit log's days), written in the
 * page's language: text fields, not `<input type="date">`, which Chromium draws in the browser's own
 * language whatever the page's (mm/dd/yyyy in a French page of an English browser). French, Spanish and
 * German write a day in Intl's day-month-year order and separator (28/11/2026, 28.11.2026); English in ISO
 * (2026-11-28: neither the British nor the American order, so no reader takes 03/04 for the other day). A
 * day is read back in the same way (any of `/ . -` between the parts, one or two digits for the day and
 * the month, four for the year), and ISO is understood in every language (links, bookmarks, exports). The
 * field's label and placeholder say the format (`YYYY-MM-DD`, translated: JJ/MM/AAAA, DD/MM/AAAA, TT.MM.JJJJ).
 */
import type { DashReq } from './context';
import { type Html, html } from './html';

type Part = 'day' | 'month' | 'year';

/** How a language writes a day: ISO, or its parts in order with a separator. */
type DayFormat = { iso: true } | { iso: false; order: readonly Part[]; separator: string };

const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const FORMATS = new Map<string, DayFormat>();

/** The format of a language: Intl's numeric day, month and year for it (ISO for English). */
function dayFormat(locale: string): DayFormat {
  let f = FORMATS.get(locale);
  if (f) return f;
  if (locale === 'en') f = { iso: true };
  else {
    const parts = new Intl.DateTimeFormat(locale, { day: '2-digit', month: '2-digit', year: 'numeric', timeZone: 'UTC' }).formatToParts(
      new Date(Date.UTC(2026, 10, 28)),
    );
    const order = parts.map((p) => p.type).filter((t): t is Part => t === 'day' || t === 'month' || t === 'year');
    const separator = parts.find((p) => p.type === 'literal')?.value ?? '/';
    f = order.length === 3 ? { iso: false, order, separator } : { iso: true };
  }
  FORMATS.set(locale, f);
  return f;
}

/** A real day (not 2026-02-30) as ISO `YYYY-MM-DD`, or undefined. */
function isoOf(year: number, month: number, day: number): string | undefined {
  const t = Date.UTC(year, month - 1, day);
  const d = new Date(t);
  if (year < 1000 || d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) return undefined;
  return d.toISOString().slice(0, 10);
}

/** An ISO day (`YYYY-MM-DD`) as the language writes it. */
export function formatDay(isoDay: string, locale: string): string {
  const f = dayFormat(locale);
  const m = ISO_DAY.exec(isoDay);
  if (f.iso || !m) return isoDay;
  const value: Record<Part, string> = { year: m[1]!, month: m[2]!, day: m[3]! };
  return f.order.map((p) => value[p]).join(f.separator);
}

/** What was typed in a day field, as an ISO day; undefined when it is no day of that language (nor ISO). */
export function parseDay(text: string, locale: string): string | undefined {
  const s = text.trim();
  const iso = ISO_DAY.exec(s);
  if (iso) return isoOf(Number(iso[1]), Number(iso[2]), Number(iso[3]));
  const f = dayFormat(locale);
  if (f.iso) return undefined;
  const m = /^(\d{1,4})[/.-](\d{1,4})[/.-](\d{1,4})$/.exec(s);
  if (!m) return undefined;
  const value = { day: 0, month: 0, year: 0 };
  for (const [i, p] of f.order.entries()) {
    const digits = m[i + 1]!;
    if (p === 'year' ? digits.length !== 4 : digits.length > 2) return undefined;
    value[p] = Number(digits);
  }
  return isoOf(value.year, value.month, value.day);
}

/** The format of the page's day fields, in its language (JJ/MM/AAAA). */
function dayHint(r: DashReq): string {
  return r.l10n.t('YYYY-MM-DD');
}

/** What is wrong with a day typed in the first or last field of a filter, with the format and an example (today). */
export function dayProblemText(r: DashReq, field: 'from' | 'to'): string {
  const { l10n } = r;
  const example = formatDay(new Date(r.ctx.now()).toISOString().slice(0, 10), l10n.locale);
  return field === 'from'
    ? l10n.t('The first day is not a date: write it {0}, for example {1}.', dayHint(r), example)
    : l10n.t('The last day is not a date: write it {0}, for example {1}.', dayHint(r), example);
}

/** A day field: its label (with the format), the value in the page's language (or as typed, after a refusal). */
export function dayInput(r: DashReq, o: { id: string; name: string; label: string; value: string; invalid?: Html | string }): Html {
  const hint = dayHint(r);
  return html`<label for="${o.id}">${o.label} <span class="hint">(${hint})</span></label>
    <input
      type="text"
      id="${o.id}"
      name="${o.name}"
      value="${o.value}"
      placeholder="${hint}"
      size="10"
      maxlength="20"
      autocomplete="off"
      spellcheck="false"
      ${o.invalid ?? ''}
    />`;
}
