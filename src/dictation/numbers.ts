/**
 * Number words to numbers (inverse text normalisation), driven by each language's number table:
 * cardinals ("quatre-vingt-dix-sept", "dreiundzwanzig", "veintitrés", "one hundred and five"),
 * ordinals ("vingt et unième", "dritten"), decimals ("trois virgule deux", "zero point zero five") and
 * numbers the engine already wrote in digits.
 */
import type { NumberTable } from './lang/table';
import type { NumberWord } from './types';
import type { Token } from './tokenizer';

export interface ParsedNumber {
  /** Value of the integer part. */
  value: number;
  /** Digits as they are written (a decimal uses the language's separator; engine digits as they came). */
  digits: string;
  /** Token range [start, end). */
  start: number;
  end: number;
  /** Made of number words (not digits the engine wrote). */
  fromWords: boolean;
  decimal: boolean;
  /** Gender of an ordinal ("troisième" → 'n'); absent for a cardinal. */
  ord?: NonNullable<NumberWord['ord']>;
}

interface Atom extends NumberWord {
  word: string;
}

/** Index of multi-word entries by their first word, longest first. */
const multiIndex = new WeakMap<NumberTable, Map<string, string[][]>>();

function multi(table: NumberTable): Map<string, string[][]> {
  let m = multiIndex.get(table);
  if (!m) {
    m = new Map();
    for (const key of Object.keys(table.words)) {
      const parts = key.split(' ');
      if (parts.length < 2) continue;
      const list = m.get(parts[0]!) ?? [];
      list.push(parts);
      m.set(parts[0]!, list);
    }
    for (const list of m.values()) list.sort((a, b) => b.length - a.length);
    multiIndex.set(table, m);
  }
  return m;
}

function lookup(table: NumberTable, w: string): NumberWord | undefined {
  const e = table.words[w];
  if (e) return e;
  for (const end of table.ordinalEndings ?? []) {
    if (w.length > end.length + 2 && w.endsWith(end)) {
      const x = table.words[w.slice(0, -end.length)];
      if (x?.ord) return x;
    }
  }
  return undefined;
}

/** Splits a compound number word ("achthundertdreiundzwanzig") into parts of the table, or null. */
function splitCompound(table: NumberTable, w: string): Atom[] | null {
  const memo = new Map<number, Atom[] | null>();
  const go = (i: number): Atom[] | null => {
    if (i === w.length) return [];
    if (memo.has(i)) return memo.get(i)!;
    let best: Atom[] | null = null;
    for (let j = w.length; j > i && !best; j--) {
      const part = w.slice(i, j);
      const e = j === w.length ? lookup(table, part) : table.words[part];
      const conn = table.connectors[part] ? ({ kind: 'and', value: 0 } as NumberWord) : undefined;
      const entry = e ?? conn;
      if (!entry || (entry.ord && j !== w.length)) continue;
      const rest = go(j);
      if (rest) best = [{ ...entry, word: part }, ...rest];
    }
    memo.set(i, best);
    return best;
  };
  const r = go(0);
  return r && r.length > 0 && r[r.length - 1]!.kind !== 'and' ? r : null;
}

/** The number atoms at token i (one token, several words of a multi-word entry, or a compound). */
function atomsAt(table: NumberTable, tokens: readonly Token[], i: number): { atoms: Atom[]; next: number } | null {
  const t = tokens[i];
  if (!t || t.kind !== 'word') return null;
  for (const parts of multi(table).get(t.norm) ?? []) {
    let ok = true;
    for (let k = 1; k < parts.length && ok; k++) {
      const u = tokens[i + k];
      ok = !!u && u.kind === 'word' && u.norm === parts[k] && u.glue !== '';
    }
    if (ok) return { atoms: [{ ...table.words[parts.join(' ')]!, word: parts.join(' ') }], next: i + parts.length };
  }
  const e = lookup(table, t.norm);
  if (e) return { atoms: [{ ...e, word: t.norm }], next: i + 1 };
  if (table.connectors[t.norm]) return { atoms: [{ kind: 'and', value: 0, word: t.norm }], next: i + 1 };
  if (table.compound && t.norm.length > 4) {
    const parts = splitCompound(table, t.norm);
    if (parts && parts.length > 1) return { atoms: parts, next: i + 1 };
  }
  return null;
}

