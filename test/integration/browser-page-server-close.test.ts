/**
 * The capture page's server closes as the service shuts down: it stops accepting first, then closes the
 * page's socket (1001, the page knows not to reconnect), then cuts what is left, so that its close never
 * waits on a connection that is still sending.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import WebSocket from 'ws';
import { CapturePageServer, PAGE_CLOSE } from '../../src/audio/browser/pageServer';
import { waitFor } from '../helpers/wait';

/** How long close() may take here: nothing it waits for is slow (an idle loopback page). */
const CLOSE_BOUND_MS = 3000;

function getPage(port: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`HTTP ${res.statusCode}`))));
      })
      .on('error', reject);
  });
}

async function openPage(server: CapturePageServer, port: number): Promise<WebSocket> {
  const html = await getPage(port, new URL(server.newPageUrl()).pathname);
  const config = /<script type="application\/json" id="dictee-config">(.*?)<\/script>/s.exec(html);
  assert.ok(config, 'the page carries its configuration');
  const token = (JSON.parse(config[1]!) as { socket: string }).socket;
  const ws = new WebSocket(`ws://127.0.0.1:${port}/d/ws?s=${encodeURIComponent(token)}`, { origin: `http://127.0.0.1:${port}` });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return ws;
}

/** A request answered (405: the page takes no POST) whose body is still on its way: its connection is busy. */
async function busyConnection(port: number): Promise<net.Socket> {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  let answer = '';
  socket.setEncoding('utf8').on('data', (d: string) => (answer += d));
  socket.write(`POST /d/x HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 100000\r\n\r\n${'x'.repeat(100)}`);
  await waitFor(() => answer.startsWith('HTTP/1.1 405'), 5000, 'the answer to the POST');
  return socket;
}

function refusedConnection(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', () => resolve(true));
  });
}

describe('capture page server: close (real sockets)', function () {
  this.timeout(20_000);

  it('closes the page with 1001 and returns although a connection is still sending; the port is closed', async () => {
    const server = new CapturePageServer();
    const port = await server.listen();
    const page = await openPage(server, port);
    await waitFor(() => server.connected, 5000, 'the page connected');
    const pageClosed = new Promise<number>((resolve) => page.once('close', (code) => resolve(code)));
    const busy = await busyConnection(port);
    const busyClosed = new Promise<void>((resolve) => busy.once('close', () => resolve()));

    const started = Date.now();
    const done = await Promise.race([
      server.close().then(() => true),
      new Promise<false>((resolve) => setTimeout(() => resolve(false), CLOSE_BOUND_MS).unref()),
    ]);
    busy.destroy();
    assert.ok(done, `close() still waiting after ${CLOSE_BOUND_MS} ms`);
    assert.ok(Date.now() - started < CLOSE_BOUND_MS);
    assert.equal(await pageClosed, PAGE_CLOSE.shutdown, 'the page is told the server shut down');
    await busyClosed;
    assert.equal(await refusedConnection(port), true, 'nothing listens any more');
  });
});
