/**
 * Spanish rule tables. Number words after NeMo's Spanish lexicon ("veintitrés", "doscientos"); "coma"
 * is also the medical word ("paciente en coma"); "punto y aparte" is a period and a new paragraph.
 */
import type { NumberWord } from '../types';
import { br, bullet, close, dash, head, join, mark, n, open, rule } from './build';
import type { LanguageTable } from './table';

const DET = ['el', 'la', 'los', 'las', 'un', 'una', 'unos', 'unas', 'este', 'esta', 'estos', 'ese', 'esa', 'esos', 'cada', 'del', 'al', 'su', 'sus', 'mi', 'mis', 'nuestro', 'a', 'en', 'de', 'buen', 'mismo', 'ningún'];

const words: Record<string, NumberWord> = {
  cero: n('zero', 0), uno: n('u', 1), un: n('u', 1), una: n('u', 1), dos: n('u', 2), tres: n('u', 3), cuatro: n('u', 4), cinco: n('u', 5),
  seis: n('u', 6), siete: n('u', 7), ocho: n('u', 8), nueve: n('u', 9),
  diez: n('tu', 10), once: n('tu', 11), doce: n('tu', 12), trece: n('tu', 13), catorce: n('tu', 14), quince: n('tu', 15),
  dieciséis: n('tu', 16), dieciseis: n('tu', 16), diecisiete: n('tu', 17), dieciocho: n('tu', 18), diecinueve: n('tu', 19),
  veinte: n('t', 20), veintiuno: n('tu', 21), veintiún: n('tu', 21), veintiuna: n('tu', 21), veintidós: n('tu', 22), veintidos: n('tu', 22),
  veintitrés: n('tu', 23), veintitres: n('tu', 23), veinticuatro: n('tu', 24), veinticinco: n('tu', 25), veintiséis: n('tu', 26),
  veintiseis: n('tu', 26), veintisiete: n('tu', 27), veintiocho: n('tu', 28), veintinueve: n('tu', 29),
  treinta: n('t', 30), cuarenta: n('t', 40), cincuenta: n('t', 50), sesenta: n('t', 60), setenta: n('t', 70), ochenta: n('t', 80), noventa: n('t', 90),
  cien: n('hv', 100), ciento: n('hv', 100), doscientos: n('hv', 200), doscientas: n('hv', 200), trescientos: n('hv', 300), trescientas: n('hv', 300),
  cuatrocientos: n('hv', 400), cuatrocientas: n('hv', 400), quinientos: n('hv', 500), quinientas: n('hv', 500), seiscientos: n('hv', 600),
  seiscientas: n('hv', 600), setecientos: n('hv', 700), setecientas: n('hv', 700), ochocientos: n('hv', 800), ochocientas: n('hv', 800),
  novecientos: n('hv', 900), novecientas: n('hv', 900),
  mil: n('m', 1000), millón: n('m', 1e6), millones: n('m', 1e6),
  primero: n('u', 1, 'm'), primera: n('u', 1, 'f'), primer: n('u', 1, 'apoc'), segundo: n('u', 2, 'm'), segunda: n('u', 2, 'f'),
  tercero: n('u', 3, 'm'), tercera: n('u', 3, 'f'), tercer: n('u', 3, 'apoc'), cuarto: n('u', 4, 'm'), cuarta: n('u', 4, 'f'),
  quinto: n('u', 5, 'm'), quinta: n('u', 5, 'f'), sexto: n('u', 6, 'm'), sexta: n('u', 6, 'f'), séptimo: n('u', 7, 'm'), séptima: n('u', 7, 'f'),
  octavo: n('u', 8, 'm'), octava: n('u', 8, 'f'), noveno: n('u', 9, 'm'), novena: n('u', 9, 'f'), décimo: n('tu', 10, 'm'), décima: n('tu', 10, 'f'),
  undécimo: n('tu', 11, 'm'), undécima: n('tu', 11, 'f'), duodécimo: n('tu', 12, 'm'), duodécima: n('tu', 12, 'f'),
};

// "décimo primero" … "décimo noveno" (and one word: "decimoprimero"), masculine and feminine.
(['primer', 'segund', 'tercer', 'cuart', 'quint', 'sext', 'séptim', 'octav', 'noven'] as const).forEach((stem, k) => {
  for (const [g, end] of [['m', 'o'], ['f', 'a']] as const) {
    words[`décim${end} ${stem}${end}`] = n('tu', 11 + k, g);
    words[`decim${end}${stem}${end}`] = n('tu', 11 + k, g);
  }
});

