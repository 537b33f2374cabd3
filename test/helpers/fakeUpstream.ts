/**
 * What the loopback FAKE recognisers (fakeRealtime.ts, fakeVosk.ts) share. They recognise nothing:
 * they release the words of a recorded transcript (the LibriVox references of recordings.ts) one per
 * `msPerWord` of voiced audio they receive (an energy threshold on 20 ms windows at the rate they
 * expect), so the words a client must end up with are known exactly. Where the transcript stands at
 * the last final is kept across connections: audio sent again after a reconnection releases the same
 * words again, as a real recogniser would recognise them again.
 *
 * On command they misbehave: refuse the credential, go down, drop the connection or stall after N
 * audio messages, answer slowly, send garbage and unknown events, send an enormous message.
 */
import { type IncomingMessage, createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';

export type FakeAuth = 'bearer' | 'api-key';

/** The request carries `key` in the header of `auth`, and only there (Azure OpenAI's `api-key`, or a bearer token). */
export function hasKey(req: IncomingMessage, key: string, auth: FakeAuth = 'bearer'): boolean {
  if (auth === 'api-key') return req.headers['api-key'] === key && req.headers.authorization === undefined;
  return req.headers.authorization === `Bearer ${key}` && req.headers['api-key'] === undefined;
}

export interface Misbehaviour {
  /** Answer the upgrade with HTTP 401 unless the key is in the header of `auth` (when a key is set). */
  key?: string;
  /** Where the key is expected: `Authorization: Bearer <key>` (default), or Azure OpenAI's `api-key: <key>`. */
  auth?: FakeAuth;
  /** Close the connection (terminate) after this many audio messages, once. */
  dropAfter?: number;
  /** Stop answering (the socket stays open) after this many audio messages, once per connection. */
  stallAfter?: number;
  /** Delay every message sent by this long. */
  slowMs?: number;
  /** Send garbage, an unknown event and a malformed one every this many audio messages. */
  garbageEvery?: number;
  /** Send one 2 MiB message after this many audio messages, once. */
  hugeAfter?: number;
}

export interface FakeOptions extends Misbehaviour {
  /** The words to release, in order. */
  words: string[];
  /** Voiced audio per released word (see {@link voicedMs}). */
  msPerWord: number;
  /** Each connection starts the transcript from the start (many sessions at once: the bench). */
  perConnection?: boolean;
  /** TLS: serve wss:// with this key and certificate (PEM). */
  tls?: { key: string; cert: string };
  port?: number;
}

/** RMS of a 20 ms window above this (about -40 dBFS) is voiced, for the fakes. */
const VOICED_RMS = 330;

/** Voiced milliseconds in `pcm` at `rate`, as the fakes count them. */
export function voicedMs(pcm: Buffer, rate: number): number {
  const win = Math.round(rate / 50);
  let ms = 0;
  for (let off = 0; off + win * 2 <= pcm.length; off += win * 2) if (rmsOf(pcm, off, win) > VOICED_RMS) ms += 20;
  return ms;
}

function rmsOf(pcm: Buffer, off: number, n: number): number {
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const s = pcm.readInt16LE(off + i * 2);
    sum += s * s;
  }
  return Math.sqrt(sum / n);
}

/** A transcript position: words released and voiced time heard. */
export interface Cursor {
  word: number;
  voicedMs: number;
}

/** Counts voiced windows of the audio of one connection and releases words. */
export class WordClock {
  private rest = Buffer.alloc(0);
  /** Milliseconds of audio received on this connection. */
  audioMs = 0;
  /** The current run of unvoiced windows, ms. */
  silenceMs = 0;
  heardVoice = false;

  constructor(
    readonly cursor: Cursor,
    private readonly rate: number,
    private readonly o: FakeOptions,
  ) {}

