/**
 * Where the words of a chunk stand in the text it was written as. The service gives each word of a
 * chunk with its confidence (`details`); the editor writes the chunk's text, possibly transformed by the
 * dictation grammar ("trois virgule deux centimètres" → "3,2 cm"). The words are matched in order, by
 * their letters and digits (case and accents aside), within the written text; a word that cannot be
 * matched is skipped. Words skipped between two matched ones (or the ends) are the source of the text
 * left between them: that text becomes one span of its own, as sure as the least sure of them, so that
 * a doubtful number written as digits is marked too. Pure: no `vscode`.
 */

/** A word as the service sends it (only what the map needs). */
export interface WordInfo {
  readonly text: string;
  /** Absent when the engine cannot say (sherpa-onnx's NeMo transducers): counted as sure. */
  readonly confidence?: number;
  /** Its place in the session's audio (Play Back), when the service gave it. */
  readonly start_ms?: number;
  readonly end_ms?: number;
}

/** A span of the written text and the words it was written from. */
interface PlacedSpan {
  /** Offsets in the written text, `[start, end)`. */
  start: number;
  end: number;
  /** Indices of the chunk's words this span was written from (one for a matched word). */
  words: number[];
  /** The least confidence of those words. */
  confidence: number;
  /** Whether the span is a word matched as it was said (false: text the grammar made of several words). */
  exact: boolean;
}

/** Written words that may lie between two matched ones (a word the grammar inserted, or a vocabulary entry). */
const MAX_SKIPPED_TOKENS = 3;
/** A span made of skipped words is not marked when it is longer than this (it would cover a sentence). */
const MAX_GAP_CHARS = 40;

interface Token {
  norm: string;
  start: number;
  end: number;
}

/** Lower case, without accents: "Épanchement" and "epanchement" match. */
export function normaliseWord(s: string): string {
  return s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

function tokens(text: string): Token[] {
  const out: Token[] = [];
  for (const m of text.matchAll(/[\p{L}\p{M}\p{N}]+/gu)) {
    const norm = normaliseWord(m[0]);
    if (norm !== '') out.push({ norm, start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/** Where the tokens `want` stand in `have` from `from` on, at most `skip` tokens further; -1 when not there. */
function find(have: readonly Token[], want: readonly string[], from: number, skip: number): number {
  const last = Math.min(have.length - want.length, from + skip);
  for (let i = from; i <= last; i++) {
    if (want.every((w, k) => have[i + k]!.norm === w)) return i;
  }
  return -1;
}

/**
 * The spans of `written` that the chunk's `words` stand for: one per matched word, and one for the text
 * between matched words that the unmatched words were written as (when there is any, and it is short).
 * In order, never overlapping.
 */
export function placeWords(written: string, words: readonly WordInfo[]): PlacedSpan[] {
  const have = tokens(written);
  const out: PlacedSpan[] = [];
  let next = 0;
  let skipped: number[] = [];
  let gapStart = 0;
  const closeGap = (gapEnd: number): void => {
    if (skipped.length === 0) return;
    const inGap = have.filter((t) => t.start >= gapStart && t.end <= gapEnd);
    if (inGap.length > 0) {
      const start = inGap[0]!.start;
      const end = inGap[inGap.length - 1]!.end;
      if (end - start <= MAX_GAP_CHARS) {
        out.push({ start, end, words: skipped, confidence: Math.min(...skipped.map((i) => confidenceOf(words[i]!))), exact: false });
      }
    }
    skipped = [];
  };
  words.forEach((w, i) => {
    const want = tokens(w.text).map((t) => t.norm);
    // Each word skipped so far may have been written as one more token.
    const at = want.length === 0 ? -1 : find(have, want, next, MAX_SKIPPED_TOKENS + skipped.length);
    if (at < 0) {
      if (want.length > 0) skipped.push(i);
      return;
    }
    // Written tokens passed over belong to the words skipped before this one, if any.
    closeGap(have[at]!.start);
    const start = have[at]!.start;
    const end = have[at + want.length - 1]!.end;
    out.push({ start, end, words: [i], confidence: confidenceOf(w), exact: true });
    next = at + want.length;
    gapStart = end;
  });
  closeGap(written.length);
  return out;
}

/** A confidence within 0–1 (a missing or odd one counts as sure: nothing is marked on a guess). */
export function confidenceOf(w: WordInfo): number {
  const c = w.confidence;
  return typeof c === 'number' && Number.isFinite(c) ? Math.min(1, Math.max(0, c)) : 1;
}

/** The spans under `threshold` (0 turns marking off). */
export function doubtfulSpans(spans: readonly PlacedSpan[], threshold: number): PlacedSpan[] {
  return threshold > 0 ? spans.filter((s) => s.confidence < threshold) : [];
}
