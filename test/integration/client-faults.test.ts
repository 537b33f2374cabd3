/**
 * Service faults the real service cannot be made to produce on demand (a PROTOCOL_ERROR or
 * INTERNAL_ERROR mid-run, RATE_LIMITED without retry_after_ms, a session ended twice without a stop,
 * garbage frames), played by a SCRIPTED FAKE PEER: a real `ws` server on loopback whose every answer is
 * written in the test. The client under test is the real DictationSession.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { DictationError } from '../../src/client/errors';
import { DictationSession } from '../../src/client/session';
import { TranscriptModel } from '../../src/client/transcript';
import { waitFor } from '../helpers/wait';

const KEY = `svc_test_${'k'.repeat(40)}`;

interface Conn {
  ws: WebSocket;
  configure: Promise<Record<string, unknown>>;
  texts: Array<Record<string, unknown>>;
  audio: Buffer[];
  nextText(type: string, action?: string): Promise<Record<string, unknown>>;
  send(msg: object): void;
}

/** A fake service: session init over HTTP, and each WebSocket connection handed to the test. */
async function fakeService(): Promise<{
  url: string;
  connections: Conn[];
  nextConnection(): Promise<Conn>;
  authHeaders: string[];
  urls: string[];
  close(): Promise<void>;
}> {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ success: true, session_id: 's1', org_id: 'o1' }));
  });
  const wss = new WebSocketServer({ server });
  const connections: Conn[] = [];
  const waiting: Array<(c: Conn) => void> = [];
  const authHeaders: string[] = [];
  const urls: string[] = [];
  wss.on('connection', (ws, req) => {
    authHeaders.push(req.headers.authorization ?? '');
    urls.push(req.url ?? '');
    const texts: Array<Record<string, unknown>> = [];
    const waiters: Array<{ type: string; action?: string; resolve: (m: Record<string, unknown>) => void }> = [];
    let resolveConfigure!: (m: Record<string, unknown>) => void;
    const conn: Conn = {
      ws,
      texts,
      audio: [],
      configure: new Promise((r) => (resolveConfigure = r)),
      nextText: (type, action) =>
        new Promise((resolve) => {
          const found = texts.find(
            (t) => t.type === type && (action === undefined || t.action === action) && !(t as { _taken?: boolean })._taken,
          );
          if (found) {
            (found as { _taken?: boolean })._taken = true;
            resolve(found);
          } else waiters.push({ type, action, resolve });
        }),
      send: (m) => ws.send(JSON.stringify(m)),
    };
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        conn.audio.push(Buffer.from(data as Buffer));
        return;
      }
      const m = JSON.parse(String(data)) as Record<string, unknown>;
      if (m.type === 'configure') resolveConfigure(m);
      const i = waiters.findIndex((w) => w.type === m.type && (w.action === undefined || w.action === m.action));
      if (i >= 0) {
        (m as { _taken?: boolean })._taken = true;
        waiters.splice(i, 1)[0]!.resolve(m);
      }
      texts.push(m);
    });
    connections.push(conn);
    const w = waiting.shift();
    if (w) w(conn);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    connections,
    authHeaders,
    urls,
    /** The next connection to arrive (call it before causing the connection). */
    nextConnection: () => new Promise((resolve) => waiting.push(resolve)),
    close: async () => {
      for (const c of wss.clients) c.terminate();
      await new Promise((r) => wss.close(r));
      await new Promise((r) => server.close(r));
    },
  };
}

function audioBytes(conn: Conn): number {
  return conn.audio.reduce((n, b) => n + b.length, 0);
}

function frames(n: number, fill: number): Buffer {
  return Buffer.alloc(3200 * n, fill);
}

