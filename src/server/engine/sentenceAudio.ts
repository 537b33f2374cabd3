/**
 * The audio of the sentence being dictated, as a recognizer keeps it for the proofreading pass (the
 * whole sentence decoded again), and the facts about it that every recognizer shares:
 *
 * - a sentence's audio starts at most {@link LEAD_IN_WINDOWS} windows before its first word: silence
 *   before it is dropped as utterances without words end;
 * - an utterance with no word for {@link IDLE_UTTERANCE_WINDOWS} windows restarts from that short
 *   lead-in (a long silence costs nothing), the lead-in fed again;
 * - a sentence closed while an utterance is open (no pause) leaves that utterance's windows to the next;
 * - after a restore the audio of a sentence begun before it is gone: that sentence is incomplete (its
 *   first-pass words stand).
 *
 * Windows are what the recognizer keeps (its samples, possibly resampled); all of the same duration.
 */

/** Audio kept before the first word of a sentence (the rest of a silence is dropped). */
export const LEAD_IN_WINDOWS = 25;
/** An utterance that found no word for this many windows restarts (a long silence holds nothing). */
export const IDLE_UTTERANCE_WINDOWS = 500;

/** A sentence's audio as {@link SentenceAudio.endSentence} hands it over. */
interface EndedSentence<W> {
  /** Its windows, oldest first (none when nothing was kept). */
  audio: W[];
  /** False when the sentence began before a restore: its audio is not all here. */
  complete: boolean;
  /** Where its first window began, on the recognizer's clock (ms). */
  startMs: number;
}

export class SentenceAudio<W> {
  private windows: W[] = [];
  /** Index in windows where the open utterance began. */
  private utteranceStart = 0;
  private hasWords = false;
  private complete = true;

  /** Windows kept. */
  get length(): number {
    return this.windows.length;
  }

  /** Whether an utterance of this sentence has ended with words. */
  get sentenceHasWords(): boolean {
    return this.hasWords;
  }

  push(window: W): void {
    this.windows.push(window);
  }

  /** An utterance begins with the next window pushed. */
  beginUtterance(): void {
    this.utteranceStart = this.windows.length;
  }

  /** The open utterance ended, with words or none: silence before the sentence's first word is trimmed. */
  utteranceEnded(hadWords: boolean): void {
    if (hadWords) this.hasWords = true;
    else if (!this.hasWords) this.trimLeadIn();
  }

  /**
   * The sentence ends: its windows are handed over. `inUtterance`: an utterance is open (its windows
   * stay, as the next sentence's). `clockMs`: the recognizer's clock at the last window pushed;
   * `windowMs`: a window's duration.
   */
  endSentence(inUtterance: boolean, clockMs: number, windowMs: number): EndedSentence<W> {
    const startMs = clockMs - this.windows.length * windowMs;
    const audio = inUtterance ? this.windows.slice(0, this.utteranceStart) : this.windows;
    this.windows = inUtterance ? this.windows.slice(this.utteranceStart) : [];
    const complete = this.complete;
    this.utteranceStart = 0;
    this.hasWords = false;
    this.complete = true;
    return { audio, complete, startMs };
  }

  /**
   * The open utterance found nothing for {@link IDLE_UTTERANCE_WINDOWS}: it starts again from the
   * lead-in, which is returned (to be fed to the decoder again). The new utterance begins with it.
   */
  restartIdle(): W[] {
    if (!this.hasWords) this.trimLeadIn();
    const lead = this.windows.slice(-LEAD_IN_WINDOWS);
    this.utteranceStart = Math.max(0, this.windows.length - lead.length);
    return lead;
  }

  /** A restore: what was kept is gone, and the sentence under way is incomplete. */
  restored(): void {
    this.windows = [];
    this.utteranceStart = 0;
    this.hasWords = false;
    this.complete = false;
  }

  /** Silence before the first word of a sentence: keep only a short lead-in. */
  private trimLeadIn(): void {
    if (this.windows.length > LEAD_IN_WINDOWS) {
      const drop = this.windows.length - LEAD_IN_WINDOWS;
      this.windows = this.windows.slice(drop);
      this.utteranceStart = Math.max(0, this.utteranceStart - drop);
    }
  }
}
