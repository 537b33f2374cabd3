/**
 * Sessions ended from outside (live/endSession.ts), against the BUILT service over real sockets: a key
 * revoked mid-dictation with the real pocketsphinx decoder on a real recording, with the remote engines
 * (their loopback FAKE upstreams) and with the simulated engine. The client gets every final and every
 * proofread sentence the decoder has before AUTH_ERROR; the text is the text an ordinary `stop` at the same
 * point of the audio gives; the record's `final_chunks` counts what was sent. A dropped session that expires
 * has its pending text made final and counted. A decoder far behind real time delays the end by at most the bound.
 */
import assert from 'node:assert/strict';
import { FakeRealtime } from '../helpers/fakeRealtime';
import { FakeVosk } from '../helpers/fakeVosk';
import { recordings } from '../helpers/recordings';
import { dictation } from '../helpers/remote';
import { type TestServer, WsProbe, startServer, useServer, withServer } from '../helpers/server';
import { bursts, framesOf, scriptFile, silence } from '../helpers/speech';
import { sleep, waitFor } from '../helpers/wait';

/** The shared machine may decode far slower than real time: the end waits for the decoder as long as it takes here. */
const SLOW_MACHINE = { DICTEE_END_FLUSH_MS: '120000' };

const CONFIG = { language: 'en', silence_threshold: 1, engine_endpointing: 0.5, stop_delay: 2, flush_timeout: 30 };

type Message = Record<string, unknown>;

/** Streams `pcm` at `speed` times real time in 100 ms frames. */
async function paced(p: WsProbe, pcm: Buffer, speed = 1): Promise<void> {
  const t0 = Date.now();
  let n = 0;
  for (const f of framesOf(pcm)) {
    p.sendAudio(f);
    n++;
    const wait = t0 + (n * 100) / speed - Date.now();
    if (wait > 0) await sleep(wait);
  }
}

interface Ended {
  sessionId: string;
  messages: Message[];
  /** Final transcripts, oldest first. */
  finals: string[];
  /** The new text of each proofread sentence (`batch.replace`). */
  proofread: string[];
  /** The seq of every transcript and batch.replace received. */
  seqs: number[];
}

function ended(sessionId: string, messages: Message[]): Ended {
  return {
    sessionId,
    messages,
    finals: messages.filter((m) => m.type === 'transcript' && m.status === 'final').map((m) => String(m.text)),
    proofread: messages.filter((m) => m.type === 'batch.replace').map((m) => (m.data as { new_chunk: { text: string } }).new_chunk.text),
    seqs: messages.filter((m) => typeof m.seq === 'number').map((m) => Number(m.seq)),
  };
}

/**
 * Dictates `pcm` (streamed at `speed`), waits until the service has handled all of it and the client saw
 * `ready` (a predicate on what it received), then ends the session: `stop`, or the key revoked.
 */
/** Keys of one scope never share a name. */
let keysMade = 0;

async function dictateThenEnd(
  server: TestServer,
  pcm: Buffer,
  how: 'stop' | 'revoke' | 'expire',
  ready: (p: WsProbe) => boolean,
  speed = 1,
): Promise<Ended> {
  const k = await server.createKey({ name: `end by ${how} ${++keysMade}` });
  const p = new WsProbe(server.wsUrl, { header: k.key });
  const c = await p.configure(CONFIG);
  await paced(p, pcm, speed);
  await p.roundTrip();
  await waitFor(() => ready(p) || undefined, 20_000, 'the text expected before the end');
  if (how === 'stop') {
    p.send({ type: 'control', action: 'stop' });
    await p.waitFor((m) => m.type === 'status' && m.state === 'stopped', 150_000, 'status stopped'); // a loaded machine: tens of seconds
    assert.equal((await p.closed).code, 1000);
  } else {
    if (how === 'revoke') await server.revokeKey(k.id);
    else {
      // The key expires now: rolled with no overlap (docs/protocol.md, "Key expiry and roll").
      const rolled = await fetch(`${server.url}/v1/api-keys/${k.id}/roll`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.masterKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ overlap_hours: 0 }),
      });
      assert.equal(rolled.status, 201);
    }
    const err = await p.waitType('error', 150_000);
    assert.equal(err.code, 'AUTH_ERROR', JSON.stringify(err));
    assert.match(String(err.message), how === 'revoke' ? /revoked/ : /API key expired/);
    assert.equal((await p.closed).code, 4001);
    assert.equal(p.messages.at(-1), err, 'the error is the last message');
  }
  return ended(String(c.session_id), p.messages);
}

