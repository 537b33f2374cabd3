/** The shape of one language's rule tables. Every rule of the grammar reads these; none names a language. */
import type { CommandRule, Language, LegalRule, NumberWord, PhraseRule, UnitRule } from '../types';

export interface NumberTable {
  /** Number words (lower case). Multi-word entries ("quatre vingt") are matched longest first. */
  words: Record<string, NumberWord>;
  /**
   * Words that join parts of one number ("et" in "vingt et un", "and", "y", "und"), with the slot that
   * must come before them: 't' after tens, 'h' after hundreds, 'm' after thousands, 'u' units then tens
   * (German).
   */
  connectors: Record<string, Array<'t' | 'h' | 'u' | 'm'>>;
  /** Forms of "one" that are articles: never read as a digit of a fraction ("zwölf Komma fünf ein …"). */
  articles?: string[];
  /**
   * Forms of "one" that are also the indefinite article: alone before another number they are the article
   * ("un soixante millions" → "un 60 000 000"), so the number after them is written as if they were not there.
   */
  indefinite?: string[];
  /** Units may follow tens ("vingt-deux", "twenty two"); German says units first ("zweiundzwanzig"). */
  unitsAfterTens: boolean;
  /** Tens values a teen may follow (French "soixante-dix", "quatre-vingt-onze"). */
  teenAfterTens: number[];
  /** Number words may be written as one word of parts ("dreiundzwanzig"): split them. */
  compound: boolean;
  /** English "nineteen eighty-three": two numbers of two digits make one (years, section numbers). */
  pairedHundreds?: boolean;
  /** German-style ordinal endings stripped before a lookup ("dritten" → "dritte"). */
  ordinalEndings?: string[];
}

export interface Typography {
  /** Space put before these marks (French: non-breaking before ":", narrow before "; ! ?"). */
  spaceBefore: Record<string, string>;
  /** Space inside guillemets (French « … »). */
  insideGuillemets: string;
  /** Percent sign written with a non-breaking space before it. */
  percentSpace: boolean;
  /** Opening marks added at the start of a question / exclamation (Spanish ¿ ¡). */
  invertedOpening: Record<string, string>;
  /** Quote characters that close when they stand alone. */
  closingQuotes: string[];
  /** Lower-case a word the engine capitalised after a mark that was removed (not German: nouns). */
  lowerAfterRemovedMark: boolean;
  /** A period after digits is an ordinal ("3. Rippe"): no capital after it. */
  ordinalDot: boolean;
}

export interface Ordinals {
  /** Written form of an ordinal: `{n}` is the number; by gender of the spoken word. */
  format: { m: string; f: string; n: string; apoc: string };
  /** Special written forms by number and gender ("1" + "m" → "1er"). */
  special?: Record<string, string>;
  /** English suffixes: 1st, 2nd, 3rd, 11th, 21st. */
  englishSuffix?: boolean;
  /** Nouns after which an ordinal is written in digits ("espace intercostal", "côte"). */
  nouns: string[];
}

export interface Dates {
  /** Month names, January first; each entry lists the spoken forms. */
  months: string[][];
  /** Order in which a date is spoken: day month year, or month day year. */
  order: 'dmy' | 'mdy';
  /** Words allowed between day, month and year ("de" in "doce de marzo de dos mil"; "the", "of"). */
  joiners: string[];
  /** How a date is written: {d} {m} {y} are day, month name, year; a missing year drops {ys}…{ye}. */
  written: { dm: string; dmy: string };
  /** Month names that are a month only when written with a capital ("May", "March"). */
  caseSensitive?: string[];
}

export interface BloodPressure {
  /** Words that announce a blood pressure ("tension", "TA", "blood pressure"). */
  triggers: string[];
  /** Words allowed between the trigger and the numbers ("à", "de", "of", "is"). */
  fillers: string[];
  /** The word between the two numbers ("sur", "over", "sobre", "zu"). */
  over: string[];
  /** Two bare numbers without "over" are cmHg (French "douze huit" → 12/8). */
  bareInCmHg: boolean;
  /** English "one twenty over eighty": a digit word then a two-digit number is hundreds. */
  shortHundreds: boolean;
}

export interface LanguageTable {
  code: Language;
  name: string;
  numbers: NumberTable;
  /** Word between the integer and the fraction of a decimal ("virgule", "point", "coma", "Komma"). */
  decimalWords: string[];
  decimalSeparator: ',' | '.';
  /** Digit grouping from 5 digits (a narrow no-break space, or "," in English). */
  groupSeparator: string;
  /** "pour cent", "percent". */
  percent: string[];
  units: UnitRule[];
  /** "par" in "trois par deux centimètres". */
  dimensionWords: string[];
  /** Letters of vertebral levels ("C", "T", "D", "L", "S"). */
  vertebraLetters: string[];
  /** Words after "T1"/"T2" joined with a hyphen (English "weighted", German "gewichtet"). */
  weightingSuffix: string[];
  bloodPressure: BloodPressure;
  legal: LegalRule[];
  dates: Dates;
  ordinals: Ordinals;
  /** Next word written as said ("littéral", "literal", "wörtlich"). */
  literal: string[];
  structure: PhraseRule[];
  punctuation: PhraseRule[];
  commands: CommandRule[];
  typography: Typography;
  /** Abbreviations after whose period no capital follows (lower case, without the period). */
  abbreviations: string[];
}
