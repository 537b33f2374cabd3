import assert from 'node:assert/strict';
import { type ClientConfig, parseClientMessage, parseServerMessage, resolveConfig } from '../../src/protocol';
import { chunkDetails, proofreadChunk } from '../../src/server/engine/details';
import { type ChunkEvent, type ReplaceEvent, type SegmentEvent, Segmenter } from '../../src/server/engine/segmenter';
import { DOUBTFUL_CONFIDENCE, SURE_CONFIDENCE, SimulatedEngine } from '../../src/server/engine/simulated';
import { wireEvent } from '../../src/server/live/wire';
import { framesOf, silence, tone } from '../helpers/speech';

const SCRIPT = 'Alpha, beta. Gamma delta epsilon zeta eta theta iota kappa lambda mu.';

function make(config: ClientConfig = {}): Segmenter {
  const cfg = resolveConfig({ engine_endpointing: 0.3, silence_threshold: 1, ...config });
  return new Segmenter(cfg, new SimulatedEngine(SCRIPT).create(cfg));
}

function feed(seg: Segmenter, ...parts: Buffer[]): SegmentEvent[] {
  const out: SegmentEvent[] = [];
  for (const p of parts) for (const f of framesOf(p)) out.push(...seg.push(f));
  return out;
}

const chunks = (ev: SegmentEvent[], status: string): ChunkEvent[] =>
  ev.filter((e): e is ChunkEvent & SegmentEvent => e.type === 'transcript' && e.status === status);
const replace = (ev: SegmentEvent[]): ReplaceEvent => ev.find((e): e is ReplaceEvent & SegmentEvent => e.type === 'batch.replace')!;

/** Two chunks (a pause of 400 ms between them), then the end of the sentence. */
const SPEECH = [silence(500), tone(1500), silence(400), tone(700), silence(1100)];

