/**
 * Recovery of a run when the service goes away mid-run, against the real built service:
 * killed (SIGKILL) and restarted on the same port, drained (SIGTERM) and restarted, replaced by a
 * service that does not know the session, and a stop requested while it is down.
 *
 * Audio is a pure tone: the simulated engine releases exactly one script word per 300 ms of voiced
 * audio, so the committed text tells exactly how much voiced audio the service received: a word
 * missing means audio lost, an extra word means audio sent twice, a repeated word means text
 * duplicated.
 */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DictationSession, type ConfiguredInfo } from '../../src/client/session';
import { TranscriptModel } from '../../src/client/transcript';
import { startServer, withServer, type TestServer } from '../helpers/server';
import { scriptFile, silence, tone } from '../helpers/speech';
import { sleep, waitFor } from '../helpers/wait';

const WORDS = Array.from({ length: 80 }, (_, i) => `w${i + 1}`);
const SCRIPT = WORDS.join(' ');

/** Four sentences of 10 words each (3 s of tone), each followed by a 3 s pause (finals come 2 s into it). */
function dictation(): Buffer {
  const parts: Buffer[] = [];
  for (let i = 0; i < 4; i++) parts.push(tone(3000), silence(3000));
  return Buffer.concat(parts);
}

interface Harness {
  session: DictationSession;
  model: TranscriptModel;
  configured: ConfiguredInfo[];
  reconnects: number;
  fatal: string[];
}

function harness(server: TestServer, key: string): Harness {
  const session = new DictationSession({
    serverUrl: server.url,
    apiKey: key,
    config: { language: 'en' },
    backoffBaseMs: 100,
    backoffMaxMs: 1000,
    maxAttempts: 20,
  });
  const model = new TranscriptModel();
  const h: Harness = { session, model, configured: [], reconnects: 0, fatal: [] };
  session.on('message', (m) => model.apply(m));
  session.on('generation', () => model.beginGeneration());
  session.on('configured', (c) => {
    h.configured.push(c);
    model.dropProvisional();
  });
  session.on('reconnecting', () => h.reconnects++);
  session.on('error', (e) => e.fatal && h.fatal.push(`${e.code}: ${e.message}`));
  return h;
}

/** Streams `pcm` at 4× real time; `during(frameNo)` may act (kill the service…) and is awaited. */
async function streamWith(session: DictationSession, pcm: Buffer, during: (frame: number) => Promise<void> | void): Promise<void> {
  let n = 0;
  for (let off = 0; off < pcm.length; off += 3200, n++) {
    await during(n);
    session.sendAudio(pcm.subarray(off, off + 3200));
    await sleep(25);
  }
}

function assertEachWordOnce(text: string, expected: string[]): void {
  const words = text.split(/\s+/).filter(Boolean);
  assert.deepEqual(words, expected, `committed text: ${text}`);
}

