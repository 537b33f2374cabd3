/**
 * One utterance, start to finish: whole-utterance commands, then the grammar, the vocabulary and the
 * typography against the document around the insertion point.
 */
import { matchCommand } from './commands';
import { applyGrammar } from './grammar';
import { TABLES } from './lang';
import { renderReplacing, type RenderContext, type Rendered } from './render';
import { tokenize } from './tokenizer';
import type { DictationAction, Language, Specialty, Template } from './types';
import { applyVocabulary, type Vocabulary } from './vocabulary';

export interface FormatOptions {
  language: Language;
  /** `dictee.specialty`; English "colon" is a colon only in general and legal dictation. Default 'general'. */
  specialty?: Specialty;
  /** Replacements applied after the grammar (`dictee.vocabulary` for this language). */
  vocabulary?: Vocabulary;
  /** Templates and auto-texts that spoken names resolve to. */
  templates?: readonly Template[];
  /** Decimal separator; the language's by default (Spanish: ',' for Spain, '.' for Mexico). */
  decimalSeparator?: ',' | '.';
}

export type DocContext = RenderContext;

interface Formatted {
  /** Text to insert at the insertion point (spacing against `before`/`after` included); '' for a command. */
  text: string;
  /** The command the utterance is, when it was said alone; empty for dictation. */
  actions: DictationAction[];
}

/** Formats one utterance with no command detection (provisional text, text inside a longer run). */
export function formatText(text: string, o: FormatOptions, ctx: DocContext): string {
  return formatReplacing(text, o, { before: ctx.before, after: ctx.after }).text;
}

/**
 * `formatText`, where the text may replace the last `ctx.replaceable` characters before the insertion
 * point (a mark said right after the mark an utterance ended with): `deleteBefore` says how many.
 */
export function formatReplacing(text: string, o: FormatOptions, ctx: DocContext): Rendered {
  const table = TABLES[o.language];
  const items = applyGrammar(tokenize(text), {
    table,
    specialty: o.specialty ?? 'general',
    ...(o.decimalSeparator ? { decimalSeparator: o.decimalSeparator } : {}),
  });
  return renderReplacing(applyVocabulary(items, o.vocabulary), table, ctx);
}

/** Formats one utterance said on its own: a command said alone gives its action and no text. */
export function formatUtterance(text: string, o: FormatOptions, ctx: DocContext): Formatted {
  const action = matchCommand(text, TABLES[o.language], o.templates ?? []);
  if (action) return { text: '', actions: [action] };
  return { text: formatText(text, o, ctx), actions: [] };
}
