/**
 * "What Can I Say?" as quick-pick rows: the spoken commands of a language (the grammar's own tables,
 * src/dictation/commands.ts) in plain text, since a quick pick shows no Markdown. Pure (no `vscode`),
 * tested in plain Node.
 */
import type { ActionKind, SpokenEntry, SpokenGroup } from '../../dictation';
import type { Specialty } from '../../protocol/config';
import type { L10n } from '../l10nText';
import { ruleDescription, spokenPlaceholders } from './ruleText';
import { specialtyName } from './statusText';

interface SpokenRow {
  /** A separator row (a group's title) rather than a command. */
  separator?: boolean;
  label: string;
  description?: string;
  detail?: string;
}

/** Markdown code spans as plain text: "`:` (…)" → ": (…)", "bullet (`- `)" → "bullet (-)". */
export function plainText(markdown: string): string {
  return markdown
    .replace(/`([^`]*)`/gu, (_, code: string) => code.trim())
    .replace(/\(\s+/gu, '(')
    .replace(/\s+\)/gu, ')')
    .replace(/\s{2,}/gu, ' ')
    .trim();
}

/** A spoken form as shown: in quotes, its first letter a capital (speech has no case). */
export function spokenLabel(say: string): string {
  return `“${say.charAt(0).toLocaleUpperCase() + say.slice(1)}”`;
}

/** When a rule applies only with some vocabularies, in words: "only when the vocabulary is General or Legal". */
export function onlyWith(l10n: L10n, specialties: readonly Specialty[]): string {
  const names = specialties.map((s) => specialtyName(l10n, s));
  if (names.length === 1) return l10n.t('only when the vocabulary is {0}', names[0]!);
  return l10n.t('only when the vocabulary is {0} or {1}', names.slice(0, -1).join(', '), names[names.length - 1]!);
}

/** What a command said alone does, in the user's language. */
function commandDoes(l10n: L10n, kind: ActionKind): string {
  switch (kind) {
    case 'deleteLastUtterance':
      return l10n.t('delete what was dictated last');
    case 'undo':
      return l10n.t('undo the last change');
    case 'nextField':
      return l10n.t('select the next template field');
    case 'previousField':
      return l10n.t('select the previous template field');
    case 'acceptDefaults':
      return l10n.t('every remaining field takes its default');
    case 'stopDictation':
      return l10n.t('stop dictation');
    case 'whatCanISay':
      return l10n.t('list these commands');
    case 'insertTemplate':
      return l10n.t('insert the template of that name');
    case 'insertAutoText':
      return l10n.t('insert the auto-text of that name (only when one has that name)');
    case 'correctThat':
      return l10n.t('offer the other readings of the selection or of the last utterance');
    case 'chooseAlternative':
      return l10n.t('pick that reading from the list shown');
    case 'correctWords':
      return l10n.t('select the last dictated occurrence of those words and offer their other readings');
    case 'spellThat':
      return l10n.t('write the letters said one by one in place of the selection or of the last utterance');
  }
}

/** What saying `e` does, in the user's language (the table's own English for a rule ruleText.ts lacks). */
function does(l10n: L10n, e: SpokenEntry): string {
  if (e.command) return commandDoes(l10n, e.command);
  const english = plainText(e.does);
  return ruleDescription(l10n, english) ?? english;
}

function groupTitle(l10n: L10n, id: SpokenGroup['id']): string {
  switch (id) {
    case 'commands':
      return l10n.t('Commands: say them alone, with a pause before and after');
    case 'structure':
      return l10n.t('Structure');
    case 'punctuation':
      return l10n.t('Punctuation');
    case 'literal':
      return l10n.t('Literal: the next word as said');
  }
}

/** The rows of the quick pick. */
export function spokenRows(l10n: L10n, groups: readonly SpokenGroup[]): SpokenRow[] {
  const rows: SpokenRow[] = [];
  for (const g of groups) {
    rows.push({ separator: true, label: groupTitle(l10n, g.id) });
    for (const e of g.entries) {
      const only = e.specialties ? ` (${onlyWith(l10n, e.specialties)})` : '';
      const said = e.say.map((s) => spokenLabel(spokenPlaceholders(l10n, s)));
      rows.push({ label: said[0] ?? spokenLabel(''), description: said.slice(1).join(', '), detail: `${does(l10n, e)}${only}` });
    }
  }
  return rows;
}
