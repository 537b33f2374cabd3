/**
 * The grammar's rules one by one: the guards against ordinary meanings named in the issue, spacing
 * and capitals decided from the document around the insertion point, engine punctuation next to
 * spoken marks, the tokenizer, and the command list ("What Can I Say?").
 */
import assert from 'node:assert/strict';
import { spokenCommands } from '../../src/dictation/commands';
import { formatText, formatUtterance } from '../../src/dictation/format';
import { TABLES } from '../../src/dictation/lang';
import { atSentenceStart } from '../../src/dictation/render';
import { detokenize, tokenize } from '../../src/dictation/tokenizer';
import { LANGUAGES, type Language } from '../../src/dictation/types';

const fmt = (language: Language, text: string, before = '', after = '', specialty?: 'radiology'): string =>
  formatText(text, { language, ...(specialty ? { specialty } : {}) }, { before, after });

describe('dictation: guards against the ordinary meaning of a word', () => {
  it('French "point" after a determiner or before "de" is a noun', () => {
    assert.equal(fmt('fr', 'du point de vue du patient'), 'Du point de vue du patient');
    assert.equal(fmt('fr', 'le point est acquis point'), 'Le point est acquis.');
  });
  it('Spanish "coma" after "en", "de", "un", "el" is the medical word', () => {
    assert.equal(fmt('es', 'paciente en coma'), 'Paciente en coma');
    assert.equal(fmt('es', 'estado de coma'), 'Estado de coma');
    assert.equal(fmt('es', 'un coma'), 'Un coma');
    assert.equal(fmt('es', 'el coma'), 'El coma');
    assert.equal(fmt('es', 'paciente estable coma sin fiebre'), 'Paciente estable, sin fiebre');
  });
  it('"deux points" after a determiner or before "de" stays words', () => {
    assert.equal(fmt('fr', 'les deux points de suture'), 'Les deux points de suture');
    assert.equal(fmt('fr', 'avec deux points de suture'), 'Avec deux points de suture');
    assert.equal(fmt('fr', 'résultat deux points normal'), 'Résultat\u00A0: normal');
  });
  it('English "colon" is the organ in medical dictation; "colon mark" is always the mark', () => {
    assert.equal(fmt('en', 'sigmoid colon'), 'Sigmoid colon');
    assert.equal(fmt('en', 'the colon is normal', '', '', 'radiology'), 'The colon is normal');
    assert.equal(fmt('en', 'impression colon normal', '', '', 'radiology'), 'Impression colon normal');
    assert.equal(fmt('en', 'impression colon mark normal', '', '', 'radiology'), 'Impression: normal');
  });
  it('a number class claims its words before punctuation: "virgule" between numbers is the decimal comma', () => {
    assert.equal(fmt('fr', 'trois virgule deux'), '3,2');
    assert.equal(fmt('fr', 'trois virgule le foie'), 'Trois, le foie');
  });
  it('French blood pressure in cmHg is never turned into mmHg', () => {
    assert.equal(fmt('fr', 'tension à douze huit'), 'Tension à 12/8');
    assert.equal(fmt('fr', 'tension à douze sur huit'), 'Tension à 12/8');
  });
  it('no digit grouping for years and article numbers; grouping from five digits otherwise', () => {
    assert.equal(fmt('fr', 'en deux mille vingt-quatre'), 'En 2024');
    assert.equal(fmt('es', 'artículo mil seiscientos cincuenta y cinco'), 'Artículo 1655');
    assert.equal(fmt('de', 'Paragraf zwölftausend'), '§ 12000');
    assert.equal(fmt('fr', 'douze mille'), '12\u202F000');
  });
});

