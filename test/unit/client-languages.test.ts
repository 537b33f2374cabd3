import assert from 'node:assert/strict';
import { chooseLanguage, languageRefusal } from '../../src/client/languages';

describe('client: the language to dictate in, from the languages the service serves', () => {
  it('no --language: the only one served, else French when served, else the first served', () => {
    assert.deepEqual(chooseLanguage(['en']), { language: 'en', why: 'the only language the service serves' });
    assert.equal(chooseLanguage(['de', 'fr', 'en']).language, 'fr');
    assert.match(chooseLanguage(['de', 'fr', 'en']).why, /the default, among the languages the service serves \(de, fr, en\)/);
    assert.deepEqual(chooseLanguage(['es', 'de']), { language: 'es', why: 'the first of the languages the service serves (es, de)' });
    assert.equal(chooseLanguage(['it', 'de']).language, 'de', 'a language the protocol lacks is skipped');
  });

  it('the service takes any language, does not say, or serves none the protocol knows: French, and why', () => {
    assert.deepEqual(chooseLanguage(['any']), { language: 'fr', why: 'the default: the service takes any language' });
    assert.match(chooseLanguage(undefined).why, /did not say/);
    assert.equal(chooseLanguage(undefined).language, 'fr');
    assert.match(chooseLanguage(['it']).why, /serves none of fr, en, es, de \(it says it\)/);
  });

  it('a language the service does not serve is refused, naming those it serves; otherwise nothing to say', () => {
    assert.equal(languageRefusal('fr', ['en']), 'the service does not serve the language fr; it serves en');
    assert.equal(languageRefusal('en', ['en']), undefined);
    assert.equal(languageRefusal('fr', ['any']), undefined);
    assert.equal(languageRefusal('fr', undefined), undefined);
    assert.equal(languageRefusal('fr', []), undefined);
  });
});
