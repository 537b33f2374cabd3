/**
 * The engine-independent segmenter: turns PCM into transcript chunk events. Pure (no sockets, no
 * timers, no clock): feed PCM with {@link Segmenter.push}, call {@link Segmenter.flush} when a timer
 * says so, get events back. Time is audio time (20 ms VAD windows), so a given PCM always gives the
 * same events.
 *
 * - Words from the engine go into the current chunk (`streaming`, one event each time the engine's
 *   open utterance changes: a decoder may revise words it gave before).
 * - A pause ≥ `engine_endpointing` turns the current chunk `interim`; the next word starts a new chunk.
 * - A chunk never holds more than `audio_duration_threshold` of audio: it is turned `interim` and the
 *   next word starts a new chunk.
 * - A pause ≥ `silence_threshold` ends the sentence: every pending chunk becomes `final` (one event
 *   per chunk, same id), then, with `enable_final_proofreading`, one `batch.replace` whose targets are
 *   the sentence's final chunks and whose new chunk (new id, index of the first target) is the
 *   proofread sentence.
 * - At most `max_buffer_size` chunks are pending (not final); beyond, the oldest become `final`.
 * - A sentence that reaches 16 final chunks without a long pause is closed (proofread) there.
 * - Closing the current chunk ends the engine's utterance; the utterance's final words replace the
 *   chunk's (its `interim` or `final` event carries them).
 * - `flush()` (flush timeout, stop, shutdown, errors) finalises every pending chunk.
 *
 * Events that are `final` or `batch.replace` are durable and carry a checkpoint: the state from which
 * the session can be rebuilt after a restart, given the audio from `checkpoint.audioOffset` on.
 */
import { randomUUID } from 'node:crypto';
import { type ChunkStatus, detailsOf } from '../../protocol';
import { type Proofread, type RecognizedWord, type Recognizer, type UtteranceWords, sentenceCase } from './recognizer';
import { keptWords } from './details';
import {
  type ChunkEvent,
  MAX_SENTENCE_CHUNKS,
  NO_EVENTS,
  type PendingChunk,
  type SegmentEvent,
  type SegmenterConfig,
  type SegmenterOptions,
  chunkEventOf,
  replaceEventOf,
  sameText,
} from './segmentEvents';
import { type SegmenterCheckpoint, type SentenceChunk, type WordMark, checkpointOf, copySentence } from './segmenterCheckpoint';
import { VAD_WINDOW_MS, Vad, type VoiceDetector, samplesOf } from './vad';

/** The rest of the service takes the checkpoint's and the events' types from the segmenter. */
export type { SegmenterCheckpoint } from './segmenterCheckpoint';
export { type ChunkEvent, MAX_SENTENCE_CHUNKS, type ReplaceEvent, type SegmentEvent } from './segmentEvents';

const EMPTY = Buffer.alloc(0);

export class Segmenter {
  private readonly vad: VoiceDetector;
  /** State before the first window of the engine's open utterance (undefined: none open). */
  private utteranceStart: WordMark | undefined;
  private readonly windowBytes: number;
  /** The recognizer never reads a window's samples: it gets {@link EMPTY}, not a view per window. */
  private readonly ignoresAudio: boolean;
  private remainder: Buffer = EMPTY;
  private processed = 0;
  private silenceMs = 0;
  private sentenceEnded = true;
  private nextIndex = 0;
  private pending: PendingChunk[] = [];
  private current: PendingChunk | undefined;
  private sentence: SentenceChunk[] = [];
  private events: SegmentEvent[] = [];
  private voicedMsTotal = 0;

