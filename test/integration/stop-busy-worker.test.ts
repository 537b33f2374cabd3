/**
 * A stop whose last work is its proofreading, while its decoder worker is behind real time with another
 * session (a loaded machine): the stopped session gets its proofread sentence and `status stopped`, not a
 * "speech decoder failed" error. The worker is slowed deterministically by a test hook
 * (DICTEE_TEST_DECODER_DELAY_MS: each audio frame takes 250 ms more to decode), and the other session
 * streams in real time meanwhile, so the worker's backlog outlasts `stop_delay` + 10 s by far.
 *
 * Built service, `--engine pocketsphinx --workers 1`, real recordings (Debian's pocketsphinx-testdata).
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { recordings, recordingsAvailable } from '../helpers/recordings';
import { WsProbe, useServer } from '../helpers/server';
import { framesOf, silence } from '../helpers/speech';

const CONFIG = { language: 'en', silence_threshold: 1, engine_endpointing: 0.5, stop_delay: 0 };

describe('stop while the decoder worker is behind with another session (built service, pocketsphinx)', function () {
  this.timeout(120_000);
  before(function () {
    if (!recordingsAvailable()) this.skip();
  });
  const server = useServer({ args: ['--engine', 'pocketsphinx', '--workers', '1'], env: { DICTEE_TEST_DECODER_DELAY_MS: '250' } });
  let key: string;
  before(async () => {
    key = (await server.createKey({ name: 'busy worker' })).key;
  });

  it('the stopped session gets its batch.replace and status stopped', async () => {
    const recs = recordings();
    const goforward = recs.find((r) => r.name === 'goforward')!;
    const long = Buffer.concat(recs.filter((r) => r.name.startsWith('sense')).map((r) => r.pcm));
    const short = new WsProbe(server.wsUrl, { header: key });
    const busy = new WsProbe(server.wsUrl, { header: key });
    await short.configure(CONFIG);
    await busy.configure(CONFIG);
    // The short session's audio in three frames and its stop, before the other session's first frame.
    for (const f of framesOf(Buffer.concat([silence(300), goforward.pcm, silence(300)]), 32000)) short.sendAudio(f);
    short.send({ type: 'control', action: 'stop' });
    // The other session: 100 ms frames in real time, four times faster than the slowed worker decodes them.
    const frames = framesOf(long.subarray(0, 16000 * 2 * 10), 3200);
    const t0 = performance.now();
    const streaming = (async () => {
      for (let i = 0; i < frames.length; i++) {
        const wait = t0 + i * 100 - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        busy.sendAudio(frames[i]!);
      }
    })();
    const end = await short.waitFor(
      (m) => m.type === 'error' || (m.type === 'status' && m.state === 'stopped'),
      60_000,
      'status stopped or an error',
    );
    const backlogS = (performance.now() - t0) / 1000;
    assert.equal(end.type, 'status', `the stopped session ended with ${JSON.stringify(end)} after ${backlogS.toFixed(1)} s`);
    const finals = short.ofType('transcript').filter((m) => m.status === 'final');
    const replaced = short.ofType('batch.replace').map((m) => (m.data as { new_chunk: { text: string } }).new_chunk.text);
    assert.ok(finals.length > 0, `a final chunk: ${JSON.stringify(short.messages)}`);
    assert.equal(replaced.length, 1, `one proofread sentence: ${JSON.stringify(short.messages)}`);
    assert.match(replaced[0]!.toLowerCase(), /forward/);
    await streaming;
    busy.send({ type: 'control', action: 'stop' });
    await busy.waitFor((m) => m.type === 'status' && m.state === 'stopped', 60_000, 'the other session stopped');
    short.ws.close();
    busy.ws.close();
  });
});
