/**
 * The sherpa-onnx engine's own logic against a FAKE addon (test/helpers/fakeSherpaAddon.ts: it releases
 * a script, it recognises nothing): the streams of a thread decoded together, the language pinned, the
 * model's punctuation kept or taken off, keyterms as the proofreading pass's hotwords, the proofreading
 * pass and its fallbacks. No speech model can be downloaded here: nothing below measures recognition.
 */
import assert from 'node:assert/strict';
import { resolveConfig, type ClientConfig } from '../../src/protocol';
import { OnlineBatcher } from '../../src/server/engine/sherpa/batcher';
import { SherpaRecognizer } from '../../src/server/engine/sherpa/recognizer';
import { SherpaSentenceDecoder } from '../../src/server/engine/sherpa/proofread';
import { hotwordsOf, keptWords, modelWords, proofreadText } from '../../src/server/engine/sherpa/text';
import type { SherpaModel } from '../../src/server/engine/sherpa/model';
import { type SegmentEvent, Segmenter } from '../../src/server/engine/segmenter';
import { type FakeOnlineRecognizer, type FakeOnlineStream, fakeSherpaAddon } from '../helpers/fakeSherpaAddon';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const FR = ['Bonjour,', 'docteur', 'Martin.', 'Le', 'patient', 'va', 'bien.'];
const EN = ['Hello,', 'doctor', 'Smith.'];

function tone(ms: number): Buffer {
  const n = (16000 * ms) / 1000;
  const b = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) b.writeInt16LE(Math.round(9000 * Math.sin((2 * Math.PI * 220 * i) / 16000)), i * 2);
  return b;
}
const silence = (ms: number): Buffer => Buffer.alloc(((16000 * ms) / 1000) * 2);

/** A batcher whose end-of-turn decode runs when the test says (`turn()`), as the worker's event loop would. */
function manualBatcher(recognizer: FakeOnlineRecognizer): { batcher: OnlineBatcher; turn: () => void } {
  const queued: Array<() => void> = [];
  const batcher = new OnlineBatcher(recognizer, (run) => queued.push(run));
  return { batcher, turn: () => queued.splice(0).forEach((run) => run()) };
}

function setup(
  o: {
    config?: ClientConfig;
    perStreamLanguage?: boolean;
    offline?: (samples: number, hotwords: string | undefined) => string;
    proofread?: boolean;
  } = {},
) {
  const addon = fakeSherpaAddon({ scripts: { fr: FR, en: EN, auto: ['¿auto?'] }, ...(o.offline ? { offline: o.offline } : {}) });
  const online = new addon.OnlineRecognizer({}) as unknown as FakeOnlineRecognizer;
  const { batcher, turn } = manualBatcher(online);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-fake-sherpa-'));
  writeFileSync(path.join(dir, 'tokens.txt'), '<blk> 0\n▁bon 1\njour 2\n');
  const model: SherpaModel = {
    dir,
    name: 'fake',
    kind: 'offline',
    languages: ['fr'],
    perStreamLanguage: false,
    punctuates: true,
    licence: 'none',
    revision: '0'.repeat(40),
    encoder: 'e',
    decoder: 'd',
    joiner: 'j',
    tokens: path.join(dir, 'tokens.txt'),
    featureDim: 128,
    modelType: 'nemo_transducer',
  };
  const decoder = o.proofread === false ? undefined : new SherpaSentenceDecoder(addon, model, dir);
  const make = (config: ClientConfig = o.config ?? {}) =>
    new SherpaRecognizer({
      batcher,
      perStreamLanguage: o.perStreamLanguage ?? true,
      tailPaddingMs: 560,
      config: resolveConfig(config),
      ...(decoder ? { proofreader: () => decoder } : {}),
    });
  return { addon, online, batcher, turn, make };
}

/** Feeds `pcm` in 100 ms frames, one worker turn after each; returns every event (late ones included). */
async function dictate(segmenter: Segmenter, turn: () => void, pcm: Buffer, late: SegmentEvent[]): Promise<SegmentEvent[]> {
  const out: SegmentEvent[] = [];
  for (let off = 0; off < pcm.length; off += 3200) {
    out.push(...segmenter.push(pcm.subarray(off, off + 3200)));
    turn();
  }
  await segmenter.proofreadingDone();
  return [...out, ...late];
}

