/**
 * A loopback FAKE of an OpenAI-style `POST /v1/audio/transcriptions` endpoint (whisper.cpp server,
 * Speaches, vLLM): a multipart form with a `file` (WAV) and `response_format=json`, answered by
 * `{"text": "…"}`. It recognises nothing: each request gets the next of the sentences it was given
 * (the recorded transcripts, written as a careful second pass would write them). It checks the
 * credential (in the header it is told to expect) and keeps what it received (the WAV's rate and length, the form's fields).
 */
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type FakeAuth, hasKey } from './fakeUpstream';

export interface TranscriptionRequest {
  rate: number;
  ms: number;
  fields: Record<string, string>;
}

export class FakeTranscriptions {
  url = '';
  readonly requests: TranscriptionRequest[] = [];
  private readonly server = createServer((req, res) => void this.handle(req, res));

  constructor(
    private readonly sentences: string[],
    private readonly key?: string,
    private readonly auth: FakeAuth = 'bearer',
  ) {}

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1/audio/transcriptions`;
    return this;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const body = Buffer.concat(parts);
    if (req.method !== 'POST' || req.url !== '/v1/audio/transcriptions') return void res.writeHead(404).end();
    if (this.key !== undefined && !hasKey(req, this.key, this.auth)) return void res.writeHead(401).end('{"error":{"message":"bad key"}}');
    const boundary = /boundary=([^;]+)/.exec(req.headers['content-type'] ?? '')?.[1];
    if (!boundary) return void res.writeHead(400).end();
    const fields: Record<string, string> = {};
    let wav: Buffer | undefined;
    for (const part of split(body, Buffer.from(`--${boundary}`))) {
      const sep = part.indexOf('\r\n\r\n');
      if (sep < 0) continue;
      const head = part.subarray(0, sep).toString();
      const content = part.subarray(sep + 4, part.length - 2); // less the CRLF before the next boundary
      const name = /name="([^"]+)"/.exec(head)?.[1];
      if (name === 'file') wav = content;
      else if (name) fields[name] = content.toString();
    }
    if (!wav || wav.toString('ascii', 0, 4) !== 'RIFF' || wav.toString('ascii', 8, 12) !== 'WAVE')
      return void res.writeHead(400).end('{"error":{"message":"no WAV file"}}');
    const rate = wav.readUInt32LE(24);
    this.requests.push({ rate, ms: ((wav.readUInt32LE(40) / 2) * 1000) / rate, fields });
    const text = this.sentences[this.requests.length - 1] ?? '';
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ text }));
  }
}

function split(buf: Buffer, sep: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let at = buf.indexOf(sep);
  while (at >= 0) {
    const next = buf.indexOf(sep, at + sep.length);
    if (next < 0) break;
    out.push(buf.subarray(at + sep.length + 2, next)); // after the boundary's CRLF
    at = next;
  }
  return out;
}