describe('dictation: the document around the insertion point', () => {
  it('capital at the start of the document, after . ? ! and after a line break; not after a comma or an abbreviation', () => {
    assert.equal(fmt('fr', 'le foie', ''), 'Le foie');
    assert.equal(fmt('fr', 'le foie', 'Normal. '), 'Le foie');
    assert.equal(fmt('fr', 'le foie', 'Normal.'), ' Le foie');
    assert.equal(fmt('fr', 'le foie', 'Vraiment ?'), ' Le foie');
    assert.equal(fmt('fr', 'le foie', '## Résultats\n\n'), 'Le foie');
    assert.equal(fmt('fr', 'le foie', '## '), 'Le foie');
    assert.equal(fmt('fr', 'le foie', '- '), 'Le foie');
    assert.equal(fmt('fr', 'le foie', 'Normal, '), 'le foie');
    assert.equal(fmt('fr', 'le foie', 'Normal'), ' le foie');
    assert.equal(fmt('en', 'smith', 'Seen by Dr. '), 'smith');
    assert.equal(fmt('fr', 'mille', 'article L. '), '1000');
    assert.equal(fmt('de', 'die Rippe', 'Fraktur der 3. '), 'die Rippe');
  });
  it('spaces decided from the characters around: none after a newline or bracket, none before punctuation', () => {
    assert.equal(fmt('fr', 'foie normal', '(', ')'), 'Foie normal');
    assert.equal(fmt('fr', 'foie normal', 'le', 'et'), ' foie normal ');
    assert.equal(fmt('fr', 'foie normal', 'le ', '.'), 'foie normal');
    assert.equal(fmt('fr', 'homme', "l'"), 'homme');
    assert.equal(fmt('fr', 'point', 'Le foie'), '.');
    assert.equal(fmt('fr', "point d'interrogation", 'Pourquoi'), '\u202F?');
    assert.equal(fmt('fr', "point d'interrogation", 'Pourquoi '), '?');
    assert.equal(fmt('fr', 'deux points', 'Conclusion'), '\u00A0:');
    assert.equal(fmt('en', 'question mark', 'Why'), '?');
  });
  it('never doubles a mark already written before the insertion point', () => {
    assert.equal(fmt('fr', 'point', 'Le foie est normal.'), '');
    assert.equal(fmt('fr', 'point à la ligne', 'Le foie est normal.'), '\n\n');
    assert.equal(fmt('en', 'period', 'Normal. '), '');
  });
  it('a paragraph after a line break adds only the missing newline', () => {
    assert.equal(fmt('fr', 'nouveau paragraphe', 'Normal\n'), '\n');
    assert.equal(fmt('fr', 'nouveau paragraphe', 'Normal\n\n'), '');
    assert.equal(fmt('fr', 'nouveau paragraphe', ''), '');
  });
  it('Spanish ¿ ¡ only when the question starts in the same utterance', () => {
    assert.equal(fmt('es', 'le duele signo de interrogación', 'Doctor. '), '¿Le duele?');
    assert.equal(fmt('es', 'le duele signo de interrogación', 'Y dígame si'), ' le duele?');
    assert.equal(fmt('es', 'qué bien signo de exclamación'), '¡Qué bien!');
  });
  it('atSentenceStart reads the document before the insertion point', () => {
    const fr = TABLES.fr;
    assert.equal(atSentenceStart('', fr), true);
    assert.equal(atSentenceStart('Normal. (', fr), true);
    assert.equal(atSentenceStart('voir L. ', fr), false);
    assert.equal(atSentenceStart('voir art. ', fr), false);
    assert.equal(atSentenceStart('1. ', fr), true);
  });
});

describe('dictation: engine punctuation next to spoken commands', () => {
  it("a spoken mark wins over the engine's, and the capital the engine added is undone", () => {
    assert.equal(fmt('fr', 'Le foie. Virgule. Et la rate.'), 'Le foie, et la rate.');
    assert.equal(fmt('es', 'Abrir paréntesis. Hola. Cerrar paréntesis.'), '(Hola).');
    assert.equal(fmt('en', 'The liver is normal. Period.'), 'The liver is normal.');
  });
  it('German nouns keep their capital', () => {
    assert.equal(fmt('de', 'Die Leber. Komma. Milz normal.'), 'Die Leber, Milz normal.');
  });
});

