/**
 * The capture page's server over real sockets, as an attacker would meet it: raw HTTP, `ws` clients
 * with any Origin and Host, tokens wrong, reused or expired, oversized frames and floods. None of these
 * produce audio; the page that follows the rules does, byte-exact.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import WebSocket from 'ws';
import { CapturePageServer, PAGE_CLOSE } from '../../src/audio/browser/pageServer';
import { BUTTON_BITS, ButtonRouter, buttonMap } from '../../src/audio/browser/dictationButtons';
import { ledTable } from '../../src/audio/browser/dictationLeds';
import { PageMicrophoneError } from '../../src/audio/browser/pageMicrophone';
import { SilenceDetector } from '../../src/audio/silence';
import { wireCapture, type CaptureRun } from '../../src/extension/run/runCapture';
import { WriterRun } from '../helpers/writerRun';
import { rawRequest } from '../helpers/hostile';
import { waitFor } from '../helpers/wait';

interface Page {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function get(port: number, path: string, host = `127.0.0.1:${port}`): Promise<Page> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
  });
}

function socketToken(html: string): string {
  const data = /<script type="application\/json" id="dictee-config">(.*?)<\/script>/s.exec(html);
  assert.ok(data, 'the page carries its configuration');
  return (JSON.parse(data[1]!) as { socket: string }).socket;
}

/** Opens the page's socket; resolves with the open socket, or rejects with the HTTP status of the refusal. */
function connect(port: number, token: string, opts: { origin?: string | null; host?: string } = {}): Promise<WebSocket> {
  const origin = opts.origin === undefined ? `http://127.0.0.1:${port}` : opts.origin;
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/d/ws?s=${encodeURIComponent(token)}`, {
      ...(origin === null ? {} : { origin }),
      headers: opts.host ? { host: opts.host } : {},
    });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => {
      reject(Object.assign(new Error(`refused with ${res.statusCode}`), { status: res.statusCode }));
      ws.terminate();
    });
    ws.once('error', reject);
  });
}

function closed(ws: WebSocket): Promise<number> {
  return new Promise((resolve) => {
    if (ws.readyState === WebSocket.CLOSED) return resolve(-1);
    ws.once('close', (code) => resolve(code));
  });
}

function frame(n: number, seed = 1): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (seed * 31 + i) % 251;
  return b;
}

describe('capture page server (real sockets)', function () {
  this.timeout(20000);
  let now = Date.now();
  let server: CapturePageServer;
  let port: number;
  let audio: Buffer[];
  let refused: string[];
  let pages: string[];

  beforeEach(async () => {
    now = Date.now();
    server = new CapturePageServer({ clock: () => now });
    port = await server.listen();
    audio = [];
    refused = [];
    pages = [];
    server.on('data', (b) => audio.push(b));
    server.on('refused', (r) => refused.push(r));
    server.on('page', (p) => pages.push(p));
  });
  afterEach(async () => {
    await server.close();
  });

  async function openPage(): Promise<{ ws: WebSocket; messages: unknown[] }> {
    const url = new URL(server.newPageUrl());
    assert.equal(url.hostname, '127.0.0.1');
    const page = await get(port, url.pathname);
    assert.equal(page.status, 200);
    const ws = await connect(port, socketToken(page.body));
    const messages: unknown[] = [];
    ws.on('message', (d, binary) => {
      if (!binary) messages.push(JSON.parse(String(d)));
    });
    await waitFor(() => pages.includes('connected'), 5000, 'the page connected');
    return { ws, messages };
  }

  it('serves the page once, under a strict CSP, and takes its audio byte-exact while recording', async () => {
    const { ws, messages } = await openPage();
    server.start();
    await waitFor(() => messages.some((m) => JSON.stringify(m) === '{"t":"capture","on":true}'), 5000, 'told to record');
    const sent = [frame(3200, 1), frame(3200, 2), frame(1000, 3)];
    for (const f of sent) ws.send(f);
    await waitFor(() => audio.length === 2, 5000, 'two frames');
    const stopping = server.stop();
    await waitFor(() => messages.some((m) => JSON.stringify(m) === '{"t":"capture","on":false}'), 5000, 'told to stop');
    ws.send(frame(600, 4));
    ws.send(JSON.stringify({ t: 'paused' }));
    await stopping;
    assert.deepEqual(Buffer.concat(audio), Buffer.concat([...sent, frame(600, 4)]), 'everything recorded before the pause, in order');
    assert.deepEqual(
      audio.map((a) => a.length),
      [3200, 3200, 1600],
    );
    const asset = await get(port, '/d/app.js');
    assert.equal(asset.status, 200);
    assert.match(String(asset.headers['content-security-policy']), /default-src 'none'; script-src 'self'/);
    assert.equal(asset.headers['referrer-policy'], 'no-referrer');
    ws.close();
    await waitFor(() => pages.includes('closed'), 5000, 'closing the page is told');
    assert.deepEqual(refused, []);
  });

  it('audio that comes while not recording is dropped', async () => {
    const { ws } = await openPage();
    ws.send(frame(3200));
    ws.send(frame(3200));
    await waitFor(() => server.dropped === 2, 5000, 'dropped');
    assert.equal(audio.length, 0);
    ws.close();
  });

  it('a page address with a wrong, reused or expired token is a 404', async () => {
    const path = new URL(server.newPageUrl()).pathname;
    assert.equal((await get(port, `${path}x`)).status, 404, 'wrong');
    assert.equal((await get(port, '/d/')).status, 404, 'none');
    assert.equal((await get(port, path)).status, 200);
    assert.equal((await get(port, path)).status, 404, 'reused');
    const late = new URL(server.newPageUrl()).pathname;
    now += 2 * 60_000 + 1;
    assert.equal((await get(port, late)).status, 404, 'expired');
    const replaced = new URL(server.newPageUrl()).pathname;
    server.newPageUrl();
    assert.equal((await get(port, replaced)).status, 404, 'an older address is revoked by a newer one');
    assert.equal(refused.filter((r) => /token/.test(r)).length, 5);
  });

  it('a Host header that is not loopback with the right port is refused (DNS rebinding), page and socket', async () => {
    const path = new URL(server.newPageUrl()).pathname;
    for (const host of [`evil.example:${port}`, 'evil.example', `127.0.0.1:${port + 1}`, `localhost.evil.example:${port}`]) {
      assert.equal((await get(port, path, host)).status, 403, host);
    }
    const raw = await rawRequest(port, `GET ${path} HTTP/1.1\r\n\r\n`);
    assert.ok(raw.status === 403 || raw.status === 400, `no Host at all: ${raw.status}`);
    // the refused requests did not use the token up
    const page = await get(port, path, `localhost:${port}`);
    assert.equal(page.status, 200);
    const token = socketToken(page.body);
    await assert.rejects(connect(port, token, { host: `evil.example:${port}`, origin: `http://evil.example:${port}` }), { status: 403 });
    assert.equal(pages.length, 0);
    assert.equal(audio.length, 0);
  });

  it('a socket from another origin, or with no origin, is refused', async () => {
    const page = await get(port, new URL(server.newPageUrl()).pathname);
    const token = socketToken(page.body);
    for (const origin of ['http://evil.example', `http://127.0.0.1:${port + 1}`, `https://127.0.0.1:${port}`, 'null', null]) {
      await assert.rejects(connect(port, token, { origin }), { status: 403 }, String(origin));
    }
    const ws = await connect(port, token);
    ws.close();
    assert.ok(refused.filter((r) => /origin/.test(r)).length === 5);
  });

  it('a socket with a wrong, reused or expired token is refused', async () => {
    const page = await get(port, new URL(server.newPageUrl()).pathname);
    const token = socketToken(page.body);
    await assert.rejects(connect(port, `${token}x`), { status: 403 });
    await assert.rejects(connect(port, ''), { status: 403 });
    const ws = await connect(port, token);
    await assert.rejects(connect(port, token), { status: 403 }, 'reused while the first is open');
    ws.close();
    await closed(ws);
    await assert.rejects(connect(port, token), { status: 403 }, 'reused after');
    const late = await get(port, new URL(server.newPageUrl()).pathname);
    now += 2 * 60_000 + 1;
    await assert.rejects(connect(port, socketToken(late.body)), { status: 403 }, 'expired');
    const raw = await rawRequest(
      port,
      `GET /d/ws HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: http://127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    );
    assert.equal(raw.status, 403, 'no token');
  });

  for (const [what, payload, code] of [
    ['an oversized frame', frame(3202), PAGE_CLOSE.tooBig],
    ['a frame of 64 KiB', frame(65536), PAGE_CLOSE.tooBig],
    ['an odd frame', frame(3199), PAGE_CLOSE.policy],
    ['an empty frame', Buffer.alloc(0), PAGE_CLOSE.policy],
    ['a control message that is not JSON', '{"t":', PAGE_CLOSE.policy],
    ['an unknown control', '{"t":"sudo"}', PAGE_CLOSE.policy],
    ['a button mask that is not one', '{"t":"buttons","mask":-1}', PAGE_CLOSE.policy],
    ['an oversized control', JSON.stringify({ t: 'paused', pad: 'x'.repeat(400) }), PAGE_CLOSE.policy],
  ] as const) {
    it(`${what} closes the socket and produces no audio`, async () => {
      const { ws } = await openPage();
      server.start();
      ws.send(frame(1000));
      ws.send(payload);
      assert.equal(await closed(ws), code);
      await waitFor(() => pages.includes('closed'), 5000, 'the page is gone');
      assert.equal(audio.length, 0, "the refused socket's pending audio is not delivered");
      assert.equal(refused.length, 1);
    });
  }

  it('a flood of frames is cut after at most the burst allowance', async () => {
    const { ws } = await openPage();
    server.start();
    for (let i = 0; i < 400; i++) ws.send(frame(3200, i));
    assert.equal(await closed(ws), PAGE_CLOSE.policy);
    assert.match(refused.join(), /flood/);
    assert.ok(audio.length <= 20, `${audio.length} frames (2 s) at most went through`);
  });

  it('a flood of tiny frames is cut and produces no audio', async () => {
    const { ws } = await openPage();
    server.start();
    for (let i = 0; i < 1000; i++) ws.send(frame(2, i));
    assert.equal(await closed(ws), PAGE_CLOSE.policy);
    assert.equal(audio.length, 0);
  });

  it("the page's report that the browser gave no microphone fails the run's source: the run is told, the user is told why, the run ends", async () => {
    const { ws } = await openPage();
    const told: Array<[string, unknown]> = [];
    const run = {
      id: 1,
      settings: { recorder: 'sox', sampleRate: 16000 },
      source: { kind: 'microphone', browser: server },
      session: { sendAudio: () => undefined },
      silence: new SilenceDetector({ sampleRate: 16000 }),
      log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
      status: { level: () => undefined, update: () => undefined },
      notifications: { recorderFailed: (e: Error) => told.push(['notify', e]), microphoneMuted: () => undefined },
      audio: () => undefined,
      isEnding: () => told.some(([k]) => k === 'end'),
      end: (reason: string) => {
        told.push(['end', reason]);
        void server.stop();
      },
      fileDone: () => undefined,
      recorderFailed: (e: Error) => told.push(['failed', e]),
      fatalFile: () => undefined,
    } as unknown as CaptureRun;
    const wired = wireCapture(server, run);
    // Out of a run (Start clicked in the page while not recording), the page shows it itself: nothing fails.
    ws.send(JSON.stringify({ t: 'microphone', error: 'NotFoundError', message: 'Requested device not found' }));
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(told, []);
    server.start();
    // As the page sends it once getUserMedia has failed: the report, then that it has nothing more to send.
    ws.send(JSON.stringify({ t: 'microphone', error: 'NotFoundError', message: 'Requested device not found' }));
    ws.send(JSON.stringify({ t: 'paused' }));
    await waitFor(() => told.length === 3, 5000, 'the run told');
    const e = told[0]![1] as Error;
    assert.ok(e instanceof PageMicrophoneError);
    assert.equal(e.problem, 'notFound');
    assert.equal(e.domName, 'NotFoundError');
    assert.equal(e.detail, 'Requested device not found');
    assert.equal(e.origin, `http://127.0.0.1:${port}`, "the page's origin: whose site permission applies");
    assert.deepEqual(told, [
      ['failed', e],
      ['notify', e],
      ['end', 'the browser gave the capture page no microphone'],
    ]);
    for (const d of wired) d.dispose();
    assert.equal(ws.readyState, WebSocket.OPEN, 'the page stays: its Start tries again');
    assert.deepEqual(refused, []);
  });

  it('a microphone report that is not one closes the socket', async () => {
    const { ws } = await openPage();
    const errors: Error[] = [];
    server.on('error', (e) => errors.push(e));
    server.start();
    ws.send(JSON.stringify({ t: 'microphone', error: '<script>', message: 'x' }));
    assert.equal(await closed(ws), PAGE_CLOSE.policy);
    assert.deepEqual(errors, []);
  });

  it('a newer page takes over without pausing; requests come through', async () => {
    const first = await openPage();
    const requests: string[] = [];
    server.on('request', (r) => requests.push(r));
    const second = await openPage();
    assert.equal(await closed(first.ws), PAGE_CLOSE.replaced);
    const masks: number[] = [];
    server.on('buttons', (m) => masks.push(m));
    for (const action of ['start', 'pause', 'stop']) second.ws.send(JSON.stringify({ t: 'request', action }));
    second.ws.send(JSON.stringify({ t: 'buttons', mask: 32 }));
    await waitFor(() => requests.length === 3 && masks.length === 1, 5000, 'requests');
    assert.deepEqual(requests, ['start', 'pause', 'stop']);
    assert.deepEqual(masks, [32]);
    // The replaced page's end (seen by its socket before the requests were sent) is not told as a closed page.
    assert.deepEqual(pages, ['connected', 'connected']);
    // The one "closed" is the second page's, after its own close.
    second.ws.close();
    await waitFor(() => pages.includes('closed'), 5000, 'the second page closed');
    assert.deepEqual(pages, ['connected', 'connected', 'closed']);
  });

  it("a dictation microphone's buttons from the page reach the actions: scratch that deletes the run's last utterance, Play Back pauses then plays", async () => {
    const url = new URL(server.newPageUrl());
    const html = (await get(port, url.pathname)).body;
    const config = JSON.parse(/id="dictee-config">(.*?)<\/script>/s.exec(html)![1]!) as { leds: unknown };
    assert.deepEqual(config.leds, ledTable(), 'the page is told the record LED of each state');
    const ws = await connect(port, socketToken(html));
    await waitFor(() => pages.includes('connected'), 5000, 'the page connected');
    // The run's writer is the real one, on a document in memory; the player is VS Code's webview (a fake here: no VS Code).
    const run = new WriterRun('Notes: ', { grammar: { language: 'en' } });
    await run.final('c1', 0, 'the lung is clear period');
    await run.final('c2', 1, 'check again in three months period');
    let state = 'recording';
    const done: string[] = [];
    const router = new ButtonRouter(
      {
        state: () => state,
        request: async (r) => {
          done.push(r);
          if (r === 'pause') state = 'paused';
        },
        field: async (d) => void done.push(d),
        scratchThat: async () => {
          await run.writer.dictation!.scratchThat();
          await run.doc.settled();
          done.push('scratchThat');
        },
        playBack: async () => void done.push('fake player: playBack'),
      },
      buttonMap({ F1_A: 'scratchThat' }).map,
    );
    server.on('buttons', (mask) => void router.pressed(mask));
    for (const mask of [BUTTON_BITS.F1_A, 0, BUTTON_BITS.PLAY, 0]) ws.send(JSON.stringify({ t: 'buttons', mask }));
    await waitFor(() => done.length === 3, 5000, 'the actions ran');
    assert.deepEqual(done, ['scratchThat', 'pause', 'fake player: playBack']);
    assert.equal(run.text, 'Notes: the lung is clear.');
    ws.close();
  });

  it('listens on loopback only', async () => {
    assert.equal(server.port, port);
    const outside = Object.values(os.networkInterfaces())
      .flat()
      .find((i) => i && i.family === 'IPv4' && !i.internal);
    if (!outside) return;
    const err = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
      const s = net.connect(port, outside.address, () => {
        s.destroy();
        resolve(undefined);
      });
      s.on('error', resolve);
    });
    assert.equal(err?.code, 'ECONNREFUSED', `not reachable at ${outside.address}`);
  });
});
