/**
 * keyRows.ts, the API keys page's rows: the badges at their boundaries (idle at exactly 90 days unused,
 * "expires soon" at exactly 14 days left, expired at its instant, revoked before anything else), the last 7
 * UTC days, the 7-day usage per key (summed, zeros where none, rows outside the days ignored), and the keys
 * a person sees (their own and their projects', never another organisation's, neither revoked nor expired
 * over 30 days ago, newest first); the table's caption ("1 key", "201–250 of 250 keys") in the singular where
 * each language says so.
 */
import assert from 'node:assert/strict';
import type { KeyListing } from '../../src/protocol';
import type { Actor } from '../../src/server/http/actor';
import { LOCALES, l10nFor } from '../../src/server/dashboard/i18n';
import {
  expiryText,
  type KeysPage,
  badgesOf,
  inRollOverlap,
  keysCaption,
  keysPageOf,
  lastDays,
  usageByKey,
  visibleKeys,
} from '../../src/server/dashboard/keyRows';
import type { ApiKey } from '../../src/server/storage/stores';

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-28T08:00:00.000Z');
const iso = (ms: number): string => new Date(ms).toISOString();
const key = (k: Partial<KeyListing>): Pick<KeyListing, 'created_at' | 'expires_at' | 'last_used_at' | 'revoked_at'> => ({
  created_at: iso(NOW - 200 * DAY),
  expires_at: null,
  last_used_at: iso(NOW),
  revoked_at: null,
  ...k,
});

describe('dashboard key rows', () => {
  it('times are said to be UTC in every language; an expiry within 48 hours has its time of day', () => {
    for (const lang of LOCALES) assert.match(l10nFor(lang).dateTime('2026-11-29T12:39:00Z'), /12:39.* UTC$|12:39 PM UTC$/, lang);
    const en = l10nFor('en');
    assert.equal(expiryText(en, iso(NOW + 3_600_000), NOW), 'Nov 28, 2026, 9:00 AM UTC');
    assert.equal(expiryText(en, iso(NOW + 48 * 3_600_000), NOW), 'Nov 30, 2026, 8:00 AM UTC');
    assert.equal(expiryText(en, iso(NOW + 48 * 3_600_000 + 1), NOW), 'Nov 30, 2026');
    assert.equal(expiryText(en, iso(NOW - 1), NOW), 'Nov 28, 2026', 'an expired key: its date');
  });
  it('in a roll overlap: a key another was rolled from, until it is revoked or expires', () => {
    const k = (id: string, more: Partial<KeyListing> = {}): KeyListing =>
      ({ id, rolled_from: null, revoked_at: null, expires_at: null, ...more }) as KeyListing;
    const keys = [
      k('old', { expires_at: iso(NOW + 3_600_000) }),
      k('new', { rolled_from: 'old' }),
      k('gone', { expires_at: iso(NOW) }),
      k('after-gone', { rolled_from: 'gone' }),
      k('revoked', { revoked_at: iso(NOW - 1) }),
      k('after-revoked', { rolled_from: 'revoked' }),
      k('alone'),
    ];
    assert.deepEqual([...inRollOverlap(keys, NOW)], ['old']);
  });
  it('idle: at exactly 90 days unused, not a millisecond before', () => {
    assert.deepEqual(badgesOf(key({ last_used_at: iso(NOW - 90 * DAY) }), NOW), ['idle']);
    assert.deepEqual(badgesOf(key({ last_used_at: iso(NOW - 90 * DAY + 1) }), NOW), []);
  });

  it('never used: a key with no use at all (not also idle)', () => {
    assert.deepEqual(badgesOf(key({ last_used_at: null }), NOW), ['never_used']);
  });

  it('expires soon: at exactly 14 days left, not a millisecond more; with the other badges', () => {
    assert.deepEqual(badgesOf(key({ expires_at: iso(NOW + 14 * DAY) }), NOW), ['expires_soon']);
    assert.deepEqual(badgesOf(key({ expires_at: iso(NOW + 14 * DAY + 1) }), NOW), []);
    assert.deepEqual(badgesOf(key({ expires_at: iso(NOW + DAY), last_used_at: null }), NOW), ['expires_soon', 'never_used']);
  });

  it('expired at its very instant, and only that badge; revoked wins over everything', () => {
    assert.deepEqual(badgesOf(key({ expires_at: iso(NOW), last_used_at: null }), NOW), ['expired']);
    assert.deepEqual(badgesOf(key({ expires_at: iso(NOW + 1) }), NOW), ['expires_soon']);
    assert.deepEqual(badgesOf(key({ revoked_at: iso(NOW - DAY), expires_at: iso(NOW - DAY), last_used_at: null }), NOW), ['revoked']);
  });

  it('the last 7 UTC days, oldest first, across a month end', () => {
    assert.deepEqual(lastDays(Date.parse('2026-12-02T00:30:00.000Z')), [
      '2026-11-26',
      '2026-11-27',
      '2026-11-28',
      '2026-11-29',
      '2026-11-30',
      '2026-12-01',
      '2026-12-02',
    ]);
    assert.deepEqual(lastDays(NOW, 1), ['2026-11-28']);
  });

  it('usage per key: summed per day, zeros where none, days outside ignored', () => {
    const days = lastDays(NOW);
    const got = usageByKey(
      [
        { key_id: 'a', day: '2026-11-28', sessions: 2 },
        { key_id: 'a', day: '2026-11-28', sessions: 3 },
        { key_id: 'a', day: '2026-11-22', sessions: 1 },
        { key_id: 'b', day: '2026-11-21', sessions: 9 },
      ],
      days,
    );
    assert.deepEqual(got.get('a'), [1, 0, 0, 0, 0, 0, 5]);
    assert.equal(got.has('b'), false, 'a day before the seven is not counted');
  });

  it('visible keys: a member sees their own and their administered project’s, not revoked, not long expired, newest first', () => {
    const base = {
      type: 'personal',
      permissions: ['read'],
      environment: 'live',
      org_id: 'org1',
      project_id: null,
      hint: 'h',
      rolled_from: null,
      last_used_at: null,
      revoked_at: null,
      expires_at: null,
    } as const;
    const mk = (id: string, extra: Partial<KeyListing>): KeyListing => ({
      ...base,
      id,
      name: id,
      person_id: 'p1',
      created_at: iso(NOW - DAY),
      ...extra,
      permissions: ['read'],
    });
    const keys = [
      mk('own-old', { created_at: iso(NOW - 3 * DAY) }),
      mk('own-new', { created_at: iso(NOW - DAY) }),
      mk('other-person', { person_id: 'p2' }),
      mk('project', { person_id: null, project_id: 'rad', type: 'project' }),
      mk('other-project', { person_id: null, project_id: 'cardio', type: 'project' }),
      mk('other-org', { org_id: 'org2' }),
      mk('revoked', { revoked_at: iso(NOW - DAY) }),
      mk('expired-29d', { expires_at: iso(NOW - 29 * DAY) }),
      mk('expired-31d', { expires_at: iso(NOW - 31 * DAY) }),
    ];
    const me: ApiKey = {
      id: 'person:p1',
      name: '',
      type: 'personal',
      projectId: null,
      permissions: ['read', 'write', 'admin'],
      environment: 'live',
      orgId: 'org1',
      createdAt: iso(NOW),
      revokedAt: null,
      hint: '',
      personId: 'p1',
      personRole: 'member',
      expiresAt: null,
      rolledFrom: null,
    };
    const actor: Actor = { acting: me, id: me.id, key: me, adminProjects: new Set(['rad']), ip: '127.0.0.1' };
    assert.deepEqual(
      visibleKeys(keys, actor, NOW).map((k) => k.id),
      ['own-new', 'project', 'expired-29d', 'own-old'],
    );
  });
});

