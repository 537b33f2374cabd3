/**
 * The dashboard's day fields (dayField.ts): a day written and read in each language's order (Intl's), ISO
 * in English and understood everywhere, impossible days refused, and the translated format hint
 * (JJ/MM/AAAA…) in the same order and with the same separator as what the field writes.
 */
import assert from 'node:assert/strict';
import { formatDay, parseDay } from '../../src/server/dashboard/dayField';
import { l10nFor } from '../../src/server/dashboard/i18n';

describe('dashboard day fields', () => {
  it('writes a day in the language of the page', () => {
    assert.equal(formatDay('2026-03-04', 'fr'), '04/03/2026');
    assert.equal(formatDay('2026-03-04', 'es'), '04/03/2026');
    assert.equal(formatDay('2026-03-04', 'de'), '04.03.2026');
    assert.equal(formatDay('2026-03-04', 'en'), '2026-03-04', 'English: ISO, neither the British nor the American order');
  });

  it('reads it back, day first in French, Spanish and German; ISO in every language', () => {
    for (const l of ['fr', 'es', 'de', 'en']) {
      assert.equal(parseDay(formatDay('2026-03-04', l), l), '2026-03-04', l);
      assert.equal(parseDay(' 2026-03-04 ', l), '2026-03-04', `ISO in ${l}`);
    }
    assert.equal(parseDay('4/3/2026', 'fr'), '2026-03-04', 'the 4th of March, not the 3rd of April');
    assert.equal(parseDay('4.3.2026', 'fr'), '2026-03-04', 'another separator');
    assert.equal(parseDay('04.03.2026', 'de'), '2026-03-04');
    assert.equal(parseDay('4/3/2026', 'es'), '2026-03-04');
  });

  it('refuses what is no day', () => {
    assert.equal(parseDay('31/02/2026', 'fr'), undefined, 'no 31st of February');
    assert.equal(parseDay('03/13/2026', 'fr'), undefined, 'no month 13 (an American order)');
    assert.equal(parseDay('04/03/26', 'fr'), undefined, 'a year of two digits');
    assert.equal(parseDay('2026-02-30', 'de'), undefined);
    assert.equal(parseDay('04/03/2026', 'en'), undefined, 'English takes ISO only');
    assert.equal(parseDay('', 'fr'), undefined);
    assert.equal(parseDay('demain', 'fr'), undefined);
    assert.equal(parseDay('004/03/2026', 'fr'), undefined);
  });

  it('the hint of each language has the order and separator of what the field writes', () => {
    for (const l of ['en', 'fr', 'es', 'de'] as const) {
      const hint = l10nFor(l).t('YYYY-MM-DD');
      const shape = formatDay('2026-11-28', l).replace(/\d/g, 'x');
      assert.equal(hint.replace(/[A-Za-z]/g, 'x'), shape, `${l}: ${hint}`);
      // The day's letters where the day is (JJ, DD, TT), the year's where the year is.
      const dayAt = formatDay('2026-11-28', l).indexOf('28');
      assert.match(hint.slice(dayAt, dayAt + 2), /^(JJ|DD|TT)$/, l);
    }
  });
});
