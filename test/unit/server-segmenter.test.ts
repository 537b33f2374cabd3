import assert from 'node:assert/strict';
import { type ClientConfig, resolveConfig } from '../../src/protocol';
import { SimulatedEngine } from '../../src/server/engine/simulated';
import { MAX_SENTENCE_CHUNKS, type SegmentEvent, Segmenter } from '../../src/server/engine/segmenter';
import { framesOf, silence, speechPcm, tone } from '../helpers/speech';

const SCRIPT = 'Alpha, beta. Gamma delta epsilon zeta eta theta iota kappa lambda mu.';

function make(config: ClientConfig = {}, script = SCRIPT): Segmenter {
  const cfg = resolveConfig({ engine_endpointing: 0.3, silence_threshold: 1, ...config });
  return new Segmenter(cfg, new SimulatedEngine(script).create(cfg));
}

function feed(seg: Segmenter, ...parts: Buffer[]): SegmentEvent[] {
  const out: SegmentEvent[] = [];
  for (const p of parts) for (const f of framesOf(p)) out.push(...seg.push(f));
  return out;
}

/** Compact form: "s:0:alpha beta" / "i:0:…" / "f:0:…" / "R:0:[0]:Alpha, beta." */
function short(events: SegmentEvent[], ids = new Map<string, number>()): string[] {
  const n = (id: string): number => {
    if (!ids.has(id)) ids.set(id, ids.size);
    return ids.get(id)!;
  };
  return events.map((e) =>
    e.type === 'transcript'
      ? `${e.status[0]}:${n(e.id)}:${e.text}`
      : `R:${e.data.new_chunk.index}:[${e.data.target_ids.map(n).join(',')}]:${e.data.new_chunk.text}`,
  );
}