describe('client: reactions to service faults (scripted fake peer)', function () {
  this.timeout(30_000);

  it('PROTOCOL_ERROR and INTERNAL_ERROR mid-run: reported (not fatal) with the session id, reconnect + resume, audio re-sent from resume_audio_offset', async () => {
    const svc = await fakeService();
    const session = new DictationSession({ serverUrl: svc.url, apiKey: KEY, backoffBaseMs: 10, backoffMaxMs: 20 });
    const model = new TranscriptModel();
    const errors: DictationError[] = [];
    session.on('error', (e) => errors.push(e));
    session.on('message', (m) => model.apply(m));
    try {
      let c = svc.nextConnection();
      const started = session.start();
      let conn = await c;
      assert.deepEqual((await conn.configure).config, {});
      conn.send({ type: 'configured', session_id: 's1' });
      await started;
      await conn.nextText('control', 'start');
      session.sendAudio(frames(3, 1));
      await waitFor(() => audioBytes(conn) >= 9600, 5000, 'the three frames');
      assert.equal(Buffer.concat(conn.audio).length, 9600);
      conn.send({ type: 'transcript', status: 'final', id: 'a', index: 0, seq: 1, text: 'one' });
      await waitFor(() => model.committedText() === 'one', 5000, 'the final "one"');

      // PROTOCOL_ERROR, then the close that follows it.
      c = svc.nextConnection();
      conn.send({ type: 'error', code: 'PROTOCOL_ERROR', message: 'odd frame', retry_after_ms: 0, session_id: 's1' });
      conn.ws.close(4000, 'protocol error');
      conn = await c;
      const conf = (await conn.configure).config as { resume?: unknown };
      assert.deepEqual(conf.resume, { session_id: 's1', last_seq: 1 });
      // The service has the first frame only: the client sends the two others again.
      conn.send({ type: 'configured', session_id: 's1', resumed: true, last_seq: 1, resume_audio_offset: 3200 });
      await conn.nextText('control', 'start');
      await waitFor(() => audioBytes(conn) >= 6400, 5000, 'the two frames sent again');
      assert.deepEqual(Buffer.concat(conn.audio), frames(2, 1));

      // INTERNAL_ERROR (1011), offset in the middle of a frame.
      c = svc.nextConnection();
      session.sendAudio(frames(1, 2));
      await waitFor(() => audioBytes(conn) >= 9600, 5000, 'the new frame');
      conn.send({ type: 'error', code: 'INTERNAL_ERROR', message: 'boom', retry_after_ms: 0, session_id: 's1' });
      conn.ws.close(1011);
      conn = await c;
      conn.send({ type: 'configured', session_id: 's1', resumed: true, last_seq: 1, resume_audio_offset: 9600 + 1600 });
      await conn.nextText('control', 'start');
      await waitFor(() => audioBytes(conn) >= 1600, 5000, 'the half frame sent again');
      assert.deepEqual(Buffer.concat(conn.audio), Buffer.alloc(1600, 2), 'from the middle of the frame on');

      assert.throws(
        () => session.sendAudio('not audio' as unknown as Buffer),
        /sendAudio expects PCM bytes \(a Buffer or Uint8Array\), got string/,
      );
      const stopping = session.stop();
      await conn.nextText('control', 'stop');
      conn.send({ type: 'transcript', status: 'final', id: 'b', index: 1, seq: 2, text: 'two' });
      conn.send({ type: 'status', state: 'stopped', metrics: { total_chunks: 2, session_duration: 1 } });
      const r = await stopping;
      assert.equal(r.reason, 'stopped');
      assert.deepEqual(r.metrics, { total_chunks: 2, session_duration: 1 });
      assert.equal(model.committedText(), 'one two');
      assert.deepEqual(
        errors.map((e) => [e.code, e.fatal, e.sessionId]),
        [
          ['PROTOCOL_ERROR', false, 's1'],
          ['INTERNAL_ERROR', false, 's1'],
        ],
      );
      // The key travels in the header of every connection, never in the URL.
      assert.deepEqual(new Set(svc.authHeaders), new Set([`Bearer ${KEY}`]));
      for (const u of svc.urls) assert.ok(!u.includes('token') && !u.includes(KEY), u);
    } finally {
      session.dispose();
      await svc.close();
    }
  });

  it('RATE_LIMITED with retry_after_ms 0 waits the default 5000 ms before reconnecting', async () => {
    const svc = await fakeService();
    const session = new DictationSession({ serverUrl: svc.url, apiKey: KEY, backoffBaseMs: 10, backoffMaxMs: 20 });
    const delays: number[] = [];
    session.on('reconnecting', (r) => delays.push(r.delayMs));
    try {
      let c = svc.nextConnection();
      const started = session.start();
      let conn = await c;
      await conn.configure;
      c = svc.nextConnection();
      const t0 = Date.now();
      conn.send({ type: 'error', code: 'RATE_LIMITED', message: 'slow down', retry_after_ms: 0 });
      conn.ws.close(4029);
      conn = await c;
      const waited = Date.now() - t0;
      assert.ok(delays[0]! >= 5000 && delays[0]! < 5100, `delay ${delays[0]}`);
      assert.ok(waited >= 4900, `reconnected after ${waited} ms`);
      await conn.configure;
      conn.send({ type: 'configured', session_id: 's1' });
      await started;
      assert.equal(session.state, 'recording');
    } finally {
      session.dispose();
      await svc.close();
    }
  });

  it('a session ended twice without a stop continues as a new generation; garbage frames are ignored', async () => {
    const svc = await fakeService();
    const session = new DictationSession({ serverUrl: svc.url, apiKey: KEY, backoffBaseMs: 10, backoffMaxMs: 20 });
    const gens: number[] = [];
    session.on('generation', (g) => gens.push(g.generation));
    try {
      let c = svc.nextConnection();
      const started = session.start();
      let conn = await c;
      await conn.configure;
      conn.send({ type: 'configured', session_id: 's1' });
      await started;
      conn.ws.send('not json');
      conn.send({ type: 'mystery' });
      conn.ws.send(Buffer.from([1, 2, 3]));
      conn.send({ type: 'transcript', status: 'final', id: 'a', index: 0, seq: 1, text: 'kept' });
      // The service drains: stopped without a stop, then a close.
      c = svc.nextConnection();
      conn.send({ type: 'status', state: 'stopped', metrics: { total_chunks: 1, session_duration: 1 } });
      conn.ws.close(1000);
      conn = await c;
      assert.deepEqual(((await conn.configure).config as { resume?: unknown }).resume, { session_id: 's1', last_seq: 1 });
      // Resumed, but the session is over: the same again.
      c = svc.nextConnection();
      conn.send({ type: 'configured', session_id: 's1', resumed: true, last_seq: 1, resume_audio_offset: 0 });
      conn.send({ type: 'status', state: 'stopped', metrics: { total_chunks: 1, session_duration: 1 } });
      conn.ws.close(1000);
      conn = await c;
      assert.equal(((await conn.configure).config as { resume?: unknown }).resume, undefined, 'a new session, no resume');
      conn.send({ type: 'configured', session_id: 's2' });
      await waitFor(() => session.state === 'recording', 5000, 'recording again');
      assert.deepEqual(gens, [1]);
      assert.equal(session.state, 'recording');
      assert.equal(session.sessionId, 's2');
    } finally {
      session.dispose();
      await svc.close();
    }
  });

  it('a service without the resume extension (CONFIG_ERROR on resume): the run continues on a new session, no fatal error', async () => {
    const svc = await fakeService();
    const session = new DictationSession({ serverUrl: svc.url, apiKey: KEY, backoffBaseMs: 10, backoffMaxMs: 20 });
    const errors: DictationError[] = [];
    const warnings: string[] = [];
    const gens: number[] = [];
    let messages = 0;
    session.on('error', (e) => errors.push(e));
    session.on('warning', (w) => warnings.push(w));
    session.on('generation', (g) => gens.push(g.generation));
    session.on('message', () => messages++);
    try {
      let c = svc.nextConnection();
      const started = session.start();
      let conn = await c;
      await conn.configure;
      conn.send({ type: 'configured', session_id: 's1' });
      await started;
      conn.send({ type: 'transcript', status: 'final', id: 'a', index: 0, seq: 1, text: 'one' });
      await waitFor(() => messages === 1, 5000, 'the final');
      session.sendAudio(frames(2, 1)); // after the last final
      await waitFor(() => audioBytes(conn) >= 6400, 5000, 'the two frames');
      c = svc.nextConnection();
      conn.ws.terminate();
      conn = await c;
      assert.ok(((await conn.configure).config as { resume?: unknown }).resume);
      c = svc.nextConnection();
      conn.send({ type: 'error', code: 'CONFIG_ERROR', message: 'invalid configuration: unknown field resume', retry_after_ms: 0 });
      conn.ws.close(4002);
      conn = await c;
      assert.equal(((await conn.configure).config as { resume?: unknown }).resume, undefined);
      conn.send({ type: 'configured', session_id: 's2' });
      await waitFor(
        () => session.state === 'recording' && audioBytes(conn) >= 6400,
        5000,
        'recording on the new session, the audio sent again',
      );
      assert.deepEqual(gens, [1]);
      assert.deepEqual(errors, []);
      assert.equal(warnings.length, 1);
      assert.match(warnings[0]!, /does not support resume/);
      assert.equal(session.state, 'recording');
      // The audio sent after the last final of the first session goes to the new one.
      assert.deepEqual(Buffer.concat(conn.audio), frames(2, 1));
    } finally {
      session.dispose();
      await svc.close();
    }
  });

  it('while disconnected, audio beyond the buffer drops the oldest (one warning); a resume older than the retained window is reported', async () => {
    const svc = await fakeService();
    const session = new DictationSession({ serverUrl: svc.url, apiKey: KEY, backoffBaseMs: 10, backoffMaxMs: 20, bufferSeconds: 1 });
    const warnings: string[] = [];
    session.on('warning', (w) => warnings.push(w));
    try {
      let c = svc.nextConnection();
      const started = session.start();
      let conn = await c;
      await conn.configure;
      conn.send({ type: 'configured', session_id: 's1' });
      await started;
      // 70 s of audio sent: the retained window keeps the last 60 s.
      for (let i = 0; i < 700; i++) session.sendAudio(frames(1, 7));
      await waitFor(() => conn.audio.length >= 700, 10_000, 'the 700 frames');
      assert.equal(Buffer.concat(conn.audio).length, 700 * 3200);

      // Drop; the next connection is not answered at once, so audio queues (bound: 1 s = 10 frames).
      c = svc.nextConnection();
      conn.ws.terminate();
      conn = await c;
      await conn.configure;
      for (let i = 0; i < 15; i++) session.sendAudio(frames(1, 100 + i));
      assert.equal(warnings.length, 1);
      assert.match(warnings[0]!, /disconnected for more than 1 s: the oldest buffered audio is being dropped/);
      assert.equal(session.audioStats.droppedBytes, 5 * 3200);
      // The service says it has nothing of this session's audio: 10 s of it are gone from the window.
      conn.send({ type: 'configured', session_id: 's1', resumed: true, last_seq: 0, resume_audio_offset: 0 });
      await waitFor(() => audioBytes(conn) >= 610 * 3200, 10_000, 'the retained window and the queue');
      // A pause goes out after everything queued: once it is here, nothing more is on its way.
      session.pause();
      await conn.nextText('control', 'pause');
      const got = Buffer.concat(conn.audio);
      assert.equal(got.length, 600 * 3200 + 10 * 3200, 'the retained 60 s, then the 10 queued frames');
      assert.ok(got.subarray(0, 600 * 3200).every((b) => b === 7));
      for (let i = 0; i < 10; i++) assert.equal(got[600 * 3200 + i * 3200], 105 + i, `queued frame ${i} in order, the oldest 5 dropped`);
      assert.equal(session.audioStats.unrecoverableBytes, 100 * 3200);
      assert.equal(warnings.length, 2);
      assert.match(warnings[1]!, /320000 bytes cannot be re-sent/);
    } finally {
      session.dispose();
      await svc.close();
    }
  });

  it('a service that accepts but never answers configure: TIMEOUT, retried, then a fatal error after the bounded attempts', async () => {
    const svc = await fakeService();
    const session = new DictationSession({
      serverUrl: svc.url,
      apiKey: KEY,
      connectTimeoutMs: 150,
      backoffBaseMs: 10,
      backoffMaxMs: 20,
      maxAttempts: 2,
    });
    try {
      const err = await session.start().then(
        () => assert.fail('should fail'),
        (e: unknown) => e as DictationError,
      );
      assert.equal(err.code, 'NETWORK_ERROR');
      assert.match(err.message, /gave up after 2 reconnection attempts; last failure: no "configured" within 150 ms/);
      assert.equal(svc.connections.length, 3);
    } finally {
      session.dispose();
      await svc.close();
    }
  });
});
