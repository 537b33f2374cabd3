/**
 * German rule tables. Number words are written as one word ("dreiundzwanzig",
 * "achthundertdreiundzwanzig"): the number parser splits them into the parts below. Spoken forms after
 * the Dragon German command lists cited in the research note.
 */
import { NNBSP } from '../text';
import type { NumberWord } from '../types';
import { br, bullet, close, dash, head, join, mark, n, open, rule } from './build';
import type { LanguageTable } from './table';

const DET = ['der', 'die', 'das', 'den', 'dem', 'des', 'ein', 'eine', 'einen', 'einem', 'eines', 'einer', 'jeder', 'jeden', 'jedem', 'dieser', 'diesen', 'diesem', 'am', 'im', 'zum', 'vom', 'beim', 'kein', 'keinen', 'zur'];

const base: Array<[string, NumberWord['kind'], number, string]> = [
  ['eins', 'u', 1, 'erste'], ['ein', 'u', 1, ''], ['eine', 'u', 1, ''], ['zwei', 'u', 2, 'zweite'], ['drei', 'u', 3, 'dritte'],
  ['vier', 'u', 4, 'vierte'], ['fünf', 'u', 5, 'fünfte'], ['sechs', 'u', 6, 'sechste'], ['sieben', 'u', 7, 'siebte'],
  ['acht', 'u', 8, 'achte'], ['neun', 'u', 9, 'neunte'], ['zehn', 'tu', 10, 'zehnte'], ['elf', 'tu', 11, 'elfte'],
  ['zwölf', 'tu', 12, 'zwölfte'], ['dreizehn', 'tu', 13, 'dreizehnte'], ['vierzehn', 'tu', 14, 'vierzehnte'],
  ['fünfzehn', 'tu', 15, 'fünfzehnte'], ['sechzehn', 'tu', 16, 'sechzehnte'], ['siebzehn', 'tu', 17, 'siebzehnte'],
  ['achtzehn', 'tu', 18, 'achtzehnte'], ['neunzehn', 'tu', 19, 'neunzehnte'], ['zwanzig', 't', 20, 'zwanzigste'],
  ['dreißig', 't', 30, 'dreißigste'], ['dreissig', 't', 30, 'dreissigste'], ['vierzig', 't', 40, 'vierzigste'],
  ['fünfzig', 't', 50, 'fünfzigste'], ['sechzig', 't', 60, 'sechzigste'], ['siebzig', 't', 70, 'siebzigste'],
  ['achtzig', 't', 80, 'achtzigste'], ['neunzig', 't', 90, 'neunzigste'], ['hundert', 'h', 100, 'hundertste'],
  ['tausend', 'm', 1000, 'tausendste'], ['million', 'm', 1e6, ''], ['millionen', 'm', 1e6, ''], ['milliarde', 'm', 1e9, ''], ['milliarden', 'm', 1e9, ''],
];
const words: Record<string, NumberWord> = { null: n('zero', 0) };
for (const [w, kind, value, ord] of base) {
  words[w] = n(kind, value);
  if (ord) words[ord] = n(kind, value, 'n');
}