describe('details (configure.config.details)', () => {
  it('protocol: details is a boolean, absent by default', () => {
    const ok = parseClientMessage('{"type":"configure","config":{"details":true}}');
    assert.ok(ok.ok);
    const no = parseClientMessage('{"type":"configure","config":{"details":"yes"}}');
    assert.ok(!no.ok);
    assert.equal(no.code, 'CONFIG_ERROR');
    assert.match(no.message, /details must be a boolean/);
    assert.equal(resolveConfig({}).details, undefined);
    assert.equal(resolveConfig({ details: true }).details, true);
  });

  it('protocol: a client reads transcripts and new chunks with details (a word may lack a confidence); a confidence beyond 1 is refused', () => {
    const word = { text: 'alpha', start_ms: 500, end_ms: 800, confidence: 0.9 };
    const t = {
      type: 'transcript',
      status: 'final',
      text: 'alpha',
      id: 'a',
      index: 0,
      seq: 1,
      start_ms: 500,
      end_ms: 800,
      words: [word],
      alternatives: ['alfa'],
    };
    const parsed = parseServerMessage(JSON.stringify(t));
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.value, t);
    const r = {
      type: 'batch.replace',
      seq: 2,
      data: {
        target_ids: ['a'],
        new_chunk: { id: 'b', index: 0, text: 'Alpha.', status: 'final', start_ms: 500, end_ms: 800, words: [word] },
      },
    };
    assert.ok(parseServerMessage(JSON.stringify(r)).ok);
    assert.ok(!parseServerMessage(JSON.stringify({ ...t, words: [{ ...word, confidence: 1.5 }] })).ok);
    assert.ok(
      parseServerMessage(JSON.stringify({ ...t, words: [{ text: 'alpha', start_ms: 500, end_ms: 800 }] })).ok,
      'a word without a confidence',
    );
  });

  it('without details, events carry none of them (the spec shape)', () => {
    const ev = feed(make(), ...SPEECH);
    for (const e of ev) {
      const wire = wireEvent(e, 1);
      const chunk = e.type === 'transcript' ? wire : e.data.new_chunk;
      for (const k of ['start_ms', 'end_ms', 'words', 'alternatives']) assert.ok(!(k in chunk), `${k} in ${JSON.stringify(wire)}`);
    }
    assert.deepEqual(Object.keys(wireEvent(chunks(ev, 'final')[0]!, 7)), ['type', 'status', 'text', 'id', 'index', 'seq']);
  });

  it('simulated: times, confidences and alternatives follow the documented rule', () => {
    const ev = feed(make({ details: true }), ...SPEECH);
    for (const s of chunks(ev, 'streaming')) assert.equal(s.words, undefined, 'streaming events carry no details');
    const [first, second] = chunks(ev, 'final');
    // Voiced from 500 ms: word k ends at 500 + 300 k and starts where the previous one ended.
    assert.deepEqual(first!.words, [
      { text: 'alpha', start_ms: 500, end_ms: 800, confidence: SURE_CONFIDENCE },
      { text: 'beta', start_ms: 800, end_ms: 1100, confidence: SURE_CONFIDENCE },
      { text: 'gamma', start_ms: 1100, end_ms: 1400, confidence: SURE_CONFIDENCE },
      { text: 'delta', start_ms: 1400, end_ms: 1700, confidence: SURE_CONFIDENCE },
      { text: 'epsilon', start_ms: 1700, end_ms: 2000, confidence: DOUBTFUL_CONFIDENCE },
    ]);
    assert.equal(first!.start_ms, 500);
    assert.equal(first!.end_ms, 2000);
    assert.deepEqual(first!.alternatives, ['alpha beta gamma delta'], 'the text without its doubtful word');
    // The second utterance starts after the 400 ms pause.
    assert.deepEqual([second!.start_ms, second!.end_ms, second!.alternatives], [2400, 3000, []]);
    const interim = chunks(ev, 'interim');
    assert.deepEqual(interim[0]!.words, first!.words, 'interim carries the words');
    assert.equal(interim[0]!.alternatives, undefined, 'interim carries no alternatives');
    const nc = replace(ev).data.new_chunk;
    assert.equal(nc.text, 'Alpha, beta. Gamma delta epsilon zeta eta');
    assert.equal(nc.words!.map((w) => w.text).join(' '), nc.text, 'the proofread words make the text');
    assert.deepEqual([nc.start_ms, nc.end_ms], [500, 3000]);
    assert.deepEqual(nc.alternatives, ['Alpha, beta. Gamma delta zeta eta']);
  });

  it('the segmenter keeps times monotonic and within the chunk, on the session clock after a restore', () => {
    const seg = make({ details: true, max_buffer_size: 10 });
    const before = feed(seg, silence(300), tone(900), silence(1100));
    const cp = seg.checkpoint();
    const cfg = resolveConfig({ engine_endpointing: 0.3, silence_threshold: 1, details: true, max_buffer_size: 10 });
    const again = new Segmenter(cfg, new SimulatedEngine(SCRIPT).create(cfg), { restore: cp });
    const after = feed(again, tone(600), silence(1100));
    const finals = [...chunks(before, 'final'), ...chunks(after, 'final')];
    assert.equal(finals.length, 2);
    let last = 0;
    for (const c of finals) {
      assert.ok(c.start_ms! >= last, 'chunks in audio order');
      for (const w of c.words!) {
        assert.ok(w.start_ms >= c.start_ms! && w.end_ms <= c.end_ms! && w.start_ms <= w.end_ms, JSON.stringify(c));
        assert.ok(w.start_ms >= last, 'words in audio order');
        last = w.start_ms;
      }
    }
    // The restored segmenter's clock starts at the checkpoint's offset (2300 ms): its first word ends 300 ms later.
    assert.equal(cp.audioOffset, 2300 * 32);
    assert.deepEqual(
      finals[1]!.words!.map((w) => [w.text, w.start_ms, w.end_ms, w.confidence]),
      [
        ['delta', 2300, 2600, SURE_CONFIDENCE],
        ['epsilon', 2600, 2900, DOUBTFUL_CONFIDENCE],
      ],
    );
  });

  it('chunkDetails: clamps times, needs every word timed (a word without a confidence goes without), keeps alternatives distinct and other than the text', () => {
    const w = (raw: string, s: number, e: number, c = 0.5) => ({ raw, proofread: raw, start_ms: s, end_ms: e, confidence: c });
    const d = chunkDetails([w('a', 100, 200), w('b', 90, 150, 1.7), w('c', 300, 250, -1)], 'raw', [
      'a b c',
      'a b',
      ' a b ',
      'x',
      'y',
      'z',
      'v',
      'u',
    ]);
    assert.deepEqual(d.words, [
      { text: 'a', start_ms: 100, end_ms: 200, confidence: 0.5 },
      { text: 'b', start_ms: 100, end_ms: 200, confidence: 1 },
      { text: 'c', start_ms: 300, end_ms: 300, confidence: 0 },
    ]);
    assert.deepEqual([d.start_ms, d.end_ms], [100, 300]);
    assert.deepEqual(d.alternatives, ['a b', 'x', 'y', 'z', 'v']);
    assert.deepEqual(chunkDetails([w('a', 0, 10), { raw: 'b', proofread: 'b' }], 'raw', ['x']), {}, 'an engine without times sends none');
    assert.equal(chunkDetails([w('a', 0, 10)], 'raw').alternatives, undefined, 'no alternatives when the engine has none');
    assert.deepEqual(
      chunkDetails([{ raw: 'a', proofread: 'a', start_ms: 0, end_ms: 10 }], 'raw').words,
      [{ text: 'a', start_ms: 0, end_ms: 10 }],
      'an engine with times and no confidences sends times and no confidence',
    );
  });
});

