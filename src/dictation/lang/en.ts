/**
 * English rule tables. Spoken forms after Nuance's and Apple's documented commands (research note);
 * "colon" alone is an organ in medical dictation ("sigmoid colon"): only "colon mark" is a colon there.
 */
import type { NumberWord } from '../types';
import { br, bullet, close, dash, head, join, mark, n, open, rule } from './build';
import type { LanguageTable } from './table';

const DET = ['the', 'a', 'an', 'this', 'that', 'each', 'every', 'any', 'one', 'its', 'their', 'his', 'her', 'our', 'my', 'your', 'same', 'whole'];

const units = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
const teens = ['ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const tens = ['twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const unitOrd = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth'];
const teenOrd = ['tenth', 'eleventh', 'twelfth', 'thirteenth', 'fourteenth', 'fifteenth', 'sixteenth', 'seventeenth', 'eighteenth', 'nineteenth'];
const tenOrd = ['twentieth', 'thirtieth', 'fortieth', 'fiftieth', 'sixtieth', 'seventieth', 'eightieth', 'ninetieth'];

const words: Record<string, NumberWord> = { zero: n('zero', 0), oh: n('zero', 0), hundred: n('h', 100), thousand: n('m', 1000), million: n('m', 1e6), billion: n('m', 1e9), hundredth: n('h', 100, 'n'), thousandth: n('m', 1000, 'n') };
units.forEach((w, i) => (words[w] = n('u', i + 1)));
teens.forEach((w, i) => (words[w] = n('tu', i + 10)));
tens.forEach((w, i) => (words[w] = n('t', 20 + i * 10)));
unitOrd.forEach((w, i) => (words[w] = n('u', i + 1, 'n')));
teenOrd.forEach((w, i) => (words[w] = n('tu', i + 10, 'n')));
tenOrd.forEach((w, i) => (words[w] = n('t', 20 + i * 10, 'n')));
// "oh" is a zero only inside a decimal or a year; alone it is a word.
delete words.oh;

export const en: LanguageTable = {
  code: 'en',
  name: 'English',
  numbers: { words, connectors: { and: ['h', 'm'] }, unitsAfterTens: true, teenAfterTens: [], compound: false, pairedHundreds: true },
  decimalWords: ['point'],
  decimalSeparator: '.',
  groupSeparator: ',',
  percent: ['percent', 'per cent', '%'],
  units: [
    { say: ['cubic centimeters', 'cubic centimetres', 'cubic centimeter', 'cubic centimetre', 'cc', 'cm³'], out: 'cm³' },
    { say: ['square centimeters', 'square centimetres', 'square centimeter', 'square centimetre', 'cm²'], out: 'cm²' },
    { say: ['milliliters per square meter', 'millilitres per square metre', 'milliliter per square meter', 'millilitre per square metre', 'ml/m²', 'mL/m²'], out: 'mL/m²' },
    { say: ['centimeters per second', 'centimetres per second', 'centimeter per second', 'centimetre per second', 'cm/s'], out: 'cm/s' },
    { say: ['meters per second', 'metres per second', 'meter per second', 'metre per second', 'm/s'], out: 'm/s' },
    { say: ['millimeters of mercury', 'millimetres of mercury', 'millimeter of mercury', 'millimetre of mercury', 'mmHg'], out: 'mmHg' },
    { say: ['milligrams per kilogram', 'milligrams per kilo', 'milligram per kilogram', 'milligram per kilo', 'mg/kg'], out: 'mg/kg' },
    { say: ['millimoles per liter', 'millimoles per litre', 'millimole per liter', 'millimole per litre', 'mmol/L', 'mmol/l'], out: 'mmol/L' },
    { say: ['grams per deciliter', 'grams per decilitre', 'gram per deciliter', 'gram per decilitre', 'g/dL', 'g/dl'], out: 'g/dL' },
    { say: ['beats per minute', 'bpm'], out: 'bpm' },
    { say: ['Hounsfield units', 'Hounsfield unit', 'HU'], out: 'HU' },
    { say: ['centimeters', 'centimetres', 'centimeter', 'centimetre', 'cm'], out: 'cm' },
    { say: ['millimeters', 'millimetres', 'millimeter', 'millimetre', 'mm'], out: 'mm' },
    { say: ['meters', 'metres', 'meter', 'metre'], out: 'm' },
    { say: ['milliliters', 'millilitres', 'milliliter', 'millilitre', 'ml', 'mL'], out: 'mL' },
    { say: ['liters', 'litres', 'liter', 'litre'], out: 'L' },
    { say: ['milligrams', 'milligram', 'mg'], out: 'mg' },
    { say: ['micrograms', 'microgram', 'mcg'], out: 'mcg' },
    { say: ['kilograms', 'kilogram', 'kilos', 'kilo', 'kg'], out: 'kg' },
    { say: ['grams', 'gram'], out: 'g' },
    { say: ['millisieverts', 'millisievert', 'mSv'], out: 'mSv' },
    { say: ['milligrays', 'milligray', 'mGy'], out: 'mGy' },
    { say: ['milliseconds', 'millisecond', 'ms'], out: 'ms' },
    { say: ['degrees Celsius', 'degree Celsius', '°C'], out: '°C' },
  ],
  dimensionWords: ['by', 'x', '×'],
  vertebraLetters: ['C', 'T', 'L', 'S'],
  weightingSuffix: ['weighted'],
  bloodPressure: { triggers: ['pressure', 'bp'], fillers: ['is', 'was', 'of', 'at', ':'], over: ['over'], bareInCmHg: false, shortHundreds: true },
  legal: [{ say: ['section'], out: '§', parts: { subsection: 'subsection', paragraph: 'para.' }, specialties: ['legal'] }],
  dates: {
    months: [['january'], ['february'], ['march'], ['april'], ['may'], ['june'], ['july'], ['august'], ['september'], ['october'], ['november'], ['december']],
    order: 'mdy',
    joiners: [],
    written: { dm: '{m} {d}', dmy: '{m} {d}, {y}' },
    caseSensitive: ['may', 'march'],
  },
  ordinals: {
    format: { m: '{n}th', f: '{n}th', n: '{n}th', apoc: '{n}th' },
    englishSuffix: true,
    nouns: ['rib', 'ribs', 'intercostal', 'ventricle', 'vertebra', 'vertebral', 'finger', 'toe', 'metacarpal', 'metatarsal', 'trimester', 'week', 'degree', 'cycle', 'segment', 'line', 'cranial', 'branchial', 'heart', 'sound', 'centile', 'percentile', 'century'],
  },
  literal: ['literal', 'literally'],
  structure: [
    rule('new paragraph', ['new paragraph', 'next paragraph'], [br(2)]),
    rule('new line', ['new line', 'next line'], [br(1)]),
    rule('heading, level 1 (`#`)', ['heading one', 'heading level one'], [head(1)]),
    rule('heading, level 2 (`##`)', ['heading two', 'heading level two'], [head(2)]),
    rule('heading, level 3 (`###`)', ['heading three', 'heading level three'], [head(3)]),
    rule('bullet (`- `)', ['bullet point', 'new bullet'], [bullet]),
  ],
  punctuation: [
    rule('`?`', ['question mark'], [mark('?')]),
    rule('`!`', ['exclamation mark', 'exclamation point'], [mark('!')]),
    rule('`…`', ['ellipsis', 'dot dot dot'], [mark('…')]),
    rule('`;`', ['semicolon', 'semi colon'], [mark(';')]),
    rule('`:`', ['colon mark', 'colon sign'], [mark(':')]),
    rule('`:` — in medical dictation "colon" is the organ and stays a word', ['colon'], [mark(':')], {
      specialties: ['general', 'legal'],
      notAfter: [...DET, 'sigmoid', 'transverse', 'ascending', 'descending', 'right', 'left', 'distal', 'proximal', 'spastic', 'irritable', 'redundant', 'entire', 'mid'],
    }),
    rule('`.`', ['full stop'], [mark('.')]),
    rule('`.`, but the word "period" stays a word after "the", "a", "this"… or before "of", "during", "was" ("the postoperative period", "a period of time")', ['period'], [mark('.')], {
      notBefore: ['of', 'during', 'was', 'is', 'lasted', 'between'],
      notAfter: [...DET, 'postoperative', 'perioperative', 'neonatal', 'refractory', 'incubation', 'waiting', 'washout', 'trial', 'grace', 'time', 'short', 'long', 'brief', 'prolonged', 'extended', 'menstrual', 'latent', 'observation', 'recovery'],
    }),
    rule('`,`', ['comma'], [mark(',')], { notAfter: ['a', 'the'] }),
    rule('`(`', ['open parenthesis', 'open paren', 'left parenthesis', 'open bracket'], [open('(')]),
    rule('`)`', ['close parenthesis', 'close paren', 'right parenthesis', 'close bracket'], [close(')')]),
    rule('`“`', ['open quote', 'begin quote'], [open('“')]),
    rule('`”`', ['close quote', 'end quote', 'unquote'], [close('”')]),
    rule('`-` joining two words', ['hyphen'], [join('-')]),
    rule('`/`', ['slash', 'forward slash'], [join('/')]),
    rule('` – `', ['dash'], [dash], { notAfter: DET }),
    rule('`§`', ['section sign'], [{ k: 'w', text: '§', glue: ' ' }]),
  ],
  commands: [
    { kind: 'deleteLastUtterance', say: ['scratch that', 'delete that'], doc: 'delete what was dictated last', editorOnly: false },
    { kind: 'undo', say: ['undo that', 'undo'], doc: 'undo the last change', editorOnly: false },
    { kind: 'nextField', say: ['next field', 'go to next field'], doc: 'select the next template field', editorOnly: false },
    { kind: 'previousField', say: ['previous field', 'go to previous field'], doc: 'select the previous template field', editorOnly: false },
    { kind: 'acceptDefaults', say: ['accept defaults', 'field complete'], doc: 'every remaining field takes its default', editorOnly: false },
    { kind: 'stopDictation', say: ['stop dictation', 'stop dictating'], doc: 'stop dictation', editorOnly: false },
    { kind: 'whatCanISay', say: ['what can I say'], doc: 'list these commands', editorOnly: true },
    { kind: 'correctThat', say: ['correct that'], doc: 'offer the other readings of the selection or of the last utterance', editorOnly: true },
    { kind: 'chooseAlternative', say: ['choose {name}', 'pick {name}'], doc: 'pick that reading from the list shown', editorOnly: true },
    { kind: 'correctWords', say: ['correct {name}'], doc: 'select the last dictated occurrence of those words and offer their other readings', editorOnly: true },
    { kind: 'spellThat', say: ['spell that {name}', 'spell {name}'], doc: 'write the letters said one by one in place of the selection or of the last utterance', editorOnly: true },
    { kind: 'insertTemplate', say: ['insert template {name}', 'insert the template {name}'], doc: 'insert the template of that name', editorOnly: false },
    { kind: 'insertAutoText', say: ['insert {name}'], doc: 'insert the auto-text of that name (only when one has that name)', editorOnly: false },
  ],
  typography: {
    spaceBefore: {},
    insideGuillemets: '',
    percentSpace: false,
    invertedOpening: {},
    closingQuotes: ['”'],
    lowerAfterRemovedMark: true,
    ordinalDot: false,
  },
  abbreviations: ['dr', 'mr', 'mrs', 'ms', 'prof', 'e.g', 'i.e', 'vs', 'etc', 'approx', 'no', 'fig', 'st', 'para', 'u.s', 'v'],
};
