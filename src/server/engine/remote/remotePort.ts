/**
 * The session's {@link SegmenterPort} for a remote engine: our segmenter (every rule of
 * docs/protocol.md, in the event loop) over the audio, the upstream's text as its words.
 *
 * Audio goes to the upstream as it arrives. The segmenter gets the same audio, held back at each pause:
 * a shadow of the segmenter's voice-activity detector finds the window where a pause reaches
 * `engine_endpointing` (where the segmenter will end the utterance), the port asks the upstream to
 * settle (realtime: a commit, answered by the utterance's final text; vosk: the answers to every
 * message sent), and feeds that window only once the answer is in. The segmenter's `interim`, `final`
 * and `batch.replace` thus carry the upstream's final words of the utterance; the delay is the
 * upstream's own. A flush is a settle at the head of the audio, then the segmenter's flush.
 *
 * Faults: a lost connection, or a settle unanswered for `stallMs` with no message at all, is
 * reconnected with backoff (200 ms doubling, at most 5 s apart) and fed again the audio since the
 * upstream's last final, whose words already given out are not given twice; after `reconnectMs`
 * without a connection the session fails (INTERNAL_ERROR, its finals kept). Audio held back counts as
 * lag: the engine refuses new sessions while a session lags more than its bound (remoteEngine.ts).
 */
import { autoPunctuationOf, keytermsOf } from '../../../protocol';
import type { ServerLogger } from '../../log';
import { keptWords } from '../sherpa/text';
import { type ChunkEvent, Segmenter, type SegmenterCheckpoint } from '../segmenter';
import type { PortInit, SegmenterPort } from '../segmenterPort';
import { Vad, samplesOf } from '../vad';
import { RemoteRecognizer } from './remoteRecognizer';
import { UpstreamRefusedError, type UpstreamEvents, type UpstreamLink } from './upstream';

interface RemotePortOptions {
  init: PortInit;
  name: string;
  /** The connection opened when the session was admitted (undefined: connect now, as after a loss). */
  link?: UpstreamLink;
  /** A new connection to the upstream. */
  connect(): Promise<UpstreamLink>;
  secondPass?: (pcm: Buffer) => Promise<string>;
  reconnectMs: number;
  stallMs: number;
  log: ServerLogger;
  onClosed(port: RemoteSegmenterPort): void;
}

/** Windows the segmenter is held back from the newest audio, for the upstream's text to ride on (remotePort.pump). */
const HOLD_BACK_WINDOWS = 4;

interface Flush {
  at: number;
  proofread: boolean;
  resolve(): void;
}

export class RemoteSegmenterPort implements SegmenterPort {
  private readonly recognizer: RemoteRecognizer;
  private readonly segmenter: Segmenter;
  private readonly log: ServerLogger;
  private link: UpstreamLink | undefined;
  /** Session offset of the first byte this link was sent. */
  private linkBase: number;
  private received: number;
  private fed: number;
  /** Audio received and not fed to the segmenter yet, from `fed` on. */
  private held: Buffer[] = [];
  /** Audio since the upstream's last final (re-sent to a new connection), from `sinceFinalAt` on. */
  private sinceFinal: Buffer[] = [];
  private sinceFinalAt: number;
  /** Offsets the segmenter must not pass until the upstream has settled up to them, ascending. */
  private barriers: number[] = [];
  private settling = false;
  private settleAskedAt = 0;
  private readonly flushes: Flush[] = [];
  // The shadow of the segmenter's voice-activity detection (same windows, same state).
  private readonly vad: Vad;
  private readonly windowBytes: number;
  private vadRemainder: Buffer = Buffer.alloc(0);
  private vadOffset: number;
  private silenceMs: number;
  private voicedSinceBarrier = false;
  // Connection state.
  private lostAt: number | undefined;
  private attempts = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private readonly stallTimer: NodeJS.Timeout;
  private closed = false;
  private failed = false;
  progressAt = Date.now();

  constructor(private readonly o: RemotePortOptions) {
    const init = o.init;
    this.log = o.log;
    const keyterms = keytermsOf(init.config);
    this.recognizer = new RemoteRecognizer(o.name, {
      ...(o.secondPass ? { secondPass: o.secondPass } : {}),
      autoPunctuation: autoPunctuationOf(init.config),
      ...(keyterms.length ? { keep: keptWords(keyterms) } : {}),
    });
    const restore = init.restore;
    this.segmenter = new Segmenter(init.config, this.recognizer, {
      ...(restore ? { restore } : {}),
      onLateEvents: (events) => this.deliver(events),
    });
    this.received = this.fed = this.sinceFinalAt = this.vadOffset = this.linkBase = restore?.audioOffset ?? 0;
    this.vad = new Vad(restore?.vad);
    this.silenceMs = restore?.silenceMs ?? 0;
    this.windowBytes = Vad.windowBytes(init.config.sample_rate);
    this.stallTimer = setInterval(() => this.checkStall(), 250);
    this.stallTimer.unref();
    if (o.link) this.use(o.link, false);
    else this.lose('no connection yet');
  }

