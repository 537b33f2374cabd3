/**
 * One decoder thread's OnlineRecognizer (the model, loaded once) and the streams of the sessions it
 * hosts. Audio accepted by a stream is decoded at the end of the thread's turn (every audio message
 * already waiting has been handled): all the streams that are ready then go to the addon in one
 * `decodeStreams` call, and again while some are still ready. A session's partial text therefore
 * follows its audio by one audio message; the end of an utterance decodes at once.
 *
 * A batch that throws fails the sessions whose streams were in it (each at its next call), not the thread.
 */
import type { SherpaOnline, SherpaOnlineStream } from './addon';

type Schedule = (run: () => void) => void;

export class OnlineBatcher {
  private readonly streams = new Set<SherpaOnlineStream>();
  private readonly failed = new Map<SherpaOnlineStream, Error>();
  private scheduled = false;
  /** Calls made to the addon (decode or decodeStreams), and the streams they decoded: for tests and logs. */
  readonly stats = { calls: 0, streams: 0, largestBatch: 0 };

  constructor(
    readonly recognizer: SherpaOnline,
    private readonly schedule: Schedule = (run) => void setImmediate(run),
  ) {}

  add(stream: SherpaOnlineStream): void {
    this.streams.add(stream);
  }

  remove(stream: SherpaOnlineStream): void {
    this.streams.delete(stream);
    this.failed.delete(stream);
  }

  get size(): number {
    return this.streams.size;
  }

  /** Throws the error of a batch this stream was in. */
  check(stream: SherpaOnlineStream): void {
    const e = this.failed.get(stream);
    if (e) throw e;
  }

  /** `stream` accepted audio: it is decoded at the end of this turn, with every other ready stream. */
  wants(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.schedule(() => {
      this.scheduled = false;
      this.decodeReady();
    });
  }

  /**
   * Decodes every ready stream now (the end of an utterance needs its words). Throws when `stream`'s
   * batch failed.
   */
  decodeNow(stream: SherpaOnlineStream): void {
    this.decodeReady();
    this.check(stream);
  }

  private decodeReady(): void {
    for (;;) {
      const ready: SherpaOnlineStream[] = [];
      for (const s of this.streams) if (!this.failed.has(s) && this.recognizer.isReady(s)) ready.push(s);
      if (ready.length === 0) return;
      const batches = ready.length > 1 && this.recognizer.decodeStreams ? [ready] : ready.map((s) => [s]);
      for (const batch of batches) {
        try {
          if (batch.length > 1) this.recognizer.decodeStreams!(batch);
          else this.recognizer.decode(batch[0]!);
        } catch (e) {
          const err = e instanceof Error ? e : new Error(String(e));
          for (const s of batch) this.failed.set(s, err);
        }
      }
      this.stats.calls += batches.length;
      this.stats.streams += ready.length;
      this.stats.largestBatch = Math.max(this.stats.largestBatch, ready.length);
    }
  }
}

const shared = new Map<string, OnlineBatcher>();

/** This thread's batcher for a model (its OnlineRecognizer made by `load` the first time). */
export function batcherFor(key: string, load: () => SherpaOnline): OnlineBatcher {
  let b = shared.get(key);
  if (!b) {
    b = new OnlineBatcher(load());
    shared.set(key, b);
  }
  return b;
}
