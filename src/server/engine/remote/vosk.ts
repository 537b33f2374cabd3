/**
 * `--engine vosk`: Vosk server's WebSocket protocol (alphacep/vosk-server `websocket/asr_server.py`,
 * read in docs/engines.md): a text message `{"config": {"sample_rate": R, "words": 1}}` first, then
 * binary PCM (s16le mono at R), each message answered by exactly one JSON text message:
 * `{"partial": "…"}` while an utterance goes on, `{"result": [{conf, end, start, word}…], "text": "…"}`
 * when Vosk's own endpointer closes one (`{"text": ""}` for silence). The text message `{"eof" : 1}`
 * (exactly so: the server compares the string) asks for the last result and ends the connection.
 *
 * Vosk has no way to end an utterance on request: {@link UpstreamLink.settle} waits until every
 * message sent has been answered, and the words of a partial that our segmenter has already closed
 * are not given twice when Vosk's result repeats them (remotePort.ts).
 */
import type WebSocket from 'ws';
import {
  type Inbox,
  type UpstreamEvents,
  type UpstreamLink,
  type UpstreamProtocol,
  type UpstreamSettings,
  failure,
  openSocket,
  parseObject,
  sizeOf,
} from './upstream';

const VOSK_EOF = '{"eof" : 1}';

class VoskLink implements UpstreamLink {
  readonly dialect = 'vosk';
  private events: UpstreamEvents | undefined;
  /** End (session bytes) of each message sent and not answered yet, oldest first. */
  private readonly unanswered: number[] = [];
  private sent = 0;
  private answered = 0;
  private settling = false;
  private closed = false;

  private readonly ws: WebSocket;

  constructor(
    private readonly inbox: Inbox,
    readonly rate: number,
    private readonly s: UpstreamSettings,
  ) {
    const ws = (this.ws = inbox.ws);
    ws.send(JSON.stringify({ config: { sample_rate: rate, words: 1 } }));
    ws.on('close', (code) => this.gone(`the recogniser closed the connection (code ${code})`));
    ws.on('error', (e: Error & { code?: string }) => this.gone(failure(e)));
  }

  attach(events: UpstreamEvents): void {
    this.events = events;
    this.inbox.set((data, binary) => this.onMessage(data, binary));
  }

  send(pcm: Buffer): void {
    if (this.closed || pcm.length === 0) return;
    this.sent += pcm.length;
    this.unanswered.push(this.sent);
    this.ws.send(pcm);
  }

  settle(): void {
    this.settling = true;
    if (this.unanswered.length === 0) {
      this.settling = false;
      const covered = this.answered;
      queueMicrotask(() => this.events?.settled(covered));
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.ws.removeAllListeners('close');
    this.ws.on('error', () => undefined);
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(VOSK_EOF);
    setTimeout(() => this.ws.terminate(), 2000).unref();
    this.inbox.set(() => this.ws.close(1000));
  }

  private onMessage(data: WebSocket.RawData, binary: boolean): void {
    if (this.closed) return;
    const ev = this.events;
    ev?.activity();
    const m = binary ? undefined : parseObject(data);
    const covered = this.unanswered.shift();
    if (covered === undefined) {
      this.s.log.warn('recogniser sent a message nobody asked for: ignored', { bytes: sizeOf(data) });
      return;
    }
    this.answered = covered;
    if (!m) {
      this.s.log.warn('recogniser sent a message that is not a JSON object: ignored', { bytes: sizeOf(data) });
    } else if (typeof m.text === 'string') {
      ev?.final(m.text, covered);
    } else if (typeof m.partial === 'string') {
      ev?.partial(m.partial);
    } else {
      this.s.log.warn('recogniser sent an unknown message: ignored', { keys: Object.keys(m).length, bytes: sizeOf(data) });
    }
    if (this.settling && this.unanswered.length === 0) {
      this.settling = false;
      ev?.settled(covered);
    }
  }

  private gone(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.ws.terminate();
    this.events?.lost(reason);
  }
}

export class VoskProtocol implements UpstreamProtocol {
  readonly name = 'vosk';
  constructor(private readonly s: UpstreamSettings) {}

  async open(sampleRate: number): Promise<UpstreamLink> {
    return new VoskLink(await openSocket(this.s), sampleRate, this.s);
  }

  /** Vosk server checks nothing (no credential, one model): reaching it is the whole check. */
  async probe(): Promise<{ dialect: string; rate: undefined }> {
    const inbox = await openSocket(this.s);
    inbox.ws.close(1000);
    return { dialect: 'vosk', rate: undefined };
  }
}
