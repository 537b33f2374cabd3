/**
 * The engine contract (docs/engines.md). A {@link Recognizer} is driven by the segmenter one 20 ms
 * analysis window at a time, synchronously, in audio order. It keeps one open *utterance*: the words
 * it has heard since the segmenter last ended one. The segmenter ends the utterance when it closes a
 * chunk (a pause of `engine_endpointing`, `audio_duration_threshold`, a flush) and asks for the
 * sentence's proofread text when the sentence ends.
 *
 * The factory of recognizers, and what an engine that decodes in worker threads returns instead,
 * are in engine.ts.
 */
import type { EffectiveConfig } from '../../protocol';

export interface RecognizedWord {
  /** First-pass form, as a raw recogniser gives it (lower case, no punctuation). */
  raw: string;
  /** Proofread form (casing and punctuation restored). Never a different word. */
  proofread: string;
  /**
   * Where the word was heard, in ms. From a recognizer: of the audio pushed to it since it was made or
   * restored (the segmenter turns them into the session's audio). Absent when the engine has no times.
   */
  start_ms?: number;
  end_ms?: number;
  /** How sure the engine is of the word, in [0, 1] (a posterior probability). Absent when it cannot say. */
  confidence?: number;
}

/**
 * The words of an utterance, with the other readings of the whole utterance the engine has (best
 * first, first-pass form, none equal to the words), when it has them.
 */
export type UtteranceWords = RecognizedWord[] & { alternatives?: string[] };

/** A proofread sentence with details: its words (times on the recognizer's clock) and other readings. */
export interface ProofreadSentence {
  text: string;
  words?: RecognizedWord[];
  alternatives?: string[];
}

/** What `endSentence` gives: the proofread text, or the text with its details. */
export type Proofread = string | ProofreadSentence;

export interface Recognizer {
  /** Engine name, reported in `configured.engine` and logs. */
  readonly name: string;
  /**
   * Where a resumed session must restart so that the pending words are heard again:
   * `first-word` — the window that released the chunk's first word (an engine whose state is a
   * small checkpoint, like `simulated`); `utterance-start` — the first window of the open utterance
   * (a decoder that needs the audio before a word to recognise it).
   */
  readonly resumeFrom: 'first-word' | 'utterance-start';
  /**
   * True when {@link push} never reads its window's samples (an engine driven by the voice-activity
   * decision alone, like `simulated`): the segmenter then hands it an empty buffer instead of a view
   * of each 20 ms window.
   */
  readonly ignoresAudio?: boolean;
  /**
   * True when {@link push} returns words only for a voiced window and changes its checkpoint only then
   * (`simulated`): the segmenter then takes the state before an unvoiced window (where a `first-word`
   * chunk would open) only when the window turns out voiced, not for every window of a pause.
   */
  readonly releasesOnlyWhenVoiced?: boolean;
  /**
   * Feeds one analysis window. Returns the open utterance's words when they changed (the whole
   * list, which replaces the previous one: a decoder may revise its partial hypothesis), or
   * undefined when nothing changed.
   */
  push(window: Buffer, voiced: boolean, ms: number): RecognizedWord[] | undefined;
  /**
   * Ends the open utterance; returns its final words (they replace the last list returned by push).
   * With `details`, the engine adds what it has: word times and confidences, alternatives.
   */
  endUtterance(details?: boolean): UtteranceWords;
  /**
   * The sentence made of `words` (every final chunk since the last sentence end, in order) has
   * ended. With `proofread`, returns its proofread text, or a promise of it when the engine
   * finishes later (a whole-sentence re-decode; the segmenter then sends the `batch.replace` when
   * it resolves); otherwise undefined. The engine drops the audio it kept for the sentence either way.
   * With `details`, the engine may return the text with its details (words, alternatives).
   */
  endSentence(words: RecognizedWord[], proofread: boolean, details?: boolean): Proofread | Promise<Proofread> | undefined;
  /** A JSON-serialisable snapshot of the engine's state, to resume a session after a restart. */
  checkpoint(): unknown;
  /** Restores a snapshot taken by {@link checkpoint}. Throws when it is not one of this engine's. */
  restore(snapshot: unknown): void;
  /** Frees native resources (a decoder). The recognizer is not used afterwards. */
  dispose?(): void;
}

/** Proofread text of plain first-pass words: a capital and a final period. */
export function sentenceCase(words: readonly string[]): string {
  const text = words.join(' ').trim();
  if (text === '') return '';
  const first = text.charAt(0).toLocaleUpperCase() + text.slice(1);
  return /[.!?…]$/u.test(first) ? first : `${first}.`;
}
