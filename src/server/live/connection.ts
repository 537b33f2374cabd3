/**
 * One WebSocket of an authorised key: the `configure`-first rule, message parsing and the mapping of
 * every failure to an `error` message followed by the close code of its error code, and the order of
 * what it sends: a message waits for the journal writes of its session queued before it (a networked
 * store, docs/architecture.md), so nothing is sent before it is durable and nothing overtakes it.
 * Session semantics live in session.ts; admission, resume and limits in registry.ts.
 */
import { isUtf8 } from 'node:buffer';
import type { WebSocket } from 'ws';
import {
  type ClientConfig,
  CONTROL_WINDOW_MS,
  type ErrorCode,
  MAX_AUDIO_FRAME_BYTES,
  MAX_CONTROL_MESSAGES,
  MAX_UNSENT_BYTES,
  type OutgoingError,
  type OutgoingMessage,
  closeCodeFor,
  parseClientMessage,
} from '../../protocol';
import { monotonicMs } from '../clock';
import type { ServiceCounters } from '../counters';
import type { ServerLogger } from '../log';
import type { LiveSession } from './session';
import type { SessionPeer } from './sessionTypes';
import { type ApiKey, BackendUnavailableError, type JournalOutcome, unavailableMessage } from '../storage/stores';

/** The journal writes a message must wait for (those of its session queued so far), or undefined when none. */
type Barrier = () => Promise<JournalOutcome> | undefined;

type Outgoing =
  | { message: OutgoingMessage | string; wait: Promise<JournalOutcome> | undefined }
  | { close: { code: number; reason: string }; wait: undefined };

export interface ConnectionHost {
  /** Creates or resumes the connection's session (it may wait for storage and limits). */
  configure(conn: Connection, config: ClientConfig): Promise<void>;
  /** The socket is gone (closed or terminated). */
  closed(conn: Connection): void;
  readonly configureTimeoutMs: number;
  /** Unsent bytes past which a client that does not read is dropped (default MAX_UNSENT_BYTES). */
  readonly maxUnsentBytes?: number;
  /** Where the `error` messages sent are counted (the service's metrics). */
  readonly counters?: ServiceCounters;
}

let nextConnId = 1;

/**
 * What a client may send while its `configure` is handled (before `configured`), in bytes: 10 s of audio at
 * the highest sample rate (48 kHz, 16-bit mono) is 960 000 bytes; this is a little more. Each message counts
 * {@link BACKLOG_MESSAGE_BYTES} more, so that a flood of empty frames is bounded too.
 */
export const MAX_CONFIGURING_BACKLOG_BYTES = 1024 * 1024;
const BACKLOG_MESSAGE_BYTES = 64;

/** RFC 6455 close code for a text frame that is not valid UTF-8 (sent after our PROTOCOL_ERROR). */
const INVALID_UTF8_CLOSE = 1007;

export class Connection implements SessionPeer {
  readonly id = nextConnId++;
  session: LiveSession | undefined;
  /** Last time anything (a frame or a pong) came from the peer. */
  lastSeen = monotonicMs();
  /** Last time the session received audio on this connection, or the connection was attached (monotonic ms). */
  lastAudioAt = monotonicMs();
  /** Last time the service pinged the peer (0: never). */
  lastPing = 0;
  closing = false;
  /** The session is being ended from outside (endSession.ts): what the peer sends is ignored meanwhile. */
  held = false;
  log: ServerLogger;
  private configureTimer: NodeJS.Timeout | undefined;
  /** `configure` is being handled: what arrives meanwhile waits, in order, until it is done. */
  private configuring = false;
  private backlog: Array<{ data: Buffer | Buffer[] | ArrayBuffer; isBinary: boolean }> = [];
  /** What the backlog holds, in bytes (each message counted {@link BACKLOG_MESSAGE_BYTES} more). */
  private backlogBytes = 0;
  /** Arrival times of the latest control messages (at most MAX_CONTROL_MESSAGES). */
  private readonly controlTimes: number[] = [];
  private overflowed = false;
  /** What waits to be sent, in order, behind journal writes (empty with SQLite). */
  private outbox: Outgoing[] = [];
  private sending = false;
  private barrier: Barrier | undefined;

  constructor(
    readonly ws: WebSocket,
    readonly key: ApiKey,
    private readonly host: ConnectionHost,
    log: ServerLogger,
  ) {
    this.log = log.child({ conn: this.id });
    this.configureTimer = setTimeout(() => {
      if (!this.session && !this.closing) {
        this.fail('PROTOCOL_ERROR', `no configure message within ${host.configureTimeoutMs / 1000} s of connecting`);
      }
    }, host.configureTimeoutMs);
    ws.on('message', (data, isBinary) => this.onMessage(data as Buffer | Buffer[] | ArrayBuffer, isBinary));
    ws.on('pong', () => {
      this.lastSeen = monotonicMs();
    });
    ws.on('close', (code) => {
      this.clearTimer();
      this.closing = true;
      this.log.info('connection closed', { code });
      host.closed(this);
    });
    ws.on('error', (e) => this.log.warn('socket error', { error: e.message }));
  }