describe('server segmenter', () => {
  it('streams one event per word, turns interim after engine_endpointing, final + proofread after silence_threshold', () => {
    const seg = make();
    assert.deepEqual(short(feed(seg, tone(1500))), [
      's:0:alpha',
      's:0:alpha beta',
      's:0:alpha beta gamma',
      's:0:alpha beta gamma delta',
      's:0:alpha beta gamma delta epsilon',
    ]);
    assert.deepEqual(short(feed(seg, silence(280))), [], 'no interim before 300 ms of pause');
    const ids = new Map<string, number>();
    const e2 = feed(seg, silence(20));
    assert.deepEqual(short(e2, ids), ['i:0:alpha beta gamma delta epsilon']);
    assert.deepEqual(short(feed(seg, silence(680)), ids), [], 'nothing before 1 s of pause');
    const e3 = feed(seg, silence(20));
    assert.deepEqual(short(e3, ids), ['f:0:alpha beta gamma delta epsilon', 'R:0:[0]:Alpha, beta. Gamma delta epsilon']);
    assert.ok(
      e3.every((e) => e.checkpoint),
      'durable events carry a checkpoint',
    );
    assert.deepEqual(feed(seg, silence(3000)), [], 'a sentence ends once');
  });

  it('a pause shorter than engine_endpointing keeps the chunk; a longer one starts a new chunk', () => {
    const seg = make();
    const ev = short(feed(seg, tone(600), silence(200), tone(600), silence(400), tone(600)));
    assert.deepEqual(ev, [
      's:0:alpha',
      's:0:alpha beta',
      's:0:alpha beta gamma',
      's:0:alpha beta gamma delta',
      'i:0:alpha beta gamma delta',
      's:1:epsilon',
      's:1:epsilon zeta',
    ]);
  });

  it('uses the chunk indices in order and UUID ids', () => {
    const seg = make({ max_buffer_size: 10 });
    const ev = feed(seg, tone(600), silence(400), tone(600), silence(400), tone(600), silence(1200));
    const finals = ev.filter((e) => e.type === 'transcript' && e.status === 'final') as Array<SegmentEvent & { type: 'transcript' }>;
    assert.deepEqual(
      finals.map((e) => e.index),
      [0, 1, 2],
    );
    for (const e of finals) assert.match(e.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const r = ev.find((e) => e.type === 'batch.replace')!;
    assert.ok(r.type === 'batch.replace');
    assert.deepEqual(
      r.data.target_ids,
      finals.map((e) => e.id),
    );
    assert.equal(r.data.new_chunk.index, 0);
    assert.equal(r.data.new_chunk.status, 'final');
    assert.equal(r.data.new_chunk.text, 'Alpha, beta. Gamma delta epsilon zeta');
  });

  it('audio_duration_threshold: a chunk never holds more audio than that', () => {
    const seg = make({ audio_duration_threshold: 1 });
    const ev = short(feed(seg, tone(3000)));
    // Words at 300, 600, …, 3000 ms; chunk 0 opens at 300 ms and is cut after 1000 ms of its own
    // audio (1300 ms), chunk 1 opens with the next word (1500 ms) and is cut at 2500 ms.
    assert.deepEqual(ev, [
      's:0:alpha',
      's:0:alpha beta',
      's:0:alpha beta gamma',
      's:0:alpha beta gamma delta',
      'i:0:alpha beta gamma delta',
      's:1:epsilon',
      's:1:epsilon zeta',
      's:1:epsilon zeta eta',
      's:1:epsilon zeta eta theta',
      'i:1:epsilon zeta eta theta',
      's:2:iota',
      's:2:iota kappa',
    ]);
  });

  it('max_buffer_size: beyond that many pending chunks, the oldest become final', () => {
    const seg = make({ max_buffer_size: 2 });
    const ev = short(feed(seg, tone(300), silence(400), tone(300), silence(400), tone(300), silence(400), tone(300)));
    assert.deepEqual(ev, [
      's:0:alpha',
      'i:0:alpha',
      's:1:beta',
      'i:1:beta',
      'f:0:alpha',
      's:2:gamma',
      'i:2:gamma',
      'f:1:beta',
      's:3:delta',
    ]);
    assert.equal(seg.pendingChunks().length, 2);
  });

  it('a sentence without a long pause is closed after 16 final chunks', () => {
    const words = Array.from({ length: 40 }, (_, i) => `w${i}.`).join(' ');
    const seg = make({ max_buffer_size: 1 }, words);
    const parts: Buffer[] = [];
    for (let i = 0; i < 20; i++) parts.push(tone(300), silence(400)); // one word per chunk, never a 1 s pause
    const ev = feed(seg, ...parts);
    const replaces = ev.filter((e) => e.type === 'batch.replace');
    assert.equal(replaces.length, 1);
    const r = replaces[0]!;
    assert.ok(r.type === 'batch.replace');
    assert.equal(r.data.target_ids.length, MAX_SENTENCE_CHUNKS);
    assert.equal(r.data.new_chunk.text, Array.from({ length: 16 }, (_, i) => `w${i}.`).join(' '));
    assert.equal(r.checkpoint!.sentence.length, 0);
  });

  it('enable_final_proofreading=false: finals only, no batch.replace', () => {
    const seg = make({ enable_final_proofreading: false });
    assert.deepEqual(short(feed(seg, tone(600), silence(1000))), ['s:0:alpha', 's:0:alpha beta', 'i:0:alpha beta', 'f:0:alpha beta']);
  });

  it('flush() finalises pending chunks (with or without proofreading)', () => {
    const a = make();
    feed(a, tone(600));
    assert.deepEqual(short(a.flush({ proofread: true })), ['f:0:alpha beta', 'R:0:[0]:Alpha, beta.']);
    assert.deepEqual(a.flush({ proofread: true }), [], 'nothing twice');
    const b = make();
    feed(b, tone(600));
    assert.deepEqual(short(b.flush({ proofread: false })), ['f:0:alpha beta']);
    // The open sentence is proofread at the next sentence end, with the later chunks.
    const ids = new Map<string, number>();
    const flushed = b.flush({ proofread: false });
    assert.deepEqual(flushed, []);
    const ev = short([...feed(b, tone(300), silence(1000))], ids);
    // ids numbered as first seen here: 0 = the gamma chunk, 1 = the earlier flushed chunk (targets in order).
    assert.deepEqual(ev.slice(-2), ['f:0:gamma', 'R:0:[1,0]:Alpha, beta. Gamma'], ev.join(' | '));
  });

  it('releases nothing after the last word of the script', () => {
    const seg = make({}, 'Only three words.');
    const ev = short(feed(seg, tone(3000), silence(1000), tone(3000), silence(1000)));
    assert.deepEqual(ev, [
      's:0:only',
      's:0:only three',
      's:0:only three words',
      'i:0:only three words',
      'f:0:only three words',
      'R:0:[0]:Only three words.',
    ]);
  });

  it('chunk text never has leading or trailing spaces', () => {
    const seg = make({}, '  spaced   out\twords  ');
    for (const e of feed(seg, tone(1200), silence(1000))) {
      const text = e.type === 'transcript' ? e.text : e.data.new_chunk.text;
      assert.equal(text, text.trim());
    }
  });

  it('gives the same events whatever the frame size', () => {
    const pcm = Buffer.concat([tone(900), silence(500), tone(700), silence(1100)]);
    const a = make();
    const b = make();
    const ea = short(feed(a, pcm));
    const eb: SegmentEvent[] = [];
    for (const f of framesOf(pcm, 1002)) eb.push(...b.push(f));
    assert.deepEqual(short(eb), ea);
    assert.throws(() => b.push(Buffer.alloc(3)), /even/);
  });

  it('gives the same events from frames at odd byte offsets (a copy of the samples, not a view)', () => {
    const pcm = Buffer.concat([tone(900), silence(500), tone(700), silence(1100)]);
    const a = make();
    const b = make();
    const ea = short(feed(a, pcm));
    const eb: SegmentEvent[] = [];
    for (const f of framesOf(pcm, 3202)) eb.push(...b.push(Buffer.concat([Buffer.alloc(1), f]).subarray(1)));
    assert.deepEqual(short(eb), ea);
    assert.equal(b.receivedBytes, pcm.length);
  });

  it('rebuilds from a durable checkpoint: the audio from its offset gives the rest, nothing twice', () => {
    // Two chunks pending, the first forced final by max_buffer_size: the checkpoint goes back to the
    // start of the second chunk, so re-sent audio releases its words again (and only those).
    const pcm = Buffer.concat([tone(600), silence(400), tone(600), silence(400), tone(600), silence(1200)]);
    const whole = make({ max_buffer_size: 1 });
    const all = feed(whole, pcm);
    const ids = new Map<string, number>();
    const full = short(all, ids);
    const firstFinal = all.findIndex((e) => e.type === 'transcript' && e.status === 'final');
    const cp = all[firstFinal]!.checkpoint!;
    assert.ok(cp.audioOffset > 0 && cp.audioOffset < pcm.length);
    const cfg = resolveConfig({ engine_endpointing: 0.3, silence_threshold: 1, max_buffer_size: 1 });
    const again = new Segmenter(cfg, new SimulatedEngine(SCRIPT).create(cfg), { restore: JSON.parse(JSON.stringify(cp)) });
    const rest = feed(again, pcm.subarray(cp.audioOffset));
    const finalsOf = (ev: SegmentEvent[]): string[] =>
      ev.filter((e) => e.type === 'transcript' && e.status === 'final').map((e) => (e.type === 'transcript' ? e.text : ''));
    assert.deepEqual([...finalsOf(all.slice(0, firstFinal + 1)), ...finalsOf(rest)], finalsOf(all), full.join(' | '));
    const lastRest = rest[rest.length - 1]!;
    const lastAll = all[all.length - 1]!;
    assert.ok(lastRest.type === 'batch.replace' && lastAll.type === 'batch.replace');
    assert.equal(lastRest.data.new_chunk.text, lastAll.data.new_chunk.text, 'the proofread sentence is the same');
    assert.equal(lastRest.data.target_ids.length, lastAll.data.target_ids.length);
  });

  it('presets set the timings; an explicit field wins over the preset', () => {
    const pauseToInterim = (config: ClientConfig): number => {
      const cfg = resolveConfig(config);
      const seg = new Segmenter(cfg, new SimulatedEngine(SCRIPT).create(cfg));
      feed(seg, tone(600));
      for (let ms = 20; ms <= 3000; ms += 20) {
        if (seg.push(silence(20)).some((e) => e.type === 'transcript' && e.status === 'interim')) return ms;
      }
      return -1;
    };
    assert.equal(pauseToInterim({}), 500, 'balanced: engine_endpointing 0.5');
    assert.equal(pauseToInterim({ preset: 'low_latency' }), 300);
    assert.equal(pauseToInterim({ preset: 'high_quality' }), 800);
    assert.equal(pauseToInterim({ preset: 'high_quality', engine_endpointing: 0.2 }), 200);
  });

  it('config edge cases: bounds are inclusive, conflicts name the field that was set', () => {
    assert.doesNotThrow(() =>
      resolveConfig({
        engine_endpointing: 0.05,
        silence_threshold: 0.2,
        audio_duration_threshold: 1,
        flush_timeout: 0.5,
        max_buffer_size: 1,
        stop_delay: 0,
      }),
    );
    assert.doesNotThrow(() =>
      resolveConfig({
        silence_threshold: 10,
        audio_duration_threshold: 60,
        flush_timeout: 60,
        max_buffer_size: 100,
        stop_delay: 30,
        engine_endpointing: 5,
      }),
    );
    assert.throws(
      () => resolveConfig({ preset: 'high_quality', silence_threshold: 0.5 }),
      (e: Error & { field?: string }) => e.field === 'silence_threshold',
    );
    assert.throws(
      () => resolveConfig({ engine_endpointing: 2.5 }),
      (e: Error & { field?: string }) => e.field === 'engine_endpointing',
    );
    const seg = make({ engine_endpointing: 0.05, silence_threshold: 0.2, max_buffer_size: 1 });
    assert.deepEqual(short(feed(seg, tone(300), silence(200))), ['s:0:alpha', 'i:0:alpha', 'f:0:alpha', 'R:0:[0]:Alpha,']);
  });

  it('with espeak speech: words come in order, the sentence ends after the pause, nothing else', async function () {
    this.timeout(20000);
    const speech = await speechPcm('The quick brown fox jumps over the lazy dog.');
    const seg = make(
      {},
      'One two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty.',
    );
    const ev = feed(seg, speech, silence(1200));
    const words = Math.floor(seg.voicedMs / 300);
    assert.ok(words >= 3 && words < 20, `voiced ${seg.voicedMs} ms`);
    const last = ev[ev.length - 1]!;
    assert.ok(last.type === 'batch.replace');
    const expected =
      'One two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty.'
        .split(' ')
        .slice(0, words)
        .join(' ');
    assert.equal(last.data.new_chunk.text, expected);
    // Determinism: the same PCM gives the same texts.
    const seg2 = make(
      {},
      'One two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty.',
    );
    assert.deepEqual(short(feed(seg2, speech, silence(1200))), short(ev));
  });

  it('a recognizer that reads audio gets the samples of every window; one that does not (simulated) gets an empty buffer, with the same events', async () => {
    const cfg = resolveConfig({ engine_endpointing: 0.3, silence_threshold: 1 });
    const pcm = Buffer.concat([await speechPcm('The patient is a fifty two year old man.'), silence(1200)]);
    const seen: Buffer[] = [];
    const reading = new SimulatedEngine(SCRIPT).create(cfg);
    const spy = Object.assign(Object.create(reading) as typeof reading, {
      ignoresAudio: false,
      push(window: Buffer, voiced: boolean, ms: number) {
        seen.push(Buffer.from(window));
        return reading.push(window, voiced, ms);
      },
    });
    const ids = { n: 0 };
    const newId = (): string => `id${ids.n++}`;
    const withAudio = feed(new Segmenter(cfg, spy, { newId }), pcm);
    const wb = 640;
    assert.equal(seen.length, Math.floor(pcm.length / wb), 'one window per 20 ms');
    assert.ok(
      seen.every((w, i) => w.equals(pcm.subarray(i * wb, (i + 1) * wb))),
      'each window is its own 20 ms of the audio, in order',
    );

    const empty: number[] = [];
    const ignoring = new SimulatedEngine(SCRIPT).create(cfg);
    assert.equal(ignoring.ignoresAudio, true);
    const push = ignoring.push.bind(ignoring);
    ignoring.push = (window, voiced, ms) => {
      empty.push(window.length);
      return push(window, voiced, ms);
    };
    ids.n = 0;
    const without = feed(new Segmenter(cfg, ignoring, { newId }), pcm);
    assert.ok(empty.length > 0 && empty.every((n) => n === 0), 'no view of the window is made for it');
    assert.deepEqual(without, withAudio);
  });
});
