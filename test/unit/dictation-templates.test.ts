/** Templates with fields, spoken template names, auto-texts and the user's vocabulary. */
import assert from 'node:assert/strict';
import { matchCommand } from '../../src/dictation/commands';
import { DictationDocument } from '../../src/dictation/document';
import { formatText } from '../../src/dictation/format';
import { TABLES } from '../../src/dictation/lang';
import {
  acceptDefaults,
  fieldsLeft,
  findTemplate,
  loadTemplates,
  nextField,
  parseFields,
  previousField,
  templateInsertion,
} from '../../src/dictation/templates';
import { builtinTemplates } from '../helpers/dictation';

const TEXT = 'Technique: {{sans|avec}} injection.\n\nRésultats: {{normal}}.\n\nConclusion: {{ }}';

describe('dictation: templates', () => {
  it('parses {{default}} and {{a|b|c}} fields; the first choice is the default', () => {
    const f = parseFields(TEXT);
    assert.equal(f.length, 3);
    assert.deepEqual(f[0], { start: 11, end: 24, choices: ['sans', 'avec'], default: 'sans' });
    assert.equal(TEXT.slice(f[1]!.start, f[1]!.end), '{{normal}}');
    assert.equal(f[2]!.default, '');
    assert.deepEqual(parseFields('no {field} or {{unclosed here'), []);
  });

  it('finds the next field from the end of the selection and the previous one from its start', () => {
    const [a, b, c] = parseFields(TEXT);
    assert.deepEqual(nextField(TEXT, 0), a);
    assert.deepEqual(nextField(TEXT, a!.end), b);
    assert.deepEqual(nextField(TEXT, a!.start), a);
    assert.equal(nextField(TEXT, c!.end), null);
    assert.deepEqual(previousField(TEXT, c!.start), b);
    assert.deepEqual(previousField(TEXT, b!.start), a);
    assert.equal(previousField(TEXT, a!.start), null);
  });

  it('"accept defaults" replaces every remaining field with its default; edits come last first', () => {
    const r = acceptDefaults(TEXT);
    assert.equal(r.text, 'Technique: sans injection.\n\nRésultats: normal.\n\nConclusion: ');
    assert.deepEqual(
      r.edits.map((e) => e.offset),
      [...parseFields(TEXT).map((f) => f.start)].reverse(),
    );
    assert.equal(fieldsLeft(TEXT), 3);
    assert.equal(fieldsLeft(r.text), 0);
  });

  it('a template starts a block of its own, an auto-text joins the text like a word; the first field is selected', () => {
    const body = '# CR\n\n{{Bilan.}}\n';
    assert.deepEqual(templateInsertion('insertTemplate', '', body), { text: body, select: { start: 6, end: 16 } });
    assert.deepEqual(templateInsertion('insertTemplate', 'Notes\n', body), { text: body, select: { start: 6, end: 16 } });
    assert.deepEqual(templateInsertion('insertTemplate', 'Le foie.', body), { text: `\n\n${body}`, select: { start: 8, end: 18 } });
    assert.deepEqual(templateInsertion('insertAutoText', 'Thorax', 'normal.'), { text: ' normal.', select: { start: 8, end: 8 } });
  });

  it('loads templates from file contents: language from the folder, name from the file or its header', () => {
    const t = loadTemplates(
      [
        { path: 'fr/compte-rendu_IRM.md', content: 'A {{b}}\r\n' },
        { path: 'normal thorax.md', content: 'Thorax normal.' },
        { path: 'en/x.md', content: '<!-- name: Chest CT -->\nBody' },
        { path: 'notes.txt', content: 'ignored' },
      ],
      'user',
    );
    assert.deepEqual(
      t.map((x) => [x.name, x.language, x.content]),
      [
        ['compte rendu IRM', 'fr', 'A {{b}}\n'],
        ['normal thorax', null, 'Thorax normal.'],
        ['Chest CT', 'en', 'Body'],
      ],
    );
  });

  it('resolves spoken names without case, accents or punctuation; user templates first; other languages never', () => {
    const builtin = builtinTemplates();
    const user = loadTemplates([{ path: 'radiologie.md', content: 'mine' }], 'user');
    assert.equal(findTemplate(builtin, 'RADIOLOGIE', 'fr')?.path, 'fr/radiologie.md');
    assert.equal(findTemplate(builtin, 'radiologia', 'es')?.name, 'Radiología');
    assert.equal(findTemplate(builtin, 'Radiología', 'es')?.name, 'Radiología');
    assert.equal(findTemplate([...builtin, ...user], 'radiologie', 'fr')?.content, 'mine');
    assert.equal(findTemplate(builtin, 'radiology', 'fr'), null);
    assert.equal(findTemplate(builtin, '', 'fr'), null);
  });

  it('has the built-in radiology, cardiology and legal templates for each language with the sections of the issue', () => {
    const b = builtinTemplates();
    const sections = {
      fr: ['Indication', 'Technique', 'Résultats', 'Conclusion'],
      en: ['Indication', 'Comparison', 'Technique', 'Findings', 'Impression'],
      es: ['Datos clínicos', 'Técnica', 'Hallazgos', 'Conclusión'],
      de: ['Fragestellung', 'Technik', 'Befund', 'Beurteilung'],
    } as const;
    for (const [lang, heads] of Object.entries(sections)) {
      const mine = b.filter((t) => t.language === lang);
      assert.equal(mine.length, 3, lang);
      const radiology = mine.find((t) => /^radiolog/iu.test(t.name))!;
      assert.deepEqual(
        [...radiology.content.matchAll(/^## (.+)$/gmu)].map((m) => m[1]),
        heads,
      );
      for (const t of mine) assert.ok(fieldsLeft(t.content) > 0, `${t.path} has fields`);
    }
  });

  it('spoken "insert template <name>" in each language, and an unknown name says so', () => {
    const b = builtinTemplates();
    const cases = [
      ['fr', 'Insérer modèle Radiologie.'],
      ['en', 'insert template radiology'],
      ['es', 'insertar plantilla radiología'],
      ['de', 'Vorlage Radiologie einfügen'],
    ] as const;
    for (const [lang, said] of cases) {
      const a = matchCommand(said, TABLES[lang], b);
      assert.ok(a && a.kind === 'insertTemplate' && a.template?.language === lang, `${lang}: ${said}`);
    }
    assert.deepEqual(matchCommand('insérer modèle inconnu', TABLES.fr, b), {
      kind: 'insertTemplate',
      spokenName: 'inconnu',
      template: null,
    });
  });

  it('auto-texts: "insérer <nom>" expands a snippet of that name; any other "insérer …" is dictation', () => {
    const t = loadTemplates([{ path: 'normal-thorax.md', content: 'Pas de foyer. Pas d’épanchement.' }], 'user');
    const doc = new DictationDocument({ language: 'fr', templates: t });
    doc.dictate('insérer normal thorax');
    assert.equal(doc.text, 'Pas de foyer. Pas d’épanchement.');
    const other = new DictationDocument({ language: 'fr', templates: t });
    other.dictate('insérer une sonde');
    assert.equal(other.text, 'Insérer une sonde');
  });
});

describe('dictation: vocabulary', () => {
  it('replaces whole words and phrases after the grammar, case-aware', () => {
    const vocabulary = { 'sea tea': 'CT', MS: 'multiple sclerosis', ecg: 'ECG' };
    const en = (t: string): string => formatText(t, { language: 'en', vocabulary }, { before: '', after: '' });
    assert.equal(en('sea tea of the chest period'), 'CT of the chest.');
    assert.equal(en('the Sea Tea shows'), 'The CT shows');
    assert.equal(en('a seat tea'), 'A seat tea');
    assert.equal(en('history of MS'), 'History of multiple sclerosis');
    assert.equal(en('five ms'), '5\u00A0ms');
    assert.equal(en('normal ecg'), 'Normal ECG');
    assert.equal(en('literal ecg'), 'ecg');
  });
});
