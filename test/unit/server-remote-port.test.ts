/**
 * The remote engines' port, with a scripted upstream link (no socket): the segmenter is held at a pause
 * until the upstream has answered for the audio before it, its final words go into the `interim`, a
 * flush waits for the upstream, and a lost link is made again with the audio since the last final.
 */
import assert from 'node:assert/strict';
import { resolveConfig } from '../../src/protocol';
import { createLogger } from '../../src/server/log';
import type { SegmentEvent } from '../../src/server/engine/segmenter';
import { RemoteSegmenterPort } from '../../src/server/engine/remote/remotePort';
import type { UpstreamEvents, UpstreamLink } from '../../src/server/engine/remote/upstream';
import { silence, tone } from '../helpers/speech';
import { waitFor } from '../helpers/wait';

class ScriptedLink implements UpstreamLink {
  readonly dialect = 'scripted';
  readonly rate = 16000;
  ev: UpstreamEvents | undefined;
  sent = 0;
  settles = 0;
  closed = false;
  attach(events: UpstreamEvents): void {
    this.ev = events;
  }
  send(pcm: Buffer): void {
    this.sent += pcm.length;
  }
  settle(): void {
    this.settles++;
  }
  close(): void {
    this.closed = true;
  }
}

function setup(link: ScriptedLink, connect: () => Promise<UpstreamLink> = () => Promise.reject(new Error('no'))) {
  const events: SegmentEvent[] = [];
  const failures: string[] = [];
  const port = new RemoteSegmenterPort({
    init: {
      sessionId: 's1',
      config: resolveConfig({ language: 'en', engine_endpointing: 0.4, silence_threshold: 1 }),
      onEvents: (e) => events.push(...e),
      onFailure: (m) => failures.push(m),
    },
    name: 'realtime',
    link,
    connect,
    reconnectMs: 5000,
    stallMs: 60_000,
    log: createLogger({ level: 'error', write: () => undefined }),
    onClosed: () => undefined,
  });
  return { port, events, failures };
}

const texts = (events: SegmentEvent[], status: string): string[] =>
  events.flatMap((e) => (e.type === 'transcript' && e.status === status ? [e.text] : []));

describe('remote engines: the port holds the segmenter at each pause until the upstream has answered', () => {
  it('no interim before the upstream settles; the interim carries its final words', () => {
    const link = new ScriptedLink();
    const { port, events } = setup(link);
    for (let i = 0; i < 10; i++) port.push(tone(100));
    link.ev!.partial('the patient');
    assert.deepEqual(texts(events, 'streaming'), ['the patient'], 'the partial shows at once (a held-back window carries it)');
    for (let i = 0; i < 8; i++) port.push(silence(100)); // 0.8 s: the 0.4 s pause is reached
    assert.equal(link.settles, 1, 'the upstream is asked to settle at the pause');
    assert.deepEqual(texts(events, 'interim'), [], 'the segmenter waits at the pause');
    assert.ok(port.queuedBytes > 0, 'the audio after the pause is held (lag)');
    link.ev!.final('the patient is stable', link.sent);
    link.ev!.settled(link.sent);
    assert.deepEqual(texts(events, 'interim'), ['the patient is stable']);
    assert.ok(port.queuedBytes <= 4 * 640, 'fed again up to the four held-back windows');
  });

  it('a flush waits for the upstream, then finalises and proofreads', async () => {
    const link = new ScriptedLink();
    const { port, events } = setup(link);
    for (let i = 0; i < 5; i++) port.push(tone(100));
    link.ev!.partial('hello');
    const flushed = port.flush({ proofread: true })!;
    let done = false;
    void flushed.then(() => (done = true));
    await new Promise((r) => setImmediate(r));
    assert.equal(done, false);
    assert.deepEqual(texts(events, 'final'), []);
    link.ev!.final('hello world', link.sent);
    link.ev!.settled(link.sent);
    await flushed;
    assert.deepEqual(texts(events, 'final'), ['hello world']);
    const replace = events.find((e) => e.type === 'batch.replace');
    assert.equal(replace?.type === 'batch.replace' && replace.data.new_chunk.text, 'Hello world.');
  });

  it("a lost link is made again and sent the audio since the upstream's last final; no word twice", async () => {
    const first = new ScriptedLink();
    const second = new ScriptedLink();
    const { port, events, failures } = setup(first, () => Promise.resolve(second));
    for (let i = 0; i < 10; i++) port.push(tone(100));
    for (let i = 0; i < 5; i++) port.push(silence(100));
    first.ev!.final('one two', first.sent);
    first.ev!.settled(first.sent);
    const afterFinal = first.sent;
    for (let i = 0; i < 5; i++) port.push(tone(100));
    first.ev!.partial('three');
    first.ev!.lost('closed');
    assert.equal(first.closed, true);
    await waitFor(() => second.ev, 5000, 'the new connection'); // after the first backoff step (200 ms)
    assert.equal(second.sent, first.sent - afterFinal, 'the audio since the last final, sent again');
    second.ev!.partial('three four');
    for (let i = 0; i < 8; i++) port.push(silence(100));
    second.ev!.final('three four', second.sent);
    second.ev!.settled(second.sent);
    const flushed = port.flush({ proofread: false })!;
    second.ev!.settled(second.sent);
    await flushed;
    assert.deepEqual(texts(events, 'final'), ['one two', 'three four']);
    assert.deepEqual(failures, []);
    port.close();
  });

  it('a refusal of the session itself (model, credential) ends it at once: no reconnection', () => {
    const link = new ScriptedLink();
    let connects = 0;
    const { failures } = setup(link, () => {
      connects++;
      return Promise.resolve(new ScriptedLink());
    });
    link.ev!.lost('the recogniser refused the session (error model_not_found)', true);
    assert.deepEqual(failures, ['the recogniser refused the session (error model_not_found)']);
    assert.equal(connects, 0);
  });
});
