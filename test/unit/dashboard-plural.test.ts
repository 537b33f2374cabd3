/**
 * The dashboard's counts in the singular or the plural as each language says (i18n.ts `one`, Intl.PluralRules):
 * "1 key" in English, "0 clé" and "1,5 minute" in French, "1 Schlüssel" in German; each singular message of the
 * catalogue translated apart from its plural.
 */
import assert from 'node:assert/strict';
import { l10nFor } from '../../src/server/dashboard/i18n';

describe('dashboard counts: singular and plural', () => {
  it('follows each language', () => {
    const one = (l: 'en' | 'fr' | 'es' | 'de', n: number): boolean => l10nFor(l).one(n);
    assert.deepEqual([one('en', 0), one('en', 1), one('en', 2), one('en', 0.2)], [false, true, false, false]);
    assert.deepEqual([one('fr', 0), one('fr', 1), one('fr', 1.5), one('fr', 2)], [true, true, true, false]);
    assert.deepEqual([one('es', 1), one('es', 0), one('de', 1), one('de', 0)], [true, false, true, false]);
  });

  it('the singular messages are their own', () => {
    assert.equal(l10nFor('fr').t('{0} session in 7 days', '1'), '1 session en 7 jours');
    assert.equal(l10nFor('es').t('{0} live session', '1'), '1 sesión en curso');
    assert.equal(l10nFor('de').t('{0} entry', '1'), '1 Eintrag');
  });
});
