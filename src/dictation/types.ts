/**
 * Types of the dictation grammar: languages, the items a formatted utterance is made of, editor actions,
 * and the shape of each language's rule tables (the tables themselves are in `lang/`).
 */

import type { Language, Specialty } from '../shared/vocabulary';

export { LANGUAGES, SPECIALTIES, isLanguage, type Language, type Specialty } from '../shared/vocabulary';

/** How a word is attached to what precedes it: a space, nothing, a hyphen, or a non-breaking space. */
export type Glue = ' ' | '' | '-' | 'nb';

/**
 * One piece of formatted output, before typography turns the list into text.
 * `spoken` marks items produced by a spoken command (as opposed to punctuation the engine wrote).
 */
export type Item =
  | { k: 'w'; text: string; glue: Glue; literal?: boolean; noCapAfter?: boolean }
  | { k: 'mark'; ch: string; spoken: boolean; said?: string }
  | { k: 'open'; ch: string; spoken: boolean }
  | { k: 'close'; ch: string; spoken: boolean }
  | { k: 'join'; ch: string }
  | { k: 'dash'; spoken: boolean }
  | { k: 'br'; n: 1 | 2; spoken: boolean }
  | { k: 'head'; level: number }
  | { k: 'bullet' };

/** What a spoken command asks the editor to do. */
export type ActionKind =
  | 'deleteLastUtterance'
  | 'undo'
  | 'nextField'
  | 'previousField'
  | 'acceptDefaults'
  | 'stopDictation'
  | 'whatCanISay'
  | 'insertTemplate'
  | 'insertAutoText'
  | 'correctThat'
  | 'chooseAlternative'
  | 'correctWords'
  | 'spellThat';

export interface Template {
  /** Name as shown and spoken, from the file name ("Radiologie", "normal thorax"). */
  name: string;
  /** Language the template belongs to, or null for every language. */
  language: Language | null;
  /** Markdown text with `{{default}}` / `{{a|b|c}}` fields. */
  content: string;
  source: 'builtin' | 'user';
  /** The file it came from, relative to its folder. */
  path: string;
}

export type DictationAction =
  | { kind: 'undo' | 'nextField' | 'previousField' | 'acceptDefaults' | 'stopDictation' | 'whatCanISay' }
  | {
      kind: 'deleteLastUtterance';
      /** The chunk whose text to remove (set by `DictationFormatter`: the last one that wrote text). */
      targetId?: string;
    }
  | {
      kind: 'insertTemplate' | 'insertAutoText';
      /** The name as spoken. */
      spokenName: string;
      /** The template it resolved to, or null when no template has that name. */
      template: Template | null;
    }
  /** Proofreading (the editor): the engine's other readings of the selection or the last utterance. */
  | { kind: 'correctThat' }
  /** Picks reading `choice` (1 for the first) of the list the editor shows. */
  | { kind: 'chooseAlternative'; choice: number }
  /** Selects the last occurrence of `words` (folded, as said) in what was dictated, then offers its readings. */
  | { kind: 'correctWords'; words: string }
  /** Writes `letters` (spelled one by one) in place of the selection or the last utterance. */
  | { kind: 'spellThat'; letters: string };

/** A phrase rule: spoken forms and what they produce. */
export interface PhraseRule {
  /** Spoken forms (lower case; hyphens and apostrophes as written, e.g. "point d'interrogation"). */
  say: string[];
  /** Items produced, in order. */
  out: Item[];
  /** Not a command after one of these words (lower case). */
  notAfter?: string[];
  /** Not a command before one of these words (`#number`: before digits). */
  notBefore?: string[];
  /** Only for these specialties. */
  specialties?: Specialty[];
  /**
   * Not a command after an inflected adjective that follows a determiner (German "ein wichtiger Punkt":
   * the adjective is lower case and ends with one of these endings, the word before it is in `notAfter`).
   */
  notAfterAdjective?: string[];
  /** Description for the documentation ("period", "new paragraph"). */
  doc: string;
}

/**
 * A whole-utterance command. `{name}` in a spoken form stands for a template or auto-text name (the
 * number of a reading for `chooseAlternative`, the words for `correctWords`, the letters for `spellThat`).
 */
export interface CommandRule {
  kind: ActionKind;
  say: string[];
  doc: string;
  /** Needs an editor's user interface (stop, the command list): the command line ignores it. */
  editorOnly: boolean;
}

export type NumberKind = 'u' | 't' | 'tu' | 'h' | 'hv' | 'm' | 'zero' | 'and';

export interface NumberWord {
  kind: NumberKind;
  value: number;
  /** An ordinal form ("troisième", "third", "dritte", "tercero"); its gender suffix for fr/es. */
  ord?: 'm' | 'f' | 'n' | 'apoc';
}

export interface UnitRule {
  say: string[];
  out: string;
}

export interface LegalRule {
  /** The word that starts the reference ("article", "Paragraf"). */
  say: string[];
  /** What it is written as ("article", "§"). */
  out: string;
  /** Sub-divisions: spoken word → abbreviation ("Absatz" → "Abs."). */
  parts?: Record<string, string>;
  /** Code letters allowed before the number ("L" → "L."). */
  letters?: boolean;
  /** Words joining numbers ("tiret" → "-"). */
  hyphen?: string[];
  specialties?: Specialty[];
}
