/**
 * The metrics listener (`--metrics-port`) of the built service, scraped as Prometheus does: after a real
 * dictation (simulated engine) its counters moved by what the client saw (sessions, audio seconds, events
 * by type, errors by code), its gauges say what is live; it listens on loopback by default, serves nothing
 * but GET /metrics, and shows no key, session id or text. A drain (SIGTERM) is seen on it, and on
 * GET /readyz, until it is over.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import os from 'node:os';
import WebSocket from 'ws';
import { DICTATED, FRAME, LiveDictation, clusterScript } from '../helpers/cluster';
import { freePort } from '../helpers/backends';
import { rawSocket } from '../helpers/hostile';
import { grew, sample, scrape } from '../helpers/metrics';
import { recordingsAvailable } from '../helpers/recordings';
import { WsProbe, startServer, useServer } from '../helpers/server';
import { framesOf, tone } from '../helpers/speech';
import { waitFor } from '../helpers/wait';

/** A non-loopback IPv4 address of this machine, if it has one. */
function outsideAddress(): string | undefined {
  for (const list of Object.values(os.networkInterfaces()))
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return undefined;
}

function connects(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, host);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** A WebSocket refused after its upgrade (an `error` message, then the close). */
async function refusedSocket(url: string, key: string): Promise<string> {
  const ws = new WebSocket(url, { headers: { authorization: `Bearer ${key}` } });
  const first = await new Promise<string>((resolve, reject) => {
    ws.once('message', (d) => resolve(String(d)));
    ws.once('error', reject);
  });
  ws.terminate();
  return (JSON.parse(first) as { code: string }).code;
}

describe('metrics: GET /metrics on its own listener (built service, simulated engine)', function () {
  this.timeout(60_000);
  let metricsPort = 0;
  // Before the service's hook (hooks run in the order they are registered).
  before(async () => {
    metricsPort = await freePort();
  });
  const server = useServer(() => ({ script: clusterScript(), args: ['--metrics-port', String(metricsPort)] }));

  it('listens on 127.0.0.1 only by default, apart from the API, with no key; anything but GET /metrics is refused', async () => {
    await waitFor(() => server.logs().includes(`"metrics":"http://127.0.0.1:${metricsPort}/metrics"`), 5000, 'the metrics URL in the log');
    const outside = outsideAddress();
    if (outside) assert.equal(await connects(outside, metricsPort), false, `the metrics port answers on ${outside}`);
    const samples = await scrape(metricsPort);
    assert.equal(sample(samples, 'dictee_ready'), 1);
    assert.equal(sample(samples, 'dictee_backend_up{backend="sqlite"}'), 1);
    assert.ok(sample(samples, 'dictee_process_resident_memory_bytes') > 0, 'the process metrics, with the prefix');
    assert.ok(samples.has('dictee_nodejs_eventloop_lag_p99_seconds'), 'the event-loop delay');
    const other = await fetch(`http://127.0.0.1:${metricsPort}/v1/status`);
    assert.equal(other.status, 404);
    assert.equal((await fetch(`http://127.0.0.1:${metricsPort}/`)).status, 404);
    const post = await fetch(`http://127.0.0.1:${metricsPort}/metrics`, { method: 'POST' });
    assert.equal(post.status, 405);
    assert.equal((await fetch(`${server.url}/metrics`)).status, 404, 'the API port does not serve the metrics');
  });

  it('after a dictation: sessions, audio seconds, events by type and errors by code moved by what happened', async () => {
    const { key } = await server.createKey({ name: 'metrics' });
    const before = await scrape(metricsPort);
    // Three errors, each of its own code and path.
    assert.equal((await fetch(`${server.url}/v1/no-such-thing`)).status, 404);
    assert.equal(await refusedSocket(server.wsUrl, `svc_live_${'x'.repeat(40)}`), 'AUTH_ERROR');
    const early = new WsProbe(server.wsUrl, { header: key });
    await early.opened;
    early.sendAudio(Buffer.alloc(3200));
    assert.equal((await early.waitType('error')).code, 'PROTOCOL_ERROR');
    await early.closed;

    const live = await LiveDictation.start(server, key);
    live.send(0, 60);
    await live.probe.roundTrip();
    const during = await scrape(metricsPort);
    assert.equal(sample(during, 'dictee_sessions_live'), 1);
    assert.equal(sample(during, 'dictee_sessions_connected'), 1);
    assert.equal(sample(during, 'dictee_websocket_connections'), 1);
    live.send(60);
    assert.deepEqual(await live.stop(), DICTATED);
    const after = await waitFor(
      async () => {
        const s = await scrape(metricsPort);
        return sample(s, 'dictee_websocket_connections') === 0 ? s : undefined;
      },
      5000,
      'the connection gone',
    );

    const sent = (live.audio.length / FRAME) * 0.1;
    const seen = (type: string, status?: string): number =>
      live.probe.messages.filter((m) => m.type === type && (status === undefined || m.status === status)).length;
    assert.equal(grew(before, after, 'dictee_sessions_started_total'), 1);
    assert.equal(grew(before, after, 'dictee_sessions_ended_total{reason="client_stop"}'), 1);
    assert.equal(sample(after, 'dictee_sessions_live'), 0);
    const audio = grew(before, after, 'dictee_audio_seconds_total');
    assert.ok(Math.abs(audio - sent) < 0.01, `audio seconds ${audio}, sent ${sent}`);
    assert.ok(Math.abs(grew(before, after, 'dictee_decoded_audio_seconds_total') - sent) < 0.01, 'audio decoded in this process');
    assert.ok(grew(before, after, 'dictee_decode_seconds_total') > 0, 'decoding took some time');
    assert.ok(seen('transcript', 'final') >= 4, `finals seen: ${seen('transcript', 'final')}`);
    for (const [type, count] of [
      ['final', seen('transcript', 'final')],
      ['streaming', seen('transcript', 'streaming')],
      ['interim', seen('transcript', 'interim')],
      ['batch.replace', seen('batch.replace')],
    ] as const)
      assert.equal(grew(before, after, `dictee_transcript_events_total{type="${type}"}`), count, `${type} events`);
    assert.equal(grew(before, after, 'dictee_errors_total{code="NOT_FOUND"}'), 1);
    assert.equal(grew(before, after, 'dictee_errors_total{code="AUTH_ERROR"}'), 1);
    assert.equal(grew(before, after, 'dictee_errors_total{code="PROTOCOL_ERROR"}'), 1);
    assert.equal(grew(before, after, 'dictee_errors_total{code="INTERNAL_ERROR"}'), 0);

    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    for (const secret of [key, live.sessionId, server.masterKey, 'w12']) assert.ok(!text.includes(secret), `the scrape shows ${secret}`);
  });
});