export const de: LanguageTable = {
  code: 'de',
  name: 'Deutsch',
  numbers: { words, connectors: { und: ['u'] }, articles: ['ein', 'eine'], unitsAfterTens: false, teenAfterTens: [], compound: true, ordinalEndings: ['r', 'n', 's', 'm'] },
  decimalWords: ['komma'],
  decimalSeparator: ',',
  groupSeparator: NNBSP,
  percent: ['prozent', '%'],
  units: [
    { say: ['Kubikzentimeter', 'Kubikzentimetern', 'cm³', 'ccm'], out: 'cm³' },
    { say: ['Quadratzentimeter', 'Quadratzentimetern', 'cm²'], out: 'cm²' },
    { say: ['Milliliter pro Quadratmeter', 'Millilitern pro Quadratmeter', 'ml/m²', 'mL/m²'], out: 'ml/m²' },
    { say: ['Zentimeter pro Sekunde', 'Zentimetern pro Sekunde', 'cm/s'], out: 'cm/s' },
    { say: ['Meter pro Sekunde', 'Metern pro Sekunde', 'm/s'], out: 'm/s' },
    { say: ['Millimeter Quecksilbersäule', 'Millimetern Quecksilbersäule', 'mmHg'], out: 'mmHg' },
    { say: ['Milligramm pro Kilogramm', 'Milligramm pro Kilo', 'mg/kg'], out: 'mg/kg' },
    { say: ['Millimol pro Liter', 'mmol/l', 'mmol/L'], out: 'mmol/l' },
    { say: ['Gramm pro Deziliter', 'g/dl', 'g/dL'], out: 'g/dl' },
    { say: ['Schläge pro Minute', 'Schlägen pro Minute', '/min'], out: '/min' },
    { say: ['Hounsfield-Einheiten', 'Hounsfield Einheiten', 'Hounsfield-Einheit', 'Hounsfield Einheit', 'HE'], out: 'HE' },
    { say: ['Zentimeter', 'Zentimetern', 'cm'], out: 'cm' },
    { say: ['Millimeter', 'Millimetern', 'mm'], out: 'mm' },
    { say: ['Meter', 'Metern'], out: 'm' },
    { say: ['Milliliter', 'Millilitern', 'ml', 'mL'], out: 'ml' },
    { say: ['Liter', 'Litern'], out: 'l' },
    { say: ['Milligramm', 'mg'], out: 'mg' },
    { say: ['Mikrogramm', 'µg'], out: 'µg' },
    { say: ['Kilogramm', 'Kilo', 'Kilos', 'kg'], out: 'kg' },
    { say: ['Gramm'], out: 'g' },
    { say: ['Millisievert', 'mSv'], out: 'mSv' },
    { say: ['Milligray', 'mGy'], out: 'mGy' },
    { say: ['Millisekunden', 'Millisekunde', 'ms'], out: 'ms' },
    { say: ['Grad Celsius', '°C'], out: '°C' },
  ],
  dimensionWords: ['mal', 'x', '×'],
  vertebraLetters: ['C', 'T', 'Th', 'L', 'S'],
  weightingSuffix: ['gewichtet', 'gewichtete', 'gewichteten', 'gewichteter', 'gewichtetes'],
  bloodPressure: { triggers: ['blutdruck', 'rr'], fillers: ['von', 'ist', 'war', 'bei', 'beträgt', ':'], over: ['zu', 'über'], bareInCmHg: false, shortHundreds: false },
  legal: [
    { say: ['Paragraf', 'Paragraph', 'Paragrafen', 'Paragraphen', '§'], out: '§', parts: { absatz: 'Abs.', satz: 'S.', nummer: 'Nr.', halbsatz: 'Halbs.', abs: 'Abs.', s: 'S.', nr: 'Nr.' } },
    { say: ['Artikel'], out: 'Art.', parts: { absatz: 'Abs.', satz: 'S.', nummer: 'Nr.', abs: 'Abs.', s: 'S.', nr: 'Nr.' } },
  ],
  dates: {
    months: [['januar', 'jänner'], ['februar'], ['märz'], ['april'], ['mai'], ['juni'], ['juli'], ['august'], ['september'], ['oktober'], ['november'], ['dezember']],
    order: 'dmy',
    joiners: [],
    written: { dm: '{d}. {m}', dmy: '{d}. {m} {y}' },
  },
  ordinals: {
    format: { m: '{n}.', f: '{n}.', n: '{n}.', apoc: '{n}.' },
    nouns: ['rippe', 'rippen', 'ick', 'interkostalraum', 'ventrikel', 'wirbel', 'wirbelkörper', 'finger', 'zehe', 'woche', 'schwangerschaftswoche', 'ssw', 'trimenon', 'grades', 'grad', 'zyklus', 'segment', 'lebenstag', 'lebensjahr', 'strahl', 'mittelhandknochen', 'halbjahr', 'quartal', 'instanz', 'kammer', 'senat', 'jahrhundert'],
  },
  literal: ['wörtlich'],
  structure: [
    rule('new paragraph', ['neuer Absatz', 'neuer Abschnitt'], [br(2)]),
    rule('new line', ['neue Zeile', 'nächste Zeile'], [br(1)]),
    rule('heading, level 1 (`#`)', ['Überschrift eins'], [head(1)], { notAfter: DET }),
    rule('heading, level 2 (`##`)', ['Überschrift zwei'], [head(2)], { notAfter: DET }),
    rule('heading, level 3 (`###`)', ['Überschrift drei'], [head(3)], { notAfter: DET }),
    rule('bullet (`- `)', ['Aufzählungspunkt', 'neuer Aufzählungspunkt'], [bullet], { notAfter: DET }),
  ],
  punctuation: [
    rule('`?`', ['Fragezeichen'], [mark('?')], { notAfter: DET }),
    rule('`!`', ['Ausrufezeichen'], [mark('!')], { notAfter: DET }),
    rule('`…`', ['Auslassungspunkte'], [mark('…')], { notAfter: DET }),
    rule('`;`', ['Semikolon', 'Strichpunkt'], [mark(';')], { notAfter: DET }),
    rule('`:`', ['Doppelpunkt'], [mark(':')], { notAfter: DET }),
    rule('`.`, but the word "Punkt" stays a word after an article or "auf", "für" ("der Punkt", "auf den Punkt")', ['Punkt'], [mark('.')], {
      notAfter: [...DET, 'auf', 'für', 'springende', 'springenden', 'wunder', 'wunden'],
      notBefore: ['für', 'genau', 'eins', 'zwei', 'drei', 'vier', 'fünf', 'sechs', 'sieben', 'acht', 'neun', '#number'],
      notAfterAdjective: ['e', 'er', 'en', 'es', 'em'],
    }),
    rule('`,`', ['Komma'], [mark(',')], { notAfter: DET }),
    rule('`[`', ['eckige Klammer auf'], [open('[')]),
    rule('`]`', ['eckige Klammer zu'], [close(']')]),
    rule('`(`', ['Klammer auf', 'runde Klammer auf'], [open('(')]),
    rule('`)`', ['Klammer zu', 'runde Klammer zu'], [close(')')]),
    rule('`„`', ['Anführungszeichen auf', 'Anführungszeichen unten'], [open('„')]),
    rule('`“`', ['Anführungszeichen zu', 'Anführungszeichen oben'], [close('“')]),
    rule('`-` joining two words', ['Bindestrich'], [join('-')], { notAfter: DET }),
    rule('`/`', ['Schrägstrich'], [join('/')], { notAfter: DET }),
    rule('` – `', ['Gedankenstrich'], [dash], { notAfter: DET }),
  ],
  commands: [
    { kind: 'deleteLastUtterance', say: ['lösch das', 'lösche das', 'streich das'], doc: 'delete what was dictated last', editorOnly: false },
    { kind: 'undo', say: ['rückgängig', 'rückgängig machen'], doc: 'undo the last change', editorOnly: false },
    { kind: 'nextField', say: ['nächstes Feld', 'nächste Variable'], doc: 'select the next template field', editorOnly: false },
    { kind: 'previousField', say: ['vorheriges Feld', 'voriges Feld', 'vorige Variable'], doc: 'select the previous template field', editorOnly: false },
    { kind: 'acceptDefaults', say: ['Standardwerte übernehmen', 'Variable komplett'], doc: 'every remaining field takes its default', editorOnly: false },
    { kind: 'stopDictation', say: ['Diktat beenden', 'Diktat stoppen'], doc: 'stop dictation', editorOnly: false },
    { kind: 'whatCanISay', say: ['was kann ich sagen'], doc: 'list these commands', editorOnly: true },
    { kind: 'correctThat', say: ['korrigiere das', 'das korrigieren'], doc: 'offer the other readings of the selection or of the last utterance', editorOnly: true },
    { kind: 'chooseAlternative', say: ['{name} wählen', 'wähle {name}'], doc: 'pick that reading from the list shown', editorOnly: true },
    { kind: 'correctWords', say: ['korrigiere {name}', '{name} korrigieren'], doc: 'select the last dictated occurrence of those words and offer their other readings', editorOnly: true },
    { kind: 'spellThat', say: ['buchstabiere {name}', 'buchstabieren {name}'], doc: 'write the letters said one by one in place of the selection or of the last utterance', editorOnly: true },
    { kind: 'insertTemplate', say: ['Vorlage {name} einfügen', 'Vorlage einfügen {name}'], doc: 'insert the template of that name', editorOnly: false },
    { kind: 'insertAutoText', say: ['{name} einfügen'], doc: 'insert the auto-text of that name (only when one has that name)', editorOnly: false },
  ],
  typography: {
    spaceBefore: {},
    insideGuillemets: '',
    percentSpace: true,
    invertedOpening: {},
    closingQuotes: ['“'],
    lowerAfterRemovedMark: false,
    ordinalDot: true,
  },
  abbreviations: ['abs', 's', 'nr', 'art', 'z.b', 'bzw', 'ca', 'dr', 'prof', 'vgl', 'ggf', 'evtl', 'usw', 'd.h', 'u.a', 'bds', 'li', 're', 'v.a', 'z.n', 'halbs', 'f', 'ff'],
};
