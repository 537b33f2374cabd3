/**
 * The dictation grammar: spoken punctuation and commands, numbers and units, Markdown templates with
 * fields, vocabulary and auto-texts, for fr, en, es and de. Pure: imports nothing from vscode nor from
 * the other layers. See docs/dictation.md.
 */
export { LANGUAGES, SPECIALTIES, isLanguage } from './types';
export type { Language, Specialty, DictationAction, ActionKind, Template, Item } from './types';
export { formatText, formatUtterance, type DocContext, type FormatOptions, type Formatted } from './format';
export { DictationFormatter, HOLD_BACK_MS, type ChunkResult } from './stream';
export type { Rendered } from './render';
export { DictationDocument } from './document';
export { atSentenceStart } from './render';
export { parseFields, nextField, previousField, fieldsLeft, acceptDefaults, loadTemplates, findTemplate, templateInsertion } from './templates';
export type { Field, TextEdit, TemplateFile } from './templates';
export { applyVocabulary, type Vocabulary } from './vocabulary';
export { spokenCommands, matchCommand, type SpokenGroup, type SpokenEntry } from './commands';
export { TABLES } from './lang';
export type { LanguageTable } from './lang/table';