  get receivedBytes(): number {
    return this.received;
  }

  get audioSeconds(): number {
    return this.received / 2 / this.o.init.config.sample_rate;
  }

  get queuedBytes(): number {
    return this.failed ? 0 : this.received - this.fed;
  }

  get queuedMs(): number {
    return (this.queuedBytes / 2 / this.o.init.config.sample_rate) * 1000;
  }

  push(pcm: Buffer): void {
    if (this.closed || this.failed || pcm.length === 0) return;
    const copy = Buffer.from(pcm);
    this.received += copy.length;
    this.held.push(copy);
    this.sinceFinal.push(copy);
    this.link?.send(copy);
    this.shadowVad(copy);
    this.pump();
  }

  flush(opts: { proofread: boolean }): Promise<void> | undefined {
    if (this.closed || this.failed) return undefined;
    return new Promise<void>((resolve) => {
      this.flushes.push({ at: this.received, proofread: opts.proofread, resolve });
      this.addBarrier(this.received);
      this.pump();
    });
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
    this.stop();
    for (const f of this.flushes.splice(0)) f.resolve(); // nobody waits on a closed port
    this.o.onClosed(this);
  }

  // ------------------------------------------------------------------ internals

  private deliver(events: ReturnType<Segmenter['push']>): void {
    if (events.length && !this.failed) this.o.init.onEvents(events);
  }

  /** Runs the segmenter's pause rule on the audio as it arrives; a pause that ends an utterance is a barrier. */
  private shadowVad(pcm: Buffer): void {
    const buf = this.vadRemainder.length ? Buffer.concat([this.vadRemainder, pcm]) : pcm;
    const samples = samplesOf(buf);
    this.vad.frame(samples);
    const endpointMs = this.o.init.config.engine_endpointing * 1000;
    let off = 0;
    for (; buf.length - off >= this.windowBytes; off += this.windowBytes) {
      const voiced = this.vad.windowOf(samples, off >> 1, this.windowBytes >> 1);
      if (voiced) {
        this.silenceMs = 0;
        this.voicedSinceBarrier = true;
      } else {
        this.silenceMs += 20;
        if (this.voicedSinceBarrier && this.silenceMs >= endpointMs) {
          this.voicedSinceBarrier = false;
          this.addBarrier(this.vadOffset + off);
        }
      }
    }
    this.vadOffset += off;
    this.vadRemainder = off === buf.length ? Buffer.alloc(0) : Buffer.from(buf.subarray(off));
  }

  private addBarrier(at: number): void {
    if (!this.barriers.includes(at)) {
      this.barriers.push(at);
      this.barriers.sort((a, b) => a - b);
    }
    this.askSettle();
  }

  private askSettle(): void {
    if (this.settling || !this.link || this.barriers.length === 0) return;
    this.settling = true;
    this.settleAskedAt = Date.now();
    this.link.settle();
  }

  /**
   * Feeds the segmenter up to the first barrier not settled yet, less the last {@link HOLD_BACK_WINDOWS}
   * windows (none while a flush waits); answers the flushes reached. With `oneMore` (new text from the
   * upstream), one held-back window more: it carries the text to the segmenter at once, not at the next
   * frame (the segmenter reads its recogniser's words at each window).
   */
  private pump(oneMore = false): void {
    const cap = Math.min(this.barriers[0] ?? Infinity, this.received);
    let limit = this.flushes.length ? cap : Math.min(cap, this.received - HOLD_BACK_WINDOWS * this.windowBytes);
    if (oneMore) limit = Math.min(cap, Math.max(limit, this.fed + this.windowBytes));
    if (limit > this.fed) {
      let want = limit - this.fed;
      const parts: Buffer[] = [];
      while (want > 0 && this.held.length) {
        const b = this.held[0]!;
        if (b.length <= want) {
          parts.push(b);
          this.held.shift();
          want -= b.length;
        } else {
          parts.push(b.subarray(0, want));
          this.held[0] = b.subarray(want);
          want = 0;
        }
      }
      const pcm = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
      this.fed += pcm.length;
      this.progressAt = Date.now();
      const events = this.guarded(() => this.segmenter.push(pcm));
      if (!events) return;
      this.deliver(events);
    }
    while (this.flushes.length && this.flushes[0]!.at <= this.fed && (this.barriers[0] ?? Infinity) > this.flushes[0]!.at) {
      const f = this.flushes.shift()!;
      const events = this.guarded(() => this.segmenter.flush({ proofread: f.proofread }));
      if (!events) return f.resolve();
      this.deliver(events);
      void this.segmenter.proofreadingDone().then(f.resolve, f.resolve);
    }
  }

