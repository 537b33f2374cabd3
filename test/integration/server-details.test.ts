/**
 * `configure.config.details` through the BUILT service with `--engine pocketsphinx`: real recordings
 * streamed over a socket; word times, confidences and alternatives as the protocol documents them.
 */
import assert from 'node:assert/strict';
import { WsProbe, useServer } from '../helpers/server';
import { recordings } from '../helpers/recordings';
import { framesOf, silence } from '../helpers/speech';

interface Word {
  text: string;
  start_ms: number;
  end_ms: number;
  confidence: number;
}
interface Detailed {
  text: string;
  start_ms?: number;
  end_ms?: number;
  words?: Word[];
  alternatives?: string[];
}

const CONFIG = { language: 'en', silence_threshold: 1, engine_endpointing: 0.5, stop_delay: 2 };
const LEAD_MS = 300;

function checkChunk(c: Detailed, audioMs: number, final: boolean): void {
  const what = JSON.stringify(c);
  assert.ok(c.words && c.words.length > 0, `words: ${what}`);
  assert.equal(c.words.map((w) => w.text).join(' '), c.text, 'the words make the text');
  assert.ok(c.start_ms! >= 0 && c.start_ms! <= c.end_ms! && c.end_ms! <= audioMs, `chunk within the audio (${audioMs} ms): ${what}`);
  let last = c.start_ms!;
  for (const w of c.words) {
    assert.ok(w.start_ms >= last && w.start_ms <= w.end_ms && w.end_ms <= c.end_ms!, `monotonic, within the chunk: ${what}`);
    assert.ok(w.confidence >= 0 && w.confidence <= 1, `confidence in [0, 1]: ${what}`);
    last = w.start_ms;
  }
  if (!final) {
    assert.equal(c.alternatives, undefined);
    return;
  }
  assert.ok(Array.isArray(c.alternatives) && c.alternatives.length <= 5, `alternatives: ${what}`);
  assert.equal(new Set(c.alternatives).size, c.alternatives.length, 'distinct');
  for (const a of c.alternatives) assert.notEqual(a, c.text, 'an alternative differs from the text');
}

describe('server details with the pocketsphinx engine (built service, real recordings)', function () {
  this.timeout(120000);
  const recs = recordings().filter((r) => r.name === 'goforward' || r.name.endsWith('0880'));
  const server = useServer({ args: ['--engine', 'pocketsphinx'] });
  let key: string;
  before(async () => {
    key = (await server.createKey({ name: 'details tests' })).key;
  });

  it('interim, final and new_chunk carry times within the audio, monotonic, confidences in range, at most 5 alternatives other than the text', async () => {
    const p = new WsProbe(server.wsUrl, { header: key });
    await p.configure({ ...CONFIG, details: true });
    const audio = Buffer.concat([silence(LEAD_MS), ...recs.flatMap((r) => [r.pcm, silence(1500)])]);
    const audioMs = audio.length / 32;
    for (const f of framesOf(audio, 3200)) p.sendAudio(f);
    p.send({ type: 'control', action: 'stop' });
    await p.waitFor((m) => m.type === 'status' && m.state === 'stopped', 60000, 'status stopped');
    const transcripts = p.ofType('transcript') as unknown as Array<Detailed & { status: string }>;
    const interims = transcripts.filter((m) => m.status === 'interim');
    const finals = transcripts.filter((m) => m.status === 'final');
    const chunks = p.ofType('batch.replace').map((m) => (m.data as { new_chunk: Detailed }).new_chunk);
    assert.ok(finals.length >= 2 && chunks.length === 2, `${finals.length} finals, ${chunks.length} proofread sentences`);
    for (const s of transcripts.filter((m) => m.status === 'streaming')) assert.equal(s.words, undefined);
    for (const c of interims) checkChunk(c, audioMs, false);
    for (const c of finals) checkChunk(c, audioMs, true);
    for (const c of chunks) checkChunk(c, audioMs, true);
    // The sentences in audio order, each where its recording was sent (within 300 ms of its span).
    let at = LEAD_MS;
    recs.forEach((r, i) => {
      const c = chunks[i]!;
      const end = at + r.pcm.length / 32;
      assert.ok(c.start_ms! >= at - 300 && c.end_ms! <= end + 300, `${r.name} sent at ${at}–${end} ms: ${c.start_ms}–${c.end_ms}`);
      at = end + 1500;
    });
    assert.ok(
      chunks.some((c) => c.alternatives!.length > 0),
      'the engine has alternatives',
    );
    assert.ok(
      chunks.flatMap((c) => c.words!).some((w) => w.confidence < 0.9),
      'not every word is sure',
    );
  });

  it('without details, the same speech gives the spec shape', async () => {
    const p = new WsProbe(server.wsUrl, { header: key });
    await p.configure(CONFIG);
    for (const f of framesOf(Buffer.concat([silence(LEAD_MS), recs[0]!.pcm, silence(1500)]), 3200)) p.sendAudio(f);
    p.send({ type: 'control', action: 'stop' });
    await p.waitFor((m) => m.type === 'status' && m.state === 'stopped', 60000, 'status stopped');
    for (const m of p.ofType('transcript')) assert.deepEqual(Object.keys(m).sort(), ['id', 'index', 'seq', 'status', 'text', 'type']);
    for (const m of p.ofType('batch.replace'))
      assert.deepEqual(Object.keys((m.data as { new_chunk: object }).new_chunk).sort(), ['id', 'index', 'status', 'text']);
  });
});