  constructor(
    private readonly config: SegmenterConfig,
    private readonly recognizer: Recognizer,
    opts: SegmenterOptions = {},
  ) {
    this.newId = opts.newId ?? randomUUID;
    this.onLateEvents = opts.onLateEvents;
    this.windowBytes = Vad.windowBytes(config.sample_rate);
    this.ignoresAudio = recognizer.ignoresAudio === true;
    this.opensAtFirstWord = recognizer.resumeFrom === 'first-word';
    this.defersMark = recognizer.releasesOnlyWhenVoiced === true;
    this.endpointMs = config.engine_endpointing * 1000;
    this.sentenceSilenceMs = config.silence_threshold * 1000;
    this.maxChunkMs = config.audio_duration_threshold * 1000;
    this.details = detailsOf(config);
    const r = opts.restore;
    this.baseMs = ((r?.audioOffset ?? 0) / 2 / config.sample_rate) * 1000;
    this.vad = opts.detector ?? new Vad(r?.vad);
    if (r) {
      recognizer.restore(r.engine);
      this.processed = r.audioOffset;
      this.silenceMs = r.silenceMs;
      this.sentenceEnded = r.sentenceEnded;
      this.nextIndex = r.nextIndex;
      this.sentence = copySentence(r.sentence);
    }
  }

  private readonly newId: () => string;
  private readonly details: boolean;
  // What every window reads, read once here from the configuration and the recognizer (fields of this
  // class, not properties of the parsed configuration: a few less lookups 50 times a second per session).
  private readonly opensAtFirstWord: boolean;
  private readonly defersMark: boolean;
  private readonly endpointMs: number;
  private readonly sentenceSilenceMs: number;
  private readonly maxChunkMs: number;
  /** Where the recognizer's clock (the audio fed to it) starts in the session's audio, in ms. */
  private readonly baseMs: number;
  private readonly onLateEvents: ((events: SegmentEvent[]) => void) | undefined;
  /** Proofreadings the engine has not finished. */
  private readonly proofreading = new Set<Promise<void>>();

  /** Bytes of audio received (processed windows plus the partial window held back). */
  get receivedBytes(): number {
    return this.processed + this.remainder.length;
  }

  /** Seconds of audio analysed. */
  get audioSeconds(): number {
    return this.processed / 2 / this.config.sample_rate;
  }

  /** Milliseconds of voiced windows seen by this segmenter (not restored across restarts). */
  get voicedMs(): number {
    return this.voicedMsTotal;
  }

  /** Feeds PCM (s16le mono, even length). */
  push(pcm: Buffer): SegmentEvent[] {
    if (pcm.length % 2 !== 0) throw new RangeError('PCM must have an even number of bytes');
    const buf = this.remainder.length ? Buffer.concat([this.remainder, pcm]) : pcm;
    let off = 0;
    // One view of the samples for every window of the frame (the VAD reads them in place).
    const samples = buf.length >= this.windowBytes ? samplesOf(buf) : undefined;
    if (samples) this.vad.frame?.(samples);
    while (buf.length - off >= this.windowBytes) {
      this.step(buf, off, samples!);
      off += this.windowBytes;
    }
    this.remainder = off === buf.length ? EMPTY : Buffer.from(buf.subarray(off));
    return this.take();
  }

  /**
   * Finalises every pending chunk. With `proofread` (and `enable_final_proofreading`), the sentence
   * is then proofread with one `batch.replace`. Without it, the sentence stays open so a resumed
   * session proofreads it later.
   */
  flush(opts: { proofread: boolean }): SegmentEvent[] {
    this.endUtterance();
    while (this.pending.length) this.finalizeOldest();
    if (opts.proofread) this.endSentence();
    return this.take();
  }

  /** The pending (not final) chunks as they stand, oldest first. */
  pendingChunks(): ChunkEvent[] {
    return this.pending.map((c) => this.chunkEvent(c, c.status));
  }

  /** The checkpoint as of now (the same rule as the checkpoints carried by durable events). */
  checkpoint(): SegmenterCheckpoint {
    const { silenceMs, sentenceEnded, nextIndex, sentence } = this;
    return checkpointOf({ silenceMs, sentenceEnded, nextIndex, sentence }, () => this.mark(), this.pending[0]?.start);
  }

  // ------------------------------------------------------------------ internals

  private take(): SegmentEvent[] {
    // Most windows produce nothing: the same empty (frozen) array, not a new one per frame.
    if (this.events.length === 0) return NO_EVENTS;
    const out = this.events;
    this.events = [];
    return out;
  }