/** The record of `id` once its end is written. */
async function endedRecord(server: TestServer, id: string): Promise<Record<string, unknown>> {
  return waitFor(
    async () => {
      const s = await server.session(id);
      return s.ended_at ? s : undefined;
    },
    150_000,
    'the session record ended',
  );
}

/**
 * `proofreadText` false: pocketsphinx's proofreading gives up after 10 s plus twice the sentence's duration and
 * lets the first pass stand, so on a loaded machine its text depends on the load; every sentence is still proofread.
 */
function assertSameText(revoked: Ended, stopped: Ended, proofreadText = true): void {
  assert.deepEqual(revoked.finals, stopped.finals, 'the finals of a revocation are those of a stop at the same point');
  if (proofreadText) assert.deepEqual(revoked.proofread, stopped.proofread, 'the proofread sentences too');
  else
    assert.equal(
      revoked.proofread.length,
      stopped.proofread.length,
      `as many proofread sentences: ${JSON.stringify([revoked.proofread, stopped.proofread])}`,
    );
  assert.deepEqual(
    revoked.seqs,
    [...revoked.seqs].sort((a, b) => a - b),
    'in seq order',
  );
}

/** Revocation and an ordinary stop at the same point of the same audio give the same text; every final sent is counted. */
async function assertRevocationDeliversAll(server: TestServer, pcm: Buffer, ready: (p: WsProbe) => boolean, speed = 1): Promise<Ended> {
  const stopped = await dictateThenEnd(server, pcm, 'stop', ready, speed);
  const revoked = await dictateThenEnd(server, pcm, 'revoke', ready, speed);
  assert.ok(stopped.finals.length > 0, 'the stop gave finals');
  assertSameText(revoked, stopped);
  const record = await endedRecord(server, revoked.sessionId);
  assert.equal(record.end_reason, 'key revoked');
  assert.equal(record.final_chunks, revoked.finals.length, `the record counts the finals sent: ${JSON.stringify(record)}`);
  return revoked;
}

/** The client saw an interim (not final) transcript after its last final: text is pending in the decoder. */
function pendingShown(p: WsProbe): boolean {
  const transcripts = p.messages.filter((m) => m.type === 'transcript');
  const last = transcripts.at(-1);
  return last !== undefined && last.status !== 'final';
}

