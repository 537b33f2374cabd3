/**
 * src/client against the real, built service on loopback: whole runs with espeak-ng speech, pause and
 * resume, stop metrics, every fatal error, the rate limit, and the HTTP functions (session init, key check, URLs).
 */
import assert from 'node:assert/strict';
import { Socket } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DictationError } from '../../src/client/errors';
import { initSession, servedLanguages, verifyKey, wsUrlFor } from '../../src/client/http';
import { DictationSession, type DictationSessionOptions, type SessionState } from '../../src/client/session';
import { TranscriptModel } from '../../src/client/transcript';
import type { Logger } from '../../src/shared/logger';
import { withServer, useServer } from '../helpers/server';
import { scriptFile, silence, speechPcm, tone } from '../helpers/speech';
import { sleep, waitFor } from '../helpers/wait';

/** A logger that keeps every line (to check session ids and the absence of the key). */
function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const add = (level: string) => (m: string | Error) => void lines.push(`${level} ${m instanceof Error ? m.message : m}`);
  return { lines, trace: add('trace'), debug: add('debug'), info: add('info'), warn: add('warn'), error: add('error') };
}

interface Run {
  session: DictationSession;
  model: TranscriptModel;
  errors: DictationError[];
  states: SessionState[];
  logger: ReturnType<typeof memoryLogger>;
}

function newRun(opts: DictationSessionOptions): Run {
  const logger = memoryLogger();
  const session = new DictationSession({ logger, ...opts });
  const model = new TranscriptModel();
  const errors: DictationError[] = [];
  const states: SessionState[] = [];
  session.on('message', (m) => model.apply(m));
  session.on('generation', () => model.beginGeneration());
  session.on('configured', () => model.dropProvisional());
  session.on('error', (e) => errors.push(e));
  session.on('state', (s) => states.push(s));
  return { session, model, errors, states, logger };
}

/** Sends PCM in 100 ms frames, one every `paceMs`. */
async function stream(session: DictationSession, pcm: Buffer, paceMs = 100): Promise<void> {
  for (let off = 0; off < pcm.length; off += 3200) {
    session.sendAudio(pcm.subarray(off, off + 3200));
    if (paceMs > 0) await sleep(paceMs);
  }
}

