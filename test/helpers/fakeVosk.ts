/**
 * A loopback FAKE of Vosk server's WebSocket protocol (alphacep/vosk-server `websocket/asr_server.py`;
 * fakeUpstream.ts says what the fakes are): an optional `{"config": {"sample_rate", "words"}}` text
 * message (the rate defaults to 8000, as the server's does), then binary PCM, each message answered
 * by one JSON message: `{"partial": "…"}`, or `{"result": [{conf, end, start, word}…], "text": "…"}`
 * when its endpointer (400 ms of silence after speech) closes an utterance; `{"eof" : 1}` gets the
 * last result, and the connection ends.
 */
import type { IncomingMessage } from 'node:http';
import { type FakeConnection, FakeServer, type FakeOptions, WordClock } from './fakeUpstream';

const ENDPOINT_MS = 400;

export class FakeVosk extends FakeServer {
  /** Each config message received. */
  readonly configs: Array<Record<string, unknown>> = [];

  constructor(o: FakeOptions) {
    super(o);
  }

  protected scheme(): string {
    return this.o.tls ? 'wss' : 'ws';
  }

  protected accept(conn: FakeConnection, _req: IncomingMessage): void {
    let rate = 8000;
    let clock: WordClock | undefined;
    let utterance: Array<{ word: string; at: number }> = [];
    /** A result; `last`: the one of the eof, after which no audio comes on this connection (the position stays). */
    const result = (last = false): string => {
      const words = utterance.map((u) => ({ conf: 1, start: u.at / 1000, end: u.at / 1000 + 0.3, word: u.word }));
      utterance = [];
      if (!this.o.perConnection && clock && !last) this.committed = { ...clock.cursor };
      return JSON.stringify(words.length ? { result: words, text: words.map((w) => w.word).join(' ') } : { text: '' });
    };
    conn.ws.on('message', (data, binary) => {
      if (conn.stalled) return;
      if (!binary) {
        const s = String(data);
        if (s === '{"eof" : 1}') {
          this.send(conn, result(true));
          conn.ws.close(1000);
          return;
        }
        try {
          const m = JSON.parse(s) as { config?: Record<string, unknown> };
          if (m.config) {
            this.configs.push(m.config);
            if (typeof m.config.sample_rate === 'number') rate = m.config.sample_rate;
          }
        } catch {
          /* the real server would fail on it: ignored here */
        }
        return;
      }
      const pcm = data as Buffer;
      clock ??= new WordClock(this.cursorFor(), rate, this.o);
      this.audioMs += (pcm.length / 2 / rate) * 1000;
      if (!this.onAudio(conn)) return;
      for (const word of clock.feed(pcm)) utterance.push({ word, at: clock.audioMs });
      if (clock.heardVoice && clock.silenceMs >= ENDPOINT_MS) {
        clock.heardVoice = false;
        this.send(conn, result());
      } else {
        this.send(conn, JSON.stringify({ partial: utterance.map((u) => u.word).join(' ') }));
      }
    });
  }
}
