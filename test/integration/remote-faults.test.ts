/**
 * The faults of a remote recogniser (the point of the remote engines), against the BUILT service and
 * the loopback FAKE realtime server, with a real client session: refused at start, down when a session
 * opens, dropped mid-session (within and beyond the bound), slow, garbage, and TLS with a private CA.
 * The credential never appears in any output.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FakeRealtime, type FakeRealtimeOptions } from '../helpers/fakeRealtime';
import { FakeTranscriptions } from '../helpers/fakeTranscriptions';
import { assertEveryWordOnce, clientRun, dictateThrough, dictation, stream } from '../helpers/remote';
import { normalizeWords, recordings } from '../helpers/recordings';
import { SERVER_JS, type TestServer, WsProbe, startServer } from '../helpers/server';
import { waitFor } from '../helpers/wait';

const SECRET = 'sk-upstream-very-secret-0123456789';
const d = dictation(2);

function fake(o: Partial<FakeRealtimeOptions> = {}): Promise<FakeRealtime> {
  return new FakeRealtime({ dialect: 'vllm', words: d.words, msPerWord: d.msPerWord, key: SECRET, model: 'rt-model', ...o }).start();
}

function serve(f: FakeRealtime, env: Record<string, string> = {}, args: string[] = []): Promise<TestServer> {
  return startServer({
    args: ['--engine', 'realtime', '--engine-url', f.url, '--engine-model', 'rt-model', ...args],
    env: { DICTEE_ENGINE_API_KEY: SECRET, ...env },
  });
}

/** Starts the built service and waits for its exit (it must not start; the fakes run in this process: no spawnSync). */
async function mustNotStart(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ status: number | null; stderr: string; stdout: string }> {
  const data = mkdtempSync(path.join(os.tmpdir(), 'dictee-remote-'));
  const child = spawn(process.execPath, [SERVER_JS, '--port', '0', '--data-dir', data, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const status = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  clearTimeout(timer);
  return { status, stderr, stdout };
}

describe('remote engine faults (built service, fake realtime upstream)', function () {
  this.timeout(60_000);

  it('a refused credential or model at start: the service does not start, says why, exit 1, no credential shown', async () => {
    const f = await fake({ dialect: 'openai' });
    try {
      const badKey = await mustNotStart(['--engine', 'realtime', '--engine-url', f.url, '--engine-model', 'rt-model'], {
        DICTEE_ENGINE_API_KEY: 'sk-wrong-key-42',
      });
      assert.equal(badKey.status, 1);
      assert.match(badKey.stderr, /refused the credential \(HTTP 401\); check DICTEE_ENGINE_API_KEY/);
      assert.doesNotMatch(badKey.stderr + badKey.stdout, /sk-wrong-key-42/);
      const badModel = await mustNotStart(['--engine', 'realtime', '--engine-url', f.url, '--engine-model', 'no-such-model'], {
        DICTEE_ENGINE_API_KEY: SECRET,
      });
      assert.equal(badModel.status, 1);
      assert.match(badModel.stderr, /refused the model "no-such-model" \(error model_not_found\)/);
      assert.doesNotMatch(badModel.stderr + badModel.stdout, new RegExp(SECRET));
    } finally {
      await f.stop();
    }
    const v = await fake({ dialect: 'vllm' }); // vLLM answers only a refusal
    try {
      const badModel = await mustNotStart(['--engine', 'realtime', '--engine-url', v.url, '--engine-model', 'no-such-model'], {
        DICTEE_ENGINE_API_KEY: SECRET,
      });
      assert.equal(badModel.status, 1);
      assert.match(badModel.stderr, /refused the model "no-such-model"/);
    } finally {
      await v.stop();
    }
    const inUrl = await mustNotStart(['--engine', 'realtime', '--engine-url', 'wss://example.invalid/v1/realtime?api_key=sk-in-url']);
    assert.equal(inUrl.status, 1);
    assert.match(inUrl.stderr, /must not carry a credential \(api_key=…\)/);
    assert.doesNotMatch(inUrl.stderr, /sk-in-url/);
  });

  it("Azure OpenAI's api-key header (--engine-auth, --proofread-auth): the fakes take the key only there; a bearer token is refused at start", async () => {
    const f = await fake({ dialect: 'openai', auth: 'api-key' });
    const sentences = recordings()
      .filter((r) => r.name !== 'goforward')
      .slice(0, 2)
      .map((r) => r.reference);
    const second = await new FakeTranscriptions(sentences, SECRET, 'api-key').start();
    try {
      // 127.0.0.1 is no Azure host: by default the key goes as a bearer token, which this upstream refuses.
      const bearer = await mustNotStart(['--engine', 'realtime', '--engine-url', f.url, '--engine-model', 'rt-model'], {
        DICTEE_ENGINE_API_KEY: SECRET,
      });
      assert.equal(bearer.status, 1);
      assert.match(bearer.stderr, /refused the credential \(HTTP 401\)/);
      const server = await serve(f, {}, ['--engine-auth', 'api-key', '--proofread-url', second.url, '--proofread-auth', 'api-key']);
      try {
        const { run, result } = await dictateThrough(server, d.pcm);
        assert.equal(result.reason, 'stopped');
        assertEveryWordOnce(run, d.words);
        assert.equal(second.requests.length, 2, 'each sentence proofread with the api-key header');
        assert.match(server.logs(), /"auth":"api-key"/);
        assert.doesNotMatch(server.logs() + bearer.stderr + bearer.stdout, new RegExp(SECRET));
      } finally {
        await server.stop();
      }
    } finally {
      await f.stop();
      await second.stop();
    }
  });

  it('down when a session opens: INIT_ERROR with retry_after_ms, no session left; back up, sessions open again', async () => {
    const f = await fake();
    const server = await serve(f);
    try {
      const { key } = await server.createKey();
      const port = f.port;
      await f.stop();
      const p = new WsProbe(server.wsUrl, { header: key });
      await p.opened;
      p.send({ type: 'configure', config: { language: 'en' } });
      const err = await p.waitType('error', 15_000);
      assert.equal(err.code, 'INIT_ERROR');
      assert.ok(Number(err.retry_after_ms) > 0, JSON.stringify(err));
      assert.match(String(err.message), /speech recogniser is not available now/);
      await p.closed;
      const status = (await (
        await fetch(`${server.url}/v1/status`, { headers: { authorization: `Bearer ${server.masterKey}` } })
      ).json()) as { sessions: number };
      assert.equal(status.sessions, 0, 'no half-open session');
      await f.start(port);
      const run = clientRun(server, key);
      await run.session.start();
      await stream(run.session, d.pcm);
      await run.session.stop();
      assertEveryWordOnce(run, d.words);
      assert.doesNotMatch(server.logs(), new RegExp(SECRET));
    } finally {
      await server.stop();
      await f.stop();
    }
  });

  for (const dialect of ['vllm', 'openai'] as const) {
    it(`dropped mid-session (${dialect}): reconnected with backoff, the audio since the last final sent again: a delay, not a hole`, async () => {
      const f = await fake({ dialect, dropAfter: 45 });
      const server = await serve(f);
      try {
        const { run, result } = await dictateThrough(server, d.pcm);
        assert.equal(result.reason, 'stopped');
        assert.deepEqual(run.errors, []);
        assertEveryWordOnce(run, d.words);
        assert.match(server.logs(), /recogniser connection restored/);
      } finally {
        await server.stop();
        await f.stop();
      }
    });
  }

  it('gone for longer than the bound: INTERNAL_ERROR, every final so far kept', async () => {
    const f = await fake();
    const server = await serve(f, { DICTEE_ENGINE_RECONNECT_MS: '1500' });
    try {
      const { key } = await server.createKey();
      const run = clientRun(server, key);
      await run.session.start();
      let finalsAtDrop = '';
      // One second into the second recording: the first sentence is final, the second being said.
      const dropAt = Math.round(recordings().filter((r) => r.name !== 'goforward')[0]!.pcm.length / 3200) + 15 + 10;
      await stream(run.session, d.pcm, 4, async (frame) => {
        if (frame === dropAt) {
          finalsAtDrop = run.model.committedText();
          await f.stop();
        }
      });
      await waitFor(() => run.errors.some((e) => e.startsWith('INTERNAL_ERROR')), 20_000, 'INTERNAL_ERROR');
      assert.match(run.errors.join('\n'), /speech decoder failed; the session has ended \(its text so far is final\)/);
      const kept = normalizeWords(run.model.committedText());
      assert.ok(normalizeWords(finalsAtDrop).length > 0, 'some text was final before the drop');
      assert.deepEqual(kept, d.words.slice(0, kept.length), 'what is kept is the start of the dictation, in order');
      assert.ok(kept.length >= normalizeWords(finalsAtDrop).length, 'every final before the drop is kept');
      assert.match(server.logs(), /unreachable for \d+ ms/);
      run.session.dispose();
    } finally {
      await server.stop();
      await f.stop();
    }
  });

  it('slow (behind real time beyond the bound): new sessions refused with retry_after_ms; the running one keeps its audio', async () => {
    const f = await fake({ slowMs: 2500 });
    const server = await serve(f, { DICTEE_ENGINE_MAX_LAG_MS: '1000', DICTEE_ENGINE_STALL_MS: '8000' });
    try {
      const { key } = await server.createKey();
      const run = clientRun(server, key);
      await run.session.start();
      let refused: Record<string, unknown> | undefined;
      await stream(run.session, d.pcm, 2, async (frame) => {
        if (refused || frame < 40 || frame % 10 !== 0) return;
        const health = (await (await fetch(`${server.url}/healthz`)).json()) as { busy: boolean };
        if (!health.busy) return;
        const p = new WsProbe(server.wsUrl, { header: key });
        await p.opened;
        p.send({ type: 'configure', config: { language: 'en' } });
        refused = await p.waitType('error', 10_000);
      });
      assert.ok(refused, 'the service said it was busy while the upstream lagged');
      assert.equal(refused.code, 'CONCURRENCY_LIMIT_EXCEEDED');
      assert.match(String(refused.message), /speech recogniser is behind real time/);
      assert.ok(Number(refused.retry_after_ms) >= 1000);
      const result = await run.session.stop();
      assert.equal(result.reason, 'stopped');
      assertEveryWordOnce(run, d.words);
    } finally {
      await server.stop();
      await f.stop();
    }
  });

  it('garbage, unknown events and a 2 MiB message (OpenAI dialect): logged without their text, no word lost', async () => {
    const f = await fake({ dialect: 'openai', garbageEvery: 10, hugeAfter: 60 });
    const server = await serve(f);
    try {
      const { run } = await dictateThrough(server, d.pcm);
      assertEveryWordOnce(run, d.words);
      const logs = server.logs();
      assert.match(logs, /not a JSON object: ignored/);
      assert.match(logs, /unknown event: ignored","type":"fake.unknown_event"/);
      assert.match(logs, /recogniser connection lost/);
      assert.doesNotMatch(logs, /never logged|this is not JSON|xxxxxxxx/);
    } finally {
      await server.stop();
      await f.stop();
    }
  });

  it('TLS: a private CA given with --engine-ca is trusted; without it the service does not start', async function () {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-ca-'));
    const sh = (cmd: string): void => {
      const r = spawnSync('sh', ['-c', cmd], { cwd: dir, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`${cmd}: ${r.stderr}`);
    };
    sh('openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj "/CN=Dictee test CA" 2>/dev/null');
    sh('openssl req -newkey rsa:2048 -nodes -keyout srv.key -out srv.csr -subj "/CN=127.0.0.1" 2>/dev/null');
    sh(
      'printf "subjectAltName=IP:127.0.0.1,DNS:localhost\\n" > ext.cnf && openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out srv.pem -days 2 -extfile ext.cnf 2>/dev/null',
    );
    const f = await fake({
      tls: { key: readFileSync(path.join(dir, 'srv.key'), 'utf8'), cert: readFileSync(path.join(dir, 'srv.pem'), 'utf8') },
    });
    try {
      assert.match(f.url, /^wss:/);
      const untrusted = await mustNotStart(['--engine', 'realtime', '--engine-url', f.url, '--engine-model', 'rt-model'], {
        DICTEE_ENGINE_API_KEY: SECRET,
      });
      assert.equal(untrusted.status, 1);
      assert.match(untrusted.stderr, /SELF_SIGNED|UNABLE_TO_VERIFY|certificate/i);
      assert.doesNotMatch(untrusted.stderr, new RegExp(SECRET));
      const server = await serve(f, {}, ['--engine-ca', path.join(dir, 'ca.pem')]);
      try {
        const { run } = await dictateThrough(server, d.pcm);
        assertEveryWordOnce(run, d.words);
        assert.doesNotMatch(server.logs(), new RegExp(SECRET));
      } finally {
        await server.stop();
      }
    } finally {
      await f.stop();
    }
  });
});