/** Accumulates atoms into one number; `push` returns false when an atom cannot continue it. */
class Cardinal {
  total = 0;
  group = 0;
  h = false;
  t = false;
  u = false;
  lastMult = 0;
  last: NumberWord['kind'] | '' = '';
  count = 0;
  ord: NumberWord['ord'];
  zero = false;

  constructor(private readonly table: NumberTable) {}

  value(): number {
    return this.total + this.group;
  }

  push(a: Atom, prevConnector: Atom | null): boolean {
    if (this.ord || this.zero) return false;
    if (prevConnector) {
      const slots = this.table.connectors[prevConnector.word] ?? [];
      const okAfter =
        (slots.includes('t') && this.last === 't' && (a.kind === 'u' || a.kind === 'tu')) ||
        (slots.includes('h') && (this.last === 'h' || this.last === 'hv') && a.kind !== 'h' && a.kind !== 'm') ||
        (slots.includes('m') && this.last === 'm' && a.kind !== 'h' && a.kind !== 'm') ||
        (slots.includes('u') && this.last === 'u' && a.kind === 't' && !this.t);
      if (!okAfter) return false;
    }
    switch (a.kind) {
      case 'zero':
        if (this.count > 0) return false;
        this.zero = true;
        break;
      case 'u':
        if (this.u || (this.t && !this.table.unitsAfterTens)) return false;
        this.group += a.value;
        this.u = true;
        break;
      case 't':
        if (this.t) return false;
        if (this.u && !(prevConnector && this.table.connectors[prevConnector.word]?.includes('u'))) return false;
        this.group += a.value;
        this.t = true;
        break;
      case 'tu':
        if (this.u) return false;
        if (this.t && !this.table.teenAfterTens.includes(this.group % 100)) return false;
        if (this.t && a.value >= 20) return false;
        this.group += a.value;
        this.t = this.u = true;
        break;
      case 'h':
        // "deux cent", "nineteen hundred"; not after tens ("vingt cent") nor twice.
        if (this.h || this.group >= 100 || (this.t && this.group % 100 >= 20)) return false;
        this.group = (this.group || 1) * a.value;
        this.h = true;
        this.t = this.u = false;
        break;
      case 'hv':
        if (this.group !== 0 || this.h) return false;
        this.group = a.value;
        this.h = true;
        break;
      case 'm':
        if (this.lastMult !== 0 && a.value >= this.lastMult) return false;
        this.total += (this.group || 1) * a.value;
        this.group = 0;
        this.h = this.t = this.u = false;
        this.lastMult = a.value;
        break;
      case 'and':
        return false;
    }
    this.last = a.kind;
    this.count++;
    if (a.ord) this.ord = a.ord;
    return true;
  }
}

/** Parses a cardinal or ordinal written in words starting at token i. */
export function parseWords(table: NumberTable, tokens: readonly Token[], i: number): ParsedNumber | null {
  const c = new Cardinal(table);
  let pos = i;
  let end = i;
  let pendingConn: Atom | null = null;
  outer: while (pos < tokens.length) {
    // Where numbers are written as one word (German), a separate "ein" after a number is an article.
    if (table.compound && c.count > 0 && !pendingConn && table.articles?.includes(tokens[pos]!.norm)) break;
    const got = atomsAt(table, tokens, pos);
    if (!got) break;
    // A compound must be taken whole; a separate word may end the number.
    const snapshot = Object.assign(Object.create(Object.getPrototypeOf(c) as object) as Cardinal, c);
    let conn: Atom | null = pendingConn;
    for (const a of got.atoms) {
      if (a.kind === 'and') {
        if (c.count === 0 || conn) {
          Object.assign(c, snapshot);
          break outer;
        }
        conn = a;
        continue;
      }
      if (!c.push(a, conn)) {
        Object.assign(c, snapshot);
        break outer;
      }
      conn = null;
    }
    if (conn) {
      // A separate connector word: keep it only if a number continues after it.
      pendingConn = conn;
    } else {
      pendingConn = null;
      end = got.next;
    }
    pos = got.next;
  }
  if (c.count === 0) return null;
  const value = c.zero ? 0 : c.value();
  const r: ParsedNumber = { value, digits: String(value), start: i, end, fromWords: true, decimal: false };
  if (c.ord) r.ord = c.ord;
  return r;
}

