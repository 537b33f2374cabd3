/**
 * The BUILT service with `--engine realtime` against the loopback FAKE realtime server (no real
 * recogniser can run here), in each dialect, through a real client session.
 */
import assert from 'node:assert/strict';
import { FakeRealtime, type FakeDialect } from '../helpers/fakeRealtime';
import { FakeTranscriptions } from '../helpers/fakeTranscriptions';
import { recordings } from '../helpers/recordings';
import { FAST, assertEveryWordOnce, clientRun, dictation, stream } from '../helpers/remote';
import { startServer } from '../helpers/server';

describe('remote engine: realtime (built service, fake upstream)', function () {
  this.timeout(60_000);
  const d = dictation(2);

  for (const dialect of ['vllm', 'openai', 'openai-beta'] as FakeDialect[]) {
    it(`${dialect}: streaming text, then finals and proofread sentences: every recorded word once, in order`, async () => {
      const fake = await new FakeRealtime({
        dialect,
        words: d.words,
        msPerWord: d.msPerWord,
        model: 'voxtral-fake',
        key: 'upstream-secret',
      }).start();
      const server = await startServer({
        args: ['--engine', 'realtime', '--engine-url', fake.url, '--engine-model', 'voxtral-fake'],
        env: { DICTEE_ENGINE_API_KEY: 'upstream-secret' },
      });
      try {
        const { key } = await server.createKey();
        const run = clientRun(server, key, { ...FAST, keyterms: ['Dashwood', 'Norland'] });
        await run.session.start();
        await stream(run.session, d.pcm);
        const result = await run.session.stop();
        assert.equal(result.reason, 'stopped', JSON.stringify(result));
        assert.deepEqual(run.errors, []);
        assertEveryWordOnce(run, d.words);
        // OpenAI's dialects have room for the keyterms: the transcription prompt.
        if (dialect !== 'vllm') assert.match(JSON.stringify(fake.updates.at(-1)), /"prompt":"Dashwood, Norland"/);
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

describe('remote engine: proofreading by a transcriptions endpoint (built service, fakes)', function () {
  this.timeout(60_000);

  it("each finished sentence goes as a WAV to --proofread-url; its answer is the sentence's batch.replace", async () => {
    const recs = recordings()
      .filter((r) => r.name !== 'goforward')
      .slice(0, 2);
    const d = dictation(2, 1800);
    const careful = recs.map((r) =>
      `${r.reference.charAt(0).toUpperCase()}${r.reference.slice(1)}.`.replace(/\bjohn dashwood\b/, 'John Dashwood'),
    );
    const fake = await new FakeRealtime({ dialect: 'vllm', words: d.words, msPerWord: d.msPerWord }).start();
    const second = await new FakeTranscriptions(careful, 'shared-secret').start();
    const server = await startServer({
      args: ['--engine', 'realtime', '--engine-url', fake.url, '--proofread-url', second.url],
      env: { DICTEE_ENGINE_API_KEY: 'shared-secret' },
    });
    try {
      const { key } = await server.createKey();
      const run = clientRun(server, key);
      const replaced: string[] = [];
      run.session.on('message', (m) => m.type === 'batch.replace' && replaced.push(m.data.new_chunk.text));
      await run.session.start();
      await stream(run.session, d.pcm);
      await run.session.stop();
      assert.deepEqual(replaced, careful);
      assert.equal(run.model.committedText(), careful.join(' '));
      assert.equal(second.requests.length, 2);
      for (const [i, r] of second.requests.entries()) {
        assert.equal(r.rate, 16000);
        assert.equal(r.fields.response_format, 'json');
        assert.equal(r.fields.language, 'en');
        const spoken = (recs[i]!.pcm.length / 2 / 16) | 0;
        assert.ok(r.ms >= spoken * 0.8, `sentence ${i}: ${r.ms} ms of audio sent for ${spoken} ms spoken`);
      }
    } finally {
      await server.stop();
      await fake.stop();
      await second.stop();
    }
  });
});
