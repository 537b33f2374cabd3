/**
 * The audio of a run that the service has not accounted for (pure: no socket, no timer, no clock).
 *
 * - Audio comes in chunks of any size and is cut into frames (100 ms at 16 kHz, never an odd length).
 * - Frames waiting to be sent form the *queue*. While disconnected it is bounded: beyond the buffer the
 *   oldest frames are dropped (counted, and reported once per disconnection).
 * - Every frame sent is numbered by its byte offset in the service session and kept in the *sent
 *   window* (at least `retainBytes`), since the service may not have it yet.
 * - After a resume the service says how much it has (`resume_audio_offset`): what was sent after that
 *   offset goes back to the front of the queue, so nothing is lost and nothing is sent twice.
 * - When the service could not resume and a new service session starts, the audio sent after the old
 *   session's last final text (that text could only have been provisional) is queued again and the
 *   offsets start from zero.
 */
import { PcmFramer } from '../audio/framer';

interface SentFrame {
  offset: number;
  data: Buffer;
}

interface LedgerStats {
  /** Bytes handed out to be sent (re-sends included). */
  sentBytes: number;
  /** Bytes queued again after a resume or a new service session. */
  resentBytes: number;
  /** Bytes dropped because the queue was full while disconnected. */
  droppedBytes: number;
  /** Bytes the service asked for again that were no longer in the sent window. */
  unrecoverableBytes: number;
}

export interface QueueResult {
  /** Bytes dropped from the front of the queue by this frame. */
  dropped: number;
  /** The first drop since the queue was last sent: the moment to warn. */
  overflowBegan: boolean;
}

export interface RewindResult {
  /** The offset the ledger went back to (what the service has). */
  offset: number;
  /** Bytes queued again. */
  resent: number;
  /** Bytes the service needs that are no longer in the sent window (0 when none). */
  lost: number;
  /** Where the sent window started (the service needed audio from `offset`). */
  firstRetained: number;
  /** The offset reached before the rewind: an `offset` at or above it re-sends nothing. */
  sentUpTo: number;
}

export class AudioLedger {
  private waiting: Buffer[] = [];
  private waitingBytes = 0;
  private sent: SentFrame[] = [];
  private sentWindowBytes = 0;
  private offset = 0;
  /** `offset` when the last final text of the current service session arrived. */
  private finalOffset = 0;
  private overflowing = false;
  private readonly framer: PcmFramer;
  readonly stats: LedgerStats = { sentBytes: 0, resentBytes: 0, droppedBytes: 0, unrecoverableBytes: 0 };

  /**
   * @param frameBytes size of a frame (even)
   * @param bufferBytes most bytes queued while disconnected (the oldest are dropped beyond it)
   * @param retainBytes least bytes of sent audio kept for re-sending
   */
  constructor(
    frameBytes: number,
    readonly bufferBytes: number,
    readonly retainBytes: number,
  ) {
    this.framer = new PcmFramer(frameBytes);
  }

  /** Bytes waiting to be sent, the partial frame included. */
  get queuedBytes(): number {
    return this.waitingBytes + this.framer.pending;
  }

  /** Frames audio of any chunk size and queues the whole frames (see {@link queue}). */
  push(pcm: Uint8Array, connected: boolean): QueueResult {
    return this.queueAll(this.framer.push(pcm), connected);
  }

  /** Queues the partial frame too (an even number of bytes; an odd last byte waits): before a pause or a stop. */
  pushPartial(connected: boolean): QueueResult {
    const rest = this.framer.flush();
    return this.queueAll(rest ? [rest] : [], connected);
  }

  private queueAll(frames: Buffer[], connected: boolean): QueueResult {
    const r: QueueResult = { dropped: 0, overflowBegan: false };
    for (const f of frames) {
      const one = this.queue(f, connected);
      r.dropped += one.dropped;
      r.overflowBegan ||= one.overflowBegan;
    }
    return r;
  }

  /** The byte offset, in the service session, of the next frame sent. */
  get nextOffset(): number {
    return this.offset;
  }

  /** Queues one frame. While disconnected the queue is bounded; connected, it is sent right away. */
  queue(frame: Buffer, connected: boolean): QueueResult {
    this.waiting.push(frame);
    this.waitingBytes += frame.length;
    if (connected) return { dropped: 0, overflowBegan: false };
    let dropped = 0;
    while (this.waitingBytes > this.bufferBytes && this.waiting.length > 1) {
      const old = this.waiting.shift()!;
      this.waitingBytes -= old.length;
      dropped += old.length;
    }
    if (dropped === 0) return { dropped, overflowBegan: false };
    this.stats.droppedBytes += dropped;
    const overflowBegan = !this.overflowing;
    this.overflowing = true;
    return { dropped, overflowBegan };
  }

  /** Takes the queue to send it, in order: each frame enters the sent window at its offset. */
  takeQueue(): Buffer[] {
    const frames = this.waiting;
    if (frames.length === 0) return frames;
    this.overflowing = false;
    this.waiting = [];
    this.waitingBytes = 0;
    for (const data of frames) {
      this.sent.push({ offset: this.offset, data });
      this.sentWindowBytes += data.length;
      this.offset += data.length;
      this.stats.sentBytes += data.length;
    }
    while (this.sent.length > 1 && this.sentWindowBytes - this.sent[0]!.data.length >= this.retainBytes) {
      this.sentWindowBytes -= this.sent.shift()!.data.length;
    }
    return frames;
  }

  /** A final text (or a `batch.replace`) arrived: the audio sent so far is accounted for by final text. */
  markFinal(): void {
    this.finalOffset = this.offset;
  }

  /** The service resumed the session and has the audio before `offset`: what was sent after it is queued again. */
  resumeAt(offset: number): RewindResult {
    const r = this.rewindTo(offset);
    this.finalOffset = Math.min(this.finalOffset, this.offset);
    return r;
  }

  /**
   * The run continues on a new service session: the audio sent after the old session's last final text is
   * queued again, and offsets start from zero.
   */
  startNewSession(): RewindResult {
    const r = this.rewindTo(this.finalOffset);
    this.sent = [];
    this.sentWindowBytes = 0;
    this.offset = 0;
    this.finalOffset = 0;
    return r;
  }

  /** The audio not confirmed by the service: the sent window, then the queue. */
  pending(): Buffer {
    return Buffer.concat([...this.sent.map((f) => f.data), ...this.waiting]);
  }

  private rewindTo(offset: number): RewindResult {
    const sentUpTo = this.offset;
    const firstRetained = this.sent[0]?.offset ?? sentUpTo;
    if (offset >= sentUpTo) return { offset, resent: 0, lost: 0, firstRetained, sentUpTo };
    const again: Buffer[] = [];
    const keep: SentFrame[] = [];
    for (const f of this.sent) {
      const end = f.offset + f.data.length;
      if (end <= offset) keep.push(f);
      else again.push(f.offset >= offset ? f.data : f.data.subarray(offset - f.offset));
    }
    const lost = Math.max(0, firstRetained - offset);
    const resent = again.reduce((n, b) => n + b.length, 0);
    this.stats.unrecoverableBytes += lost;
    this.stats.resentBytes += resent;
    this.sent = keep;
    this.sentWindowBytes = keep.reduce((n, f) => n + f.data.length, 0);
    this.waiting = [...again, ...this.waiting];
    this.waitingBytes += resent;
    this.offset = offset;
    return { offset, resent, lost, firstRetained, sentUpTo };
  }
}
