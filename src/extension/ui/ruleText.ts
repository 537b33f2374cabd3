/**
 * The descriptions of the grammar's rules in the user's language, for "What Can I Say?". The tables
 * (src/dictation/lang/) describe each rule in English (docs/dictation.md is written from them); each
 * description the quick pick shows is here once, as an `l10n.t` message, so that it is translated like
 * every other string of the extension. The spoken words quoted in a description stay in the dictation
 * language. Pure (no `vscode`), tested in plain Node.
 */
import type { L10n } from '../l10nText';

/**
 * `english` (a rule's description as plain text) in the user's language. A description without a letter
 * (a mark alone: `?`, `;`) is shown as it is. Undefined for a description this list lacks (a unit test
 * keeps the list complete).
 */
export function ruleDescription(l10n: L10n, english: string): string | undefined {
  if (!/\p{L}/u.test(english)) return english;
  switch (english) {
    case 'new paragraph':
      return l10n.t('new paragraph');
    case 'new line':
      return l10n.t('new line');
    case 'heading, level 1 (#)':
      return l10n.t('heading, level 1 (#)');
    case 'heading, level 2 (##)':
      return l10n.t('heading, level 2 (##)');
    case 'heading, level 3 (###)':
      return l10n.t('heading, level 3 (###)');
    case 'bullet (-)':
      return l10n.t('bullet (-)');
    case 'period, then a new paragraph':
      return l10n.t('period, then a new paragraph');
    case '- joining two words':
      return l10n.t('- joining two words');
    case 'writes the next word without any rule':
      return l10n.t('writes the next word without any rule');
    case ': — in medical dictation "colon" is the organ and stays a word':
      return l10n.t(': — in medical dictation "colon" is the organ and stays a word');
    case '., but the word "period" stays a word after "the", "a", "this"… or before "of", "during", "was" ("the postoperative period", "a period of time")':
      return l10n.t(
        '., but the word "period" stays a word after "the", "a", "this"… or before "of", "during", "was" ("the postoperative period", "a period of time")',
      );
    case ':, but "deux points" stays words after "les", "des", "ces"… or before "de" ("les deux points de suture")':
      return l10n.t(':, but "deux points" stays words after "les", "des", "ces"… or before "de" ("les deux points de suture")');
    case '., but the word "point" stays a word after "le", "du", "un"… or before "de" ("du point de vue", "un point de suture")':
      return l10n.t(
        '., but the word "point" stays a word after "le", "du", "un"… or before "de" ("du point de vue", "un point de suture")',
      );
    case '« (with a no-break space)':
      return l10n.t('« (with a no-break space)');
    case '» (with a no-break space)':
      return l10n.t('» (with a no-break space)');
    case '– (a dash; in a reference "tiret" is the hyphen of the number)':
      return l10n.t('– (a dash; in a reference "tiret" is the hyphen of the number)');
    case '? (and ¿ at the start of the question)':
      return l10n.t('? (and ¿ at the start of the question)');
    case '! (and ¡ at the start of the exclamation)':
      return l10n.t('! (and ¡ at the start of the exclamation)');
    case ':, but "dos puntos" stays words after "los", "unos", "estos"… or before "de" ("los dos puntos de sutura")':
      return l10n.t(':, but "dos puntos" stays words after "los", "unos", "estos"… or before "de" ("los dos puntos de sutura")');
    case '., but the word "punto" stays a word after "el", "un", "en"… or before "de" ("punto de vista", "a punto de", "en punto")':
      return l10n.t(
        '., but the word "punto" stays a word after "el", "un", "en"… or before "de" ("punto de vista", "a punto de", "en punto")',
      );
    case ',, but the word "coma" (the medical state) stays a word after "en", "de", "un", "el"… ("paciente en coma")':
      return l10n.t(',, but the word "coma" (the medical state) stays a word after "en", "de", "un", "el"… ("paciente en coma")');
    case '., but the word "Punkt" stays a word after an article or "auf", "für" ("der Punkt", "auf den Punkt")':
      return l10n.t('., but the word "Punkt" stays a word after an article or "auf", "für" ("der Punkt", "auf den Punkt")');
  }
  return undefined;
}

/** The placeholders of spoken forms ("insert template ‹name›", "literal ‹word›") in the user's language. */
export function spokenPlaceholders(l10n: L10n, said: string): string {
  return said
    .replace(/‹name›/gu, l10n.t('‹name›'))
    .replace(/‹word›/gu, l10n.t('‹word›'))
    .replace(/‹number›/gu, l10n.t('‹number›'))
    .replace(/‹words›/gu, l10n.t('‹words›'))
    .replace(/‹letters›/gu, l10n.t('‹letters›'));
}