  private step(buf: Buffer, off: number, samples: Int16Array): void {
    // State before this window: where a resumed session restarts to release this window's words again.
    // Taken only when this window can start an utterance or open a chunk (not while one is open: most
    // windows), so the steady stream of windows allocates nothing here.
    // An engine that releases words only on voiced windows (`releasesOnlyWhenVoiced`) opens no chunk in a
    // pause: its state before a window is taken once the window is known voiced, from the parts that the
    // voice-activity decision changes (the offset, the detector's state) kept before it.
    const opens = !this.current && this.opensAtFirstWord;
    const deferred = opens && this.utteranceStart !== undefined && this.defersMark;
    let before = this.utteranceStart === undefined || (opens && !deferred) ? this.mark() : undefined;
    // The energy detector's state is its noise floor, a number: kept without an object for every window.
    const floorBefore = deferred ? this.vad.noiseFloorDb : undefined;
    const vadBefore = deferred && floorBefore === undefined ? this.vad.state() : undefined;
    const offsetBefore = this.processed;
    const voiced = this.vad.windowOf(samples, off >> 1, this.windowBytes >> 1);
    // The engine has not seen this window yet: its checkpoint is still the one from before it.
    if (deferred && voiced) {
      before = { offset: offsetBefore, engine: this.recognizer.checkpoint(), vad: vadBefore ?? { noiseFloorDb: floorBefore! } };
    }
    this.processed += this.windowBytes;
    this.utteranceStart ??= before;
    const window = this.ignoresAudio ? EMPTY : buf.subarray(off, off + this.windowBytes);
    const words = this.recognizer.push(window, voiced, VAD_WINDOW_MS);
    if (this.current) this.current.audioMs += VAD_WINDOW_MS;
    if (voiced) {
      this.voicedMsTotal += VAD_WINDOW_MS;
      this.silenceMs = 0;
      this.sentenceEnded = false;
    } else {
      this.silenceMs += VAD_WINDOW_MS;
    }
    if (words) this.revise(words, before);
    const cur = this.current;
    const endpoint = !voiced && this.silenceMs >= this.endpointMs;
    if (cur && cur.audioMs >= this.maxChunkMs) this.toInterim(cur);
    else if (cur && endpoint) this.toInterim(cur);
    else if (!cur && endpoint && this.silenceMs < this.endpointMs + VAD_WINDOW_MS) {
      // A pause with no word out yet: the engine's last look at the utterance may still find one.
      this.endUtterance();
      if (this.current) this.toInterim(this.current);
    }
    if (!voiced && !this.sentenceEnded && this.silenceMs >= this.sentenceSilenceMs) {
      this.endUtterance();
      while (this.pending.length) this.finalizeOldest();
      this.endSentence();
    }
  }

  private mark(): WordMark {
    return { offset: this.processed, engine: this.recognizer.checkpoint(), vad: this.vad.state() };
  }

  /**
   * The open utterance's words are now `words`: they make the current chunk (opened if needed).
   * `before`: the state before this window, taken whenever a chunk can open here (see `step`).
   */
  private revise(words: RecognizedWord[], before: WordMark | undefined): void {
    if (!this.current && words.length === 0) return;
    const start = this.recognizer.resumeFrom === 'utterance-start' ? (this.utteranceStart ?? before) : before;
    if (!this.current && !start) throw new Error('segmenter: no mark to open a chunk from');
    const chunk = this.current ?? this.openChunk(start!);
    const was = chunk.words;
    chunk.words = keptWords(words, this.details, this.baseMs, was);
    // The same raw words: the same text, no event (else the texts compared, as a word may hold a space).
    if (!sameText(was, chunk.words)) this.events.push(this.chunkEvent(chunk, 'streaming'));
  }