async function rejects(p: Promise<unknown>): Promise<DictationError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof DictationError, `expected a DictationError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected a rejection');
}

describe('client: DictationSession against the real service', function () {
  this.timeout(60_000);
  const SCRIPT = 'The heart is normal in size. No pericardial effusion.';
  const server = useServer(() => ({ script: scriptFile(SCRIPT) }));
  let key: string;

  before(async () => {
    key = (await server.createKey()).key;
  });

  it('a whole run: the committed text is the script exactly, stop resolves with the metrics, the key is never logged', async () => {
    const run = newRun({ serverUrl: server.url, apiKey: key, config: { language: 'en' } });
    await run.session.start();
    assert.equal(run.session.state, 'recording');
    const pcm = Buffer.concat([
      await speechPcm('The heart is normal in size, and the valves look fine.'),
      silence(2600),
      await speechPcm('There is no pericardial effusion at all.'),
      silence(500),
    ]);
    await stream(run.session, pcm, 25);
    const result = await run.session.stop();
    assert.equal(result.reason, 'stopped');
    assert.ok(result.metrics, 'metrics');
    assert.ok(result.metrics.total_chunks > 0);
    assert.ok(result.metrics.session_duration > 0);
    assert.equal(run.model.committedText(), SCRIPT);
    assert.equal(run.model.provisionalText(), '');
    assert.deepEqual(run.errors, []);
    assert.equal(run.session.state, 'stopped');
    assert.deepEqual(run.states, ['connecting', 'recording', 'stopping', 'stopped']);
    const stats = run.session.audioStats;
    assert.equal(stats.sentBytes, pcm.length);
    assert.equal(stats.queuedBytes, 0);
    const sid = result.sessionId!;
    assert.ok(run.logger.lines.length > 3);
    for (const line of run.logger.lines) {
      assert.ok(line.includes(`[session ${sid}]`), `session id on every line: ${line}`);
      assert.ok(!line.includes(key), 'the key is never logged');
    }
    run.session.dispose();
  });

  it('pause: audio given while paused is not sent; resume continues the same session', async () => {
    const run = newRun({ serverUrl: server.url, apiKey: key, config: { language: 'en', enable_final_proofreading: false } });
    await run.session.start();
    const voiced = tone(1550); // 5 words at 300 ms of voiced audio per word
    await stream(run.session, voiced, 10);
    run.session.pause();
    assert.equal(run.session.state, 'paused');
    await stream(run.session, tone(3000), 10); // would be 10 more words if it were sent
    run.session.resume();
    assert.equal(run.session.state, 'recording');
    await stream(run.session, Buffer.concat([tone(950), silence(300)]), 10); // 3 more words
    const result = await run.session.stop();
    assert.equal(result.reason, 'stopped');
    assert.equal(run.model.committedText(), 'the heart is normal in size no pericardial');
    const stats = run.session.audioStats;
    assert.equal(stats.pausedBytes, tone(3000).length);
    assert.equal(stats.sentBytes, voiced.length + tone(950).length + silence(300).length);
    const audioSeconds = (result.metrics as { audio_seconds?: number }).audio_seconds;
    if (audioSeconds !== undefined) assert.ok(Math.abs(audioSeconds - stats.sentBytes / 32000) < 0.05, `service counted ${audioSeconds} s`);
    run.session.dispose();
  });

  it('stop while paused still ends with stopped and metrics', async () => {
    const run = newRun({ serverUrl: server.url, apiKey: key, config: { language: 'en', stop_delay: 0.5 } });
    await run.session.start();
    await stream(run.session, tone(700), 0);
    run.session.pause();
    const result = await run.session.stop();
    assert.equal(result.reason, 'stopped');
    assert.ok(result.metrics);
    assert.equal(run.model.committedText(), 'The heart');
    run.session.dispose();
  });

  it('a wrong key: AUTH_ERROR, fatal, without the key in the message', async () => {
    const wrong = `svc_test_${'x'.repeat(40)}`;
    const run = newRun({ serverUrl: server.url, apiKey: wrong });
    const err = await rejects(run.session.start());
    assert.equal(err.code, 'AUTH_ERROR');
    assert.equal(err.fatal, true);
    assert.ok(!err.message.includes(wrong));
    assert.equal(run.session.state, 'failed');
    assert.equal(run.errors.length, 1);
    run.session.dispose();
  });

  it('a key revoked mid-run: AUTH_ERROR, fatal, and the finals already received are kept', async () => {
    const own = (await server.createKey()).key;
    const run = newRun({
      serverUrl: server.url,
      apiKey: own,
      config: { language: 'en', enable_final_proofreading: false, silence_threshold: 1, engine_endpointing: 0.3 },
    });
    await run.session.start();
    await stream(run.session, Buffer.concat([tone(650), silence(1500)]), 5);
    await waitFor(() => run.model.committedText() === 'the heart', 5000, 'the first words to be final');
    const failed = new Promise<DictationError>((resolve) => run.session.on('error', (e) => e.fatal && resolve(e)));
    await server.revokeKey(own);
    const err = await failed;
    assert.equal(err.code, 'AUTH_ERROR');
    assert.equal(run.session.state, 'failed');
    assert.equal(run.model.committedText(), 'the heart');
    const after = await run.session.stop();
    assert.equal(after.reason, 'error');
    run.session.dispose();
  });

  it('a bad configuration: CONFIG_ERROR naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ silence_threshold: 100 }, 'silence_threshold'],
      [{ language: 'it' }, 'language'],
      [{ engine_endpointing: 3, silence_threshold: 2 }, 'engine_endpointing'],
    ];
    for (const [config, field] of cases) {
      const run = newRun({ serverUrl: server.url, apiKey: key, config });
      const err = await rejects(run.session.start());
      assert.equal(err.code, 'CONFIG_ERROR', JSON.stringify(config));
      assert.equal(err.field, field, `${JSON.stringify(config)}: ${err.message}`);
      assert.equal(err.fatal, true);
      assert.ok(err.sessionId, 'the error carries the session id');
      run.session.dispose();
    }
  });

  it('an audio format the engine cannot take: INIT_ERROR, fatal', async () => {
    const run = newRun({ serverUrl: server.url, apiKey: key, config: { encoding: 'mulaw' } });
    const err = await rejects(run.session.start());
    assert.equal(err.code, 'INIT_ERROR');
    assert.equal(err.fatal, true);
    run.session.dispose();
  });

  it('an unreachable service: NETWORK_ERROR at start, at once', async () => {
    const run = newRun({ serverUrl: 'http://127.0.0.1:9', apiKey: key });
    const t0 = Date.now();
    const err = await rejects(run.session.start());
    assert.equal(err.code, 'NETWORK_ERROR');
    assert.match(err.message, /cannot reach the service at http:\/\/127\.0\.0\.1:9/);
    assert.ok(Date.now() - t0 < 5000);
    run.session.dispose();
  });

  it('dispose() at any moment leaves no socket or timer behind', async () => {
    // Sockets are told apart by identity (those open before the test may close meanwhile); timers by count,
    // once a request has woken the HTTP client's own timer (it outlives its requests by seconds).
    await (await fetch(`${server.url}/healthz`)).text();
    const sockets = (): Socket[] =>
      (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles().filter((h): h is Socket => h instanceof Socket);
    const before = new Set(sockets());
    const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const timersBefore = timers();
    const run = newRun({ serverUrl: server.url, apiKey: key });
    const started = run.session.start();
    run.session.dispose();
    await started; // resolves quietly
    const run2 = newRun({ serverUrl: server.url, apiKey: key });
    await run2.session.start();
    run2.session.sendAudio(tone(500));
    run2.session.dispose();
    run2.session.dispose();
    assert.equal(run2.session.state, 'stopped');
    assert.equal((await run2.session.stop()).reason, 'error');
    // The WebSockets close at once; an idle keep-alive socket of the session init's HTTP pool lives up to 4 s.
    await waitFor(() => sockets().every((s) => before.has(s)), 8000, 'every socket the runs opened to be closed');
    await waitFor(() => timers() <= timersBefore, 8000, `no timer left running (${timers()} > ${timersBefore})`);
  });
});

describe('client: limits of the real service', function () {
  this.timeout(60_000);

  it('CONCURRENCY_LIMIT_EXCEEDED is fatal for the run; the freed slot is usable at once', async () => {
    await withServer({ args: ['--concurrency-limit', '1'] }, async (server) => {
      const { key } = await server.createKey();
      const a = newRun({ serverUrl: server.url, apiKey: key });
      await a.session.start();
      const b = newRun({ serverUrl: server.url, apiKey: key });
      const err = await rejects(b.session.start());
      assert.equal(err.code, 'CONCURRENCY_LIMIT_EXCEEDED');
      assert.equal(err.fatal, true);
      b.session.dispose();
      assert.equal((await a.session.stop()).reason, 'stopped');
      a.session.dispose();
      const c = newRun({ serverUrl: server.url, apiKey: key });
      await c.session.start();
      assert.equal((await c.session.stop()).reason, 'stopped');
      c.session.dispose();
    });
  });

  it('RATE_LIMITED waits retry_after_ms, then the run goes on by itself', async () => {
    await withServer({ args: ['--rate-limit', '2', '--rate-window', '3'] }, async (server) => {
      const { key } = await server.createKey();
      const a = newRun({ serverUrl: server.url, apiKey: key }); // uses the 2 requests: init + WebSocket
      await a.session.start();
      await a.session.stop();
      a.session.dispose();
      const b = newRun({ serverUrl: server.url, apiKey: key, config: { language: 'en' } });
      const waits: number[] = [];
      b.session.on('reconnecting', (r) => waits.push(r.delayMs));
      const t0 = Date.now();
      await b.session.start();
      const waited = Date.now() - t0;
      const limited = b.errors.filter((e) => e.code === 'RATE_LIMITED');
      assert.ok(limited.length >= 1, 'a RATE_LIMITED error was reported');
      assert.ok(limited.every((e) => !e.fatal && e.retryAfterMs > 0));
      assert.ok(waits[0]! >= limited[0]!.retryAfterMs, `waited ${waits[0]} ms for retry_after_ms ${limited[0]!.retryAfterMs}`);
      assert.ok(waited >= limited[0]!.retryAfterMs);
      await stream(b.session, tone(700), 0);
      const r = await b.session.stop();
      assert.equal(r.reason, 'stopped');
      assert.ok(b.model.committedText().length > 0);
      b.session.dispose();
    });
  });
});

describe('client: HTTP functions against the real service', function () {
  this.timeout(30_000);
  const server = useServer();

  it('initSession returns a session id and the organisation', async () => {
    const { key } = await server.createKey();
    const init = await initSession(server.url, key);
    assert.ok(init.sessionId);
    assert.ok(init.orgId);
    assert.equal(init.path, '/api/v1/live/sessions');
  });

  it('verifyKey accepts a good key and maps refusals to clear errors', async () => {
    const { key } = await server.createKey();
    assert.ok((await verifyKey(server.url, key)).orgId);
    await assert.rejects(
      verifyKey(server.url, 'hello'),
      (e: DictationError) => e.code === 'AUTH_ERROR' && /svc_live_, svc_test_ or svc_proj_/.test(e.message),
    );
    const unknown = `svc_live_${'A'.repeat(40)}`;
    await assert.rejects(
      verifyKey(server.url, unknown),
      (e: DictationError) => e.code === 'AUTH_ERROR' && e.status === 401 && !e.message.includes(unknown),
    );
    const readOnly = await server.createKey({ type: 'project', project_id: 'p1', permissions: ['read'] });
    await assert.rejects(
      verifyKey(server.url, readOnly.key),
      (e: DictationError) => e.code === 'AUTH_ERROR' && /permission/.test(e.message) && !e.message.includes(readOnly.key),
    );
    await server.revokeKey(key);
    await assert.rejects(verifyKey(server.url, key), (e: DictationError) => e.code === 'AUTH_ERROR');
    await assert.rejects(verifyKey('http://127.0.0.1:9', readOnly.key), (e: DictationError) => e.code === 'NETWORK_ERROR');
  });

  it('servedLanguages: the languages of the engine as GET /healthz says them (no key); undefined when the service does not say', async () => {
    assert.deepEqual((await servedLanguages(server.url))?.sort(), ['de', 'en', 'es', 'fr']);
    await withServer({ script: scriptFile('one two three') }, async (scripted) => {
      assert.deepEqual(await servedLanguages(scripted.url), ['any']);
    });
    assert.equal(await servedLanguages('http://127.0.0.1:9'), undefined);
    assert.equal(await servedLanguages('not a url'), undefined);
    const http = await import('node:http');
    const other = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = other.address() as { port: number };
      assert.equal(await servedLanguages(`http://127.0.0.1:${port}`), undefined);
    } finally {
      other.close();
    }
  });

  it('falls back to /v1/live/sessions when /api/v1/live/sessions is 404 (a service behind a path prefix)', async () => {
    // Answers 404 for the /api path and forwards the fallback path to the real service.
    const http = await import('node:http');
    const proxy = http.createServer((req, res) => {
      if (req.url === '/api/v1/live/sessions') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"success":false}');
        return;
      }
      const up = http.request(`${server.url}${req.url}`, { method: req.method, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      req.pipe(up);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    try {
      const { key } = await server.createKey();
      const port = (proxy.address() as { port: number }).port;
      const init = await initSession(`http://127.0.0.1:${port}`, key);
      assert.equal(init.path, '/v1/live/sessions');
      assert.ok(init.sessionId);
    } finally {
      await new Promise((r) => proxy.close(r));
    }
  });

  it('wsUrlFor derives the WebSocket address, with no token in it', () => {
    assert.equal(wsUrlFor('http://127.0.0.1:8787'), 'ws://127.0.0.1:8787/api/v1/audio/live');
    assert.equal(wsUrlFor('https://dictee.example.org/'), 'wss://dictee.example.org/api/v1/audio/live');
    assert.equal(wsUrlFor('https://example.org/prefix'), 'wss://example.org/prefix/api/v1/audio/live');
    assert.equal(wsUrlFor('ws://h:1?token=abc'), 'ws://h:1/api/v1/audio/live');
    assert.throws(
      () => wsUrlFor('ftp://h'),
      (e: DictationError) => e.code === 'CONFIG_ERROR' && e.field === 'serverUrl',
    );
    assert.throws(() => wsUrlFor('not a url'), /not a valid URL/);
    assert.throws(
      () => wsUrlFor('http://user:secret@h'),
      (e: Error) => /must not contain credentials/.test(e.message) && !e.message.includes('secret'),
    );
  });
});