  /** Feeds audio; returns the words released by it. */
  feed(pcm: Buffer): string[] {
    const buf = this.rest.length ? Buffer.concat([this.rest, pcm]) : pcm;
    const win = Math.round(this.rate / 50);
    const out: string[] = [];
    let off = 0;
    for (; off + win * 2 <= buf.length; off += win * 2) {
      this.audioMs += 20;
      if (rmsOf(buf, off, win) <= VOICED_RMS) {
        this.silenceMs += 20;
        continue;
      }
      this.silenceMs = 0;
      this.heardVoice = true;
      this.cursor.voicedMs += 20;
      while (this.cursor.word < this.o.words.length && this.cursor.voicedMs >= (this.cursor.word + 1) * this.o.msPerWord)
        out.push(this.o.words[this.cursor.word++]!);
    }
    this.rest = Buffer.from(buf.subarray(off));
    return out;
  }
}

export interface FakeConnection {
  ws: WebSocket;
  /** Audio messages received on this connection. */
  frames: number;
  stalled: boolean;
}

/** The socket side of a fake: server, misbehaviour, counters. Subclasses speak the protocol. */
export abstract class FakeServer {
  url = '';
  /** The transcript position as of the last final (shared by connections unless perConnection). */
  committed: Cursor = { word: 0, voicedMs: 0 };
  connections = 0;
  /** Audio received, in ms at the rate the fake expects, over all connections. */
  audioMs = 0;
  private dropped = false;
  private stalledOnce = false;
  private huge = false;
  private readonly sockets = new Set<WebSocket>();
  private server: ReturnType<typeof createHttpServer> | undefined;
  private wss: WebSocketServer | undefined;

  constructor(readonly o: FakeOptions) {}

  protected abstract scheme(): string;
  protected abstract accept(conn: FakeConnection, req: IncomingMessage): void;

  async start(port = this.o.port ?? 0): Promise<this> {
    const server = this.o.tls ? createHttpsServer({ key: this.o.tls.key, cert: this.o.tls.cert }) : createHttpServer();
    const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 * 1024 });
    server.on('upgrade', (req, socket, head) => {
      if (this.o.key !== undefined && !hasKey(req, this.o.key, this.o.auth)) {
        socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => {
        this.connections++;
        this.sockets.add(ws);
        ws.on('close', () => this.sockets.delete(ws));
        ws.on('error', () => undefined);
        this.accept({ ws, frames: 0, stalled: false }, req);
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.wss = wss;
    this.url = `${this.scheme()}://127.0.0.1:${(server.address() as AddressInfo).port}${this.path()}`;
    return this;
  }

  get port(): number {
    return Number(new URL(this.url).port);
  }

  protected path(): string {
    return '';
  }

  /** Down: every connection cut, the port closed. */
  async stop(): Promise<void> {
    for (const ws of this.sockets) ws.terminate();
    this.wss?.close();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }

  /** A transcript position for a new connection. */
  protected cursorFor(): Cursor {
    return this.o.perConnection ? { word: 0, voicedMs: 0 } : { ...this.committed };
  }

  /** An audio message came: counts it and misbehaves if told to. Returns false when the fake must not answer. */
  protected onAudio(conn: FakeConnection): boolean {
    conn.frames++;
    const o = this.o;
    if (o.dropAfter !== undefined && !this.dropped && conn.frames >= o.dropAfter) {
      this.dropped = true;
      conn.ws.terminate();
      return false;
    }
    if (o.stallAfter !== undefined && !this.stalledOnce && conn.frames >= o.stallAfter) {
      this.stalledOnce = true;
      conn.stalled = true;
    }
    if (conn.stalled) return false;
    if (o.garbageEvery !== undefined && conn.frames % o.garbageEvery === 0) {
      this.send(conn, 'this is not JSON {');
      this.send(conn, JSON.stringify({ type: 'fake.unknown_event', secret_words: 'never logged' }));
      this.send(conn, JSON.stringify([1, 2, 3]));
    }
    if (o.hugeAfter !== undefined && !this.huge && conn.frames >= o.hugeAfter) {
      this.huge = true;
      this.send(conn, JSON.stringify({ type: 'fake.huge', padding: 'x'.repeat(2 * 1024 * 1024) }));
    }
    return true;
  }

  protected send(conn: FakeConnection, text: string): void {
    const go = (): void => {
      if (conn.ws.readyState === WebSocket.OPEN) conn.ws.send(text);
    };
    if (this.o.slowMs) setTimeout(go, this.o.slowMs);
    else go();
  }
}
