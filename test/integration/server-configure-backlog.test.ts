/**
 * What a client sends while its `configure` is handled (the service may wait seconds for its stores or, here,
 * for a remote recogniser), against the BUILT service: kept in order up to MAX_CONFIGURING_BACKLOG_BYTES,
 * then PROTOCOL_ERROR, instead of held without bound. The recogniser is the loopback FAKE of a realtime
 * upstream whose every message comes 2.5 s late, so that each `configure` waits that long.
 */
import assert from 'node:assert/strict';
import { MAX_AUDIO_FRAME_BYTES } from '../../src/protocol';
import { MAX_CONFIGURING_BACKLOG_BYTES } from '../../src/server/live/connection';
import { FakeRealtime } from '../helpers/fakeRealtime';
import { dictation } from '../helpers/remote';
import { type TestServer, WsProbe, startServer } from '../helpers/server';

describe('audio sent before "configured" is bounded in bytes (built service, fake upstream)', function () {
  this.timeout(60_000);
  let fake: FakeRealtime;
  let server: TestServer;
  let key: string;

  before(async () => {
    const d = dictation(1);
    fake = await new FakeRealtime({ words: d.words, msPerWord: d.msPerWord, dialect: 'vllm', slowMs: 2500, perConnection: true }).start();
    server = await startServer({ args: ['--engine', 'realtime', '--engine-url', fake.url] });
    key = (await server.createKey()).key;
  });
  after(async () => {
    await server?.stop();
    await fake?.stop();
  });

  it('more than the bound before "configured": PROTOCOL_ERROR saying to wait for "configured", close 4000', async () => {
    const p = new WsProbe(server.wsUrl, { header: key });
    await p.opened;
    p.send({ type: 'configure', config: { language: 'en' } });
    const frame = Buffer.alloc(MAX_AUDIO_FRAME_BYTES);
    const frames = Math.ceil(MAX_CONFIGURING_BACKLOG_BYTES / frame.length) + 2;
    for (let i = 0; i < frames; i++) p.sendAudio(frame);
    const err = await p.waitType('error', 20_000);
    assert.equal(err.code, 'PROTOCOL_ERROR', JSON.stringify(err));
    assert.match(String(err.message), new RegExp(`more than ${MAX_CONFIGURING_BACKLOG_BYTES} bytes sent before "configured"`));
    const closed = await p.closed;
    assert.equal(closed.code, 4000);
    assert.equal(p.ofType('configured').length, 0, 'no session for it');
    assert.match(server.logs(), /too much sent before configured/);
  });

  it('a flood of empty frames counts too', async () => {
    const p = new WsProbe(server.wsUrl, { header: key });
    await p.opened;
    p.send({ type: 'configure', config: { language: 'en' } });
    for (let i = 0; i < MAX_CONFIGURING_BACKLOG_BYTES / 64 + 10; i++) p.sendAudio(Buffer.alloc(0));
    const err = await p.waitType('error', 20_000);
    assert.equal(err.code, 'PROTOCOL_ERROR', JSON.stringify(err));
  });

  it('within the bound: the audio waits for the session, in order, and is all counted', async () => {
    const p = new WsProbe(server.wsUrl, { header: key });
    await p.opened;
    p.send({ type: 'configure', config: { language: 'en' } });
    const frames = 30; // 3 s of 16 kHz audio: 96 000 bytes
    for (let i = 0; i < frames; i++) p.sendAudio(Buffer.alloc(3200));
    await p.waitType('configured', 20_000);
    p.send({ type: 'control', action: 'stop' });
    const stopped = await p.waitFor((m) => m.type === 'status' && m.state === 'stopped', 20_000);
    assert.equal((stopped.metrics as { total_chunks: number }).total_chunks, frames);
    assert.equal(p.ofType('error').length, 0);
  });
});