describe('keyRows: the page of the keys table', () => {
  it('shows 100 rows a page; the last page holds the rest', () => {
    assert.deepEqual(keysPageOf(10_000, null), { page: 1, pages: 100, from: 0, to: 100 });
    assert.deepEqual(keysPageOf(10_000, '2'), { page: 2, pages: 100, from: 100, to: 200 });
    assert.deepEqual(keysPageOf(250, '3'), { page: 3, pages: 3, from: 200, to: 250 });
    assert.deepEqual(keysPageOf(100, null), { page: 1, pages: 1, from: 0, to: 100 });
    assert.deepEqual(keysPageOf(101, '2'), { page: 2, pages: 2, from: 100, to: 101 });
  });

  it('one page when there is no key; an unreadable or out-of-range page gives the nearest one', () => {
    assert.deepEqual(keysPageOf(0, '5'), { page: 1, pages: 1, from: 0, to: 0 });
    assert.equal(keysPageOf(250, '0').page, 1);
    assert.equal(keysPageOf(250, '-1').page, 1);
    assert.equal(keysPageOf(250, 'two').page, 1);
    assert.equal(keysPageOf(250, '1.5').page, 1);
    assert.equal(keysPageOf(250, '99').page, 3);
    assert.equal(keysPageOf(250, '99999999999999').page, 1);
  });
});

describe('keyRows: the keys table caption, singular or plural in each language', () => {
  type Locale = (typeof LOCALES)[number];
  const caption = (locale: Locale, total: number, at: KeysPage): string => keysCaption(l10nFor(locale), total, at);
  const each = (f: (l: Locale) => string): string[] => LOCALES.map(f);

  it('one page: the count', () => {
    assert.deepEqual(
      each((l) => caption(l, 1, keysPageOf(1, null))),
      ['1 key', '1 clé', '1 clave', '1 Schlüssel'],
    );
    assert.deepEqual(
      each((l) => caption(l, 5, keysPageOf(5, null))),
      ['5 keys', '5 clés', '5 claves', '5 Schlüssel'],
    );
  });

  it('several pages: the rows shown and the count', () => {
    assert.deepEqual(
      each((l) => caption(l, 250, keysPageOf(250, '3'))),
      ['201–250 of 250 keys', 'Clés 201 à 250 sur 250', 'Claves 201 a 250 de 250', 'Schlüssel 201–250 von 250'],
    );
    // A count of one on a page of a range (the caption does not depend on the page size, 100 today).
    const oneOfOne: KeysPage = { page: 1, pages: 2, from: 0, to: 1 };
    assert.deepEqual(
      each((l) => caption(l, 1, oneOfOne)),
      ['1–1 of 1 key', 'Clé 1 à 1 sur 1', 'Clave 1 a 1 de 1', 'Schlüssel 1–1 von 1'],
    );
  });
});
