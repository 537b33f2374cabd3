/**
 * The settings of the dictation grammar (`dictee.grammar.*`, `dictee.vocabulary`,
 * `dictee.templates.folder`), read from raw values that may be hand-edited JSON of any type. Pure (no
 * `vscode`), tested in plain Node. A value that cannot be used is named in `problems` (shown to the
 * user), never silently dropped.
 */
import { LANGUAGES, type Language, type Vocabulary } from '../dictation';
import { ENGLISH, type L10n } from './l10nText';

export interface GrammarSettings {
  /** Spoken punctuation, commands, numbers, templates (`dictee.grammar.enabled`). */
  enabled: boolean;
  /** `dictee.grammar.decimalSeparator`: undefined = the language's own. */
  decimalSeparator: ',' | '.' | undefined;
  /** `dictee.vocabulary`, per language. */
  vocabulary: Record<Language, Vocabulary>;
  /** `dictee.templates.folder` as written ('' = none). */
  templatesFolder: string;
  /** What could not be used, for the user: each names the setting and what was wrong. */
  problems: string[];
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function normaliseGrammarSettings(raw: Record<string, unknown>, l10n: L10n = ENGLISH): GrammarSettings {
  const problems: string[] = [];
  const enabled = raw['grammar.enabled'] !== false;
  const sep = raw['grammar.decimalSeparator'];
  const decimalSeparator = sep === ',' || sep === '.' ? sep : undefined;
  if (sep !== undefined && sep !== null && sep !== 'language' && decimalSeparator === undefined) {
    problems.push(
      l10n.t(
        '{0}: {1} is not "language", "," or "."; the language\'s own separator is used.',
        'dictee.grammar.decimalSeparator',
        JSON.stringify(sep),
      ),
    );
  }
  const vocabulary = Object.fromEntries(LANGUAGES.map((l) => [l, {}])) as Record<Language, Record<string, string>>;
  const v = raw.vocabulary;
  if (v !== undefined && v !== null && !isRecord(v)) {
    problems.push(
      l10n.t('{0}: expected an object by language, e.g. {1}; it is not used.', 'dictee.vocabulary', '{"en": {"sea tea": "CT"}}'),
    );
  } else if (isRecord(v)) {
    for (const [lang, entries] of Object.entries(v)) {
      if (!(LANGUAGES as readonly string[]).includes(lang)) {
        problems.push(
          l10n.t('{0}: "{1}" is not a language ({2}); its entries are not used.', 'dictee.vocabulary', lang, LANGUAGES.join(', ')),
        );
        continue;
      }
      if (!isRecord(entries)) {
        problems.push(
          l10n.t('{0}: expected an object of replacements, e.g. {1}; it is not used.', `dictee.vocabulary.${lang}`, '{"sea tea": "CT"}'),
        );
        continue;
      }
      for (const [said, written] of Object.entries(entries)) {
        if (typeof written !== 'string' || said.trim() === '') {
          problems.push(
            l10n.t(
              '{0}: the entry "{1}" needs a non-empty spoken form and a text to write; it is not used.',
              `dictee.vocabulary.${lang}`,
              said,
            ),
          );
          continue;
        }
        vocabulary[lang as Language][said] = written;
      }
    }
  }
  const folder = raw['templates.folder'];
  const templatesFolder = typeof folder === 'string' ? folder.trim() : '';
  if (folder !== undefined && folder !== null && typeof folder !== 'string')
    problems.push(l10n.t('{0}: expected a folder path; it is not used.', 'dictee.templates.folder'));
  return { enabled, decimalSeparator, vocabulary, templatesFolder, problems };
}

/** Where `dictee.templates.folder` points: nowhere, a URI, an absolute path, or a path relative to the workspace. */
type FolderSetting =
  { kind: 'none' } | { kind: 'uri'; value: string } | { kind: 'path'; value: string } | { kind: 'relative'; value: string };

/** `~` is the home folder; `C:\…` and `\\server\…` are absolute paths, not URIs. */
export function resolveFolderSetting(value: string, homeDir: string): FolderSetting {
  const v = value.trim();
  if (v === '') return { kind: 'none' };
  if (/^[a-z][a-z0-9+.-]+:\/\//iu.test(v)) return { kind: 'uri', value: v };
  if (v === '~' || v.startsWith('~/') || v.startsWith('~\\')) return { kind: 'path', value: homeDir + v.slice(1) };
  if (v.startsWith('/') || /^[a-z]:[\\/]/iu.test(v) || v.startsWith('\\\\')) return { kind: 'path', value: v };
  return { kind: 'relative', value: v };
}
