/**
 * A remote recogniser that is not there when a run starts, and a service restarted mid-dictation with a
 * remote engine: the BUILT service (`--engine realtime`) against the loopback FAKE realtime server, with
 * the real client library over real WebSockets. The transcript the client assembles is every recorded
 * word once, in order; a recogniser that never comes back ends the run with an error that names it, and
 * leaves no session on the service.
 */
import assert from 'node:assert/strict';
import { DictationError } from '../../src/client/errors';
import { DictationSession } from '../../src/client/session';
import { FakeRealtime } from '../helpers/fakeRealtime';
import { assertEveryWordOnce, clientRun, dictation, FAST, stream } from '../helpers/remote';
import { recordings } from '../helpers/recordings';
import { type TestServer, startServer } from '../helpers/server';
import { waitFor } from '../helpers/wait';

const SECRET = 'sk-upstream-very-secret-0123456789';
const d = dictation(2);

function fake(): Promise<FakeRealtime> {
  return new FakeRealtime({ dialect: 'vllm', words: d.words, msPerWord: d.msPerWord, key: SECRET, model: 'rt-model' }).start();
}

function serve(f: FakeRealtime): Promise<TestServer> {
  return startServer({
    args: ['--engine', 'realtime', '--engine-url', f.url, '--engine-model', 'rt-model'],
    env: { DICTEE_ENGINE_API_KEY: SECRET },
  });
}

async function liveSessions(server: TestServer): Promise<number> {
  const res = await fetch(`${server.url}/v1/status`, { headers: { authorization: `Bearer ${server.masterKey}` } });
  return ((await res.json()) as { sessions: number }).sessions;
}

describe('remote engine: recogniser unavailable at the start of a run, service restarted mid-dictation', function () {
  this.timeout(90_000);

  it('down when the run starts, then up: the run waits retry_after_ms, connects, every recorded word once, in order', async () => {
    const f = await fake();
    const server = await serve(f);
    try {
      const { key } = await server.createKey();
      const port = f.port;
      await f.stop();
      const run = clientRun(server, key);
      const waits: Array<{ code: string; delayMs: number }> = [];
      run.session.on('reconnecting', (r) => waits.push({ code: r.code, delayMs: r.delayMs }));
      const started = run.session.start();
      // Speaking from the start: the audio is kept while the run waits for the recogniser.
      const spoken = stream(run.session, d.pcm, 4, async (frame) => {
        if (frame === 0) {
          await waitFor(() => waits.length > 0, 15_000, 'the run waits for the recogniser');
          await f.start(port);
        }
      });
      await started;
      await spoken;
      const result = await run.session.stop();
      assert.equal(result.reason, 'stopped');
      assert.equal(waits[0]!.code, 'INIT_ERROR');
      assert.ok(waits[0]!.delayMs >= 2000, `waited at least retry_after_ms: ${waits[0]!.delayMs} ms`);
      assert.ok(
        run.errors.every((e) => /^INIT_ERROR: the speech recogniser is not available now/.test(e)),
        run.errors.join('\n'),
      );
      assertEveryWordOnce(run, d.words);
      assert.doesNotMatch(server.logs(), new RegExp(SECRET));
    } finally {
      await server.stop();
      await f.stop();
    }
  });

  it('never up: the run ends after its retry budget with an error naming the recogniser; no session left on the service', async () => {
    const f = await fake();
    const server = await serve(f);
    try {
      const { key } = await server.createKey();
      await f.stop();
      const session = new DictationSession({
        serverUrl: server.url,
        apiKey: key,
        config: FAST,
        backoffBaseMs: 100,
        backoffMaxMs: 1000,
        maxAttempts: 2,
      });
      const waits: number[] = [];
      session.on('reconnecting', (r) => waits.push(r.delayMs));
      const t0 = Date.now();
      const failure = await session.start().then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(failure instanceof DictationError, String(failure));
      assert.equal(failure.code, 'INIT_ERROR');
      assert.equal(failure.fatal, true);
      assert.match(failure.message, /^gave up after 2 reconnection attempts; last failure: the speech recogniser is not available now/);
      assert.equal(session.state, 'failed');
      assert.equal(waits.length, 2, 'two waits: the budget of the run');
      assert.ok(Date.now() - t0 >= 4000, 'each wait at least retry_after_ms');
      assert.equal(await liveSessions(server), 0, 'no half-open session');
      session.dispose();
    } finally {
      await server.stop();
      await f.stop();
    }
  });

  for (const kill of [true, false]) {
    it(`service ${kill ? 'killed (SIGKILL)' : 'drained (SIGTERM)'} mid-dictation and started again: the run resumes, every recorded word once, in order`, async () => {
      const f = await fake();
      const server = await serve(f);
      try {
        const { key } = await server.createKey();
        const run = clientRun(server, key);
        const configured: boolean[] = [];
        run.session.on('configured', (c) => configured.push(c.resumed));
        await run.session.start();
        // One second into the second recording: the first sentence is final, the second being said.
        const at = Math.round(recordings().filter((r) => r.name !== 'goforward')[0]!.pcm.length / 3200) + 15 + 10;
        await stream(run.session, d.pcm, 4, async (frame) => {
          if (frame === at) await server.restart({ kill });
        });
        const result = await run.session.stop();
        assert.equal(result.reason, 'stopped', JSON.stringify(result));
        assert.ok(configured.length >= 2, 'it reconnected');
        assert.equal(configured.at(-1), true, 'the restarted service resumed the session');
        assert.equal(run.session.generation, 0);
        assertEveryWordOnce(run, d.words);
        assert.doesNotMatch(server.logs(), new RegExp(SECRET));
      } finally {
        await server.stop();
        await f.stop();
      }
    });
  }
});