export const es: LanguageTable = {
  code: 'es',
  name: 'Español',
  numbers: { words, connectors: { y: ['t'] }, articles: ['un', 'una'], unitsAfterTens: true, teenAfterTens: [], compound: false },
  decimalWords: ['coma'],
  decimalSeparator: ',',
  groupSeparator: '\u202F',
  percent: ['por ciento', '%'],
  units: [
    { say: ['centímetros cúbicos', 'centímetro cúbico', 'cc', 'cm³'], out: 'cm³' },
    { say: ['centímetros cuadrados', 'centímetro cuadrado', 'cm²'], out: 'cm²' },
    { say: ['mililitros por metro cuadrado', 'mililitro por metro cuadrado', 'ml/m²', 'mL/m²'], out: 'mL/m²' },
    { say: ['centímetros por segundo', 'centímetro por segundo', 'cm/s'], out: 'cm/s' },
    { say: ['metros por segundo', 'metro por segundo', 'm/s'], out: 'm/s' },
    { say: ['milímetros de mercurio', 'milímetro de mercurio', 'mmHg'], out: 'mmHg' },
    { say: ['miligramos por kilo', 'miligramos por kilogramo', 'miligramo por kilo', 'miligramo por kilogramo', 'mg/kg'], out: 'mg/kg' },
    { say: ['milimoles por litro', 'milimol por litro', 'mmol/l', 'mmol/L'], out: 'mmol/L' },
    { say: ['gramos por decilitro', 'gramo por decilitro', 'g/dl', 'g/dL'], out: 'g/dL' },
    { say: ['latidos por minuto', 'lpm'], out: 'lpm' },
    { say: ['unidades Hounsfield', 'unidad Hounsfield', 'UH'], out: 'UH' },
    { say: ['centímetros', 'centímetro', 'cm'], out: 'cm' },
    { say: ['milímetros', 'milímetro', 'mm'], out: 'mm' },
    { say: ['metros', 'metro'], out: 'm' },
    { say: ['mililitros', 'mililitro', 'ml', 'mL'], out: 'mL' },
    { say: ['litros', 'litro'], out: 'L' },
    { say: ['miligramos', 'miligramo', 'mg'], out: 'mg' },
    { say: ['microgramos', 'microgramo', 'µg'], out: 'µg' },
    { say: ['kilogramos', 'kilogramo', 'kilos', 'kilo', 'kg'], out: 'kg' },
    { say: ['gramos', 'gramo'], out: 'g' },
    { say: ['milisieverts', 'milisievert', 'mSv'], out: 'mSv' },
    { say: ['miligrays', 'miligray', 'mGy'], out: 'mGy' },
    { say: ['milisegundos', 'milisegundo', 'ms'], out: 'ms' },
    { say: ['grados Celsius', 'grado Celsius', '°C'], out: '°C' },
  ],
  dimensionWords: ['por', 'x', '×'],
  vertebraLetters: ['C', 'T', 'D', 'L', 'S'],
  weightingSuffix: [],
  bloodPressure: { triggers: ['tensión', 'presión', 'arterial', 'ta', 'pa'], fillers: ['de', 'es', 'era', 'en', ':', 'arterial'], over: ['sobre'], bareInCmHg: false, shortHundreds: false },
  legal: [{ say: ['artículo', 'artículos'], out: 'artículo', parts: { apartado: 'apartado' } }],
  dates: {
    months: [['enero'], ['febrero'], ['marzo'], ['abril'], ['mayo'], ['junio'], ['julio'], ['agosto'], ['septiembre', 'setiembre'], ['octubre'], ['noviembre'], ['diciembre']],
    order: 'dmy',
    joiners: ['de', 'del'],
    written: { dm: '{d} de {m}', dmy: '{d} de {m} de {y}' },
  },
  ordinals: {
    format: { m: '{n}.º', f: '{n}.ª', n: '{n}.º', apoc: '{n}.er' },
    nouns: ['costilla', 'costillas', 'espacio', 'espacios', 'vértebra', 'ventrículo', 'dedo', 'semana', 'trimestre', 'grado', 'ciclo', 'segmento', 'metacarpiano', 'metatarsiano', 'arco', 'par', 'piso', 'nivel'],
  },
  literal: ['literal', 'literalmente'],
  structure: [
    rule('period, then a new paragraph', ['punto y aparte', 'punto aparte'], [mark('.'), br(2)]),
    rule('new paragraph', ['nuevo párrafo'], [br(2)]),
    rule('new line', ['nueva línea', 'salto de línea'], [br(1)]),
    rule('heading, level 1 (`#`)', ['título uno', 'título nivel uno'], [head(1)], { notAfter: DET }),
    rule('heading, level 2 (`##`)', ['título dos', 'título nivel dos'], [head(2)], { notAfter: DET }),
    rule('heading, level 3 (`###`)', ['título tres', 'título nivel tres'], [head(3)], { notAfter: DET }),
    rule('bullet (`- `)', ['viñeta', 'nueva viñeta'], [bullet], { notAfter: DET }),
  ],
  punctuation: [
    rule('`?` (and `¿` at the start of the question)', ['signo de interrogación', 'cerrar interrogación', 'cierre de interrogación'], [mark('?')]),
    rule('`¿`', ['abrir interrogación', 'abre interrogación'], [open('¿')]),
    rule('`!` (and `¡` at the start of the exclamation)', ['signo de exclamación', 'cerrar exclamación', 'cierre de exclamación'], [mark('!')]),
    rule('`¡`', ['abrir exclamación', 'abre exclamación'], [open('¡')]),
    rule('`…`', ['puntos suspensivos'], [mark('…')]),
    rule('`;`', ['punto y coma'], [mark(';')]),
    rule('`:`, but "dos puntos" stays words after "los", "unos", "estos"… or before "de" ("los dos puntos de sutura")', ['dos puntos'], [mark(':')], { notAfter: DET, notBefore: ['de', 'del'] }),
    rule('`.`', ['punto y seguido', 'punto final'], [mark('.')]),
    rule('`.`, but the word "punto" stays a word after "el", "un", "en"… or before "de" ("punto de vista", "a punto de", "en punto")', ['punto'], [mark('.')], { notAfter: DET, notBefore: ['de', 'del', 'muerto', 'álgido', 'culminante', 'crítico', 'clave', 'exacto', 'gatillo', 'doloroso'] }),
    rule('`,`, but the word "coma" (the medical state) stays a word after "en", "de", "un", "el"… ("paciente en coma")', ['coma'], [mark(',')], { notAfter: [...DET, 'estado', 'inducido', 'profundo'], notBefore: ['inducido', 'profundo', 'diabético', 'etílico', 'hepático', 'barbitúrico', 'vigil'] }),
    rule('`(`', ['abrir paréntesis', 'abre paréntesis'], [open('(')]),
    rule('`)`', ['cerrar paréntesis', 'cierra paréntesis'], [close(')')]),
    rule('`«`', ['abrir comillas', 'abre comillas'], [open('«')]),
    rule('`»`', ['cerrar comillas', 'cierra comillas'], [close('»')]),
    rule('`-` joining two words', ['guion', 'guión'], [join('-')], { notAfter: DET }),
    rule('`/`', ['barra', 'barra oblicua'], [join('/')], { notAfter: DET }),
    rule('` – `', ['raya'], [dash], { notAfter: DET }),
  ],
  commands: [
    { kind: 'deleteLastUtterance', say: ['borra eso', 'borrar eso', 'elimina eso'], doc: 'delete what was dictated last', editorOnly: false },
    { kind: 'undo', say: ['deshacer', 'deshaz eso'], doc: 'undo the last change', editorOnly: false },
    { kind: 'nextField', say: ['campo siguiente', 'siguiente campo'], doc: 'select the next template field', editorOnly: false },
    { kind: 'previousField', say: ['campo anterior', 'campo previo'], doc: 'select the previous template field', editorOnly: false },
    { kind: 'acceptDefaults', say: ['aceptar valores predeterminados', 'aceptar valores por defecto'], doc: 'every remaining field takes its default', editorOnly: false },
    { kind: 'stopDictation', say: ['detener dictado', 'terminar dictado'], doc: 'stop dictation', editorOnly: false },
    { kind: 'whatCanISay', say: ['qué puedo decir'], doc: 'list these commands', editorOnly: true },
    { kind: 'correctThat', say: ['corregir eso', 'corrige eso'], doc: 'offer the other readings of the selection or of the last utterance', editorOnly: true },
    { kind: 'chooseAlternative', say: ['elegir {name}', 'elige {name}'], doc: 'pick that reading from the list shown', editorOnly: true },
    { kind: 'correctWords', say: ['corregir {name}', 'corrige {name}'], doc: 'select the last dictated occurrence of those words and offer their other readings', editorOnly: true },
    { kind: 'spellThat', say: ['deletrear {name}', 'deletrea {name}'], doc: 'write the letters said one by one in place of the selection or of the last utterance', editorOnly: true },
    { kind: 'insertTemplate', say: ['insertar plantilla {name}', 'insertar la plantilla {name}', 'inserta la plantilla {name}'], doc: 'insert the template of that name', editorOnly: false },
    { kind: 'insertAutoText', say: ['insertar {name}', 'inserta {name}'], doc: 'insert the auto-text of that name (only when one has that name)', editorOnly: false },
  ],
  typography: {
    spaceBefore: {},
    insideGuillemets: '',
    percentSpace: true,
    invertedOpening: { '?': '¿', '!': '¡' },
    closingQuotes: ['”', '»'],
    lowerAfterRemovedMark: true,
    ordinalDot: false,
  },
  abbreviations: ['dr', 'dra', 'sr', 'sra', 'art', 'etc', 'p', 'pág', 'núm', 'vol', 'cap', 'aprox'],
};
