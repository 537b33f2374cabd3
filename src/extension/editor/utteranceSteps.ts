/**
 * The undo steps of a run's edits: one per utterance, the rewrite by the service included. A sentence
 * said with short pauses in it is several chunks, whose finals come together when it ends (or one by
 * one while it goes on, when too many are pending), then its `batch.replace`: they make one step.
 *
 * What the writer sees of the service tells where a sentence ends: while chunks are pending (the
 * provisional text is not empty) a final belongs to the sentence of the one before it; when nothing is
 * pending any more the sentence has ended, and the next final opens a step. A rewrite joins the open
 * step when that step is one of its targets' (so a rewrite that comes after the next sentence's first
 * final is a step of its own). Someone else's change to the document closes the step.
 */
import type { Disposable, UndoStops } from './documentPort';
import type { TrackedDocument } from './trackedDocument';

export class UtteranceSteps implements Disposable {
  /** The chunk whose undo step is still open (the edits of its utterance join it), or null. */
  private open: string | null = null;
  /** The chunk whose final opened or last joined the open step, while its sentence goes on, or null. */
  private sentence: string | null = null;
  /** Whether chunks are pending: the service's provisional text is not empty. */
  private pending = false;
  private readonly listener: Disposable;

  constructor(target: TrackedDocument) {
    // Someone else changed the document: the next edit of ours opens an undo step of its own.
    this.listener = target.onDidUserEdit(() => {
      this.open = null;
    });
  }

  /** A new undo step unless the last edit of ours belongs to `ids` and nobody changed the document since. */
  stops(...ids: string[]): UndoStops {
    const join = this.open !== null && ids.includes(this.open);
    return { before: !join, after: false };
  }

  /**
   * The undo stops of a final: it joins the open step when that step is its sentence's (a final of it
   * opened the step, chunks have been pending ever since) and nobody changed the document since.
   */
  finalStops(): UndoStops {
    const join = this.open !== null && this.open === this.sentence && this.pending;
    return { before: !join, after: false };
  }

  /** Notes that the undo step of `id` is the open one. */
  opened(id: string): void {
    this.open = id;
  }

  /** The final of `id` was written with text: the next final of its sentence joins its step. */
  finalWritten(id: string): void {
    this.open = id;
    this.sentence = id;
  }

  /** A final ran a command said alone: the chunks after it open a step of their own. */
  commandRun(): void {
    this.sentence = null;
  }

  /** The service's provisional text (raw): when it is empty nothing is pending, and the sentence has ended. */
  provisional(text: string): void {
    this.pending = text.trim() !== '';
    if (!this.pending) this.sentence = null;
  }

  dispose(): void {
    this.listener.dispose();
  }
}
