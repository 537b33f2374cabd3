import assert from 'node:assert/strict';
import { spokenCommands, TABLES } from '../../src/dictation';
import { ENGLISH } from '../../src/extension/l10nText';
import { onlyWith, plainText, spokenLabel, spokenRows } from '../../src/extension/spokenCommandsText';

describe('What Can I Say? rows (a quick pick shows no Markdown)', () => {
  it('shows code spans as plain text, spoken forms with a capital, vocabularies by their names', () => {
    assert.equal(plainText('`:` — the organ'), ': — the organ');
    assert.equal(plainText('bullet (`- `)'), 'bullet (-)');
    assert.equal(plainText('` – ` (a dash)'), '– (a dash)');
    assert.equal(spokenLabel('what can I say'), '“What can I say”');
    assert.equal(onlyWith(ENGLISH, ['general', 'legal']), 'only when the vocabulary is General or Legal');
    assert.equal(onlyWith(ENGLISH, ['radiology']), 'only when the vocabulary is Radiology');
  });

  for (const lang of ['en', 'fr', 'es', 'de'] as const) {
    it(`${lang}: no backtick in any row, and every group has a title`, () => {
      const rows = spokenRows(ENGLISH, spokenCommands(TABLES[lang]));
      assert.ok(rows.length > 20);
      for (const r of rows) assert.doesNotMatch(`${r.label} ${r.description ?? ''} ${r.detail ?? ''}`, /`/, JSON.stringify(r));
      assert.equal(rows.filter((r) => r.separator).length, 4);
    });
  }

  it('a command said alone is described in the user\'s language, in English as in the grammar\'s tables', () => {
    for (const lang of ['en', 'fr', 'es', 'de'] as const) {
      const rows = spokenRows(ENGLISH, spokenCommands(TABLES[lang]));
      for (const c of TABLES[lang].commands) {
        assert.ok(rows.some((r) => r.label === spokenLabel(c.say[0]!.replace('{name}', '‹name›')) && r.detail === c.doc), `${lang}: ${c.kind}`);
      }
    }
    const french = { t: (m: string) => (m === 'select the next template field' ? 'sélectionner le champ de modèle suivant' : m) };
    assert.ok(spokenRows(french, spokenCommands(TABLES.fr)).some((r) => r.label === '“Champ suivant”' && r.detail === 'sélectionner le champ de modèle suivant'));
  });

  it('English: "What can I say", the colon only with the General or Legal vocabulary, and when "period" stays a word', () => {
    const rows = spokenRows(ENGLISH, spokenCommands(TABLES.en));
    assert.ok(rows.some((r) => r.label === '“What can I say”'));
    const colon = rows.find((r) => r.label === '“Colon”');
    assert.equal(colon?.detail, ': — in medical dictation "colon" is the organ and stays a word (only when the vocabulary is General or Legal)');
    const period = rows.find((r) => r.label === '“Period”');
    assert.match(period?.detail ?? '', /^\., but the word "period" stays a word after "the", "a", "this"… or before "of"/);
  });
});
