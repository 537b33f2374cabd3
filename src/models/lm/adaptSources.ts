/**
 * The text `lm adapt` learns from, found in the folders it is given (each `--from` may also name one file):
 *
 * - `*.md`: the team's reports and templates (the `dictee.templates.folder` layout: files at the top
 *   serve every language, a `fr/` sub-folder one language; sub-folders named after another language
 *   (`en/`, `es/`, `de/`) are skipped). A template's fields `{{a|b|c}}` give one sentence per choice.
 *   Markdown markup (headings, lists, tables, emphasis, links, HTML comments, fenced code) is dropped.
 * - `settings.json` (VS Code's, comments allowed; also `.vscode/settings.json`): the spoken forms of
 *   `dictee.vocabulary.<language>` (the keys: what is said; the values are what is written);
 * - `vocabulary.txt`: one word or phrase per line (`#` starts a comment).
 *
 * Hidden folders (but `.vscode`) and `node_modules` are not entered. Files are read in path order
 * (code points), so the result depends on nothing else.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { validUtf8 } from './corpus';

export class AdaptSourceError extends Error {
  override readonly name = 'AdaptSourceError';
}

/** A larger file is not a report (and is not read). */
const MAX_FILE_BYTES = 8 * 2 ** 20;
const LANGUAGE_DIRS = ['fr', 'en', 'es', 'de'];

export interface AdaptText {
  /** Sentences, one per string, in reading order. */
  sentences: string[];
  reports: number;
  templates: number;
  vocabularyEntries: number;
  /** Files skipped, with why (too large, binary, unreadable JSON). */
  skipped: string[];
}

const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function walk(dir: string, language: string, out: string[]): void {
  for (const name of readdirSync(dir).sort(byCodePoint)) {
    const full = path.join(dir, name);
    const st = statSync(full, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isDirectory()) {
      if ((name.startsWith('.') && name !== '.vscode') || name === 'node_modules') continue;
      if (LANGUAGE_DIRS.includes(name) && name !== language) continue;
      walk(full, language, out);
    } else if (st.isFile() && /(\.md|^settings\.json|^vocabulary\.txt)$/iu.test(name)) out.push(full);
  }
}

/** The choices of every field `{{a|b}}`: line i takes each field's choice i (its last when it has fewer). */
export function expandFields(line: string): string[] {
  const fields = [...line.matchAll(/\{\{([^{}]*)\}\}/gu)].map((m) => m[1]!.split('|').map((c) => c.trim()));
  if (fields.length === 0) return [line];
  const n = Math.max(...fields.map((f) => f.length));
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    let k = 0;
    out.push(
      line.replace(/\{\{([^{}]*)\}\}/gu, () => {
        const f = fields[k++]!;
        return f[Math.min(i, f.length - 1)]!;
      }),
    );
  }
  return out;
}

/** The sentences of a Markdown text, its markup dropped. */
export function markdownSentences(md: string): string[] {
  const text = md
    .replace(/\r\n?/gu, '\n')
    .replace(/<!--[\s\S]*?-->/gu, '\n')
    .replace(/^\s*(```|~~~)[^\n]*\n[\s\S]*?^\s*\1[^\n]*$/gmu, '\n')
    .replace(/!\[[^\]]*\]\([^)]*\)/gu, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/gu, '$1')
    .replace(/<https?:[^>\s]*>|https?:\/\/\S+/gu, ' ')
    .replace(/<\/?[a-z][^>]*>/giu, ' ');
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw
      .replace(/^\s{0,3}(#{1,6}|>+|[-*+]|\d+[.)])\s+/u, '')
      .replace(/^\s*\|?\s*:?-{3,}.*$/u, '')
      .replace(/[*_`~]+/gu, ' ');
    for (const variant of expandFields(line)) {
      // Table cells apart, then sentences apart.
      for (const cell of variant.split('|')) {
        for (const s of cell.split(/(?<=[.!?;:…])\s+/u)) if (/[\p{L}\d]/u.test(s)) out.push(s.replace(/\s+/gu, ' ').trim());
      }
    }
  }
  return out;
}