describe('dictation: tokenizer', () => {
  it('splits hyphens and elisions, keeps numbers, abbreviations and digit groups whole', () => {
    const t = tokenize("point-virgule d'interrogation 3,2 z.B. 12\u202F500, L4-L5");
    assert.deepEqual(
      t.map((x) => x.text),
      ['point', 'virgule', "d'", 'interrogation', '3,2', 'z.B.', '12\u202F500', ',', 'L4', 'L5'],
    );
    assert.deepEqual(
      t.map((x) => x.glue),
      [' ', '-', ' ', '', ' ', ' ', ' ', '', ' ', '-'],
    );
    assert.equal(detokenize(t), "point-virgule d'interrogation 3,2 z.B. 12\u202F500, L4-L5");
  });
  it('line breaks and Markdown markers at the start of a line', () => {
    const t = tokenize('# Titre\n\n- un\n* deux');
    assert.deepEqual(
      t.map((x) => x.kind),
      ['heading', 'word', 'break', 'bullet', 'word', 'break', 'bullet', 'word'],
    );
  });
});

describe('dictation: commands and "What Can I Say?"', () => {
  it('a command said alone gives an action and no text', () => {
    assert.deepEqual(formatUtterance('Champ suivant.', { language: 'fr' }, { before: '', after: '' }), {
      text: '',
      actions: [{ kind: 'nextField' }],
    });
    assert.deepEqual(formatUtterance('What can I say?', { language: 'en' }, { before: '', after: '' }).actions, [{ kind: 'whatCanISay' }]);
    assert.deepEqual(formatUtterance('Standardwerte übernehmen', { language: 'de' }, { before: '', after: '' }).actions, [
      { kind: 'acceptDefaults' },
    ]);
    assert.deepEqual(formatUtterance('detener dictado', { language: 'es' }, { before: '', after: '' }).actions, [
      { kind: 'stopDictation' },
    ]);
  });
  it('proofreading commands said alone: choose a reading by its number, correct words, spell letters, in the four languages', () => {
    const actions = (text: string, language: 'fr' | 'en' | 'es' | 'de'): unknown =>
      formatUtterance(text, { language }, { before: '', after: '' }).actions;
    assert.deepEqual(actions('choisir deux', 'fr'), [{ kind: 'chooseAlternative', choice: 2 }]);
    assert.deepEqual(actions('Choose two.', 'en'), [{ kind: 'chooseAlternative', choice: 2 }]);
    assert.deepEqual(actions('elegir dos', 'es'), [{ kind: 'chooseAlternative', choice: 2 }]);
    assert.deepEqual(actions('zwei wählen', 'de'), [{ kind: 'chooseAlternative', choice: 2 }]);
    assert.deepEqual(actions('pick 4', 'en'), [{ kind: 'chooseAlternative', choice: 4 }]);
    assert.deepEqual(actions('choose twenty', 'en'), [], 'beyond the list: dictation');
    assert.deepEqual(actions('corriger épanchement pleural', 'fr'), [{ kind: 'correctWords', words: 'epanchement pleural' }]);
    assert.deepEqual(actions('correct that', 'en'), [{ kind: 'correctThat' }]);
    assert.deepEqual(actions('Leber korrigieren', 'de'), [{ kind: 'correctWords', words: 'leber' }]);
    assert.deepEqual(actions('épeler B R O N C H E', 'fr'), [{ kind: 'spellThat', letters: 'bronche' }]);
    assert.deepEqual(actions('spell that bronchus', 'en'), [], 'not letters: dictation');
  });
  it('lists every command, structure and punctuation phrase of a language from the tables', () => {
    for (const l of LANGUAGES) {
      const groups = spokenCommands(TABLES[l]);
      const said = groups.flatMap((g) => g.entries.flatMap((e) => e.say));
      const slot = (k: string): string =>
        ({ chooseAlternative: '‹number›', correctWords: '‹words›', spellThat: '‹letters›' })[k] ?? '‹name›';
      for (const c of TABLES[l].commands) for (const s of c.say) assert.ok(said.includes(s.replace('{name}', slot(c.kind))), `${l}: ${s}`);
      for (const r of [...TABLES[l].structure, ...TABLES[l].punctuation]) for (const s of r.say) assert.ok(said.includes(s), `${l}: ${s}`);
    }
  });
});
