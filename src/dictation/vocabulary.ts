/**
 * The user's vocabulary (`dictee.vocabulary`): replacements applied after the grammar, whole words or
 * phrases. A spoken form in lower case matches any case ("sea tea" matches "Sea tea"); one with a
 * capital matches only that case ("MS" does not match "ms").
 */
import type { Item } from './types';

export type Vocabulary = Readonly<Record<string, string>>;

interface Entry {
  words: string[];
  caseSensitive: boolean;
  replacement: string;
}

function compileVocabulary(v: Vocabulary): Entry[] {
  return Object.entries(v)
    .map(([k, replacement]) => ({ words: k.trim().split(/\s+/u), caseSensitive: k !== k.toLowerCase(), replacement }))
    .filter((e) => e.words.length > 0 && e.words[0] !== '')
    .sort((a, b) => b.words.length - a.words.length);
}

function same(a: string, b: string, caseSensitive: boolean): boolean {
  return caseSensitive ? a === b : a.toLowerCase() === b.toLowerCase();
}

export function applyVocabulary(items: readonly Item[], v: Vocabulary | undefined): Item[] {
  if (!v || Object.keys(v).length === 0) return [...items];
  const entries = compileVocabulary(v);
  const out: Item[] = [];
  let i = 0;
  outer: while (i < items.length) {
    const first = items[i]!;
    if (first.k === 'w' && !first.literal) {
      for (const e of entries) {
        let ok = true;
        for (let k = 0; k < e.words.length && ok; k++) {
          const it = items[i + k];
          ok = !!it && it.k === 'w' && !it.literal && (k === 0 || it.glue === ' ') && same(it.text, e.words[k]!, e.caseSensitive);
        }
        if (ok) {
          out.push({ k: 'w', text: e.replacement, glue: first.glue });
          i += e.words.length;
          continue outer;
        }
      }
    }
    out.push(first);
    i++;
  }
  return out;
}
