/**
 * `npm run docs:inventory`: rewrites the file inventory of docs/architecture.md (between its
 * `inventory:begin` and `inventory:end` markers) from the header comment of each file of src/, so that
 * the inventory cannot drift from the code. With `--check` (run by `npm run lint`) it writes nothing and
 * fails when the inventory is stale. Either way it fails when a file of src/ has no header comment.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const DOC_PATH = path.join(ROOT, 'docs', 'architecture.md');
const BEGIN = "<!-- inventory:begin (written by `npm run docs:inventory` from each file's header comment: do not edit here) -->";
const END = '<!-- inventory:end -->';

/** The .ts files under `dir`, as paths relative to the repository, sorted. */
function sourceFiles(dir: string): string[] {
  const entries = readdirSync(path.join(ROOT, dir), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  // A folder's own files first, then its sub-folders.
  const files = entries.filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')).map((e) => `${dir}/${e.name}`);
  return [...files, ...entries.filter((e) => e.isDirectory()).flatMap((e) => sourceFiles(`${dir}/${e.name}`))];
}

/**
 * The file's header comment (a `/** … *\/` block or `//` lines before any code, after an optional
 * `#!` line) as one line of text; undefined when the file starts with code.
 */
export function headerComment(text: string): string | undefined {
  const body = text.replace(/^#![^\n]*\n/, '').replace(/^\s+/, '');
  let lines: string[];
  const block = /^\/\*\*?([\s\S]*?)\*\//.exec(body);
  if (block) lines = block[1]!.split('\n').map((l) => l.replace(/^\s*\*\s?/, ''));
  else {
    const slashes = /^(?:\/\/[^\n]*\n?)+/.exec(body);
    if (!slashes) return undefined;
    lines = slashes[0].split('\n').map((l) => l.replace(/^\s*\/\/\s?/, ''));
  }
  // The first paragraph: the rest of a header is detail for the reader of the file.
  const paragraph: string[] = [];
  for (const l of lines) {
    if (l.trim() === '') {
      if (paragraph.length) break;
      continue;
    }
    paragraph.push(l.trim());
  }
  const text1 = paragraph
    .join(' ')
    .replace(/\{@link\s+([^}]+)\}/g, '$1')
    .trim();
  return text1 === '' ? undefined : text1;
}

/** The first sentence of `text` (a period followed by a space and a capital, or the end; not "e.g."). */
export function firstSentence(text: string): string {
  const re = /(?<!\b(?:e\.g|i\.e|etc|vs|cf))\.(?=\s+[A-Z`(])/g;
  const m = re.exec(text);
  return m ? text.slice(0, m.index + 1) : text;
}

/** The longest summary kept whole; a longer one is cut where its own punctuation allows. */
const MAX_SUMMARY = 240;

/**
 * A file's line of the inventory: the first sentence of its header, cut (with " …") when longer than
 * MAX_SUMMARY at its first colon or semicolon after 40 characters, else at its last comma, never inside
 * parentheses or code.
 */
export function summary(header: string): string {
  const s = firstSentence(header);
  if (s.length <= MAX_SUMMARY) return s;
  let depth = 0;
  let code = false;
  let strong: number | undefined;
  let comma: number | undefined;
  for (let i = 0; i < MAX_SUMMARY; i++) {
    const c = s[i];
    if (c === '`') code = !code;
    else if (!code && c === '(') depth++;
    else if (!code && c === ')') depth = Math.max(0, depth - 1);
    else if (!code && depth === 0 && s[i + 1] === ' ' && i >= 40) {
      if ((c === ':' || c === ';') && strong === undefined) strong = i;
      else if (c === ',') comma = i;
    }
  }
  const cut = strong ?? comma;
  return cut === undefined ? s : `${s.slice(0, cut)} …`;
}

/** The inventory's Markdown: one list per folder, one line per file. */
export function inventory(files: { path: string; summary: string }[]): string {
  const out: string[] = [];
  let folder = '';
  for (const f of files) {
    const dir = path.posix.dirname(f.path);
    if (dir !== folder) {
      if (folder) out.push('');
      out.push(`**\`${dir}/\`**`, '');
      folder = dir;
    }
    out.push(`- \`${path.posix.basename(f.path)}\`: ${f.summary.replace(/\s+/g, ' ')}`);
  }
  return out.join('\n');
}

function main(): void {
  const check = process.argv.includes('--check');
  const files = sourceFiles('src').map((p) => ({ path: p, header: headerComment(readFileSync(path.join(ROOT, p), 'utf8')) }));
  const missing = files.filter((f) => f.header === undefined).map((f) => f.path);
  if (missing.length) {
    console.error(`These files have no header comment (a first comment that says what the file is):\n  ${missing.join('\n  ')}`);
    process.exit(1);
  }
  const doc = readFileSync(DOC_PATH, 'utf8');
  const begin = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (begin < 0 || end < begin) {
    console.error(`docs/architecture.md has no inventory markers:\n${BEGIN}\n${END}`);
    process.exit(1);
  }
  const list = inventory(files.map((f) => ({ path: f.path, summary: summary(f.header!) })));
  const next = `${doc.slice(0, begin)}${BEGIN}\n\n${list}\n\n${doc.slice(end)}`;
  if (!check) {
    if (next !== doc) writeFileSync(DOC_PATH, next);
    console.log(`docs/architecture.md: ${files.length} files in the inventory`);
  } else if (next !== doc) {
    console.error(
      'The file inventory of docs/architecture.md is stale (a file of src/ was added, removed or its header changed). Run `npm run docs:inventory`.',
    );
    process.exit(1);
  }
}

if (require.main === module) main();
