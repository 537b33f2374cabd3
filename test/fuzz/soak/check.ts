/**
 * The soak's word check (pure): a session's transcript as a client keeps it (its `final` chunks by id, in
 * index order, with each `batch.replace` applied), and the comparison of its words with the words the
 * simulated engine released: each once, in order, none missing, none added.
 */
import { rawForm } from '../../../src/server/engine/simulated';

/** A message of the service, as far as the check reads it. */
export interface WireMessage {
  type?: unknown;
  status?: unknown;
  id?: unknown;
  index?: unknown;
  text?: unknown;
  seq?: unknown;
  data?: unknown;
}

interface FinalChunk {
  index: number;
  text: string;
}

/** A session's final text as a client builds it from `transcript` and `batch.replace` messages, across resumes. */
export class TranscriptLog {
  private readonly finals = new Map<string, FinalChunk>();
  /** The highest `seq` handled: what a resume sends as `last_seq`. */
  lastSeq = 0;
  /** Messages whose `seq` was handled before (a replay must start above `last_seq`). */
  repeatedSeqs = 0;
  /** `final` messages for a chunk id that was already final. */
  repeatedFinals = 0;
  /** `batch.replace` targets that were not final chunks of the transcript. */
  unknownTargets = 0;

  add(m: WireMessage): void {
    if (typeof m.seq === 'number') {
      if (m.seq <= this.lastSeq) this.repeatedSeqs++;
      this.lastSeq = Math.max(this.lastSeq, m.seq);
    }
    if (m.type === 'transcript' && m.status === 'final' && typeof m.id === 'string') {
      if (this.finals.has(m.id)) this.repeatedFinals++;
      this.finals.set(m.id, { index: Number(m.index), text: String(m.text ?? '') });
    } else if (m.type === 'batch.replace' && m.data && typeof m.data === 'object') {
      const d = m.data as { target_ids?: unknown; new_chunk?: { id?: unknown; index?: unknown; text?: unknown } };
      for (const id of Array.isArray(d.target_ids) ? d.target_ids : []) {
        if (!this.finals.delete(String(id))) this.unknownTargets++;
      }
      if (d.new_chunk && typeof d.new_chunk.id === 'string') {
        this.finals.set(d.new_chunk.id, { index: Number(d.new_chunk.index), text: String(d.new_chunk.text ?? '') });
      }
    }
  }

  /** The final text's words in their first-pass form (lower case, no edge punctuation), in chunk order. */
  words(): string[] {
    return [...this.finals.values()]
      .sort((a, b) => a.index - b.index)
      .flatMap((c) => c.text.split(/\s+/u))
      .map(rawForm)
      .filter((w) => w !== '');
  }
}

export interface WordCheck {
  /** Words the engine released (the script's first `expected` words). */
  expected: number;
  /** Words in the final text. */
  received: number;
  /** Occurrences of a word beyond its first. */
  duplicates: number;
  /** Released words absent from the final text. */
  lost: number;
  /** Words of the final text that were not released (beyond the released ones, or not in the script). */
  extra: number;
  /** Adjacent words of the final text whose script order is reversed. */
  outOfOrder: number;
  ok: boolean;
}

/**
 * Compares the final text's words with the first `expected` words of `script` (words in their first-pass
 * form, each different from the others, as in {@link numberedScript}).
 */
export function checkWords(received: readonly string[], script: readonly string[], expected: number): WordCheck {
  const released = new Map(script.slice(0, expected).map((w, i) => [w, i]));
  const seen = new Set<string>();
  let duplicates = 0;
  let extra = 0;
  let outOfOrder = 0;
  let previous = -1;
  for (const w of received) {
    if (seen.has(w)) duplicates++;
    seen.add(w);
    const at = released.get(w);
    if (at === undefined) {
      extra++;
      continue;
    }
    if (at < previous) outOfOrder++;
    previous = at;
  }
  let lost = 0;
  for (const w of released.keys()) if (!seen.has(w)) lost++;
  const ok = duplicates === 0 && lost === 0 && extra === 0 && outOfOrder === 0;
  return { expected, received: received.length, duplicates, lost, extra, outOfOrder, ok };
}

/** A script of `n` distinct words, `w1 w2 … wn`, so that a word's place says which it is. */
export function numberedScript(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `w${i + 1}`);
}
