/** The golden tables of the dictation grammar (test/fixtures/dictation/*.tsv) and the built-in templates. */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { loadTemplates, type TemplateFile } from '../../src/dictation/templates';
import type { Language, Specialty, Template } from '../../src/dictation/types';

export const ROOT = path.resolve(__dirname, '..', '..');

export interface GoldenRow {
  line: number;
  section: string;
  utterances: string[];
  written: string;
  specialty: Specialty;
}

/** `~` no-break space, `^` narrow no-break space, `\n` line break. */
export function decodeWritten(s: string): string {
  return s.replace(/~/gu, '\u00A0').replace(/\^/gu, '\u202F').replace(/\\n/gu, '\n');
}

export function goldenRows(language: Language): GoldenRow[] {
  const text = readFileSync(path.join(ROOT, 'test', 'fixtures', 'dictation', `${language}.tsv`), 'utf8');
  const rows: GoldenRow[] = [];
  let section = '';
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    if (raw.startsWith('#')) {
      section = raw.slice(1).trim();
      return;
    }
    const [spoken, written = '', specialty = 'general'] = raw.split('\t');
    rows.push({
      line: i + 1,
      section,
      utterances: spoken!.split(' | '),
      written: decodeWritten(written),
      specialty: specialty as Specialty,
    });
  });
  return rows;
}

export function builtinTemplates(): Template[] {
  const dir = path.join(ROOT, 'templates');
  const files: TemplateFile[] = [];
  for (const lang of readdirSync(dir)) {
    for (const f of readdirSync(path.join(dir, lang)))
      files.push({ path: `${lang}/${f}`, content: readFileSync(path.join(dir, lang, f), 'utf8') });
  }
  return loadTemplates(files, 'builtin');
}
