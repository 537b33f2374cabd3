/** Matching spoken phrases of the tables against tokens: longest first, with their guards. */
import type { LanguageTable } from './lang/table';
import { tokenize, type Token } from './tokenizer';
import type { Item, PhraseRule, Specialty } from './types';

export interface CompiledPhrase {
  norms: string[];
  rule: PhraseRule;
}

/** Token norms of a spoken form, as the tokenizer splits dictated text. */
export function phraseNorms(say: string): string[] {
  return tokenize(say).map((t) => t.norm);
}

const compiled = new WeakMap<PhraseRule[], CompiledPhrase[]>();
const byFirst = new WeakMap<PhraseRule[], Map<string, CompiledPhrase[]>>();

/** The phrases of a rule list that start with `norm`, longest first. */
function startingWith(rules: PhraseRule[], norm: string): CompiledPhrase[] {
  let m = byFirst.get(rules);
  if (!m) {
    m = new Map();
    for (const p of compile(rules)) {
      const list = m.get(p.norms[0]!) ?? [];
      list.push(p);
      m.set(p.norms[0]!, list);
    }
    byFirst.set(rules, m);
  }
  return m.get(norm) ?? [];
}

/** The phrases of a rule list, longest first (so "point d'interrogation" is tried before "point"). */
export function compile(rules: PhraseRule[]): CompiledPhrase[] {
  let c = compiled.get(rules);
  if (!c) {
    c = rules.flatMap((rule) => rule.say.map((say) => ({ norms: phraseNorms(say), rule })));
    c.sort((a, b) => b.norms.length - a.norms.length);
    compiled.set(rules, c);
  }
  return c;
}

/** Whether tokens from i spell `norms` (words joined by spaces or hyphens). */
export function matchesAt(tokens: readonly Token[], i: number, norms: readonly string[]): boolean {
  for (let k = 0; k < norms.length; k++) {
    const t = tokens[i + k];
    if (!t || t.norm !== norms[k]) return false;
    if (t.kind === 'break' || t.kind === 'heading' || t.kind === 'bullet') return false;
  }
  return true;
}

export interface PhraseMatch {
  items: Item[];
  end: number;
  rule: PhraseRule;
}

/** The longest phrase of `rules` at token i whose guards allow it. */
export function matchPhrase(rules: PhraseRule[], tokens: readonly Token[], i: number, specialty: Specialty, prev: Token | null = tokens[i - 1] ?? null): PhraseMatch | null {
  const t = tokens[i];
  if (!t) return null;
  for (const p of startingWith(rules, t.norm)) {
    if (!matchesAt(tokens, i, p.norms)) continue;
    const r = p.rule;
    if (r.specialties && !r.specialties.includes(specialty)) continue;
    if (r.notAfter && prev && prev.kind === 'word' && r.notAfter.includes(prev.norm)) continue;
    if (r.notAfterAdjective && r.notAfter && prev && prev.kind === 'word' && prev.text === prev.norm) {
      const before = tokens[i - 2];
      if (before && r.notAfter.includes(before.norm) && r.notAfterAdjective.some((e) => prev.norm.endsWith(e))) continue;
    }
    const next = tokens[i + p.norms.length];
    if (r.notBefore && next && ((next.kind === 'word' && r.notBefore.includes(next.norm)) || (next.kind === 'num' && r.notBefore.includes('#number')))) continue;
    return { items: r.out.map((x) => ({ ...x })), end: i + p.norms.length, rule: r };
  }
  return null;
}

const inline = new WeakMap<LanguageTable, CompiledPhrase[]>();

/** Every phrase of a language that works inside a sentence (for hold-back). */
export function inlinePhrases(table: LanguageTable): CompiledPhrase[] {
  let c = inline.get(table);
  if (!c) {
    c = [...compile(table.structure), ...compile(table.punctuation)];
    inline.set(table, c);
  }
  return c;
}
