/**
 * The API keys page's rows, pure (unit-tested): the keys a person manages (the same rule as the keys API:
 * http/scope.ts's `managesKey`), their badges ("expires soon", "never used", "idle 90 days") and their
 * 7-day usage, from one listing and one query of the daily rollup (no query per key); the table's page and
 * caption.
 */
import type { KeyListing } from '../../protocol';
import type { Actor } from '../http/actor';
import { actorManages } from '../http/actor';
import type { L10n } from './i18n';

const DAY_MS = 86_400_000;
/** A key that expires within this many days is "expires soon". */
const EXPIRES_SOON_DAYS = 14;
/** A key unused for this many days is "idle 90 days". */
const IDLE_DAYS = 90;

export type Badge = 'expires_soon' | 'never_used' | 'idle' | 'expired' | 'revoked';

export function badgesOf(k: Pick<KeyListing, 'created_at' | 'expires_at' | 'last_used_at' | 'revoked_at'>, now: number): Badge[] {
  if (k.revoked_at) return ['revoked'];
  const out: Badge[] = [];
  if (k.expires_at) {
    const left = Date.parse(k.expires_at) - now;
    if (left <= 0) return ['expired'];
    if (left <= EXPIRES_SOON_DAYS * DAY_MS) out.push('expires_soon');
  }
  if (!k.last_used_at) out.push('never_used');
  else if (now - Date.parse(k.last_used_at) >= IDLE_DAYS * DAY_MS) out.push('idle');
  return out;
}

/** An expiry within this many hours is shown with its time of day (a roll's overlap of 1 or 24 hours). */
const EXPIRY_TIME_HOURS = 48;

/** A key's expiry as the pages show it: the date, or the date and time (UTC) when it is within the next 48 hours. */
export function expiryText(l10n: L10n, expiresAt: string, now: number): string {
  const left = Date.parse(expiresAt) - now;
  return left > 0 && left <= EXPIRY_TIME_HOURS * 3_600_000 ? l10n.dateTime(expiresAt) : l10n.date(expiresAt);
}

/** The last 7 UTC days, oldest first (YYYY-MM-DD). */
export function lastDays(now: number, n = 7): string[] {
  const out: string[] = [];
  for (let i = n - 1; i >= 0; i--) out.push(new Date(now - i * DAY_MS).toISOString().slice(0, 10));
  return out;
}

/** Sessions per key for each of `days` (zeros where none), from the rollup's rows. */
export function usageByKey(
  rows: ReadonlyArray<{ key_id: string; day: string; sessions: number }>,
  days: readonly string[],
): Map<string, number[]> {
  const index = new Map(days.map((d, i) => [d, i]));
  const out = new Map<string, number[]>();
  for (const row of rows) {
    const i = index.get(row.day);
    if (i === undefined) continue;
    let series = out.get(row.key_id);
    if (!series) out.set(row.key_id, (series = days.map(() => 0)));
    series[i]! += row.sessions;
  }
  return out;
}

/** The keys the actor manages, neither revoked nor long expired (shown: live ones and those expired within 30 days), newest first. */
export function visibleKeys(keys: readonly KeyListing[], actor: Actor, now: number): KeyListing[] {
  return keys
    .filter((k) => actorManages(actor, { orgId: k.org_id, projectId: k.project_id, personId: k.person_id ?? null }))
    .filter((k) => !k.revoked_at && (!k.expires_at || Date.parse(k.expires_at) > now - 30 * DAY_MS))
    .sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
}

/** The keys in a roll's overlap: replaced by a roll (another key was rolled from them), and neither revoked nor expired. */
export function inRollOverlap(keys: readonly KeyListing[], now: number): Set<string> {
  const replaced = new Set(keys.map((k) => k.rolled_from).filter((id): id is string => id !== null));
  return new Set(
    keys.filter((k) => replaced.has(k.id) && !k.revoked_at && !(k.expires_at && Date.parse(k.expires_at) <= now)).map((k) => k.id),
  );
}

/** Rows of the keys table on one page: the page renders fast and reads well with 10,000 keys. */
const KEYS_PER_PAGE = 100;

export interface KeysPage {
  /** 1-based, within 1…pages. */
  page: number;
  pages: number;
  /** The rows shown: `from` (0-based, inclusive) to `to` (exclusive). */
  from: number;
  to: number;
}

/** The page of `total` rows that a `?page=` value asks for; a missing, unreadable or out-of-range value gives the nearest page. */
export function keysPageOf(total: number, asked: string | null, size = KEYS_PER_PAGE): KeysPage {
  const pages = Math.max(1, Math.ceil(total / size));
  const n = asked !== null && /^\d{1,9}$/.test(asked) ? Number(asked) : 1;
  const page = Math.min(Math.max(n, 1), pages);
  const from = (page - 1) * size;
  return { page, pages, from, to: Math.min(total, from + size) };
}

/**
 * The keys table's caption: the count ("1 key", "5 keys"), or on one of several pages the rows shown and the
 * count ("101–200 of 250 keys"), each in the singular where the language says the count takes it (`L10n.one`).
 */
export function keysCaption(l10n: L10n, total: number, at: KeysPage): string {
  const n = l10n.number(total);
  if (at.pages > 1) {
    const [first, last] = [l10n.number(at.from + 1), l10n.number(at.to)];
    return l10n.one(total) ? l10n.t('{0}–{1} of {2} key', first, last, n) : l10n.t('{0}–{1} of {2} keys', first, last, n);
  }
  return l10n.one(total) ? l10n.t('{0} key', n) : l10n.t('{0} keys', n);
}
