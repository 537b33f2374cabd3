/**
 * The dashboard's languages: English, French, Spanish, German. A person's choice (people.locale) first,
 * then the browser's `Accept-Language`, then English. The messages are `l10n.t('English text', …)` calls in
 * src/server/dashboard/ (read by scripts/l10n.ts into l10n/dashboard.l10n.json; the translations are
 * l10n/dashboard.l10n.<lang>.json, checked by `npm run l10n -- --check`). Dates and numbers with Intl.
 */
import fr from '../../../l10n/dashboard.l10n.fr.json';
import es from '../../../l10n/dashboard.l10n.es.json';
import de from '../../../l10n/dashboard.l10n.de.json';

export const LOCALES = ['en', 'fr', 'es', 'de'] as const;
type Locale = (typeof LOCALES)[number];

const BUNDLES: Record<Locale, Record<string, string>> = { en: {}, fr, es, de };

/** The names of the languages, each in itself (the language menu). */
export const LOCALE_NAMES: Record<Locale, string> = { en: 'English', fr: 'Français', es: 'Español', de: 'Deutsch' };

export function isLocale(s: unknown): s is Locale {
  return typeof s === 'string' && (LOCALES as readonly string[]).includes(s);
}

/** The best of our languages for an `Accept-Language` header (q-values honoured), or English. */
export function negotiate(acceptLanguage: string | undefined): Locale {
  if (!acceptLanguage) return 'en';
  const wanted = acceptLanguage
    .split(',')
    .map((part, i) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const weight = q ? Number(q.slice(2)) : 1;
      return { lang: tag.trim().toLowerCase().split('-')[0] ?? '', weight: Number.isFinite(weight) ? weight : 0, i };
    })
    .filter((w) => w.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.i - b.i);
  for (const w of wanted) if (isLocale(w.lang)) return w.lang;
  return 'en';
}

/** The translator of one language: `t('English {0}', x)`, and dates and numbers with Intl. */
export class L10n {
  private readonly bundle: Record<string, string>;
  private readonly dateFmt: Intl.DateTimeFormat;
  private readonly dayFmt: Intl.DateTimeFormat;
  /** "UTC" as the language writes it (Intl's own name of the zone), after each time shown. */
  private readonly zone: string;
  private readonly numFmt: Intl.NumberFormat;
  private readonly plural: Intl.PluralRules;

  constructor(readonly locale: Locale) {
    this.bundle = BUNDLES[locale];
    this.dateFmt = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });
    this.dayFmt = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' });
    this.zone =
      new Intl.DateTimeFormat(locale, { timeZone: 'UTC', timeZoneName: 'short' }).formatToParts(0).find((p) => p.type === 'timeZoneName')
        ?.value ?? 'UTC';
    this.numFmt = new Intl.NumberFormat(locale);
    this.plural = new Intl.PluralRules(locale);
  }

  t(message: string, ...args: Array<string | number>): string {
    const text = this.bundle[message] ?? message;
    return text.replace(/\{(\d+)\}/g, (m, i: string) => {
      const v = args[Number(i)];
      return v === undefined ? m : String(v);
    });
  }

  /** A time (ISO) as a date and time, UTC, said ("Nov 29, 2026, 12:39 PM UTC"): correct without script, whatever the browser's zone. */
  dateTime(iso: string): string {
    return `${this.dateFmt.format(new Date(iso))} ${this.zone}`;
  }

  /** A time (ISO) as a date, UTC. */
  date(iso: string): string {
    return this.dayFmt.format(new Date(iso));
  }

  number(n: number): string {
    return this.numFmt.format(n);
  }

  /**
   * Whether a count takes the singular in this language (Intl.PluralRules: 1 in English, Spanish and German;
   * 0, 1 and 1.5 in French): the page then says `l10n.t('{0} key', …)` rather than `l10n.t('{0} keys', …)`.
   */
  one(n: number): boolean {
    return this.plural.select(n) === 'one';
  }
}

const CACHE = new Map<Locale, L10n>();

export function l10nFor(locale: Locale): L10n {
  let l = CACHE.get(locale);
  if (!l) CACHE.set(locale, (l = new L10n(locale)));
  return l;
}
