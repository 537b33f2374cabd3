/**
 * The grammar proper: turns the tokens of one utterance into items, trying at each position, in
 * order, the literal escape, structure commands, number classes, punctuation (longest first, guarded),
 * and leftover numbers (digits from 10; below 10 they stay words); then reconciles the engine's own
 * punctuation with spoken marks.
 */
import {
  bloodPressureAt,
  dateAt,
  digitsOf,
  dimensionsAt,
  legalAt,
  measureAt,
  numberAt,
  ordinalAt,
  vertebraAt,
  type Claim,
  type Ctx,
} from './classes';
import type { LanguageTable } from './lang/table';
import { inlinePhrases, matchPhrase } from './phrases';
import { isTitleCase } from './text';
import type { Token } from './tokenizer';
import type { Glue, Item, Specialty } from './types';

const MARKS = new Set(['.', ',', ';', ':', '!', '?', '…', '...']);
const OPENERS = new Set(['(', '[', '{', '«', '¿', '¡', '„', '‘']);
const CLOSERS = new Set([')', ']', '}', '»', '’']);
const SENTENCE_END = new Set(['.', '?', '!']);

function glueOf(t: Token): Glue {
  return t.glue;
}

/** A token the engine wrote, as an item. */
function passthrough(table: LanguageTable, t: Token): Item {
  switch (t.kind) {
    case 'break':
      return { k: 'br', n: t.n ?? 1, spoken: false };
    case 'heading':
      return { k: 'head', level: t.text.length };
    case 'bullet':
      return { k: 'bullet' };
    case 'punct': {
      const c = t.text;
      if (MARKS.has(c)) return { k: 'mark', ch: c === '...' ? '...' : c, spoken: false };
      if (OPENERS.has(c)) return { k: 'open', ch: c, spoken: false };
      if (CLOSERS.has(c)) return { k: 'close', ch: c, spoken: false };
      if (c === '%') return { k: 'w', text: '%', glue: t.glue === '' || !table.typography.percentSpace ? '' : 'nb' };
      if (t.pos === 'inner' && (c === '/' || c === '-')) return { k: 'join', ch: c };
      if (t.pos === 'alone' && (c === '-' || c === '–' || c === '—')) return { k: 'dash', spoken: false };
      if (c === '"' || c === '“' || c === '”') {
        if (t.pos === 'lead') return { k: 'open', ch: c, spoken: false };
        if (t.pos === 'trail') return { k: 'close', ch: c, spoken: false };
        return table.typography.closingQuotes.includes(c) ? { k: 'close', ch: c, spoken: false } : { k: 'open', ch: c, spoken: false };
      }
      if (t.pos === 'lead') return { k: 'open', ch: c, spoken: false };
      if (t.pos === 'trail') return { k: 'close', ch: c, spoken: false };
      return { k: 'w', text: c, glue: glueOf(t) };
    }
    default:
      return { k: 'w', text: t.text, glue: glueOf(t) };
  }
}

interface GrammarOptions {
  table: LanguageTable;
  specialty: Specialty;
  decimalSeparator?: ',' | '.';
}

const CLASSES: Array<(ctx: Ctx, i: number) => Claim | null> = [
  legalAt,
  vertebraAt,
  bloodPressureAt,
  dateAt,
  dimensionsAt,
  measureAt,
  ordinalAt,
];