describe('metrics and GET /readyz during a drain (built service, pocketsphinx slowed)', function () {
  this.timeout(90_000);
  before(function () {
    if (!recordingsAvailable()) this.skip();
  });

  it('/readyz 503 and dictee_draining 1 while the drain finalises a session; the listener closes after it', async () => {
    const metricsPort = await freePort();
    const server = await startServer({
      args: ['--engine', 'pocketsphinx', '--workers', '1', '--metrics-port', String(metricsPort)],
      env: { DICTEE_TEST_DECODER_DELAY_MS: '250' },
    });
    try {
      const ready = await fetch(`${server.url}/readyz`);
      assert.equal(ready.status, 200);
      assert.deepEqual(await ready.json(), { ready: true, draining: false, backends: { sqlite: true } });
      const { key } = await server.createKey({ name: 'drain' });
      const probe = new WsProbe(server.wsUrl, { header: key });
      await probe.configure({ language: 'en' });
      for (const f of framesOf(tone(2000))) probe.sendAudio(f);
      await waitFor(
        async () => {
          const s = await scrape(metricsPort);
          return sample(s, 'dictee_decoded_audio_seconds_total') > 0 && sample(s, 'dictee_decoder_backlog_seconds') > 1;
        },
        5000,
        'a frame decoded, and a backlog of over 1 s',
      );
      // A request begun before the drain (its headers not finished) is answered during it: the listener no
      // longer takes connections, but this one is not idle.
      const socket = await rawSocket(server.port);
      let answer = '';
      socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
      socket.write('GET /readyz HTTP/1.1\r\nHost: x\r\n');
      const mark = server.logs().length;
      server.process().kill('SIGTERM');
      await waitFor(() => server.logs().slice(mark).includes('shutting down: draining sessions'), 5000, 'the drain to begin');
      const draining = await scrape(metricsPort);
      assert.equal(sample(draining, 'dictee_draining'), 1);
      assert.equal(sample(draining, 'dictee_ready'), 0);
      assert.ok(sample(draining, 'dictee_decoder_backlog_seconds') > 0, 'still decoding what it received');
      // The worker thread reports its decoding time: 250 ms more for each 100 ms frame.
      const decoded = sample(draining, 'dictee_decoded_audio_seconds_total');
      assert.ok(decoded > 0, 'audio decoded in the worker thread');
      assert.ok(sample(draining, 'dictee_decode_seconds_total') / decoded > 2.5, 'a real-time factor above 2.5');
      socket.write('\r\n');
      await waitFor(() => /\r\n\r\n\{.*\}$/.test(answer), 5000, 'the /readyz answer');
      assert.match(answer, /^HTTP\/1\.1 503 /);
      assert.deepEqual(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)), {
        ready: false,
        draining: true,
        backends: { sqlite: true },
      });
      assert.equal(sample(await scrape(metricsPort), 'dictee_draining'), 1, 'still draining after the answer');
      assert.equal((await probe.waitFor((m) => m.state === 'stopped', 30_000, 'stopped')).resumable, true);
      assert.equal(await server.stop(), 0);
      assert.equal(await connects('127.0.0.1', metricsPort), false, 'the metrics listener is closed');
      socket.destroy();
    } finally {
      await server.stop();
    }
  });
});