describe('details of a sentence whose proofreading gives only text', () => {
  // The pocketsphinx engine's second pass runs in a thread with a time limit; on a loaded machine it
  // may miss it, and the sentence is then proofread as its first-pass words with a capital and a period.
  // A fake: the simulated engine whose second pass fails, as that thread's does when out of time.
  it('a failed second pass: the new chunk is the first pass with a capital and a period, and its words make that text', async () => {
    const cfg = resolveConfig({ engine_endpointing: 0.3, silence_threshold: 1, details: true });
    const failingSecondPass = Object.assign(new SimulatedEngine(SCRIPT).create(cfg), {
      endSentence: () => Promise.reject(new Error('proofreading gave no answer within 5000 ms')),
    });
    const late: SegmentEvent[] = [];
    const seg = new Segmenter(cfg, failingSecondPass, { onLateEvents: (e) => late.push(...e) });
    feed(seg, ...SPEECH);
    await seg.proofreadingDone();
    const nc = replace(late).data.new_chunk;
    assert.equal(nc.text, 'Alpha beta gamma delta epsilon zeta eta.');
    assert.deepEqual(
      nc.words!.map((w) => [w.text, w.start_ms, w.end_ms]),
      [
        ['Alpha', 500, 800],
        ['beta', 800, 1100],
        ['gamma', 1100, 1400],
        ['delta', 1400, 1700],
        ['epsilon', 1700, 2000],
        ['zeta', 2400, 2700],
        ['eta.', 2700, 3000],
      ],
    );
  });

  it('proofreadChunk: a text of other words than the first pass gives no word details rather than words that do not make it', () => {
    const firstPass = [
      { raw: 'go', proofread: 'go', start_ms: 0, end_ms: 200, confidence: 0.9 },
      { raw: 'forward', proofread: 'forward', start_ms: 200, end_ms: 600, confidence: 0.8 },
    ];
    const same = proofreadChunk('Go forward.', firstPass, true, 0);
    assert.deepEqual(
      same.details.words?.map((w) => w.text),
      ['Go', 'forward.'],
    );
    const other = proofreadChunk({ text: 'Go forward ten meters.', alternatives: ['Go forward two meters.'] }, firstPass, true, 0);
    assert.equal(other.text, 'Go forward ten meters.');
    assert.equal(other.details.words, undefined);
    // A word of the first pass may hold a space (a keyterm): it takes as many tokens of the text.
    const spaced = proofreadChunk(
      'Go New York.',
      [firstPass[0]!, { raw: 'new york', proofread: 'new york', start_ms: 200, end_ms: 600 }],
      true,
      0,
    );
    assert.deepEqual(
      spaced.details.words?.map((w) => w.text),
      ['Go', 'New York.'],
    );
  });
});