  /**
   * Ends the engine's open utterance. Its final words replace the current chunk's, or open one when
   * the engine finds words it had not shown yet. The current chunk is then no longer current.
   */
  private endUtterance(): void {
    if (this.utteranceStart === undefined) {
      this.current = undefined;
      return;
    }
    const start = this.utteranceStart;
    this.utteranceStart = undefined;
    const words: UtteranceWords = this.recognizer.endUtterance(this.details);
    const opened = !this.current && words.length ? this.openChunk(start) : undefined;
    const chunk = this.current ?? opened;
    if (!chunk) return;
    chunk.words = keptWords(words, this.details, this.baseMs);
    chunk.alternatives = words.alternatives;
    if (opened) this.events.push(this.chunkEvent(opened, 'streaming'));
  }

  private openChunk(start: WordMark): PendingChunk {
    const chunk: PendingChunk = { id: this.newId(), index: this.nextIndex++, status: 'streaming', words: [], start, audioMs: 0 };
    this.pending.push(chunk);
    this.current = chunk;
    // At most max_buffer_size pending: the oldest go final. The new chunk is already pending, so the
    // checkpoints of those finals go back to its start (its word is not final yet).
    while (this.pending.length > this.config.max_buffer_size) this.finalizeOldest();
    return chunk;
  }

  private toInterim(chunk: PendingChunk): void {
    if (this.current === chunk) this.endUtterance();
    chunk.status = 'interim';
    this.events.push(this.chunkEvent(chunk, 'interim'));
    if (this.current === chunk) this.current = undefined;
  }

  private finalizeOldest(): void {
    if (this.current === this.pending[0]) this.endUtterance();
    const chunk = this.pending.shift();
    if (!chunk) return;
    if (this.current === chunk) this.current = undefined;
    this.sentence.push({ id: chunk.id, index: chunk.index, words: chunk.words });
    const ev: SegmentEvent = this.chunkEvent(chunk, 'final');
    ev.checkpoint = this.checkpoint();
    this.events.push(ev);
    // Someone who never pauses long enough still gets proofread text, and checkpoints stay small.
    if (this.sentence.length >= MAX_SENTENCE_CHUNKS) this.endSentence({ pauseEnded: false });
  }

  private endSentence(opts: { pauseEnded: boolean } = { pauseEnded: true }): void {
    if (opts.pauseEnded) this.sentenceEnded = true;
    const sentence = this.sentence;
    this.sentence = [];
    const words = sentence.flatMap((c) => c.words);
    if (!this.config.enable_final_proofreading || sentence.length === 0) {
      void this.recognizer.endSentence(words, false);
      return;
    }
    const proofread = this.recognizer.endSentence(words, true, this.details);
    if (proofread instanceof Promise) {
      // Finished later (a whole-sentence re-decode): the finals go out now, the replacement when ready.
      const late = this.onLateEvents;
      if (!late) throw new Error(`the ${this.recognizer.name} engine proofreads later, and this segmenter has no onLateEvents`);
      const done: Promise<void> = proofread
        // A failed second pass leaves the first pass, with a capital and a final period.
        .catch(() => sentenceCase(words.map((w) => w.raw)))
        .then((p) => late([this.replaceEvent(sentence, p)]))
        .finally(() => this.proofreading.delete(done));
      this.proofreading.add(done);
      return;
    }
    this.events.push(this.replaceEvent(sentence, proofread ?? ''));
  }

  private replaceEvent(sentence: SentenceChunk[], proofread: Proofread): SegmentEvent {
    const ev = replaceEventOf(sentence, proofread, { details: this.details, baseMs: this.baseMs, newId: this.newId });
    ev.checkpoint = this.checkpoint();
    return ev;
  }

  /** Sentences whose proofreading the engine has not finished yet. */
  get proofreadingPending(): number {
    return this.proofreading.size;
  }

  /** Resolves when every proofreading the engine finishes later has handed in its event. */
  async proofreadingDone(): Promise<void> {
    while (this.proofreading.size) await Promise.all([...this.proofreading]);
  }

  private chunkEvent(chunk: PendingChunk, status: ChunkStatus): ChunkEvent {
    return chunkEventOf(chunk, status, this.details);
  }
}
