/**
 * The dictation grammar: spoken punctuation and commands, numbers and units, Markdown templates with
 * fields, vocabulary and auto-texts, for fr, en, es and de. Pure: imports nothing from vscode nor from
 * the other layers. See docs/dictation.md.
 */
export { LANGUAGES, SPECIALTIES } from './types';
export type { Language, DictationAction, ActionKind, Template } from './types';
export { formatText, type DocContext, type FormatOptions } from './format';
export { DictationFormatter, HOLD_BACK_MS, type ChunkResult } from './stream';
export { parseFields, nextField, previousField, fieldsLeft, acceptDefaults, loadTemplates, templateInsertion } from './templates';
export type { TemplateFile } from './templates';
export { type Vocabulary } from './vocabulary';
export { spokenCommands, matchCommand, type SpokenGroup, type SpokenEntry } from './commands';
export { TABLES } from './lang';
