/** Matching spoken phrases of the tables against tokens: longest first, with their guards. */
import type { LanguageTable } from './lang/table';
import { detokenize, tokenize, type Token } from './tokenizer';
import type { Item, PhraseRule, Specialty } from './types';

interface CompiledPhrase {
  norms: string[];
  rule: PhraseRule;
}

/** Token norms of a spoken form, as the tokenizer splits dictated text. */
export function phraseNorms(say: string): string[] {
  return tokenize(say).map((t) => t.norm);
}

/**
 * A spoken form in every spelling of its elisions: "point d'interrogation" is also said (and written by
 * engines) "point d’interrogation", "point d interrogation" and "point dinterrogation".
 */
export function elisionVariants(say: string): string[] {
  let out = [''];
  let rest = say;
  for (;;) {
    const m = /(\p{L})['’](?=\p{L})/u.exec(rest);
    if (!m) break;
    const head = rest.slice(0, m.index + 1);
    out = out.flatMap((o) => ["'", ' ', ''].map((a) => o + head + a));
    rest = rest.slice(m.index + 2);
  }
  return [...new Set(out.map((o) => o + rest))];
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
function compile(rules: PhraseRule[]): CompiledPhrase[] {
  let c = compiled.get(rules);
  if (!c) {
    c = rules.flatMap((rule) => rule.say.flatMap(elisionVariants).map((say) => ({ norms: phraseNorms(say), rule })));
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

interface PhraseMatch {
  items: Item[];
  end: number;
  rule: PhraseRule;
}

/**
 * Whether the words from token i go on, past `length` tokens, into a longer phrase of `all` (in any
 * spelling), whether or not they complete it: a multi-word command never half-matches into a shorter one
 * ("point d interrogation" is not "point" then words; "point d'entrée" is not "point" either).
 */
function continuesLonger(
  all: readonly CompiledPhrase[],
  tokens: readonly Token[],
  i: number,
  length: number,
  specialty: Specialty,
): boolean {
  const next = tokens[i + length];
  if (!next) return false;
  for (const q of all) {
    if (q.norms.length <= length) break; // longest first
    if (q.rule.specialties && !q.rule.specialties.includes(specialty)) continue;
    if (matchesAt(tokens, i, q.norms.slice(0, length + 1))) return true;
  }
  return false;
}

/**
 * The longest phrase of `rules` at token i whose guards allow it. With `all` (every phrase said inside
 * a sentence, longest first), a phrase is not taken when the words after it go on into a longer one.
 */
export function matchPhrase(
  rules: PhraseRule[],
  tokens: readonly Token[],
  i: number,
  specialty: Specialty,
  prev: Token | null = tokens[i - 1] ?? null,
  all?: readonly CompiledPhrase[],
): PhraseMatch | null {
  const t = tokens[i];
  if (!t) return null;
  for (const p of startingWith(rules, t.norm)) {
    if (!matchesAt(tokens, i, p.norms)) continue;
    const r = p.rule;
    if (r.specialties && !r.specialties.includes(specialty)) continue;
    if (all && continuesLonger(all, tokens, i, p.norms.length, specialty)) return null;
    if (r.notAfter && prev && prev.kind === 'word' && r.notAfter.includes(prev.norm)) continue;
    if (r.notAfterAdjective && r.notAfter && prev && prev.kind === 'word' && prev.text === prev.norm) {
      const before = tokens[i - 2];
      if (before && r.notAfter.includes(before.norm) && r.notAfterAdjective.some((e) => prev.norm.endsWith(e))) continue;
    }
    const next = tokens[i + p.norms.length];
    if (
      r.notBefore &&
      next &&
      ((next.kind === 'word' && r.notBefore.includes(next.norm)) || (next.kind === 'num' && r.notBefore.includes('#number')))
    )
      continue;
    const end = i + p.norms.length;
    // A mark keeps the words it was said as: they are written instead where the mark cannot go.
    const items = r.out.map((x): Item =>
      x.k === 'mark' && r.out.length === 1 ? { ...x, said: detokenize(tokens.slice(i, end)) } : { ...x },
    );
    return { items, end, rule: r };
  }
  return null;
}

const inline = new WeakMap<LanguageTable, CompiledPhrase[]>();

/** Every phrase of a language that works inside a sentence (for hold-back). */
export function inlinePhrases(table: LanguageTable): CompiledPhrase[] {
  let c = inline.get(table);
  if (!c) {
    c = [...compile(table.structure), ...compile(table.punctuation)].sort((a, b) => b.norms.length - a.norms.length);
    inline.set(table, c);
  }
  return c;
}
