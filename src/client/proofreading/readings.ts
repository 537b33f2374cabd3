/**
 * Correct That: the engine's other readings of a chunk (`alternatives`, whole chunks, best first), each
 * split into the changes it makes (the words it changes, found by aligning it with the best reading word
 * by word, case and punctuation aside), where each change goes in the text the chunk was written as, and
 * what a row of the list shows of it. Also where words said in "correct <words>" were last dictated.
 * Pure: no `vscode`.
 */
import { normaliseWord, placeWords, type WordInfo } from './wordMap';

/** One change of another reading: the words `[from, to)` of the chunk's best reading become `replacement`. */
interface Reading {
  from: number;
  to: number;
  /** The words said instead, as the engine wrote them, without the sentence's final punctuation (may be empty: the words go). */
  replacement: string;
  /** The chunk's best reading with this change, ending as the best reading ends (its final punctuation). */
  full: string;
}

/** An edit of the chunk's written text: `[start, end)` becomes `text` (offsets in the chunk's text). */
export interface ChunkEdit {
  start: number;
  end: number;
  text: string;
  /** The whole chunk is replaced (its words could not all be found). */
  whole: boolean;
}

/** At most this many readings are offered ("choose nine"). */
const MAX_READINGS = 9;
/** Two changes of one reading this many words apart or fewer are one change (a word alike by chance between them). */
const JOIN_GAP = 1;
/** A change of this many words or fewer (both sides together) is shown with a word of context on each side. */
const SHORT_CHANGE = 3;
/** The punctuation that ends a sentence (a sentence-cased reading ends with it). */
const SENTENCE_END = /[.!?…]+$/u;

function key(word: string): string {
  return normaliseWord(word).replace(/[^\p{L}\p{N}]/gu, '');
}

function split(text: string): string[] {
  return text.split(/\s+/u).filter((w) => key(w) !== '');
}

/** The words without the final punctuation of the last one, and that punctuation. */
function withoutEnd(words: readonly string[]): { words: string[]; end: string } {
  const last = words[words.length - 1];
  const end = last === undefined ? '' : (SENTENCE_END.exec(last)?.[0] ?? '');
  return { words: end ? [...words.slice(0, -1), last!.slice(0, -end.length)] : [...words], end };
}

/** The chunk's words that have letters or digits: every index below is into this list. */
export function letteredWords<W extends WordInfo>(words: readonly W[]): W[] {
  return words.filter((w) => key(w.text) !== '');
}