  /** The segmenter's answer; a segmenter that throws ends only this session (as a decoder that throws in the pool). */
  private guarded(work: () => ReturnType<Segmenter['push']>): ReturnType<Segmenter['push']> | undefined {
    try {
      return work();
    } catch (e) {
      this.fail(`the segmenter failed: ${e instanceof Error ? e.message : String(e)}`);
      return undefined;
    }
  }

  private events(link: UpstreamLink): UpstreamEvents {
    const mine = (): boolean => this.link === link && !this.closed && !this.failed;
    return {
      partial: (text) => {
        if (!mine()) return;
        this.recognizer.upstreamPartial(text);
        this.pump(true);
      },
      final: (text, covered) => {
        if (!mine()) return;
        this.recognizer.upstreamFinal(text);
        this.trimSinceFinal(this.linkBase + covered);
        this.pump(true);
      },
      settled: (covered) => {
        if (!mine()) return;
        this.settling = false;
        const upTo = this.linkBase + covered;
        while (this.barriers.length && this.barriers[0]! <= upTo) this.barriers.shift();
        this.pump();
        this.askSettle();
      },
      activity: () => {
        if (mine()) this.progressAt = Date.now();
      },
      lost: (reason, refused) => {
        if (!mine()) return;
        if (refused) this.fail(reason);
        else this.lose(reason);
      },
    };
  }

  private trimSinceFinal(upTo: number): void {
    while (this.sinceFinal.length && this.sinceFinalAt < upTo) {
      const b = this.sinceFinal[0]!;
      const drop = Math.min(b.length, upTo - this.sinceFinalAt);
      if (drop === b.length) this.sinceFinal.shift();
      else this.sinceFinal[0] = b.subarray(drop);
      this.sinceFinalAt += drop;
    }
  }

  private use(link: UpstreamLink, resend: boolean): void {
    this.link = link;
    this.linkBase = this.sinceFinalAt;
    link.attach(this.events(link));
    if (resend) for (const b of this.sinceFinal) link.send(b);
    this.askSettle();
  }

  /** A settle unanswered, and no message at all, for `stallMs`: the connection is given up and made again. */
  private checkStall(): void {
    if (!this.settling || !this.link) return;
    const quiet = Date.now() - Math.max(this.settleAskedAt, this.progressAt);
    if (quiet >= this.o.stallMs) this.lose(`the recogniser answered nothing for ${quiet} ms`);
  }

  private lose(reason: string): void {
    if (this.closed || this.failed) return;
    const first = this.lostAt === undefined;
    this.lostAt ??= Date.now();
    this.link?.close();
    this.link = undefined;
    this.settling = false;
    this.recognizer.upstreamRestart();
    if (first && reason !== 'no connection yet') {
      this.log.warn('recogniser connection lost: reconnecting', {
        reason,
        resend_ms: Math.round(((this.received - this.sinceFinalAt) / 2 / this.o.init.config.sample_rate) * 1000),
      });
    }
    this.reconnectLater(first && reason === 'no connection yet' ? 0 : undefined);
  }

  private reconnectLater(delayMs?: number): void {
    const delay = delayMs ?? Math.min(5000, 200 * 2 ** this.attempts++);
    const since = Date.now() - (this.lostAt ?? Date.now());
    if (since + delay > this.o.reconnectMs) {
      this.fail(`the speech recogniser has been unreachable for ${since} ms`);
      return;
    }
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.reconnect();
    }, delay);
  }

  private async reconnect(): Promise<void> {
    let link: UpstreamLink;
    try {
      link = await this.o.connect();
    } catch (e) {
      if (this.closed || this.failed) return;
      if (e instanceof UpstreamRefusedError) return this.fail(e.message);
      this.log.debug('recogniser still unreachable', { attempt: this.attempts, reason: e instanceof Error ? e.message : String(e) });
      this.reconnectLater();
      return;
    }
    if (this.closed || this.failed) return link.close();
    const downMs = Date.now() - (this.lostAt ?? Date.now());
    this.lostAt = undefined;
    this.attempts = 0;
    this.use(link, true);
    this.log.info('recogniser connection restored', {
      down_ms: downMs,
      resent_ms: Math.round(((this.received - this.sinceFinalAt) / 2 / this.o.init.config.sample_rate) * 1000),
    });
  }

  private fail(message: string): void {
    if (this.failed) return;
    this.stop();
    this.o.init.onFailure(message);
    this.failed = true;
    for (const f of this.flushes.splice(0)) f.resolve();
  }

  private stop(): void {
    clearInterval(this.stallTimer);
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.link?.close();
    this.link = undefined;
  }
}
