/**
 * The pocketsphinx recognizer in plain Node (the real library and Debian's en-us model), alone and
 * driven by the segmenter, on real recorded speech.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { resolveConfig } from '../../src/protocol';
import { DEFAULT_POCKETSPHINX_MODEL, loadPocketsphinx, pocketsphinxModel } from '../../src/server/engine/pocketsphinx/ffi';
import { EngineUnavailableError } from '../../src/server/engine/engine';
import { PocketsphinxRecognizer, Proofreader, type SentenceDecoder } from '../../src/server/engine/pocketsphinx/recognizer';
import { twoPassConfidence } from '../../src/server/engine/pocketsphinx/confidence';
import type { RecognizedWord } from '../../src/server/engine/recognizer';
import { loadSherpa } from '../../src/server/engine/sherpa/recognizer';
import { type ChunkEvent, type SegmentEvent, Segmenter } from '../../src/server/engine/segmenter';
import { VAD_WINDOW_MS, Vad } from '../../src/server/engine/vad';
import { recordings, wordErrors } from '../helpers/recordings';
import { silence } from '../helpers/speech';

describe('server pocketsphinx engine (real decoder, real recordings)', function () {
  this.timeout(60000);
  const model = pocketsphinxModel(DEFAULT_POCKETSPHINX_MODEL);
  const goforward = recordings().find((r) => r.name === 'goforward')!;
  let proofreader: Proofreader;
  before(() => {
    proofreader = new Proofreader(loadPocketsphinx(), model);
  });
  after(() => proofreader.dispose());
  const recognizer = (): PocketsphinxRecognizer => new PocketsphinxRecognizer(loadPocketsphinx(), model, () => proofreader);

  it('a missing model directory or file is named in the error', () => {
    assert.throws(
      () => pocketsphinxModel('/nonexistent/model'),
      (e: Error) => e instanceof EngineUnavailableError && /does not exist.*pocketsphinx-en-us/.test(e.message),
    );
    assert.throws(() => pocketsphinxModel('/usr/share/pocketsphinx/model'), /lacks en-us\/mdef.*en-us\.lm\.bin.*cmudict-en-us\.dict/);
  });

  it("the library's own log, one for the whole process, is off, and loading decoders leaves it off (none is given -logfn)", () => {
    // A decoder given -logfn closed the log file another thread could be writing to: the service crashed
    // at a start where its threads loaded their decoders at once.
    const ps = loadPocketsphinx();
    assert.equal(ps.libraryLogOff(), true);
    const live = ps.init(model, { live: true });
    const whole = ps.init(model, { proofread: true });
    try {
      assert.equal(ps.libraryLogOff(), true);
    } finally {
      ps.free(live);
      ps.free(whole);
    }
  });

  it('decoders loaded and run in four threads at once: the process lives, the library writes nothing', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(__dirname, '..', 'helpers', 'pocketsphinxThreads.ts')], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.equal(r.signal, null, `the process ended by ${r.signal}`);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), '4 threads × 5 decoders loaded and run; library log off: true');
    assert.equal(r.stderr, '', 'nothing from the library on stderr');
  });

  it('sherpa-onnx-node missing: the error names the platform package', () => {
    const missing = (): never => {
      throw Object.assign(new Error("Cannot find module 'sherpa-onnx-node'"), { code: 'MODULE_NOT_FOUND' });
    };
    assert.throws(
      () => loadSherpa(missing),
      (e: Error) => e instanceof EngineUnavailableError && e.message.includes(`sherpa-onnx-${process.platform}-${process.arch}`),
    );
  });

  it('streams partial hypotheses that grow, then the utterance and the proofread sentence', async () => {
    const r = recognizer();
    try {
      const bytes = Vad.windowBytes(16000);
      const partials: string[] = [];
      for (let off = 0; off + bytes <= goforward.pcm.length; off += bytes) {
        const words = r.push(goforward.pcm.subarray(off, off + bytes), true, VAD_WINDOW_MS);
        if (words) partials.push(words.map((w) => w.raw).join(' '));
      }
      assert.ok(partials.length >= 2, `partials: ${JSON.stringify(partials)}`);
      const final = r.endUtterance();
      assert.equal(final.map((w) => w.raw).join(' '), 'go forward ten meters');
      assert.equal(await r.endSentence(final, true), 'Go forward ten meters.');
      assert.equal(r.endSentence([], false), undefined);
      assert.throws(() => r.restore({ engine: 'simulated' }), /pocketsphinx/);
    } finally {
      r.dispose();
    }
  });

  it("details: a proofread word's confidence weighs its posterior against the first pass (bare with DICTEE_POCKETSPHINX_CONFIDENCE=posterior)", async () => {
    // A sentence where the two passes disagree on some words: "he was not an ill disposed young man".
    const rec = recordings().find((x) => x.name.endsWith('0880'))!;
    // A decoder of its own for each run: a decoder's feature normalisation carries over from one utterance to the next.
    const sentence = async (): Promise<{ first: RecognizedWord[]; proof: RecognizedWord[] }> => {
      const own = new Proofreader(loadPocketsphinx(), model);
      const r = new PocketsphinxRecognizer(loadPocketsphinx(), model, () => own);
      try {
        const bytes = Vad.windowBytes(16000);
        const pcm = Buffer.concat([rec.pcm, silence(300)]);
        for (let off = 0; off + bytes <= pcm.length; off += bytes) r.push(pcm.subarray(off, off + bytes), true, VAD_WINDOW_MS);
        const first = r.endUtterance(true);
        const p = await r.endSentence(first, true, true);
        assert.ok(p && typeof p !== 'string' && p.words, 'proofread words with details');
        return { first, proof: p.words };
      } finally {
        r.dispose();
        own.dispose();
      }
    };
    process.env.DICTEE_POCKETSPHINX_CONFIDENCE = 'posterior';
    let bare: Awaited<ReturnType<typeof sentence>>;
    try {
      bare = await sentence();
    } finally {
      delete process.env.DICTEE_POCKETSPHINX_CONFIDENCE;
    }
    const weighed = await sentence();
    assert.deepEqual(
      weighed.proof.map((w) => w.raw),
      bare.proof.map((w) => w.raw),
    );
    const firstPass = weighed.first.map((w) => ({ word: w.raw, startMs: w.start_ms!, endMs: w.end_ms!, confidence: w.confidence! }));
    weighed.proof.forEach((w, i) => {
      const b = bare.proof[i]!;
      const expected = twoPassConfidence({ word: b.raw, startMs: b.start_ms!, endMs: b.end_ms!, confidence: b.confidence! }, firstPass);
      assert.ok(Math.abs(w.confidence! - expected) < 1e-9, `${w.raw}: ${w.confidence} (posterior ${b.confidence}), expected ${expected}`);
    });
    // The passes disagree somewhere here, and agree somewhere: the confidences are not the bare posteriors.
    assert.ok(
      weighed.proof.some((w, i) => Math.abs(w.confidence! - bare.proof[i]!.confidence!) > 0.01),
      `${JSON.stringify(weighed.proof.map((w) => [w.raw, w.confidence]))} vs ${JSON.stringify(bare.proof.map((w) => w.confidence))}`,
    );
  });

  it('driven by the segmenter: streaming before interim before final, then batch.replace; words within the decoder accuracy', async () => {
    const cfg = resolveConfig({ language: 'en', silence_threshold: 1, engine_endpointing: 0.5 });
    const rec = recordings().filter((r) => /0880|0930/.test(r.name));
    const r = recognizer();
    const events: SegmentEvent[] = [];
    // The whole-sentence re-decode finishes later: its batch.replace comes through onLateEvents.
    const seg = new Segmenter(cfg, r, { onLateEvents: (late) => events.push(...late) });
    try {
      for (const x of rec) events.push(...seg.push(Buffer.concat([silence(300), x.pcm, silence(1500)])));
      events.push(...seg.flush({ proofread: true }));
      await seg.proofreadingDone();
    } finally {
      r.dispose();
    }
    const chunks = events.filter((e): e is SegmentEvent & ChunkEvent => e.type === 'transcript');
    for (const id of new Set(chunks.map((c) => c.id))) {
      const statuses = chunks.filter((c) => c.id === id).map((c) => c.status);
      assert.equal(statuses[0], 'streaming', `chunk ${id}: ${statuses.join(' ')}`);
      assert.equal(statuses[statuses.length - 1], 'final');
      assert.equal(statuses.filter((s) => s === 'final').length, 1);
    }
    const replaces = events.filter((e) => e.type === 'batch.replace');
    assert.equal(replaces.length, 2, 'one proofread sentence per recording (each ends with a pause)');
    for (const [i, x] of rec.entries()) {
      const text = replaces[i]!.type === 'batch.replace' ? replaces[i]!.data.new_chunk.text : '';
      assert.match(text, /^[A-Z].*\.$/u, text);
      const { errors, words } = wordErrors(x.reference, text);
      // At most half the words wrong: a bound on pocketsphinx's own accuracy, not a measurement.
      assert.ok(errors / words <= 0.5, `${x.name}: "${text}" vs "${x.reference}"`);
    }
  });
  it('details, the proofreading pass out of time: the new chunk is the first pass with a capital and a period, its words making that text, no alternatives', async () => {
    // A fake second pass: the proofreading thread's answer after its time limit (a loaded machine) cannot
    // be brought about on cue; it rejects as that thread does then.
    const outOfTime: SentenceDecoder = {
      decode: () => Promise.reject(new Error('proofreading gave no answer within 17000 ms')),
      decodeDetailed: () => Promise.reject(new Error('proofreading gave no answer within 17000 ms')),
      dispose: () => undefined,
    };
    const cfg = resolveConfig({ language: 'en', silence_threshold: 1, engine_endpointing: 0.5, details: true });
    const r = new PocketsphinxRecognizer(loadPocketsphinx(), model, () => outOfTime);
    const events: SegmentEvent[] = [];
    const seg = new Segmenter(cfg, r, { onLateEvents: (late) => events.push(...late) });
    try {
      events.push(...seg.push(Buffer.concat([silence(300), goforward.pcm, silence(1500)])));
      events.push(...seg.flush({ proofread: true }));
      await seg.proofreadingDone();
    } finally {
      r.dispose();
    }
    const finals = events.filter((e): e is SegmentEvent & ChunkEvent => e.type === 'transcript' && e.status === 'final');
    const replace = events.find((e) => e.type === 'batch.replace');
    assert.ok(replace?.type === 'batch.replace' && finals.length > 0);
    const nc = replace.data.new_chunk;
    const first = finals.flatMap((f) => f.words!);
    const raw = first.map((w) => w.text).join(' ');
    assert.equal(nc.text, `${raw.charAt(0).toUpperCase()}${raw.slice(1)}.`);
    assert.equal(nc.words!.map((w) => w.text).join(' '), nc.text, 'the words make the text');
    assert.deepEqual(
      nc.words!.map((w) => [w.start_ms, w.end_ms]),
      first.map((w) => [w.start_ms, w.end_ms]),
      "the first pass's times",
    );
    assert.deepEqual(nc.alternatives, []);
  });
});