/** The value of a single digit word ("zéro", "deux"), or null. */
function digitWord(table: NumberTable, t: Token | undefined): number | null {
  if (!t || t.kind !== 'word' || table.articles?.includes(t.norm)) return null;
  const e = table.words[t.norm];
  if (!e || e.ord) return null;
  if (e.kind === 'zero') return 0;
  if (e.kind === 'u') return e.value;
  return null;
}

export interface NumberOptions {
  table: NumberTable;
  decimalWords: string[];
  decimalSeparator: string;
}

/**
 * A number at token i: digits the engine wrote, or words; with a fractional part after a decimal word
 * ("trois virgule deux" → 3,2; "zero point zero five" → 0.05).
 */
export function parseNumber(o: NumberOptions, tokens: readonly Token[], i: number): ParsedNumber | null {
  const t = tokens[i];
  if (!t) return null;
  let n: ParsedNumber | null = null;
  if (t.kind === 'num') {
    const plain = /^\d+$/u.test(t.text);
    n = {
      value: plain ? Number(t.text) : Number(t.text.replace(/[\u202F\u00A0]/gu, '').replace(',', '.')),
      digits: t.text,
      start: i,
      end: i + 1,
      fromWords: false,
      decimal: !plain && /^\d+[.,]\d+$/u.test(t.text),
    };
    if (!plain) return n;
  } else {
    n = parseWords(o.table, tokens, i);
  }
  if (!n || n.ord) return n;
  // Fraction after a decimal word.
  const d = tokens[n.end];
  if (!d || d.kind !== 'word' || !o.decimalWords.includes(d.norm)) return n;
  let j = n.end + 1;
  let frac = '';
  const first = tokens[j];
  if (first?.kind === 'num' && /^\d+$/u.test(first.text)) {
    frac = first.text;
    j++;
  } else {
    const d0 = digitWord(o.table, first);
    const d1 = digitWord(o.table, tokens[j + 1]);
    if (d0 !== null && (d0 === 0 || d1 !== null)) {
      // Digit by digit: "zéro cinq", "two five".
      while (digitWord(o.table, tokens[j]) !== null) frac += String(digitWord(o.table, tokens[j++]));
    } else {
      const f = parseWords(o.table, tokens, j);
      if (!f || f.ord || f.value >= 1000) return n;
      frac = String(f.value);
      j = f.end;
    }
  }
  if (frac === '') return n;
  return { value: n.value, digits: `${n.digits}${o.decimalSeparator}${frac}`, start: n.start, end: j, fromWords: true, decimal: true };
}

/** Writes an integer with digit groups from 5 digits ("12 500"); shorter numbers are never grouped. */
export function groupDigits(n: number, sep: string): string {
  const s = String(n);
  if (s.length < 5) return s;
  return s.replace(/\B(?=(\d{3})+(?!\d))/gu, sep);
}

/** For tests and tools: the value of a number said in words, or null when it is not one number. */
function wordsToNumber(table: NumberTable, tokens: readonly Token[]): number | null {
  const n = parseWords(table, tokens, 0);
  return n && n.end === tokens.length ? n.value : null;
}
