/**
 * The BUILT service with `--engine vosk` against the loopback FAKE Vosk server, through a real client
 * session: the protocol, and the faults of the issue that a Vosk connection can show.
 */
import assert from 'node:assert/strict';
import { FakeVosk } from '../helpers/fakeVosk';
import type { FakeOptions } from '../helpers/fakeUpstream';
import { assertEveryWordOnce, clientRun, dictateThrough, dictation, stream } from '../helpers/remote';
import { startServer } from '../helpers/server';

describe('remote engine: vosk (built service, fake upstream)', function () {
  this.timeout(60_000);
  const d = dictation(2);

  async function dictate(
    misbehave: Partial<FakeOptions> = {},
    env: Record<string, string> = {},
  ): Promise<{ fake: FakeVosk; logs: string }> {
    const fake = await new FakeVosk({ words: d.words, msPerWord: d.msPerWord, ...misbehave }).start();
    const server = await startServer({
      args: ['--engine', 'vosk', '--engine-url', fake.url],
      env: { DICTEE_ENGINE_STALL_MS: '1500', ...env },
    });
    try {
      const { run, result } = await dictateThrough(server, d.pcm);
      assert.equal(result.reason, 'stopped', JSON.stringify(result));
      assert.deepEqual(run.errors, []);
      assertEveryWordOnce(run, d.words);
      return { fake, logs: server.logs() };
    } finally {
      await server.stop();
      await fake.stop();
    }
  }

  it('configuration message, binary PCM, partials and results: every recorded word once, in order', async () => {
    const { fake } = await dictate();
    assert.deepEqual(fake.configs.at(-1), { sample_rate: 16000, words: 1 });
    const sentMs = (d.pcm.length / 2 / 16000) * 1000;
    assert.ok(Math.abs(fake.audioMs - sentMs) < 200, `upstream heard ${fake.audioMs} of ${sentMs} ms`);
  });

  it('dropped after 40 messages: reconnected, the audio since its last result sent again, no word lost or doubled', async () => {
    const { fake, logs } = await dictate({ dropAfter: 40 });
    assert.ok(fake.connections >= 3, `probe, session, reconnection (${fake.connections})`);
    assert.match(logs, /recogniser connection lost: reconnecting/);
    assert.match(logs, /recogniser connection restored/);
  });

  it('stalled after 30 messages (socket open, no answer): given up after the stall bound and made again', async () => {
    const { logs } = await dictate({ stallAfter: 30 });
    assert.match(logs, /answered nothing for \d+ ms/);
  });

  it('garbage, unknown messages and a 2 MiB message: logged without their text, never a crash', async () => {
    const { logs } = await dictate({ garbageEvery: 15, hugeAfter: 50 });
    assert.match(logs, /not a JSON object: ignored/);
    assert.match(logs, /recogniser connection lost/); // the huge message closes the connection (1009), then reconnected
    assert.doesNotMatch(logs, /never logged|this is not JSON|xxxxxxxx/);
  });
});
