/**
 * Check Report: what is left to do in a dictated report before it is signed: template fields not
 * filled, doubtful words not reviewed, placeholders left in the text. Pure (no `vscode`), tested in plain
 * Node; checkReport.ts shows the problems in the Problems panel with their quick fixes.
 */
import { parseFields } from '../../dictation';
import type { DoubtfulMark } from '../../client/proofreading/proofMarks';
import type { L10n } from '../l10nText';

export type ProblemKind = 'field' | 'doubtful' | 'placeholder';

export interface ReportProblem {
  kind: ProblemKind;
  /** Offsets in the document. */
  start: number;
  end: number;
  message: string;
  /** A field's default (its quick fix writes it). */
  default?: string;
  /** A doubtful word's mark (its quick fixes accept or correct it). */
  markId?: string;
}

/**
 * Placeholders people leave to fill in later: `XXX`, `___`, `[...]`, `[…]`, `???`, `<…>`. Fields
 * (`{{…}}`) are told apart.
 */
const PLACEHOLDER = /(?<![\p{L}\p{N}])(?:x{3,}|X{3,})(?![\p{L}\p{N}])|_{3,}|\[\s*(?:\.{3}|…)\s*\]|\?{3,}|<\s*(?:\.{3}|…)\s*>/gu;

/** Placeholders in `text`, outside template fields and Markdown code. */
export function placeholders(text: string): Array<{ start: number; end: number }> {
  const skip = [...parseFields(text).map((f) => [f.start, f.end] as const), ...codeSpans(text)];
  const out: Array<{ start: number; end: number }> = [];
  for (const m of text.matchAll(PLACEHOLDER)) {
    const start = m.index;
    const end = start + m[0].length;
    if (skip.some(([s, e]) => start < e && end > s)) continue;
    // A Markdown rule or a table line of underscores is not a placeholder.
    const line = lineAt(text, start);
    if (/^\s*_{3,}\s*$/u.test(line)) continue;
    out.push({ start, end });
  }
  return out;
}

function lineAt(text: string, offset: number): string {
  const from = text.lastIndexOf('\n', offset - 1) + 1;
  const to = text.indexOf('\n', offset);
  return text.slice(from, to < 0 ? text.length : to);
}

/** Inline code and fenced blocks: what is in them is not the report's text. */
function codeSpans(text: string): Array<readonly [number, number]> {
  const out: Array<readonly [number, number]> = [];
  for (const m of text.matchAll(/```[\s\S]*?(?:```|$)|`[^`\n]*`/gu)) out.push([m.index, m.index + m[0].length]);
  return out;
}

/** Everything left to do in `text`, in document order; `marks`: the doubtful words not reviewed. */
export function reportProblems(l10n: L10n, text: string, marks: readonly DoubtfulMark[]): ReportProblem[] {
  const problems: ReportProblem[] = [];
  for (const f of parseFields(text)) {
    problems.push({
      kind: 'field',
      start: f.start,
      end: f.end,
      default: f.default,
      message: l10n.t('Template field not filled (its default: “{0}”).', f.default),
    });
  }
  for (const m of marks) {
    problems.push({
      kind: 'doubtful',
      start: m.start,
      end: m.end,
      markId: m.id,
      message: l10n.t(
        'Doubtful word, not reviewed: the engine was {0}% sure of “{1}”.',
        Math.round(m.confidence * 100),
        text.slice(m.start, m.end),
      ),
    });
  }
  for (const p of placeholders(text))
    problems.push({ kind: 'placeholder', ...p, message: l10n.t('Placeholder left in the report: “{0}”.', text.slice(p.start, p.end)) });
  return problems.sort((a, b) => a.start - b.start || a.end - b.end);
}

/** What Check Report says when it is done. */
export function reportSummary(l10n: L10n, problems: readonly ReportProblem[]): string {
  if (problems.length === 0) return l10n.t('Dictée: the report has no unfilled field, doubtful word or placeholder left.');
  const n = (k: ProblemKind): number => problems.filter((p) => p.kind === k).length;
  return l10n.t(
    'Dictée: {0} left to check in the report (unfilled fields: {1}, doubtful words: {2}, placeholders: {3}); see the Problems panel.',
    problems.length,
    n('field'),
    n('doubtful'),
    n('placeholder'),
  );
}