describe('client: recovery when the service goes away mid-run', function () {
  this.timeout(90_000);

  it('service killed (SIGKILL) mid-sentence and restarted on the same port: resumed, every word exactly once', async () => {
    await withServer({ script: scriptFile(SCRIPT) }, async (server) => {
      const { key } = await server.createKey();
      const h = harness(server, key);
      await h.session.start();
      let bufferedWhileDown = 0;
      await streamWith(h.session, dictation(), async (frame) => {
        if (frame === 72) {
          // 7.2 s in: in the middle of the second sentence (6 s to 9 s).
          await server.kill();
        }
        if (frame > 72 && frame <= 92) bufferedWhileDown++; // 2 s of audio while it is down
        if (frame === 92) await server.restart();
      });
      assert.ok(bufferedWhileDown > 0);
      const result = await h.session.stop();
      assert.equal(result.reason, 'stopped', JSON.stringify(result));
      assert.deepEqual(h.fatal, []);
      assert.ok(h.reconnects >= 1, 'it reconnected');
      assert.ok(h.configured.length >= 2);
      assert.equal(h.configured.at(-1)!.resumed, true, 'the service resumed the session after its restart');
      assert.equal(h.session.generation, 0);
      assertEachWordOnce(h.model.committedText(), WORDS.slice(0, 40));
      const stats = h.session.audioStats;
      assert.equal(stats.droppedBytes, 0);
      assert.equal(stats.unrecoverableBytes, 0);
      h.session.dispose();
    });
  });

  it('service drained (SIGTERM) and restarted: the run goes on by itself, every word exactly once', async () => {
    await withServer({ script: scriptFile(SCRIPT) }, async (server) => {
      const { key } = await server.createKey();
      const h = harness(server, key);
      await h.session.start();
      await streamWith(h.session, dictation(), async (frame) => {
        if (frame === 40) await server.restart(); // SIGTERM at 4 s (in the first pause): drain, then start again
      });
      const result = await h.session.stop();
      assert.equal(result.reason, 'stopped');
      assert.deepEqual(h.fatal, []);
      assert.ok(h.reconnects >= 1);
      // The drained service ends the session with `stopped` but keeps it resumable: the run resumes it.
      assert.equal(h.configured.at(-1)!.resumed, true);
      assert.equal(h.session.generation, 0);
      assertEachWordOnce(h.model.committedText(), WORDS.slice(0, 40));
      h.session.dispose();
    });
  });

  it('a service that does not know the session: a new generation continues after the text of the first, nothing lost or repeated', async () => {
    let second: TestServer | undefined;
    try {
      await withServer({ script: scriptFile(SCRIPT) }, async (first) => {
        const { key } = await first.createKey();
        const h = harness(first, key);
        const generations: number[] = [];
        h.session.on('generation', (g) => generations.push(g.generation));
        await h.session.start();
        await streamWith(h.session, dictation(), async (frame) => {
          if (frame === 100) {
            // 10 s in: in the pause after the second sentence, before its final (at 11 s). The service dies and comes back without the
            // session's resume data (as after a restore of its data from an older backup).
            await first.kill();
            const db = new Database(path.join(first.dataDir, 'dictee.sqlite'));
            db.exec('DELETE FROM session_events; DELETE FROM session_checkpoints;');
            db.close();
            second = await startServer({
              script: scriptFile(SCRIPT),
              port: first.port,
              dataDir: first.dataDir,
              env: { DICTEE_MASTER_KEY: first.masterKey },
            });
          }
        });
        const result = await h.session.stop();
        assert.equal(result.reason, 'stopped', JSON.stringify(result));
        const text = h.model.committedText();
        const words = text.split(/\s+/).filter(Boolean);
        assert.equal(h.configured.at(-1)!.resumed, false);
        assert.deepEqual(generations, [1]);
        // First generation: the first sentence (final before the drop). Second: the script again, from
        // the audio sent after that final: the 30 words of the three other sentences.
        assert.deepEqual(words, [...WORDS.slice(0, 10), ...WORDS.slice(0, 30)], text);
        h.session.dispose();
      });
    } finally {
      await second?.stop();
    }
  });

  it('stop() while the service is down: sent once it is back, with the buffered audio first', async () => {
    await withServer({ script: scriptFile(SCRIPT) }, async (server) => {
      const { key } = await server.createKey();
      const h = harness(server, key);
      await h.session.start();
      const pcm = Buffer.concat([tone(3000), silence(2500), tone(1500)]);
      await streamWith(h.session, pcm, async (frame) => {
        if (frame === 60) await server.kill();
      });
      const stopping = h.session.stop();
      assert.equal(h.session.state, 'stopping');
      // The stop waits for the service: a reconnection attempt fails while it is down.
      const attempts = h.reconnects;
      await waitFor(() => h.reconnects > attempts, 10_000, 'a reconnection attempt while the service is down');
      assert.equal(h.session.state, 'stopping');
      await server.restart();
      const result = await stopping;
      assert.equal(result.reason, 'stopped');
      assert.ok(result.metrics);
      assertEachWordOnce(h.model.committedText(), WORDS.slice(0, 15));
      h.session.dispose();
    });
  });

  it('gives up after the bounded number of attempts with a fatal error, keeping the audio it could not deliver', async () => {
    await withServer({ script: scriptFile(SCRIPT) }, async (server) => {
      const { key } = await server.createKey();
      const session = new DictationSession({ serverUrl: server.url, apiKey: key, backoffBaseMs: 20, backoffMaxMs: 50, maxAttempts: 3 });
      const attempts: number[] = [];
      session.on('reconnecting', (r) => attempts.push(r.attempt));
      await session.start();
      session.sendAudio(tone(500));
      const failed = new Promise<string>((resolve) => session.on('error', (e) => e.fatal && resolve(e.code)));
      await server.stop();
      assert.equal(await failed, 'NETWORK_ERROR');
      assert.deepEqual(attempts, [1, 2, 3]);
      assert.equal(session.state, 'failed');
      session.sendAudio(tone(300)); // ignored once failed
      assert.ok(session.pendingAudio().length >= tone(500).length - 3200, 'the unconfirmed audio is still available');
      session.dispose();
    });
  });
});