/** The runs of words that differ between `b` and `a` (a longest common subsequence of their keys between them). */
function changes(b: readonly string[], a: readonly string[]): Array<{ from: number; to: number; aFrom: number; aTo: number }> {
  const bk = b.map(key);
  const ak = a.map(key);
  // lcs[i][j]: the longest common subsequence of bk[i..] and ak[j..].
  const lcs = Array.from({ length: bk.length + 1 }, () => new Array<number>(ak.length + 1).fill(0));
  for (let i = bk.length - 1; i >= 0; i--) {
    for (let j = ak.length - 1; j >= 0; j--) {
      lcs[i]![j] = bk[i] === ak[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const out: Array<{ from: number; to: number; aFrom: number; aTo: number }> = [];
  let i = 0;
  let j = 0;
  let open: { from: number; aFrom: number } | undefined;
  const close = (): void => {
    if (!open) return;
    const prev = out[out.length - 1];
    if (prev && open.from - prev.to <= JOIN_GAP) {
      prev.to = i;
      prev.aTo = j;
    } else out.push({ from: open.from, to: i, aFrom: open.aFrom, aTo: j });
    open = undefined;
  };
  while (i < bk.length || j < ak.length) {
    if (i < bk.length && j < ak.length && bk[i] === ak[j]) {
      close();
      i++;
      j++;
      continue;
    }
    open ??= { from: i, aFrom: j };
    if (j >= ak.length || (i < bk.length && lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) i++;
    else j++;
  }
  close();
  return out;
}

/**
 * The changes the readings make to `best` (the texts of the chunk's {@link letteredWords}), each on its own;
 * with `selected` (word indices `[from, to)`), only those that change a selected word. Once each, in the
 * engine's order, at most {@link MAX_READINGS}. Words that differ only in case or punctuation are the same
 * word (a reading in sentence case, with a final period, changes neither the first word nor the last).
 */
export function readings(best: readonly string[], alternatives: readonly string[], selected?: { from: number; to: number }): Reading[] {
  const b = withoutEnd(best);
  const out: Reading[] = [];
  const seen = new Set<string>();
  for (const full of alternatives) {
    const a = withoutEnd(split(full));
    for (const c of changes(b.words, a.words)) {
      const { from, to } = c;
      const said = a.words.slice(c.aFrom, c.aTo);
      const replacement = said.join(' ');
      if (selected && !(from < selected.to && to > selected.from) && !(from === to && from >= selected.from && from <= selected.to))
        continue;
      const id = `${from}:${to}:${said.map(key).join(' ')}`;
      if (seen.has(id)) continue;
      seen.add(id);
      const words = [...b.words.slice(0, from), ...said, ...b.words.slice(to)];
      out.push({ from, to, replacement, full: `${words.join(' ')}${b.end || a.end}` });
      if (out.length === MAX_READINGS) return out;
    }
  }
  return out;
}

/** The indices of the chunk's {@link letteredWords} that `[start, end)` of its written text touches (a cursor inside a word counts). */
export function wordsIn(written: string, words: readonly WordInfo[], start: number, end: number): { from: number; to: number } | undefined {
  const touched = placeWords(written, words).filter(
    (s) => (s.start < end && s.end > start) || (start === end && s.start <= start && s.end >= start),
  );
  if (touched.length === 0) return undefined;
  const idx = touched.flatMap((s) => s.words);
  return { from: Math.min(...idx), to: Math.max(...idx) + 1 };
}

/** `text` with its first letter in the case of `like`'s first letter (a word in sentence case, "Mr", only: not "NATO", not "McKay"). */
function caseLike(text: string, like: string): string {
  const first = text.charAt(0);
  const want = like.charAt(0);
  if (want === '' || want.toLowerCase() === want.toUpperCase()) return text;
  if (want === want.toUpperCase()) return first.toUpperCase() + text.slice(1);
  const word = /^\S*/u.exec(text)![0];
  return word.slice(1) === word.slice(1).toLowerCase() ? first.toLowerCase() + text.slice(1) : text;
}

/**
 * Where `reading` goes in the chunk's written text (`words`: its {@link letteredWords}): over the words it changes when each was written as
 * said (or at their place for words added), else over the whole chunk (its final punctuation included) with the chunk's best reading
 * so changed. The punctuation around the words changed stays as written; a change at the start of the chunk takes the case of the
 * chunk's first letter (a sentence begins with a capital, the reading's capital is not one mid-sentence).
 */
export function readingEdit(written: string, words: readonly WordInfo[], reading: Reading): ChunkEdit {
  // The whole chunk, without the spaces around it (a chunk is written with the space before it).
  const lead = written.length - written.trimStart().length;
  const body = written.trim();
  const end = SENTENCE_END.exec(body)?.[0] ?? '';
  const full = caseLike(SENTENCE_END.test(reading.full) || !end ? reading.full : `${reading.full}${end}`, body);
  const whole: ChunkEdit = { start: lead, end: lead + body.length, text: full, whole: true };
  const exact = new Map<number, { start: number; end: number }>();
  for (const s of placeWords(written, words)) if (s.exact) exact.set(s.words[0]!, s);
  if (reading.from < reading.to) {
    const first = exact.get(reading.from);
    const last = exact.get(reading.to - 1);
    if (!first || !last) return whole;
    for (let k = reading.from; k < reading.to; k++) if (!exact.has(k)) return whole;
    const old = written.slice(first.start, last.end);
    if (reading.replacement !== '') {
      const text = reading.from === 0 ? caseLike(reading.replacement, old) : reading.replacement;
      return { start: first.start, end: last.end, text, whole: false };
    }
    // The words go. At the start, the word after them takes their capital.
    const next = exact.get(reading.to);
    if (reading.from === 0 && next) {
      const nextWord = written.slice(next.start, next.end);
      const text = caseLike(nextWord, old);
      if (text !== nextWord) return { start: first.start, end: next.end, text, whole: false };
    }
    // With the space before them (or after them at the start).
    const before = /\s$/u.test(written.slice(0, first.start)) ? 1 : 0;
    const after = before === 0 && /^\s/u.test(written.slice(last.end)) ? 1 : 0;
    return { start: first.start - before, end: last.end + after, text: '', whole: false };
  }
  // Words added: after the word before them, or before the first word (then in its case, the first word in lower case).
  const prev = reading.from > 0 ? exact.get(reading.from - 1) : undefined;
  if (prev) return { start: prev.end, end: prev.end, text: ` ${reading.replacement}`, whole: false };
  const next = exact.get(reading.from);
  if (reading.from === 0 && next) {
    const nextWord = written.slice(next.start, next.end);
    const text = `${caseLike(reading.replacement, nextWord)} ${caseLike(nextWord, 'a')}`;
    return { start: next.start, end: next.end, text, whole: false };
  }
  return whole;
}

/**
 * What a row of the list shows of a change: the words it deletes, or the words it changes and what they become
 * (`old → new`); a short change with the word before and after it in the written text (the engine's words for a whole replacement).
 */
export function readingRow(
  written: string,
  words: readonly WordInfo[],
  reading: Reading,
  e: ChunkEdit,
): { kind: 'delete' | 'change'; words: string; context?: string } {
  const count = (s: string): number => split(s).length;
  if (e.whole) {
    const b = words.map((w) => w.text);
    const old = b.slice(reading.from, reading.to).join(' ');
    const short = count(old) + count(reading.replacement) <= SHORT_CHANGE;
    const before = short && reading.from > 0 ? `${b[reading.from - 1]!} ` : '';
    const after = short && reading.to < b.length ? ` ${b[reading.to]!}` : '';
    const shown = (s: string): string => `${before}${s}${after}`.replace(/\s+/gu, ' ').trim();
    if (reading.replacement === '') return { kind: 'delete', words: old, ...(short ? { context: `${shown(old)} → ${shown('')}` } : {}) };
    return { kind: 'change', words: `${shown(old)} → ${shown(reading.replacement)}` };
  }
  const old = written.slice(e.start, e.end);
  const short = count(old) + count(e.text) <= SHORT_CHANGE;
  const before = short ? /\S*\s*$/u.exec(written.slice(0, e.start))![0] : '';
  const after = short ? /^\s*\S*/u.exec(written.slice(e.end))![0] : '';
  const shown = (s: string): string => `${before}${s}${after}`.replace(/\s+/gu, ' ').trim();
  if (e.text.trim() === '') return { kind: 'delete', words: old.trim(), ...(short ? { context: `${shown(old)} → ${shown('')}` } : {}) };
  return { kind: 'change', words: `${shown(old)} → ${shown(e.text)}` };
}

/**
 * The last place in `text` where the words `said` (folded, as in "correct <words>") stand one after the
 * other, within one of `ranges` (what was dictated); undefined when nowhere.
 */
export function lastOccurrence(
  text: string,
  said: string,
  ranges: ReadonlyArray<{ start: number; end: number }>,
): { start: number; end: number } | undefined {
  const want = said
    .split(/\s+/u)
    .map(key)
    .filter((w) => w !== '');
  if (want.length === 0) return undefined;
  let best: { start: number; end: number } | undefined;
  for (const r of ranges) {
    const toks = [...text.slice(r.start, r.end).matchAll(/[\p{L}\p{M}\p{N}]+/gu)].map((m) => ({
      k: key(m[0]),
      start: r.start + m.index,
      end: r.start + m.index + m[0].length,
    }));
    for (let i = 0; i + want.length <= toks.length; i++) {
      if (!want.every((w, j) => toks[i + j]!.k === w)) continue;
      const found = { start: toks[i]!.start, end: toks[i + want.length - 1]!.end };
      if (!best || found.start > best.start) best = found;
    }
  }
  return best;
}
