/**
 * How a session reaches its segmenter: in-process ({@link LocalSegmenterPort}, synchronous, for
 * engines as cheap as `simulated`) or in a worker thread (engine/pool.ts, for real decoders). Events
 * are handed to `onEvents` in order, whenever they are produced.
 */
import { performance } from 'node:perf_hooks';
import type { EffectiveConfig } from '../../protocol';
import type { Recognizer } from './recognizer';
import { type ChunkEvent, type SegmentEvent, Segmenter, type SegmenterCheckpoint } from './segmenter';

export interface PortInit {
  sessionId: string;
  config: EffectiveConfig;
  /** Rebuild from a persisted checkpoint (after a restart). */
  restore?: SegmenterCheckpoint;
  /** Segment events, in order, as they are produced. */
  onEvents(events: SegmentEvent[]): void;
  /** The decoder failed: the session cannot go on. */
  onFailure(message: string): void;
  /**
   * A decoder of this process (in-process or in a worker thread) decoded `audioSeconds` of audio in
   * `decodeSeconds` (the metrics' real-time factor; a remote recogniser does not say).
   */
  onDecoded?(audioSeconds: number, decodeSeconds: number): void;
}

export interface SegmenterPort {
  /** Bytes of session audio received (the client re-sends from here after a resume). */
  readonly receivedBytes: number;
  /** Seconds of audio received. */
  readonly audioSeconds: number;
  /** Bytes received but not decoded yet (0 for an in-process segmenter). */
  readonly queuedBytes: number;
  /** Last time (ms since epoch) the decoder reported work for this session, when it runs elsewhere. */
  readonly progressAt?: number;
  push(pcm: Buffer): void;
  /**
   * Finalises every pending chunk (see Segmenter.flush), after the audio already pushed is decoded.
   * Returns undefined when the events were delivered synchronously, else a promise that resolves
   * once they were.
   */
  flush(opts: { proofread: boolean }): Promise<void> | undefined;
  /** The pending (not final) chunks as they stand, oldest first. */
  pendingChunks(): ChunkEvent[];
  /** The checkpoint as of the last events delivered. */
  checkpoint(): SegmenterCheckpoint;
  /** Frees the decoder once the work already asked for is done. */
  close(): void;
}

/**
 * Waits for `work` (a flush of a port) as long as the port shows progress (less audio queued, or a
 * report from its decoder); `stalled` after `stallMs` without any.
 */
export function whileProgressing(port: SegmenterPort, work: Promise<void>, stallMs: number): Promise<'done' | 'stalled'> {
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<'stalled'>((resolve) => {
    let queued = port.queuedBytes;
    let progressAt = Date.now();
    timer = setInterval(() => {
      const now = port.queuedBytes;
      if (now < queued) progressAt = Date.now();
      progressAt = Math.max(progressAt, port.progressAt ?? 0);
      queued = now;
      if (Date.now() - progressAt > stallMs) resolve('stalled');
    }, 250);
  });
  return Promise.race([work.then(() => 'done' as const), stalled]).finally(() => clearInterval(timer));
}

export class LocalSegmenterPort implements SegmenterPort {
  private readonly segmenter: Segmenter;
  private closed = false;
  readonly queuedBytes = 0;

  constructor(
    private readonly init: PortInit,
    private readonly recognizer: Recognizer,
  ) {
    this.segmenter = new Segmenter(init.config, recognizer, init.restore ? { restore: init.restore } : {});
  }

  get receivedBytes(): number {
    return this.segmenter.receivedBytes;
  }

  get audioSeconds(): number {
    return this.segmenter.audioSeconds;
  }

  push(pcm: Buffer): void {
    const t0 = performance.now();
    const events = this.segmenter.push(pcm);
    this.init.onDecoded?.(pcm.length / 2 / this.init.config.sample_rate, (performance.now() - t0) / 1000);
    this.init.onEvents(events);
  }

  flush(opts: { proofread: boolean }): undefined {
    const t0 = performance.now();
    const events = this.segmenter.flush(opts);
    this.init.onDecoded?.(0, (performance.now() - t0) / 1000);
    this.init.onEvents(events);
    return undefined;
  }

  pendingChunks(): ChunkEvent[] {
    return this.segmenter.pendingChunks();
  }

  checkpoint(): SegmenterCheckpoint {
    return this.segmenter.checkpoint();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.recognizer.dispose?.();
  }
}
