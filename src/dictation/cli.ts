/**
 * `node dist/format.js --language fr|en|es|de`: reads utterances, one per line, from standard input
 * and prints the Markdown document that dictating them in that order into an empty document gives.
 */
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import path from 'node:path';
import { DictationDocument } from './document';
import { loadTemplates, type TemplateFile } from './templates';
import { isLanguage, SPECIALTIES, type Language, type Specialty, type Template } from './types';
import { UsageError, nonEmpty, parseCommandLine } from '../shared/args';

const HELP = `Usage: node dist/format.js [--language fr|en|es|de] [options] < utterances.txt

Reads utterances, one per line, from standard input and prints the Markdown document that dictating
them in that order into an empty document gives: spoken punctuation, numbers and units, structure
("à la ligne", "new paragraph"), commands said alone ("efface ça", "insert template radiology",
"next field", "accept defaults").

Options:
  --language, -l LANG    fr (default), en, es or de
  --specialty NAME       general (default), radiology, cardiology or legal
  --templates DIR        a folder of your own Markdown templates and auto-texts (as dictee.templates.folder)
  --vocabulary FILE      a JSON object of replacements, e.g. {"sea tea": "CT"}
  --each-line            format every line as a dictation of its own; print one JSON string per line
  --help, -h             this help

Exit status: 0 on success, 2 on a bad option.`;

interface Args {
  language: Language;
  specialty: Specialty;
  templates: string | null;
  vocabulary: string | null;
  eachLine: boolean;
  help: boolean;
}

const OPTIONS = {
  language: { type: 'string', short: 'l' },
  specialty: { type: 'string' },
  templates: { type: 'string' },
  vocabulary: { type: 'string' },
  'each-line': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The command line, through the project's one parser (`util.parseArgs`, strict); throws a UsageError. */
export function parseArgs(argv: readonly string[]): Args {
  const { values: v } = parseCommandLine([...argv], OPTIONS);
  const a: Args = {
    language: 'fr',
    specialty: 'general',
    templates: null,
    vocabulary: null,
    eachLine: v['each-line'] === true,
    help: v.help === true,
  };
  if (v.language !== undefined) {
    const l = nonEmpty('--language', v.language);
    if (!isLanguage(l)) throw new UsageError(`unknown language "${l}": use fr, en, es or de`);
    a.language = l;
  }
  if (v.specialty !== undefined) {
    const sp = nonEmpty('--specialty', v.specialty);
    if (!(SPECIALTIES as readonly string[]).includes(sp)) throw new UsageError(`unknown specialty "${sp}": use ${SPECIALTIES.join(', ')}`);
    a.specialty = sp as Specialty;
  }
  if (v.templates !== undefined) a.templates = nonEmpty('--templates', v.templates);
  if (v.vocabulary !== undefined) a.vocabulary = nonEmpty('--vocabulary', v.vocabulary);
  return a;
}

function readFolder(dir: string): TemplateFile[] {
  const out: TemplateFile[] = [];
  const walk = (rel: string, depth: number): void => {
    for (const name of readdirSync(path.join(dir, rel))) {
      const r = rel ? `${rel}/${name}` : name;
      const full = path.join(dir, r);
      if (statSync(full).isDirectory()) {
        if (depth < 1) walk(r, depth + 1);
      } else if (name.toLowerCase().endsWith('.md')) {
        out.push({ path: r, content: readFileSync(full, 'utf8') });
      }
    }
  };
  walk('', 0);
  return out;
}

/** The built-in templates shipped beside the bundle (`templates/` at the top of the package). */
function builtinFolder(): string | null {
  for (const up of ['..', path.join('..', '..')]) {
    const dir = path.resolve(__dirname, up, 'templates');
    if (existsSync(path.join(dir, 'fr'))) return dir;
  }
  return null;
}

function main(): number {
  let args: Args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`format: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  if (args.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const templates: Template[] = [];
  const builtin = builtinFolder();
  if (builtin) templates.push(...loadTemplates(readFolder(builtin), 'builtin'));
  let vocabulary: Record<string, string> | undefined;
  try {
    if (args.templates) templates.push(...loadTemplates(readFolder(args.templates), 'user'));
    if (args.vocabulary) {
      const v = JSON.parse(readFileSync(args.vocabulary, 'utf8')) as unknown;
      if (!v || typeof v !== 'object' || Array.isArray(v) || Object.values(v).some((x) => typeof x !== 'string')) {
        throw new UsageError(`${args.vocabulary}: expected a JSON object of strings, e.g. {"sea tea": "CT"}`);
      }
      vocabulary = v as Record<string, string>;
    }
  } catch (e) {
    process.stderr.write(`format: ${e instanceof Error ? e.message : String(e)}\n`);
    return 2;
  }
  const options = { language: args.language, specialty: args.specialty, templates, ...(vocabulary ? { vocabulary } : {}) };
  const lines = readFileSync(0, 'utf8').replace(/\r\n?/gu, '\n').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  if (args.eachLine) {
    for (const line of lines) {
      const doc = new DictationDocument(options);
      doc.dictate(line);
      doc.end();
      process.stdout.write(`${JSON.stringify(doc.text)}\n`);
    }
    return 0;
  }
  const doc = new DictationDocument(options);
  const lineOf: number[] = [];
  lines.forEach((line, k) => {
    if (line.trim() === '') return;
    lineOf.push(k + 1);
    doc.dictate(line);
  });
  doc.end();
  for (const w of doc.warnings) process.stderr.write(`format: line ${lineOf[w.utterance - 1] ?? '?'}: ${w.message}\n`);
  process.stdout.write(doc.text.endsWith('\n') || doc.text === '' ? doc.text : `${doc.text}\n`);
  return 0;
}

if (require.main === module) process.exitCode = main();
