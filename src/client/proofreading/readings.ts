/**
 * Correct That: the engine's other readings of a chunk (`alternatives`, whole chunks, best first), each
 * reduced to the words it changes, and where that change goes in the text the chunk was written as.
 * Also where words said in "correct <words>" were last dictated. Pure: no `vscode`.
 */
import { normaliseWord, placeWords, type WordInfo } from './wordMap';

/** One other reading: the words `[from, to)` of the chunk's best reading become `replacement`. */
interface Reading {
  from: number;
  to: number;
  /** The words said instead, as the engine wrote them (may be empty: the words go). */
  replacement: string;
  /** The whole alternative, as the engine wrote it. */
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

function key(word: string): string {
  return normaliseWord(word).replace(/[^\p{L}\p{N}]/gu, '');
}

function split(text: string): string[] {
  return text.split(/\s+/u).filter((w) => key(w) !== '');
}

/** The chunk's words that have letters or digits: every index below is into this list. */
export function letteredWords<W extends WordInfo>(words: readonly W[]): W[] {
  return words.filter((w) => key(w.text) !== '');
}

/**
 * The readings that differ from `best` (the texts of the chunk's {@link letteredWords}), each reduced to the words it changes; with
 * `selected` (word indices `[from, to)`), only those that change a selected word. Once each, in the
 * engine's order, at most {@link MAX_READINGS}.
 */
export function readings(best: readonly string[], alternatives: readonly string[], selected?: { from: number; to: number }): Reading[] {
  const b = best;
  const out: Reading[] = [];
  const seen = new Set<string>();
  for (const full of alternatives) {
    const a = split(full);
    let p = 0;
    while (p < b.length && p < a.length && key(b[p]!) === key(a[p]!)) p++;
    let q = 0;
    while (q < b.length - p && q < a.length - p && key(b[b.length - 1 - q]!) === key(a[a.length - 1 - q]!)) q++;
    const from = p;
    const to = b.length - q;
    const replacement = a.slice(p, a.length - q).join(' ');
    if (from === to && replacement === '') continue;
    if (selected && !(from < selected.to && to > selected.from) && !(from === to && from >= selected.from && from <= selected.to)) continue;
    const id = `${from}:${to}:${key(replacement)}`;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push({ from, to, replacement, full });
    if (out.length === MAX_READINGS) break;
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

/**
 * Where `reading` goes in the chunk's written text (`words`: its {@link letteredWords}): over the words it changes when each was written as
 * said (or at their place for words added), else over the whole chunk with the whole alternative.
 */
export function readingEdit(written: string, words: readonly WordInfo[], reading: Reading): ChunkEdit {
  // The whole chunk, without the spaces around it (a chunk is written with the space before it).
  const lead = written.length - written.trimStart().length;
  const whole: ChunkEdit = { start: lead, end: Math.max(lead, written.trimEnd().length), text: reading.full, whole: true };
  const exact = new Map<number, { start: number; end: number }>();
  for (const s of placeWords(written, words)) if (s.exact) exact.set(s.words[0]!, s);
  if (reading.from < reading.to) {
    const first = exact.get(reading.from);
    const last = exact.get(reading.to - 1);
    if (!first || !last) return whole;
    for (let k = reading.from; k < reading.to; k++) if (!exact.has(k)) return whole;
    if (reading.replacement !== '') return { start: first.start, end: last.end, text: reading.replacement, whole: false };
    // The words go, with the space before them (or after them at the start).
    const before = /\s$/u.test(written.slice(0, first.start)) ? 1 : 0;
    const after = before === 0 && /^\s/u.test(written.slice(last.end)) ? 1 : 0;
    return { start: first.start - before, end: last.end + after, text: '', whole: false };
  }
  // Words added: after the word before them, or before the first word.
  const prev = reading.from > 0 ? exact.get(reading.from - 1) : undefined;
  if (prev) return { start: prev.end, end: prev.end, text: ` ${reading.replacement}`, whole: false };
  const next = exact.get(reading.from);
  if (reading.from === 0 && next) return { start: next.start, end: next.start, text: `${reading.replacement} `, whole: false };
  return whole;
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
