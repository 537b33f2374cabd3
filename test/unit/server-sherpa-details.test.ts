/**
 * Details (word times, confidences) from the sherpa-onnx engine: the grouping of a result's tokens into
 * words (tokens.ts), and the recognizer and segmenter against the FAKE addon (test/helpers/fakeSherpaAddon.ts),
 * whose results carry the addon's fields derived from its script so that the times and confidences can be
 * predicted. No speech model can be downloaded here: nothing below measures recognition or timing accuracy.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolveConfig, type ClientConfig } from '../../src/protocol';
import { type SegmentEvent, Segmenter } from '../../src/server/engine/segmenter';
import { OnlineBatcher } from '../../src/server/engine/sherpa/batcher';
import type { SherpaModel } from '../../src/server/engine/sherpa/model';
import { SherpaSentenceDecoder } from '../../src/server/engine/sherpa/proofread';
import { SherpaRecognizer } from '../../src/server/engine/sherpa/recognizer';
import { wordTimings } from '../../src/server/engine/sherpa/tokens';
import { type FakeOnlineRecognizer, fakeSherpaAddon, fakeTokens } from '../helpers/fakeSherpaAddon';

const FR = ['Bonjour,', 'docteur', 'Martin.', 'Le', 'patient'];

function tone(ms: number): Buffer {
  const n = (16000 * ms) / 1000;
  const b = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) b.writeInt16LE(Math.round(9000 * Math.sin((2 * Math.PI * 220 * i) / 16000)), i * 2);
  return b;
}
const silence = (ms: number): Buffer => Buffer.alloc(((16000 * ms) / 1000) * 2);

function setup(o: { probs?: boolean; offline?: (samples: number) => string } = {}) {
  const addon = fakeSherpaAddon({ scripts: { fr: FR }, probs: o.probs ?? true, offline: o.offline ?? (() => '') });
  const online = new addon.OnlineRecognizer({}) as unknown as FakeOnlineRecognizer;
  const queued: Array<() => void> = [];
  const batcher = new OnlineBatcher(online, (run) => queued.push(run));
  const turn = (): void => queued.splice(0).forEach((run) => run());
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-fake-sherpa-'));
  writeFileSync(path.join(dir, 'tokens.txt'), '<blk> 0\n▁bon 1\njour 2\n');
  const model = { dir, name: 'fake', kind: 'offline', tokens: path.join(dir, 'tokens.txt'), modelType: 'nemo_transducer' } as SherpaModel;
  const decoder = new SherpaSentenceDecoder(addon, model, dir);
  const make = (config: ClientConfig = { language: 'fr' }) =>
    new SherpaRecognizer({
      batcher,
      perStreamLanguage: true,
      tailPaddingMs: 560,
      config: resolveConfig(config),
      proofreader: () => decoder,
    });
  return { turn, make };
}

/** Pushes `pcm` in 20 ms windows, a worker turn after every 100 ms. */
function feed(r: SherpaRecognizer, turn: () => void, pcm: Buffer): void {
  for (let off = 0; off < pcm.length; off += 640) {
    r.push(pcm.subarray(off, off + 640), true, 20);
    if ((off / 640) % 5 === 4) turn();
  }
}