/** `starts`, when given, receives the token index where each rule or word began. */
export function applyGrammar(tokens: Token[], o: GrammarOptions, starts?: number[]): Item[] {
  const table = o.table;
  const ctx: Ctx = {
    table,
    tokens,
    specialty: o.specialty,
    nopt: { table: table.numbers, decimalWords: table.decimalWords, decimalSeparator: o.decimalSeparator ?? table.decimalSeparator },
    numbers: new Map(),
  };
  const all = inlinePhrases(table);
  const items: Item[] = [];
  let i = 0;
  let prevNumberWordsEnd = -1;
  let plainEnd = 0;
  while (i < tokens.length) {
    const t = tokens[i]!;
    starts?.push(i);
    // 1. Literal escape: the next token as it is.
    if (t.kind === 'word' && table.literal.includes(t.norm) && tokens[i + 1]) {
      const next = tokens[i + 1]!;
      items.push({ k: 'w', text: next.text, glue: t.glue === '' ? '' : ' ', literal: true });
      i += 2;
      continue;
    }
    if (t.kind === 'word' || t.kind === 'num' || t.kind === 'punct') {
      // 2. Structure, 3. number classes, 4. punctuation.
      // Guards read the word before only when it was written as a word (not part of a number or a class).
      const prev = plainEnd === i ? (tokens[i - 1] ?? null) : null;
      const s = t.kind === 'word' ? matchPhrase(table.structure, tokens, i, o.specialty, prev, all) : null;
      if (s) {
        items.push(...s.items);
        i = s.end;
        continue;
      }
      let claim: Claim | null = null;
      for (const c of CLASSES) if ((claim = c(ctx, i))) break;
      if (claim && claim.items[0]?.k === 'w') {
        claim.items[0] = { ...claim.items[0], glue: t.glue === '' || t.glue === '-' ? t.glue : claim.items[0].glue };
        items.push(...claim.items);
        i = claim.end;
        continue;
      }
      const p = t.kind === 'word' ? matchPhrase(table.punctuation, tokens, i, o.specialty, prev, all) : null;
      if (p) {
        items.push(...p.items);
        i = p.end;
        continue;
      }
      // 5. Leftover numbers in words: digits from 10; below 10, or next to another number, the words stay.
      const n = t.kind === 'word' ? numberAt(ctx, i) : null;
      if (n && n.fromWords) {
        // "un" alone before another number is the article: written as a word, the number after it as a number.
        if (n.end === i + 1 && table.numbers.indefinite?.includes(t.norm) && numberAt(ctx, n.end) !== null) {
          items.push(passthrough(table, t));
          i++;
          plainEnd = i;
          continue;
        }
        const besideNumber =
          prevNumberWordsEnd === i ||
          /\d$/u.test(tokens[i - 1]?.text ?? '') ||
          /^\d/u.test(tokens[n.end]?.text ?? '') ||
          numberAt(ctx, n.end) !== null;
        prevNumberWordsEnd = n.end;
        if (!besideNumber && (n.decimal || (!n.ord && n.value >= 10))) {
          items.push({ k: 'w', text: digitsOf(ctx, n), glue: t.glue });
          i = n.end;
          continue;
        }
        for (let k = i; k < n.end; k++) items.push(passthrough(table, tokens[k]!));
        i = n.end;
        plainEnd = i;
        continue;
      }
    }
    items.push(passthrough(table, t));
    i++;
    plainEnd = i;
  }
  return reconcile(items, table);
}

function isCommandItem(it: Item | undefined): boolean {
  return !!it && 'spoken' in it && it.spoken && it.k !== 'mark';
}

/**
 * The engine's punctuation next to spoken punctuation or commands: a spoken mark wins over the
 * engine's marks beside it, identical marks are not doubled, of two marks said one after the other the
 * second stands, engine marks around a spoken bracket or line break go, and a capital the engine put
 * after a mark that went is undone.
 */
function reconcile(items: Item[], table: LanguageTable): Item[] {
  const out: Item[] = [];
  const dropped = new Set<number>();
  const n = items.length;
  for (let i = 0; i < n; i++) {
    const it = items[i]!;
    if (it.k !== 'mark' || it.spoken) continue;
    // Run of marks around i.
    let a = i;
    while (a > 0 && items[a - 1]!.k === 'mark') a--;
    let b = i;
    while (b + 1 < n && items[b + 1]!.k === 'mark') b++;
    const spokenInRun = items.slice(a, b + 1).some((x) => x.k === 'mark' && x.spoken);
    const prev = items[a - 1];
    const next = items[b + 1];
    const besideCommand =
      (prev && isCommandItem(prev) && prev.k !== 'close') ||
      (next && isCommandItem(next) && (next.k === 'close' || next.k === 'open' || next.k === 'br' || next.k === 'dash'));
    if (spokenInRun || besideCommand) dropped.add(i);
  }
  for (let i = 0; i < n; i++) {
    const it = items[i]!;
    if (dropped.has(i)) {
      const next = items[i + 1];
      if (
        it.k === 'mark' &&
        SENTENCE_END.has(it.ch) &&
        table.typography.lowerAfterRemovedMark &&
        next?.k === 'w' &&
        !next.literal &&
        isTitleCase(next.text)
      ) {
        items[i + 1] = { ...next, text: next.text.toLowerCase() };
      }
      continue;
    }
    const last = out[out.length - 1];
    if (it.k === 'mark' && last?.k === 'mark' && last.ch === it.ch) continue;
    // Two marks said one after the other ("period question mark"): the last one said stands, never ".?".
    if (it.k === 'mark' && it.spoken && last?.k === 'mark' && last.spoken) out.pop();
    out.push(it);
  }
  return out;
}