describe('sherpa-onnx engine logic (fake addon: no recognition is measured here)', () => {
  it('the streams of a thread are decoded together at the end of its turn, in one decodeStreams call', () => {
    const { online, turn, make } = setup();
    const a = make({ language: 'fr' });
    const b = make({ language: 'en' });
    for (let i = 0; i < 5; i++) {
      assert.equal(a.push(tone(20), true, 20), undefined);
      assert.equal(b.push(tone(20), true, 20), undefined);
    }
    assert.equal(online.calls.length, 0, "nothing is decoded inside a session's call");
    turn();
    assert.deepEqual(online.calls, [{ method: 'decodeStreams', streams: 2 }]);
    // The words decoded at the end of the last turn come out at the session's next result.
    for (let i = 0; i < 4; i++) a.push(tone(20), true, 20);
    assert.deepEqual(
      a.push(tone(20), true, 20)?.map((w) => w.raw),
      ['Bonjour,'],
    );
    // The end of an utterance decodes at once (with the tail padding), every ready stream together.
    assert.deepEqual(
      a.endUtterance().map((w) => w.raw),
      ['Bonjour,', 'docteur'],
    );
    assert.ok(online.calls.slice(1).every((c) => c.method === 'decodeStreams' || c.streams === 1));
  });

  it("a multilingual model: each stream is pinned to its session's language, again after every reset; a one-language model is not", () => {
    const { online, make } = setup();
    make({ language: 'en' }).endUtterance();
    const en = online.streams[0]!;
    const r = make({ language: 'fr' });
    r.push(tone(20), true, 20);
    r.endUtterance();
    assert.deepEqual(en.optionCalls, [['language', 'en']]);
    assert.deepEqual(online.streams[1]!.optionCalls, [
      ['language', 'fr'],
      ['language', 'fr'],
    ]);
    const single = setup({ perStreamLanguage: false });
    single.make({ language: 'fr' });
    assert.deepEqual(single.online.streams[0]!.optionCalls, []);
  });

  it('a batch that throws fails the sessions whose streams were in it, at their next call; the others go on', () => {
    const addon = fakeSherpaAddon({ scripts: { fr: FR }, failWhen: (s) => s.some((x) => x.accepted >= 3200) });
    const online = new addon.OnlineRecognizer({}) as unknown as FakeOnlineRecognizer;
    const { batcher, turn } = manualBatcher(online);
    const make = () => new SherpaRecognizer({ batcher, perStreamLanguage: false, tailPaddingMs: 560, config: resolveConfig({}) });
    const a = make();
    for (let i = 0; i < 10; i++) a.push(tone(20), true, 20);
    turn();
    assert.throws(() => a.push(tone(20), true, 20), /fake: decode failed/);
    const b = make();
    for (let i = 0; i < 5; i++) b.push(tone(20), true, 20);
    turn();
    assert.doesNotThrow(() => b.push(tone(20), true, 20));
    a.dispose();
    assert.equal(batcher.size, 1);
  });

  it("auto_punctuation false: the model's punctuation and sentence capitals are taken off; inner punctuation, names and acronyms stay", () => {
    assert.deepEqual(
      modelWords("Bonjour, docteur Martin. Le scanner CT montre 3,5 cm « l'épanchement » peut-être ? Oui 50 %", false).map((w) => w.raw),
      ['bonjour', 'docteur', 'Martin', 'le', 'scanner', 'CT', 'montre', '3,5', 'cm', "l'épanchement", 'peut-être', 'oui', '50', '%'],
    );
    assert.deepEqual(
      modelWords('Bonjour, docteur.', true).map((w) => w.raw),
      ['Bonjour,', 'docteur.'],
    );
    assert.deepEqual(
      modelWords('Fin. Doliprane 1 g. Scanner', false, keptWords(['Doliprane', 'Scanner/thorax'])).map((w) => w.raw),
      ['fin', 'Doliprane', '1', 'g', 'Scanner'],
      'a keyterm keeps its capital',
    );
    assert.equal(proofreadText('bonjour, docteur Martin. le patient', false), 'Bonjour docteur Martin le patient.');
    assert.equal(proofreadText('Bonjour, docteur Martin ! Le patient', true), 'Bonjour, docteur Martin ! Le patient.');
  });

  it('keyterms become the addon\'s hotwords: "/"-separated, a "/" or ":" inside a term cannot split it or set a score', () => {
    assert.equal(hotwordsOf([]), undefined);
    assert.equal(hotwordsOf(['Doliprane', ' scanner  thoracique ', 'a/b', 'x:2.0', 'Doliprane']), 'Doliprane/scanner thoracique/a b/x 2.0');
  });

  for (const auto of [false, true]) {
    it(`segmenter + recognizer + proofreading pass (auto_punctuation ${auto}): finals from the first pass, batch.replace from the offline model with the keyterms as hotwords`, async () => {
      const hotwordsSeen: Array<string | undefined> = [];
      const { addon, online, turn, make } = setup({
        config: {
          language: 'fr',
          engine_endpointing: 0.3,
          silence_threshold: 1,
          keyterms: ['Doliprane', 'scanner/thorax'],
          auto_punctuation: auto,
        },
        offline: (samples, hotwords) => {
          hotwordsSeen.push(hotwords);
          return samples > 16000 ? 'Bonjour, docteur Martin. Le patient va bien, Doliprane.' : '';
        },
      });
      const late: SegmentEvent[] = [];
      const seg = new Segmenter(resolveConfig({ engine_endpointing: 0.3, silence_threshold: 1 }), make(), {
        onLateEvents: (e) => late.push(...e),
      });
      const events = await dictate(seg, turn, Buffer.concat([silence(300), tone(1000), silence(1500)]), late);
      const finals = events.filter((e) => e.type === 'transcript' && e.status === 'final');
      assert.equal(finals.length, 1);
      const text = (e: SegmentEvent): string => (e.type === 'transcript' ? e.text : e.data.new_chunk.text);
      assert.equal(text(finals[0]!), auto ? 'Bonjour, docteur Martin. Le patient va bien.' : 'bonjour docteur Martin le patient va bien');
      assert.ok(events.some((e) => e.type === 'transcript' && e.status === 'streaming'));
      const replace = events.filter((e) => e.type === 'batch.replace');
      assert.equal(replace.length, 1);
      assert.equal(
        text(replace[0]!),
        auto ? 'Bonjour, docteur Martin. Le patient va bien, Doliprane.' : 'Bonjour docteur Martin le patient va bien Doliprane.',
      );
      assert.deepEqual(hotwordsSeen, ['Doliprane/scanner thorax']);
      const sentence = addon.offline[0]!.decoded[0]!;
      assert.ok(
        sentence.samples >= 16000 && sentence.samples <= 16000 * 2.6,
        `the sentence's audio, not the session's: ${sentence.samples}`,
      );
      assert.ok(online.streams[0]!.optionCalls.every(([k, v]) => k === 'language' && v === 'fr'));
      assert.equal(addon.offline[0]!.config.decodingMethod, 'modified_beam_search');
    });
  }

  it('without a proofreading model, or when it finds nothing, or after a restart: the first pass with a capital and a period', async () => {
    for (const variant of ['no model', 'empty answer', 'restored'] as const) {
      const { turn, make } = setup({ config: { auto_punctuation: false }, proofread: variant !== 'no model', offline: () => '' });
      const r = make();
      const late: SegmentEvent[] = [];
      const seg = new Segmenter(resolveConfig({ engine_endpointing: 0.3, silence_threshold: 1 }), r, {
        onLateEvents: (e) => late.push(...e),
      });
      if (variant === 'restored') r.restore(r.checkpoint());
      const events = await dictate(seg, turn, Buffer.concat([tone(500), silence(1500)]), late);
      const replace = events.find((e) => e.type === 'batch.replace');
      assert.equal(replace?.type === 'batch.replace' && replace.data.new_chunk.text, 'Bonjour docteur Martin le patient.', variant);
    }
  });

  it('a long stretch without a word restarts the stream (its features would grow without end)', () => {
    const { online, make } = setup({ proofread: false });
    const r = make();
    for (let i = 0; i < 600; i++) r.push(silence(20), false, 20);
    const s = online.streams[0] as FakeOnlineStream;
    assert.ok(s.optionCalls.length >= 2, 'reset and pinned again');
    assert.equal(s.accepted, 600 * 320);
    assert.equal(s.buffered.length, 100 * 320, 'only what came after the restart at 10 s');
  });
});
