/**
 * The segmenter's events and the chunks behind them: the types of `transcript` and `batch.replace`
 * events (durable ones carry a checkpoint), what the segmenter is configured with, and the functions
 * that make an event from a chunk or from a proofread sentence. Pure: no state of its own.
 */
import { type ChunkStatus, type EffectiveConfig } from '../../protocol';
import type { Proofread, RecognizedWord } from './recognizer';
import { type ChunkDetails, chunkDetails, proofreadChunk } from './details';
import type { SegmenterCheckpoint, SentenceChunk, WordMark } from './segmenterCheckpoint';
import type { VoiceDetector } from './vad';

/** A sentence is closed (finals proofread) after this many final chunks even without a long pause. */
export const MAX_SENTENCE_CHUNKS = 16;

export interface ChunkEvent extends ChunkDetails {
  type: 'transcript';
  status: ChunkStatus;
  id: string;
  index: number;
  text: string;
}

export interface ReplaceEvent {
  type: 'batch.replace';
  data: { target_ids: string[]; new_chunk: { id: string; index: number; text: string; status: 'final' } & ChunkDetails };
}

export type SegmentEvent = (ChunkEvent | ReplaceEvent) & {
  /** Present on durable events (`final`, `batch.replace`). */
  checkpoint?: SegmenterCheckpoint;
};

/** Frames that produce no event all get this same empty (frozen) array, not a new one per frame. */
export const NO_EVENTS = Object.freeze([]) as unknown as SegmentEvent[];

export interface PendingChunk {
  id: string;
  index: number;
  status: 'streaming' | 'interim';
  words: RecognizedWord[];
  alternatives?: string[];
  /** State just before the window that released the chunk's first word. */
  start: WordMark;
  audioMs: number;
}

export type SegmenterConfig = Pick<
  EffectiveConfig,
  | 'sample_rate'
  | 'engine_endpointing'
  | 'silence_threshold'
  | 'audio_duration_threshold'
  | 'max_buffer_size'
  | 'enable_final_proofreading'
  | 'details'
>;

export interface SegmenterOptions {
  restore?: SegmenterCheckpoint;
  newId?: () => string;
  /**
   * Receives the `batch.replace` of a sentence whose proofreading the engine finishes later (its
   * `endSentence` returned a promise). Required for such engines.
   */
  onLateEvents?: (events: SegmentEvent[]) => void;
  /** The voice-activity detector (default: the energy {@link Vad}, restored from the checkpoint). */
  detector?: VoiceDetector;
}

/** Whether `a` and `b` hold the same raw words, in order. */
function sameRaw(a: readonly RecognizedWord[], b: readonly RecognizedWord[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]!.raw !== b[i]!.raw) return false;
  return true;
}

/** The raw words joined by spaces (what tells whether a revision changed the text). */
function textOf(words: readonly RecognizedWord[]): string {
  return words.map((w) => w.raw).join(' ');
}

/** The length of {@link textOf}, without building it. */
function textLength(words: readonly RecognizedWord[]): number {
  let n = words.length > 0 ? words.length - 1 : 0;
  for (let i = 0; i < words.length; i++) n += words[i]!.raw.length;
  return n;
}

/**
 * Whether `a` and `b` make the same text (`textOf(a) === textOf(b)`: a word may hold a space). The texts are
 * built only when their lengths are equal: a revision that adds a word (most) is told apart without them.
 */
export function sameText(a: readonly RecognizedWord[], b: readonly RecognizedWord[]): boolean {
  if (sameRaw(a, b)) return true;
  return textLength(a) === textLength(b) && textOf(a) === textOf(b);
}

/** The event of `chunk` in `status` (with `details`, a `streaming` one carries none). */
export function chunkEventOf(
  chunk: { id: string; index: number; words: RecognizedWord[]; alternatives?: string[] },
  status: ChunkStatus,
  details: boolean,
): ChunkEvent {
  const ev: ChunkEvent = {
    type: 'transcript',
    status,
    id: chunk.id,
    index: chunk.index,
    text: chunk.words
      .map((w) => w.raw)
      .join(' ')
      .trim(),
  };
  return !details || status === 'streaming'
    ? ev
    : { ...ev, ...chunkDetails(chunk.words, 'raw', status === 'final' ? chunk.alternatives : undefined, ev.text) };
}

/**
 * The `batch.replace` of a proofread sentence: its final chunks replaced by one new chunk (id from
 * `newId`, index of the first target). The caller adds the checkpoint.
 */
export function replaceEventOf(
  sentence: SentenceChunk[],
  proofread: Proofread,
  o: { details: boolean; baseMs: number; newId: () => string },
): SegmentEvent {
  const { text, details } = proofreadChunk(
    proofread,
    sentence.flatMap((c) => c.words),
    o.details,
    o.baseMs,
  );
  return {
    type: 'batch.replace',
    data: {
      target_ids: sentence.map((c) => c.id),
      new_chunk: { id: o.newId(), index: sentence[0]!.index, text, status: 'final', ...details },
    },
  };
}