describe('sherpa-onnx details (fake addon: no recognition is measured here)', () => {
  it('tokens into words: "▁" (a leading space) starts a word; punctuation tokens are left out of times and confidence', () => {
    const t = {
      tokens: [' Bon', 'jour', ',', ' doc', 'teur', ' ', '<0xC3>', '<0xA9>', 't', 'é', '.'],
      startMs: [0, 80, 160, 240, 320, 400, 400, 400, 480, 560, 640],
      logProbs: [-0.1, -0.2, -3, -0.05, Math.log(0.3), -0.1, -0.1, -0.1, -0.1, -0.1, -5],
      endMs: 900,
    };
    const w = wordTimings('Bonjour, docteur été.', t)!;
    assert.deepEqual(
      w.map((x) => [x.start_ms, x.end_ms]),
      [
        [0, 160],
        [240, 400],
        [400, 640],
      ],
      "a word ends where the token after its last letter starts (its own comma's); the last ends at the comma's start",
    );
    assert.deepEqual(
      w.map((x) => Math.round(x.confidence! * 1000) / 1000),
      [0.819, 0.3, 0.905],
      'the least sure letter token',
    );
    const noProbs = wordTimings('Bonjour, docteur été.', { ...t, logProbs: [] })!;
    assert.ok(
      noProbs.every((x) => !('confidence' in x)),
      'no log-probabilities: no confidence invented',
    );
    assert.equal(wordTimings('Bonjour docteur', t), undefined, 'tokens that do not make the text: no times');
    assert.equal(wordTimings('Bonjour, docteur été.', { ...t, startMs: [0] }), undefined);
    const tdt = wordTimings('a b', {
      tokens: [' a', ' b'],
      startMs: [100, 500],
      durationMs: [120, 0],
      logProbs: [0.4, -0.1],
      endMs: 1000,
    })!;
    assert.deepEqual(
      tdt.map((x) => [x.start_ms, x.end_ms, x.confidence]),
      [
        [100, 220, 1],
        [500, 1000, Math.exp(-0.1)],
      ],
      'TDT: the duration gives the end (none: the end of the audio); a hotword-boosted log-probability above 0 is 1',
    );
    assert.deepEqual(fakeTokens('Martin.'), [' Mar', 'tin', '.']);
  });

  it('first pass: word times on the recognizer clock, after each utterance too (the silence fed to end one is not counted); confidences from ys_probs', () => {
    const { turn, make } = setup();
    const r = make();
    feed(r, turn, tone(300));
    const first = r.endUtterance(true);
    assert.deepEqual(
      first.map((w) => [w.raw, w.start_ms, w.end_ms, w.confidence && Math.round(w.confidence * 100) / 100]),
      [
        ['Bonjour,', 0, 30, 0.9],
        ['docteur', 100, 200, 0.9],
        ['Martin.', 200, 220, 0.3],
      ],
      "each word where the fake released it; 'Martin.' is the 3rd word: its last letter token is 0.3",
    );
    feed(r, turn, silence(200));
    feed(r, turn, tone(200));
    const second = r.endUtterance(true);
    assert.deepEqual(
      second.map((w) => [w.raw, w.start_ms, w.end_ms]),
      [
        ['Le', 500, 600],
        ['patient', 600, 700],
      ],
      'on the recognizer clock (the tone from 500 ms), not the stream clock (560 ms of silence fed to end the first utterance)',
    );
    assert.equal(make().endUtterance(true).length, 0);
    assert.ok(
      r.endUtterance().every((w) => w.start_ms === undefined),
      'without details, no times',
    );
  });

  it('a NeMo transducer (no ys_probs): times without confidences; auto_punctuation false keeps the times of the words left', () => {
    const { turn, make } = setup({ probs: false });
    const r = make({ language: 'fr', auto_punctuation: false });
    feed(r, turn, tone(300));
    const words = r.endUtterance(true);
    assert.deepEqual(
      words.map((w) => [w.raw, w.start_ms, w.end_ms, 'confidence' in w]),
      [
        ['bonjour', 0, 30, false],
        ['docteur', 100, 200, false],
        ['Martin', 200, 220, false],
      ],
    );
  });

  it('through the segmenter with details: interim/final words within the audio, monotonic; new_chunk from the proofreading result (offline tokens, durations, log-probabilities)', async () => {
    const { turn, make } = setup({ offline: (samples) => (samples > 8000 ? 'Bonjour docteur Martin, le patient.' : '') });
    const late: SegmentEvent[] = [];
    const seg = new Segmenter(resolveConfig({ engine_endpointing: 0.3, silence_threshold: 1, details: true }), make(), {
      onLateEvents: (e) => late.push(...e),
    });
    const pcm = Buffer.concat([silence(400), tone(500), silence(1500)]);
    const events: SegmentEvent[] = [];
    for (let off = 0; off < pcm.length; off += 3200) {
      events.push(...seg.push(pcm.subarray(off, off + 3200)));
      turn();
    }
    await seg.proofreadingDone();
    events.push(...late);
    const audioMs = 2400;
    const finals = events.flatMap((e) => (e.type === 'transcript' && e.status !== 'streaming' ? [e] : []));
    assert.ok(finals.some((e) => e.status === 'final'));
    for (const f of finals) {
      assert.ok(f.words?.length, `${f.status} has words`);
      assert.equal(f.words!.map((w) => w.text).join(' '), f.text);
      let last = 0;
      for (const w of f.words!) {
        assert.ok(w.start_ms >= last && w.end_ms >= w.start_ms && w.end_ms <= audioMs, JSON.stringify(f.words));
        assert.ok(w.confidence !== undefined && w.confidence >= 0 && w.confidence <= 1);
        last = w.start_ms;
      }
      assert.ok(f.words![0]!.start_ms >= 400, 'not before the speech');
    }
    const replace = events.find((e) => e.type === 'batch.replace');
    assert.ok(replace?.type === 'batch.replace');
    const chunk = replace.data.new_chunk;
    assert.equal(chunk.text, 'Bonjour docteur Martin, le patient.');
    assert.deepEqual(
      chunk.words!.map((w) => w.text),
      ['Bonjour', 'docteur', 'Martin,', 'le', 'patient.'],
    );
    assert.deepEqual(
      chunk.words!.map((w) => w.confidence),
      [0.8, 0.8, 0.3, 0.8, 0.8],
      'the offline rule: every 3rd word 0.3',
    );
    const starts = chunk.words!.map((w) => w.start_ms);
    const share = starts[1]! - starts[0]!;
    assert.ok(
      starts.every((s, i) => Math.abs(s - starts[0]! - i * share) <= 20),
      `the fake shares the sentence's audio evenly: ${starts}`,
    );
    assert.ok(chunk.words![2]!.end_ms < starts[3]!, "a word's own punctuation token is not part of its time");
    assert.ok(chunk.start_ms! >= 0 && chunk.end_ms! <= audioMs && chunk.start_ms! < chunk.end_ms!);
    assert.equal(chunk.alternatives, undefined, 'no n-best: no alternatives');
  });
});
