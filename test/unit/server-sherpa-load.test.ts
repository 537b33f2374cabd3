/**
 * `--model NAME|DIR` and `--proofread-model` up to the native library: a name resolved in the models
 * directory, a missing model's error saying what to run, a model of the wrong kind refused, and the REAL
 * `sherpa-onnx-node` addon refusing a configuration whose files are missing ("Please check your config!"),
 * which our start never lets it reach (the files are hashed first).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EngineUnavailableError } from '../../src/server/engine/engine';
import { ModelCorruptError, ModelNotInstalledError } from '../../src/server/engine/sherpa/model';
import { bpeVocabFor, loadModel, onlineConfig } from '../../src/server/engine/sherpa/load';
import { loadSherpa } from '../../src/server/engine/sherpa/addon';
import { sherpaFactory, sherpaProofreader } from '../../src/server/engine/sherpa/factory';
import { SherpaSentenceDecoder } from '../../src/server/engine/sherpa/proofread';
import { readFileSync } from 'node:fs';
import { fakeCatalogue, fakeInstalled } from '../helpers/fakeModels';

describe('sherpa-onnx: --model NAME|DIR and --proofread-model before any native call', () => {
  const models = mkdtempSync(path.join(os.tmpdir(), 'dictee-models-'));
  const env = { DICTEE_MODELS_DIR: models, DICTEE_MODEL_CATALOGUE: fakeCatalogue(models) };
  const NEMOTRON = 'sherpa-onnx-nemotron-3.5-asr-streaming-0.6b-560ms-int8-2026-06-11';

  it('a NAME not installed: the error says to fetch it by that name, or to import it where the host cannot be reached', async () => {
    fakeInstalled(path.join(models, 'placeholder'));
    await assert.rejects(loadModel(NEMOTRON, 'model', env), (e: Error) => {
      assert.ok(e instanceof ModelNotInstalledError);
      assert.match(
        e.message,
        new RegExp(
          `model ${NEMOTRON.replace(/\./g, '\\.')} is not installed in ${models}\\. Install it with: npm run models -- fetch ${NEMOTRON.replace(/\./g, '\\.')}`,
        ),
      );
      assert.match(e.message, /npm run models -- import/);
      assert.doesNotMatch(e.message, /--engine sherpa-onnx/, 'no advice that leads back to the same start');
      return true;
    });
  });

  it('a NAME installed in the models directory is found and verified; a DIR works as before', async () => {
    fakeInstalled(path.join(models, 'streaming-x'));
    const byName = await loadModel('streaming-x', 'model', env);
    assert.equal(byName.dir, path.join(models, 'streaming-x'));
    assert.equal(byName.kind, 'online');
    assert.deepEqual(byName.languages, ['fr', 'en', 'es', 'de']);
    assert.ok(byName.tailPaddingMs >= 400);
    assert.equal((await loadModel(path.join(models, 'streaming-x'), 'model', env)).dir, byName.dir);
  });

  it('a corrupt file of a NAME: the hash error, and how to install it again by name', async () => {
    const dir = fakeInstalled(path.join(models, 'corrupt-x'));
    writeFileSync(path.join(dir, 'joiner.int8.onnx'), 'not a model: joiner.int8.onnY');
    await assert.rejects(
      loadModel('corrupt-x', 'model', env),
      (e: Error) =>
        e instanceof ModelCorruptError &&
        /does not match its sha256.*npm run models -- fetch corrupt-x \(it replaces a damaged copy\)/.test(e.message),
    );
  });

  it('an offline model is refused as --model, a streaming one as --proofread-model, each saying which flag takes it', async () => {
    fakeInstalled(path.join(models, 'parakeet-x'), { modelType: 'nemo_transducer' });
    await assert.rejects(
      loadModel('parakeet-x', 'model', env),
      /is an offline model: it serves the proofreading pass \(--proofread-model parakeet-x\)/,
    );
    assert.equal((await loadModel('parakeet-x', 'proofread', env)).kind, 'offline');
    await assert.rejects(loadModel('streaming-x', 'proofread', env), /is a streaming model: --proofread-model takes an offline model/);
  });

  it('the hotwords vocabulary is derived from tokens.txt outside the verified model directory, once', () => {
    const cache = mkdtempSync(path.join(os.tmpdir(), 'dictee-bpe-'));
    const tokens = path.join(fakeInstalled(path.join(models, 'vocab-x')), 'tokens.txt');
    const file = bpeVocabFor(tokens, cache);
    assert.equal(path.dirname(file), cache);
    assert.equal(readFileSync(file, 'utf8'), '<blk>\t-1.0\n▁le\t-1.0\n▁patient\t-1.0\n');
    assert.equal(bpeVocabFor(tokens, cache), file);
  });

  describe('the real sherpa-onnx-node addon', () => {
    const missing = {
      dir: '/nonexistent/m',
      name: 'm',
      kind: 'online' as const,
      languages: ['fr'],
      perStreamLanguage: false,
      punctuates: false,
      licence: 'none',
      revision: '0'.repeat(40),
      encoder: '/nonexistent/m/e.onnx',
      decoder: '/nonexistent/m/d.onnx',
      joiner: '/nonexistent/m/j.onnx',
      tokens: '/nonexistent/m/tokens.txt',
      featureDim: 128,
    };

    it('refuses a configuration whose files are missing with "Please check your config!" (what our checks come before)', () => {
      const addon = loadSherpa();
      assert.throws(() => new addon.OnlineRecognizer(onlineConfig(missing)), /Please check your config!/);
    });

    it('a decoder thread whose model the addon refuses fails with the model named (the service does not start)', () => {
      assert.throws(
        () => sherpaFactory({ engine: 'sherpa-onnx', model: { ...missing, kind: 'online', tailPaddingMs: 560 } }, __filename, loadSherpa()),
        (e: Error) =>
          e instanceof EngineUnavailableError &&
          /sherpa-onnx refused the model in \/nonexistent\/m: Please check your config!/.test(e.message),
      );
    });

    it('the proofreading model refused by the addon: each sentence fails with the reason (the first pass stays), no thread restarted', () => {
      const dir = fakeInstalled(path.join(models, 'broken-parakeet'), { modelType: 'nemo_transducer' });
      const model = { ...missing, kind: 'offline' as const, dir, tokens: path.join(dir, 'tokens.txt'), modelType: 'nemo_transducer' };
      assert.throws(
        () => new SherpaSentenceDecoder(loadSherpa(), model, mkdtempSync(path.join(os.tmpdir(), 'dictee-bpe-'))),
        /refused the proofreading model in .*Please check your config!/,
      );
      const decode = sherpaProofreader(
        {
          engine: 'sherpa-onnx',
          model: { ...missing, kind: 'online', tailPaddingMs: 560 },
          proofreadModel: { ...model, tailPaddingMs: 560 },
        },
        loadSherpa(),
      );
      assert.throws(() => decode(new Int16Array(16000), 'Doliprane'), /Please check your config!/);
    });
  });
});
