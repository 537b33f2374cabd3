/**
 * A segmenter's checkpoint: the state from which a session is rebuilt after a restart, given the audio
 * from `audioOffset` on. Durable events (`final`, `batch.replace`) carry one (segmenter.ts).
 */
import type { RecognizedWord } from './recognizer';
import type { VadState } from './vad';

export interface SentenceChunk {
  id: string;
  index: number;
  words: RecognizedWord[];
}

export interface SegmenterCheckpoint {
  /** Bytes of session audio accounted for: a resumed session is fed audio from here on. */
  audioOffset: number;
  engine: unknown;
  vad: VadState;
  silenceMs: number;
  sentenceEnded: boolean;
  nextIndex: number;
  /** Final chunks of the current sentence not yet proofread. */
  sentence: SentenceChunk[];
}

/** The state just before the window that released a word. */
export interface WordMark {
  offset: number;
  engine: unknown;
  vad: VadState;
}

/** What a checkpoint keeps of the segmenter's own state (besides where its audio, engine and VAD stand). */
type SegmenterState = Pick<SegmenterCheckpoint, 'silenceMs' | 'sentenceEnded' | 'nextIndex' | 'sentence'>;

/** A copy of a sentence's chunks: a checkpoint shares no word with the segmenter it came from. */
export function copySentence(sentence: readonly SentenceChunk[]): SentenceChunk[] {
  return sentence.map((c) => ({ ...c, words: c.words.map((w) => ({ ...w })) }));
}

/**
 * The checkpoint of a segmenter in `state`: as of now (`now()`, the state after its last window), or,
 * when some released words are not final yet, as of `firstPending` (the state just before the window
 * that released the first of them).
 */
export function checkpointOf(state: SegmenterState, now: () => WordMark, firstPending: WordMark | undefined): SegmenterCheckpoint {
  const sentence = copySentence(state.sentence);
  if (!firstPending) {
    const mark = now();
    return {
      audioOffset: mark.offset,
      engine: mark.engine,
      vad: mark.vad,
      silenceMs: state.silenceMs,
      sentenceEnded: state.sentenceEnded,
      nextIndex: state.nextIndex,
      sentence,
    };
  }
  // Some released words are not final yet: go back to just before the first of them, so that the
  // audio re-sent from there releases them again (and nothing final twice).
  return {
    audioOffset: firstPending.offset,
    engine: firstPending.engine,
    vad: firstPending.vad,
    silenceMs: 0,
    sentenceEnded: false,
    nextIndex: state.nextIndex,
    sentence,
  };
}