/** JSON with `//` and block comments and trailing commas, as VS Code writes settings. */
function parseJsonc(text: string): unknown {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      const m = /^"(?:[^"\\]|\\.)*"/su.exec(text.slice(i));
      const s = m ? m[0] : text.slice(i);
      out += s;
      i += s.length - 1;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
    } else out += c;
  }
  return JSON.parse(out.replace(/,(\s*[}\]])/gu, '$1'));
}

/** The spoken forms of `dictee.vocabulary.<language>` in a settings.json text. */
export function vocabularyOfSettings(text: string, language: string, where: string): string[] {
  let v: unknown;
  try {
    v = parseJsonc(text);
  } catch (e) {
    throw new AdaptSourceError(`${where} is not valid JSON (${(e as Error).message})`);
  }
  const all = (v as Record<string, unknown> | null)?.['dictee.vocabulary'];
  if (all === undefined) return [];
  const mine = (all as Record<string, unknown> | null)?.[language];
  if (typeof all !== 'object' || all === null || (mine !== undefined && (typeof mine !== 'object' || mine === null))) {
    throw new AdaptSourceError(`${where}: dictee.vocabulary must be an object by language, e.g. {"${language}": {"spoken": "written"}}`);
  }
  return Object.keys(mine ?? {}).filter((k) => k.trim() !== '');
}

function readText(file: string, skipped: string[]): string | undefined {
  const size = statSync(file).size;
  if (size > MAX_FILE_BYTES) {
    skipped.push(`${file} (${size} bytes: larger than ${MAX_FILE_BYTES}, not read)`);
    return undefined;
  }
  const b = readFileSync(file);
  if (b.includes(0)) {
    skipped.push(`${file} (binary: NUL bytes)`);
    return undefined;
  }
  return validUtf8(b).text;
}

/**
 * Reads the sources (folders or files), plus `extraTemplates` (the built-in template of the
 * specialty). Throws when a source does not exist, or when a folder holds nothing to learn from.
 */
export function readAdaptSources(sources: readonly string[], language: string, extraTemplates: readonly string[] = []): AdaptText {
  const r: AdaptText = { sentences: [], reports: 0, templates: 0, vocabularyEntries: 0, skipped: [] };
  const take = (file: string, asTemplate: boolean): number => {
    const before = r.sentences.length;
    const base = path.basename(file).toLowerCase();
    const text = readText(file, r.skipped);
    if (text === undefined) return 0;
    if (base === 'settings.json') {
      const words = vocabularyOfSettings(text, language, file);
      r.vocabularyEntries += words.length;
      r.sentences.push(...words);
    } else if (base === 'vocabulary.txt') {
      const words = text
        .split('\n')
        .map((l) => l.replace(/#.*$/u, '').trim())
        .filter(Boolean);
      r.vocabularyEntries += words.length;
      r.sentences.push(...words);
    } else {
      const sentences = markdownSentences(text);
      r.sentences.push(...sentences);
      if (sentences.length) {
        if (asTemplate || /\{\{[^{}]*\}\}/u.test(text)) r.templates++;
        else r.reports++;
      }
    }
    return r.sentences.length - before;
  };
  for (const src of sources) {
    if (!existsSync(src)) throw new AdaptSourceError(`${src} does not exist`);
    const files: string[] = [];
    if (statSync(src).isDirectory()) walk(src, language, files);
    else files.push(src);
    let n = 0;
    for (const f of files) n += take(f, false);
    if (n === 0) {
      throw new AdaptSourceError(
        `${src} holds no text to learn from (no Markdown report or template (*.md), settings.json with dictee.vocabulary.${language}, or vocabulary.txt with words)`,
      );
    }
  }
  for (const t of extraTemplates) take(t, true);
  return r;
}
