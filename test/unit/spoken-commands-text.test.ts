import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { spokenCommands, TABLES } from '../../src/dictation';
import { ENGLISH, type L10n } from '../../src/extension/l10nText';
import { ruleDescription } from '../../src/extension/ui/ruleText';
import { onlyWith, plainText, spokenLabel, spokenRows } from '../../src/extension/ui/spokenCommandsText';

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

  it("a command said alone is described in the user's language, in English as in the grammar's tables", () => {
    for (const lang of ['en', 'fr', 'es', 'de'] as const) {
      const rows = spokenRows(ENGLISH, spokenCommands(TABLES[lang]));
      for (const c of TABLES[lang].commands) {
        const slot = { chooseAlternative: '‹number›', correctWords: '‹words›', spellThat: '‹letters›' }[c.kind as string] ?? '‹name›';
        assert.ok(
          rows.some((r) => r.label === spokenLabel(c.say[0]!.replace('{name}', slot)) && r.detail === c.doc),
          `${lang}: ${c.kind}`,
        );
      }
    }
    const french = { t: (m: string) => (m === 'select the next template field' ? 'sélectionner le champ de modèle suivant' : m) };
    assert.ok(
      spokenRows(french, spokenCommands(TABLES.fr)).some(
        (r) => r.label === '“Champ suivant”' && r.detail === 'sélectionner le champ de modèle suivant',
      ),
    );
  });

  it('English: "What can I say", the colon only with the General or Legal vocabulary, and when "period" stays a word', () => {
    const rows = spokenRows(ENGLISH, spokenCommands(TABLES.en));
    assert.ok(rows.some((r) => r.label === '“What can I say”'));
    const colon = rows.find((r) => r.label === '“Colon”');
    assert.equal(
      colon?.detail,
      ': — in medical dictation "colon" is the organ and stays a word (only when the vocabulary is General or Legal)',
    );
    const period = rows.find((r) => r.label === '“Period”');
    assert.match(period?.detail ?? '', /^\., but the word "period" stays a word after "the", "a", "this"… or before "of"/);
  });

  it('every rule the tables describe has its description in ruleText.ts (the same English words)', () => {
    for (const lang of ['en', 'fr', 'es', 'de'] as const) {
      for (const g of spokenCommands(TABLES[lang])) {
        for (const e of g.entries) {
          if (e.command) continue;
          assert.equal(ruleDescription(ENGLISH, plainText(e.does)), plainText(e.does), `${lang}: ${e.does}`);
        }
      }
    }
  });

  /** What `vscode.l10n` gives with the bundle of `ui` (l10n/bundle.l10n.<ui>.json). */
  function bundle(ui: string): L10n {
    const messages = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'l10n', `bundle.l10n.${ui}.json`), 'utf8')) as Record<
      string,
      string
    >;
    return { t: (m, ...args) => ENGLISH.t(messages[m] ?? m, ...args) };
  }

  for (const ui of ['fr', 'es', 'de'] as const) {
    it(`a ${ui} UI shows no English description, for every dictation language, and keeps the spoken words`, () => {
      const l10n = bundle(ui);
      for (const lang of ['en', 'fr', 'es', 'de'] as const) {
        const english = spokenRows(ENGLISH, spokenCommands(TABLES[lang]));
        const shown = spokenRows(l10n, spokenCommands(TABLES[lang]));
        assert.equal(shown.length, english.length);
        shown.forEach((r, k) => {
          const en = english[k]!;
          if (!r.separator && /\p{L}/u.test(en.detail ?? ''))
            assert.notEqual(r.detail, en.detail, `${ui} UI, ${lang} dictation: ${en.label}`);
          // The spoken forms stay as said; only the placeholder of a name or word is translated.
          if (!r.separator) assert.equal(r.label.replace(/‹[^›]*›/gu, '‹›'), en.label.replace(/‹[^›]*›/gu, '‹›'));
        });
        assert.doesNotMatch(JSON.stringify(shown), /‹(name|word)›/u);
      }
    });
  }

  it('French: a description keeps the quoted spoken words, between guillemets', () => {
    const rows = spokenRows(bundle('fr'), spokenCommands(TABLES.en));
    const period = rows.find((r) => r.label === '“Period”');
    assert.match(period?.detail ?? '', /^\., mais le mot «\u00a0period\u00a0» reste un mot après «\u00a0the\u00a0»/u);
    assert.equal(rows.find((r) => r.label === '“New paragraph”')?.detail, 'nouveau paragraphe');
  });
});
