/**
 * Markdown templates with fields `{{default}}` and `{{a|b|c}}` (the first choice is the default):
 * finding fields, moving to the next or previous one from an offset, accepting defaults, and loading
 * templates from file contents (reading folders is the caller's business).
 */
import { fold } from './text';
import { isLanguage, type Language, type Template } from './types';

interface Field {
  /** Offset of `{{` and just after `}}`. */
  start: number;
  end: number;
  /** The choices, trimmed; the first is the default. */
  choices: string[];
  default: string;
}

const FIELD = /\{\{([^{}]*)\}\}/gu;

export function parseFields(text: string): Field[] {
  const out: Field[] = [];
  for (const m of text.matchAll(FIELD)) {
    const choices = m[1]!.split('|').map((c) => c.trim());
    out.push({ start: m.index, end: m.index + m[0].length, choices, default: choices[0] ?? '' });
  }
  return out;
}

/** The first field that starts at or after `offset` (pass the end of the selection), or null. */
export function nextField(text: string, offset: number): Field | null {
  return parseFields(text).find((f) => f.start >= offset) ?? null;
}

/** The last field that ends at or before `offset` (pass the start of the selection), or null. */
export function previousField(text: string, offset: number): Field | null {
  const before = parseFields(text).filter((f) => f.end <= offset);
  return before[before.length - 1] ?? null;
}

/** Number of fields left in a document. */
export function fieldsLeft(text: string): number {
  return parseFields(text).length;
}

interface TextEdit {
  offset: number;
  length: number;
  text: string;
}

/** Every remaining field replaced by its default: the edits (last first, so offsets stay valid) and the new text. */
export function acceptDefaults(text: string): { text: string; edits: TextEdit[] } {
  const edits = parseFields(text)
    .map((f) => ({ offset: f.start, length: f.end - f.start, text: f.default }))
    .reverse();
  let out = text;
  for (const e of edits) out = out.slice(0, e.offset) + e.text + out.slice(e.offset + e.length);
  return { text: out, edits };
}

/**
 * What inserting a template (or an auto-text) after the text `before` writes: a template starts a block
 * of its own (a blank line before it unless it starts a line), an auto-text joins the text like a word.
 * `select` is, relative to the start of `text`, the first field (dictation then replaces it) or the end.
 */
export function templateInsertion(
  kind: 'insertTemplate' | 'insertAutoText',
  before: string,
  body: string,
): { text: string; select: { start: number; end: number } } {
  const sep = before === '' || /\s$/u.test(before) || /^\s/u.test(body) ? '' : kind === 'insertTemplate' ? '\n\n' : ' ';
  const first = parseFields(body)[0];
  const text = sep + body;
  return {
    text,
    select: first ? { start: sep.length + first.start, end: sep.length + first.end } : { start: text.length, end: text.length },
  };
}

/** A template file: its path relative to the templates folder and its contents. */
export interface TemplateFile {
  path: string;
  content: string;
}

/**
 * Templates from Markdown files. A file `fr/radiologie.md` belongs to French; a file at the top of
 * the folder (or in a folder that is not a language code) to every language. The name is the file
 * name without `.md`, with `-` and `_` read as spaces; a first line `<!-- name: … -->` overrides it.
 */
export function loadTemplates(files: readonly TemplateFile[], source: Template['source']): Template[] {
  const out: Template[] = [];
  for (const f of files) {
    const rel = f.path.replace(/\\/gu, '/').replace(/^\.\//u, '');
    if (!/\.md$/iu.test(rel)) continue;
    const parts = rel.split('/');
    const dir = parts.length > 1 ? parts[0]! : '';
    const language: Language | null = isLanguage(dir) ? dir : null;
    let content = f.content.replace(/\r\n?/gu, '\n');
    let name = parts[parts.length - 1]!.replace(/\.md$/iu, '').replace(/[-_]+/gu, ' ').trim();
    const header = /^<!--\s*name:\s*(.+?)\s*-->\n?/u.exec(content);
    if (header) {
      name = header[1]!;
      content = content.slice(header[0].length);
    }
    out.push({ name, language, content, source, path: rel });
  }
  return out;
}

/** The template a spoken name designates (case, accents and punctuation ignored), user templates first. */
export function findTemplate(templates: readonly Template[], spokenName: string, language: Language): Template | null {
  const key = fold(spokenName);
  if (key === '') return null;
  const candidates = templates.filter((t) => t.language === null || t.language === language);
  const ranked = [...candidates.filter((t) => t.source === 'user'), ...candidates.filter((t) => t.source === 'builtin')];
  return ranked.find((t) => fold(t.name) === key) ?? null;
}
