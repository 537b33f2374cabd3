/**
 * The golden tables (test/fixtures/dictation/*.tsv): at least 150 spoken → written pairs per language,
 * medical and legal, dictated through the library into an empty document; and the grammar applied to
 * its own output changes nothing (a property over random runs of the tables' utterances).
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DictationDocument } from '../../src/dictation/document';
import { formatText } from '../../src/dictation/format';
import { TABLES } from '../../src/dictation/lang';
import { LANGUAGES } from '../../src/dictation/types';
import { builtinTemplates, goldenRows } from '../helpers/dictation';

const templates = builtinTemplates();

describe('dictation: golden tables', () => {
  for (const language of LANGUAGES) {
    const rows = goldenRows(language);
    describe(`${language} (${rows.length} pairs)`, () => {
      it('has at least 150 pairs, medical and legal', () => {
        assert.ok(rows.length >= 150, `${rows.length} pairs`);
        assert.ok(
          rows.some((r) => /jur|legal|recht/iu.test(r.section)),
          'a legal section',
        );
      });
      for (const row of rows) {
        it(`${row.utterances.join(' | ')} (line ${row.line})`, () => {
          const doc = new DictationDocument({ language, specialty: row.specialty, templates });
          for (const u of row.utterances) doc.dictate(u);
          doc.end();
          assert.equal(doc.text, row.written);
        });
      }
    });
  }
});

describe('dictation: idempotence', () => {
  for (const language of LANGUAGES) {
    // A word written literally ("littéral virgule") is the one thing that reads differently a second time.
    const literal = TABLES[language].literal;
    const single = goldenRows(language).filter(
      (r) => r.utterances.length === 1 && !r.utterances[0]!.split(' ').some((w) => literal.includes(w.toLowerCase())),
    );
    it(`${language}: every written column formats to itself`, () => {
      for (const r of single) {
        const again = formatText(r.written, { language, specialty: r.specialty }, { before: '', after: '' });
        assert.equal(again, r.written, `line ${r.line}: ${r.utterances[0]}`);
      }
    });
    it(`${language}: formatting the output of any run of the tables' utterances changes nothing`, () => {
      const spoken = single.map((r) => r.utterances[0]!);
      fc.assert(
        fc.property(fc.array(fc.constantFrom(...spoken), { minLength: 1, maxLength: 4 }), (parts) => {
          const once = formatText(parts.join(' '), { language }, { before: '', after: '' });
          const twice = formatText(once, { language }, { before: '', after: '' });
          assert.equal(twice, once, `input: ${parts.join(' ')}`);
        }),
        { numRuns: 300 },
      );
    });
  }
});
