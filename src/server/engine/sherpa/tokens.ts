/**
 * Word times and confidences from a sherpa-onnx result's tokens (docs/engines.md, "What a sherpa-onnx
 * result carries"). The addon gives, besides the text, one entry per token: its text (a SentencePiece
 * piece whose `▁` the addon has already turned into a leading space; a byte of a byte-fallback model as
 * `<0xNN>`), the time it was emitted and, depending on the model and the decoding, its duration (TDT) and
 * its log-probability. Tokens are grouped into the text's words: a token that starts with a space (or
 * `▁`) starts a word.
 *
 * - A word starts at its first letter token's time (punctuation tokens the model writes are left out of
 *   its times and its confidence) and ends at the end of its last letter token: the token's time plus its
 *   duration where the result gives durations (TDT), otherwise the time of the token after it, or the end
 *   of the decoded audio for the last token.
 * - Its confidence is its least sure letter token's probability (exp of the log-probability, within
 *   [0, 1]): a word is as doubtful as its most doubtful piece. A result without log-probabilities gives
 *   no confidence (none is invented).
 * - When the tokens do not make the text's words (a count that differs, tokens and times of different
 *   lengths), no word gets a time.
 */

/** A result's tokens, their times moved to the recognizer's clock (ms). */
export interface TokenTimes {
  tokens: string[];
  /** When each token was emitted. */
  startMs: number[];
  /** Each token's duration (TDT models), when the result gives them. */
  durationMs?: number[];
  /** Each token's natural-log probability, when the result gives them. */
  logProbs?: number[];
  /** The end of the decoded audio: the last token's end when nothing else gives it. */
  endMs: number;
}

/** Where a word of the text was heard, and how sure the model is of it (absent: the result cannot say). */
export interface WordTiming {
  start_ms: number;
  end_ms: number;
  confidence?: number;
}

const BYTE = /^<0x([0-9A-Fa-f]{2})>$/u;
const LETTER = /[\p{L}\p{N}]/u;

interface TokenWord {
  text: string;
  /** Indices of the word's tokens. */
  tokens: number[];
}

/** The tokens grouped into words (bytes of a byte-fallback model decoded as UTF-8). */
function tokenWords(tokens: readonly string[]): TokenWord[] {
  const out: Array<{ parts: Buffer[]; tokens: number[] }> = [];
  tokens.forEach((raw, i) => {
    const starts = /^[\s▁]/u.test(raw);
    const piece = raw.replace(/^[\s▁]+/u, '');
    if (starts || out.length === 0) out.push({ parts: [], tokens: [] });
    const word = out[out.length - 1]!;
    const byte = BYTE.exec(piece);
    word.parts.push(byte ? Buffer.from([parseInt(byte[1]!, 16)]) : Buffer.from(piece, 'utf8'));
    word.tokens.push(i);
  });
  return out.map((w) => ({ text: Buffer.concat(w.parts).toString('utf8'), tokens: w.tokens })).filter((w) => w.text !== '');
}

/** Whether a token carries letters or digits (a byte of a multi-byte letter counts as one). */
function isLetter(token: string): boolean {
  return BYTE.test(token.trim()) || LETTER.test(token);
}

/**
 * The times and confidences of the whitespace-separated words of `text`, in order; undefined when the
 * tokens do not give them.
 */
export function wordTimings(text: string, t: TokenTimes): WordTiming[] | undefined {
  const words = text.split(/\s+/u).filter((w) => w !== '');
  const n = t.tokens.length;
  if (n === 0 || t.startMs.length !== n || words.length === 0) return undefined;
  const grouped = tokenWords(t.tokens);
  if (grouped.length !== words.length) return undefined;
  const durations = t.durationMs?.length === n ? t.durationMs : undefined;
  const logProbs = t.logProbs?.length === n ? t.logProbs : undefined;
  return grouped.map((w) => {
    const letters = w.tokens.filter((i) => isLetter(t.tokens[i]!));
    const own = letters.length ? letters : w.tokens;
    const first = own[0]!;
    const last = own[own.length - 1]!;
    const start = t.startMs[first]!;
    const duration = durations?.[last];
    const end = duration !== undefined && duration > 0 ? t.startMs[last]! + duration : last + 1 < n ? t.startMs[last + 1]! : t.endMs;
    const timing: WordTiming = { start_ms: start, end_ms: Math.max(start, end) };
    if (logProbs) timing.confidence = Math.min(...own.map((i) => probability(logProbs[i]!)));
    return timing;
  });
}

/** A log-probability as a probability in [0, 1] (a hotword's boost can take it above 0). */
function probability(logProb: number): number {
  return Number.isFinite(logProb) ? Math.min(1, Math.max(0, Math.exp(logProb))) : 0;
}
