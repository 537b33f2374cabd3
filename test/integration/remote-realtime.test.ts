/**
 * The BUILT service with `--engine realtime` against the loopback FAKE realtime server (no real
 * recogniser can run here), in each dialect, through a real client session.
 */
import assert from 'node:assert/strict';
import { FakeRealtime, type FakeDialect } from '../helpers/fakeRealtime';
import { FAST, assertEveryWordOnce, clientRun, dictation, stream } from '../helpers/remote';
import { startServer } from '../helpers/server';

describe('remote engine: realtime (built service, fake upstream)', function () {
  this.timeout(60_000);
  const d = dictation(2);

  for (const dialect of ['vllm', 'openai', 'openai-beta'] as FakeDialect[]) {
    it(`${dialect}: streaming text, then finals and proofread sentences: every recorded word once, in order`, async () => {
      const fake = await new FakeRealtime({ dialect, words: d.words, msPerWord: d.msPerWord, model: 'voxtral-fake', key: 'upstream-secret' }).start();
      const server = await startServer({ args: ['--engine', 'realtime', '--engine-url', fake.url, '--engine-model', 'voxtral-fake'], env: { DICTEE_ENGINE_API_KEY: 'upstream-secret' } });
      try {
        const { key } = await server.createKey();
        const run = clientRun(server, key);
        await run.session.start();
        await stream(run.session, d.pcm);
        const result = await run.session.stop();
        assert.equal(result.reason, 'stopped', JSON.stringify(result));
        assert.deepEqual(run.errors, []);
        assertEveryWordOnce(run, d.words);
        if (dialect === 'vllm') assert.ok(run.streaming > d.words.length / 2, `streaming text as words come (${run.streaming} events)`);
        // The upstream got the audio at its own rate (16 kHz for vLLM, 24 kHz for OpenAI), all of it.
        const sentMs = (d.pcm.length / 2 / 16000) * 1000;
        assert.ok(Math.abs(fake.audioMs - sentMs) < 200, `upstream heard ${fake.audioMs} ms of ${sentMs} ms at ${fake.rate} Hz`);
        const update = JSON.stringify(fake.updates.at(-1));
        assert.match(update, /voxtral-fake/);
        assert.match(update, /"en"/);
        assert.doesNotMatch(server.logs(), /upstream-secret/);
      } finally {
        await server.stop();
        await fake.stop();
      }
    });
  }
});
