/**
 * The details a session asks for with `configure.config.details` (docs/protocol.md): a chunk's place in
 * the session's audio, its words with their times and confidences, and other readings of the whole
 * chunk. Built by the segmenter from what the engine gives; an engine that gives no word times gives no
 * details, and one that gives times but no confidences gives words without `confidence`.
 */
import type { WordDetail } from '../../protocol';
import type { Proofread, RecognizedWord } from './recognizer';

/** At most this many alternatives per chunk. */
export const MAX_ALTERNATIVES = 5;

/** A word with its place in the session's audio and its confidence (the protocol's `WordDetail`). */
type WordDetails = Pick<WordDetail, 'text' | 'start_ms' | 'end_ms' | 'confidence'>;

export type ChunkDetails = {
  start_ms?: number;
  end_ms?: number;
  words?: WordDetails[];
  alternatives?: string[];
};

/** The words with their times moved from the recognizer's clock to the session's (`baseMs` later). */
function onSessionClock(words: readonly RecognizedWord[], baseMs: number): RecognizedWord[] {
  return words.map((w) => {
    const out = { ...w };
    if (out.start_ms !== undefined) out.start_ms += baseMs;
    if (out.end_ms !== undefined) out.end_ms += baseMs;
    return out;
  });
}

/**
 * The engine's words as a chunk keeps them: times on the session's clock with details, no times without.
 * Without details, the words of `kept` (what the chunk kept before) that are the same word at the same place
 * are kept as they are (an engine re-sends the whole open utterance with each new word).
 */
export function keptWords(
  words: readonly RecognizedWord[],
  details: boolean,
  baseMs: number,
  kept?: readonly RecognizedWord[],
): RecognizedWord[] {
  if (details) return onSessionClock(words, baseMs);
  const out: RecognizedWord[] = new Array<RecognizedWord>(words.length);
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const k = kept?.[i];
    out[i] = k !== undefined && k.raw === w.raw && k.proofread === w.proofread ? k : { raw: w.raw, proofread: w.proofread };
  }
  return out;
}

/**
 * The proofread sentence's text and, with `details`, its details. Without words of its own from the
 * engine, its words are the first pass's (`firstPass`, session clock) in their proofread form.
 */
export function proofreadChunk(
  p: Proofread,
  firstPass: readonly RecognizedWord[],
  details: boolean,
  baseMs: number,
): { text: string; details: ChunkDetails } {
  const text = (typeof p === 'string' ? p : p.text).trim();
  if (!details) return { text, details: {} };
  const alternatives = typeof p === 'string' ? undefined : p.alternatives;
  const words = textWords(typeof p !== 'string' && p.words ? onSessionClock(p.words, baseMs) : firstPass, text);
  return { text, details: words ? chunkDetails(words, 'proofread', alternatives, text) : {} };
}

const tokens = (s: string): string[] => s.split(' ').filter((t) => t !== '');

/**
 * `words` with proofread forms that, joined by spaces, make `text`: as they are when they do; else the
 * text's tokens shared out over them in order (each word taking as many as its proofread form has, or one
 * each), as when the proofread text is the first pass with a capital and a period (a second pass that
 * failed or ran out of time). Undefined when the text has other words than these: no word details then.
 */
function textWords(words: readonly RecognizedWord[], text: string): readonly RecognizedWord[] | undefined {
  if (words.map((w) => w.proofread).join(' ') === text) return words;
  const parts = tokens(text);
  const counts = words.map((w) => Math.max(1, tokens(w.proofread).length));
  const total = counts.reduce((a, b) => a + b, 0);
  if (total !== parts.length) {
    if (words.length !== parts.length) return undefined;
    counts.fill(1);
  }
  let at = 0;
  return words.map((w, i) => {
    const proofread = parts.slice(at, at + counts[i]!).join(' ');
    at += counts[i]!;
    return { ...w, proofread };
  });
}

const clamp01 = (n: number): number => (Number.isFinite(n) ? Math.min(1, Math.max(0, n)) : 0);

/**
 * The details of a chunk made of `words` (`form`: which form of each word is its text). None when a
 * word lacks a time; a word without a confidence is sent without one. Times are whole ms, never going back, each word within the chunk;
 * alternatives are distinct, differ from the chunk's text, at most {@link MAX_ALTERNATIVES}.
 */
export function chunkDetails(
  words: readonly RecognizedWord[],
  form: 'raw' | 'proofread',
  alternatives?: readonly string[],
  text?: string,
): ChunkDetails {
  if (words.length === 0 || words.some((w) => w.start_ms === undefined || w.end_ms === undefined)) return {};
  const out: WordDetails[] = [];
  let lastStart = 0;
  let lastEnd = 0;
  for (const w of words) {
    const start = Math.max(lastStart, Math.round(w.start_ms!));
    const end = Math.max(start, lastEnd, Math.round(w.end_ms!));
    const word: WordDetails = { text: w[form], start_ms: start, end_ms: end };
    if (w.confidence !== undefined) word.confidence = Math.round(clamp01(w.confidence) * 1000) / 1000;
    out.push(word);
    lastStart = start;
    lastEnd = end;
  }
  const details: ChunkDetails = { start_ms: out[0]!.start_ms, end_ms: lastEnd, words: out };
  const own = (text ?? out.map((w) => w.text).join(' ')).trim();
  const alts = [...new Set((alternatives ?? []).map((a) => a.trim()))].filter((a) => a !== '' && a !== own).slice(0, MAX_ALTERNATIVES);
  if (alternatives) details.alternatives = alts;
  return details;
}