describe('sessions ended from outside: every word sent first (built service)', function () {
  this.timeout(400_000);

  describe('pocketsphinx, real recordings', () => {
    // The first recording whole and a pause (a sentence ended), then most of a second one: a sentence under way.
    const [first, second] = recordings().filter((r) => r.name !== 'goforward');
    const pcm = Buffer.concat([first!.pcm, silence(1500), second!.pcm.subarray(0, Math.floor(second!.pcm.length * 0.7) & ~1)]);
    const server = useServer({
      args: ['--engine', 'pocketsphinx'],
      env: { ...SLOW_MACHINE, DICTEE_RESUME_TTL_MS: '1500', DICTEE_STOPPED_TTL_MS: '1500' },
    });
    /** What an ordinary stop gives at the point where the session is ended from outside. */
    let stopped: Ended;

    before(async function () {
      this.timeout(400_000);
      stopped = await dictateThenEnd(server, pcm, 'stop', pendingShown);
      assert.ok(stopped.finals.length > 0, 'the stop gave finals');
    });

    it('a key revoked mid-sentence: the finals and proofread sentences of a stop at that point, then AUTH_ERROR', async () => {
      const revoked = await dictateThenEnd(server, pcm, 'revoke', pendingShown);
      assertSameText(revoked, stopped, false);
      const record = await endedRecord(server, revoked.sessionId);
      assert.equal(record.end_reason, 'key revoked');
      assert.equal(record.final_chunks, revoked.finals.length, `the record counts the finals sent: ${JSON.stringify(record)}`);
      // Text was pending when the key was revoked: the revocation made it final (the bug sent none of it).
      const lastFinalSeq = Math.max(...revoked.messages.filter((m) => m.status === 'final').map((m) => Number(m.seq)));
      const lastInterim = revoked.messages.filter((m) => m.type === 'transcript' && m.status !== 'final').at(-1)!;
      assert.ok(lastFinalSeq > Number(lastInterim.seq), 'finals after the last interim');
    });

    it('a key expiring mid-sentence: the finals and proofread sentences of a stop at that point, then AUTH_ERROR "API key expired"', async () => {
      const expired = await dictateThenEnd(server, pcm, 'expire', pendingShown);
      assertSameText(expired, stopped, false);
      const record = await endedRecord(server, expired.sessionId);
      assert.equal(record.end_reason, 'key expired');
      assert.equal(record.final_chunks, expired.finals.length, `the record counts the finals sent: ${JSON.stringify(record)}`);
      const lastFinalSeq = Math.max(...expired.messages.filter((m) => m.status === 'final').map((m) => Number(m.seq)));
      const lastInterim = expired.messages.filter((m) => m.type === 'transcript' && m.status !== 'final').at(-1)!;
      assert.ok(lastFinalSeq > Number(lastInterim.seq), 'the pending text was made final');
    });

    it('a dropped session that expires unresumed: its record counts the finals of a stop at that point', async () => {
      const k = await server.createKey();
      const p = new WsProbe(server.wsUrl, { header: k.key });
      const c = await p.configure(CONFIG);
      await paced(p, pcm);
      await p.roundTrip();
      await waitFor(() => pendingShown(p) || undefined, 20_000, 'an interim transcript');
      p.ws.terminate();
      const record = await endedRecord(server, String(c.session_id));
      assert.equal(record.end_reason, 'dropped and not resumed');
      assert.equal(record.final_chunks, stopped.finals.length, `the pending text was made final and counted: ${JSON.stringify(record)}`);
    });
  });

  it('pocketsphinx far behind real time: the end waits no longer than DICTEE_END_FLUSH_MS; what was sent is what is counted', async () => {
    const rec = recordings().find((r) => r.name !== 'goforward')!;
    await withServer(
      { args: ['--engine', 'pocketsphinx', '--workers', '1'], env: { DICTEE_TEST_DECODER_DELAY_MS: '250', DICTEE_END_FLUSH_MS: '1500' } },
      async (server) => {
        const k = await server.createKey();
        const p = new WsProbe(server.wsUrl, { header: k.key });
        const c = await p.configure(CONFIG);
        await paced(p, rec.pcm, 4);
        await p.roundTrip();
        const t0 = Date.now();
        await server.revokeKey(k.id);
        const err = await p.waitType('error', 10_000);
        const ms = Date.now() - t0;
        assert.equal(err.code, 'AUTH_ERROR');
        assert.equal((await p.closed).code, 4001);
        // The bound, plus the stall check's 250 ms tick and a loaded machine's slack.
        assert.ok(ms < 1500 + 2500, `AUTH_ERROR ${ms} ms after the revocation`);
        const sent = ended(String(c.session_id), p.messages);
        const record = await endedRecord(server, sent.sessionId);
        assert.equal(record.final_chunks, sent.finals.length, `the record counts the finals sent: ${JSON.stringify(record)}`);
        assert.match(server.logs(), /did not finish in time for the end of the session/);
      },
    );
  });

  it('simulated engine: the same', async () => {
    const words = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    const server = await startServer({ script: scriptFile(words) });
    try {
      // Four bursts of "speech", the last one without the pause that would end its chunk.
      const pcm = bursts(4);
      await assertRevocationDeliversAll(server, pcm.subarray(0, pcm.length - 1300 * 32), pendingShown, 4);
    } finally {
      await server.stop();
    }
  });

  for (const engine of ['vosk', 'realtime'] as const) {
    it(`remote engine ${engine} (fake upstream): the same`, async () => {
      const d = dictation(2);
      const opts = { words: d.words, msPerWord: d.msPerWord, perConnection: true };
      const fake = await (engine === 'vosk' ? new FakeVosk(opts) : new FakeRealtime({ ...opts, dialect: 'vllm' })).start();
      const server = await startServer({ args: ['--engine', engine, '--engine-url', fake.url], env: SLOW_MACHINE });
      try {
        const cut = Math.floor(d.pcm.length * 0.7) & ~1;
        await assertRevocationDeliversAll(server, d.pcm.subarray(0, cut), pendingShown, 4);
      } finally {
        await server.stop();
        await fake.stop();
      }
    });
  }
});