  get open(): boolean {
    return !this.closing && this.ws.readyState === this.ws.OPEN;
  }

  /** Sends now, or once the journal writes queued before it are done (and after what already waits). */
  send(message: OutgoingMessage | string): void {
    const wait = this.barrier?.();
    if (!wait && this.outbox.length === 0) {
      this.write(message);
      return;
    }
    this.outbox.push({ message, wait });
    void this.sendWaiting();
  }

  private write(message: OutgoingMessage | string): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
    if (this.ws.bufferedAmount > (this.host.maxUnsentBytes ?? MAX_UNSENT_BYTES)) this.notReading();
  }

  /** The client does not read what it is sent: its text is flushed (and persisted), then it is dropped. */
  private notReading(): void {
    if (this.closing || this.overflowed) return;
    this.overflowed = true;
    const bound = this.host.maxUnsentBytes ?? MAX_UNSENT_BYTES;
    this.log.warn('client is not reading: connection dropped', { unsent_bytes: this.ws.bufferedAmount, bound });
    this.fail(
      'PROTOCOL_ERROR',
      `client is not reading: more than ${bound} bytes of messages wait to be sent; resume the session to get them`,
    );
  }

  private async sendWaiting(): Promise<void> {
    if (this.sending) return;
    this.sending = true;
    try {
      while (this.outbox.length) {
        const head = this.outbox[0]!;
        if (head.wait && (await head.wait) === 'abandoned') {
          // The writes will never be made (the session was claimed by another instance, or the store closed at
          // shutdown): what waited for them is not sent; the client resumes and gets it from storage.
          this.log.warn('messages waiting for the journal dropped: the session continues elsewhere', { messages: this.outbox.length });
          this.terminate();
          return;
        }
        this.outbox.shift();
        if ('close' in head) this.closeNow(head.close.code, head.close.reason);
        else this.write(head.message);
      }
    } finally {
      this.sending = false;
    }
  }

  /**
   * Sends `error` and closes with the code's close code. Pending text is flushed first (not lost);
   * with a decoder in a worker, the error follows once the flushed events were sent.
   */
  fail(code: ErrorCode, message: string, opts: { retryAfterMs?: number; flush?: boolean; closeCode?: number } = {}): void {
    if (this.closing) return;
    const s = this.session;
    const finish = (): void => {
      const err: OutgoingError = { type: 'error', code, message, retry_after_ms: Math.max(0, Math.round(opts.retryAfterMs ?? 0)) };
      if (s) err.session_id = s.id;
      this.log.info('error sent', { code, message });
      this.host.counters?.error(code);
      this.send(err);
      this.closeAfterSent(opts.closeCode ?? closeCodeFor(code), code);
    };
    let flushed: Promise<void> | undefined;
    if (s && opts.flush !== false && s.isLive && s.peer === this) {
      try {
        flushed = s.flush({ proofread: false });
      } catch (e) {
        this.log.error('flush before error failed', { error: e });
      }
    }
    this.closing = true; // nothing more is taken from this peer
    if (!flushed) {
      finish();
      return;
    }
    flushed.then(finish, (e: unknown) => {
      this.log.error('flush before error failed', { error: e });
      finish();
    });
  }

  /** Takes nothing more from the peer (its session is being ended from outside); sending goes on. */
  hold(): void {
    this.held = true;
    this.backlog = [];
    this.backlogBytes = 0;
  }

  /** Closes once what waits to be sent is sent. */
  close(code: number, reason = ''): void {
    if (this.closing) return;
    this.closing = true;
    this.closeAfterSent(code, reason);
  }

  private closeAfterSent(code: number, reason: string): void {
    this.clearTimer();
    if (this.outbox.length) this.outbox.push({ close: { code, reason }, wait: undefined });
    else this.closeNow(code, reason);
  }

  private closeNow(code: number, reason: string): void {
    this.ws.close(code, reason.slice(0, 120));
    // A peer that never answers the close handshake is cut off.
    setTimeout(() => this.ws.terminate(), 2000).unref();
  }

  terminate(): void {
    this.closing = true;
    this.clearTimer();
    this.outbox = [];
    this.ws.terminate();
  }

  /** The connection now carries `session`; what it sends waits for `barrier` (the session's journal). */
  attached(session: LiveSession, barrier?: Barrier): void {
    this.clearTimer();
    this.lastAudioAt = monotonicMs();
    this.session = session;
    this.barrier = barrier;
    this.log = this.log.child({ session_id: session.id });
  }

  private clearTimer(): void {
    if (this.configureTimer) clearTimeout(this.configureTimer);
    this.configureTimer = undefined;
  }

  /** Counts one control message; false when it is one too many for the window. */
  private controlAllowed(): boolean {
    const now = monotonicMs();
    const times = this.controlTimes;
    if (times.length === MAX_CONTROL_MESSAGES) {
      if (now - times[0]! < CONTROL_WINDOW_MS) return false;
      times.shift();
    }
    times.push(now);
    return true;
  }

  private onMessage(data: Buffer | Buffer[] | ArrayBuffer, isBinary: boolean): void {
    const now = monotonicMs();
    this.lastSeen = now;
    if (this.closing || this.held) return;
    if (this.configuring) {
      this.queueWhileConfiguring(data, isBinary);
      return;
    }
    try {
      const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
      if (isBinary) this.onAudio(buf, now);
      else if (!isUtf8(buf)) this.fail('PROTOCOL_ERROR', 'text frame is not valid UTF-8', { closeCode: INVALID_UTF8_CLOSE });
      else this.onText(buf.toString('utf8'));
    } catch (e) {
      this.log.error('internal error while handling a message', { error: e });
      this.fail('INTERNAL_ERROR', 'internal error while handling the message; the session can be resumed');
    }
  }

  /**
   * A message that arrived while `configure` is handled (it may wait up to the configure timeout for the
   * stores): kept in order, up to {@link MAX_CONFIGURING_BACKLOG_BYTES} in all; past that, PROTOCOL_ERROR.
   */
  private queueWhileConfiguring(data: Buffer | Buffer[] | ArrayBuffer, isBinary: boolean): void {
    const bytes = Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : data.byteLength;
    this.backlogBytes += bytes + BACKLOG_MESSAGE_BYTES;
    if (this.backlogBytes > MAX_CONFIGURING_BACKLOG_BYTES) {
      this.log.warn('too much sent before configured: connection closed', { backlog_bytes: this.backlogBytes });
      this.backlog = [];
      this.backlogBytes = 0;
      this.fail(
        'PROTOCOL_ERROR',
        `more than ${MAX_CONFIGURING_BACKLOG_BYTES} bytes sent before "configured"; wait for "configured" before sending audio`,
      );
      return;
    }
    this.backlog.push({ data, isBinary });
  }

  private onAudio(buf: Buffer, now: number): void {
    const s = this.session;
    if (!s) {
      this.fail('PROTOCOL_ERROR', 'audio received before configure; send configure first and wait for configured');
      return;
    }
    if (buf.length > MAX_AUDIO_FRAME_BYTES) {
      this.fail('PROTOCOL_ERROR', `audio frame of ${buf.length} bytes is larger than ${MAX_AUDIO_FRAME_BYTES} bytes`);
      return;
    }
    if (buf.length % 2 !== 0) {
      this.fail('PROTOCOL_ERROR', `audio frame of ${buf.length} bytes has an odd length; pcm_s16le frames hold whole 16-bit samples`);
      return;
    }
    if (buf.length === 0) {
      this.log.debug('empty audio frame ignored');
      return;
    }
    this.lastAudioAt = now;
    s.audio(buf, now);
  }

  private onText(text: string): void {
    const parsed = parseClientMessage(text);
    if (!parsed.ok) {
      // A bad configure after the session exists is a protocol error (configure twice), whatever its fields.
      if (this.session && parsed.code === 'CONFIG_ERROR') {
        this.fail('PROTOCOL_ERROR', 'configure received twice; a session is configured once');
        return;
      }
      this.fail(parsed.code, parsed.message);
      return;
    }
    const msg = parsed.value;
    const s = this.session;
    if (msg.type === 'configure') {
      if (s) {
        this.fail('PROTOCOL_ERROR', 'configure received twice; a session is configured once');
        return;
      }
      this.configuring = true;
      this.host
        .configure(this, msg.config ?? {})
        .catch((e: unknown) => {
          if (e instanceof BackendUnavailableError) {
            this.log.warn('configure refused: backend unreachable', { backend: e.backend, retry_after_ms: e.retryAfterMs });
            this.fail('INTERNAL_ERROR', unavailableMessage(e.retryAfterMs), { retryAfterMs: e.retryAfterMs });
            return;
          }
          this.log.error('internal error while configuring the session', { error: e });
          this.fail('INTERNAL_ERROR', 'internal error while handling the message; the session can be resumed');
        })
        .finally(() => {
          this.configuring = false;
          const waiting = this.backlog;
          this.backlog = [];
          this.backlogBytes = 0;
          for (const m of waiting) this.onMessage(m.data, m.isBinary);
        });
      return;
    }
    if (!s) {
      this.fail('PROTOCOL_ERROR', `"${msg.type}" received before configure; configure must be the first message`);
      return;
    }
    if (!this.controlAllowed()) {
      this.fail('PROTOCOL_ERROR', `too many control messages: at most ${MAX_CONTROL_MESSAGES} within ${CONTROL_WINDOW_MS / 1000} s`);
      return;
    }
    if (msg.action === 'stop') {
      s.stop({ reason: 'client stop' }).then(
        (metrics) => {
          if (metrics) this.close(1000, 'stopped');
          else this.log.debug('stop ignored: already stopping or stopped');
        },
        (e: unknown) => {
          this.log.error('internal error while stopping the session', { error: e });
          this.fail('INTERNAL_ERROR', 'internal error while stopping the session; resume it to get its text', { flush: false });
        },
      );
      return;
    }
    s.control(msg.action);
  }
}
