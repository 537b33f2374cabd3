/**
 * The catalogue, and the configuration built for each of its entries, checked against the shape the
 * addon documents: the JSDoc typedefs of the installed `sherpa-onnx-node/types.js`, read here (a key
 * the addon does not read would be silently ignored by the native code). And every missing or corrupt
 * model refused with a clear message before anything native could run. Nothing is loaded natively.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  CATALOGUE,
  type CatalogueEntry,
  PROOFREADING_MODEL,
  RECOMMENDED_STREAMING_MODEL,
  catalogueEntry,
} from '../../src/server/engine/sherpa/catalogue';
import {
  LOCK_FILE,
  ModelCorruptError,
  ModelNotInstalledError,
  type SherpaModel,
  installedModels,
  offlineRecognizerConfig,
  onlineRecognizerConfig,
  resolveModel,
} from '../../src/server/engine/sherpa/model';
import { sha256 } from '../helpers/fakeHub';

const TYPES = readFileSync(require.resolve('sherpa-onnx-node/types.js'), 'utf8');

/** `@typedef {Object} Name` → its `@property {Type} [key]` lines. */
function typedefs(src: string): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  for (const block of src.split('/**').slice(1)) {
    const name = /@typedef\s+\{Object\}\s+(\w+)/.exec(block)?.[1];
    if (!name) continue;
    const props = new Map<string, string>();
    for (const m of block.matchAll(/@property\s+\{([^}]+)\}\s+\[?(\w+)/g)) props.set(m[2]!, m[1]!);
    out.set(name, props);
  }
  return out;
}

const DEFS = typedefs(TYPES);

/**
 * Keys the addon reads that its typedefs omit, each with where it is documented: the offline
 * `modelType` is in sherpa-onnx's `nodejs-addon-examples/test_asr_non_streaming_nemo_parakeet_tdt_v2.js`.
 */
const DOCUMENTED_ELSEWHERE: Record<string, Record<string, string>> = { OfflineModelConfig: { modelType: 'string' } };

function check(value: Record<string, unknown>, typeName: string, at: string): void {
  const props = DEFS.get(typeName);
  assert.ok(props && props.size, `typedef ${typeName} found in sherpa-onnx-node/types.js`);
  for (const [k, v] of Object.entries(value)) {
    const t: string | undefined = props.get(k) ?? DOCUMENTED_ELSEWHERE[typeName]?.[k];
    assert.ok(t, `${at}.${k}: the addon's ${typeName} has no ${k} (it has ${[...props.keys()].join(', ')})`);
    if (DEFS.has(t)) {
      assert.equal(typeof v, 'object', `${at}.${k} is a ${t}`);
      check(v as Record<string, unknown>, t, `${at}.${k}`);
    } else {
      const allowed = t.split('|').map((x) => x.trim());
      assert.ok(allowed.includes(typeof v), `${at}.${k} is ${typeof v}, the addon documents ${t}`);
    }
  }
}

function fakeModel(e: CatalogueEntry, dir: string): SherpaModel {
  const file = (role: string): string => path.join(dir, e.files.find((f) => f.role === role)!.path);
  return {
    dir,
    name: e.name,
    kind: e.kind,
    languages: e.languages,
    perStreamLanguage: e.perStreamLanguage,
    punctuates: e.punctuates,
    licence: e.licence,
    revision: e.revision,
    encoder: file('encoder'),
    decoder: file('decoder'),
    joiner: file('joiner'),
    tokens: file('tokens'),
    featureDim: e.featureDim,
    ...(e.modelType ? { modelType: e.modelType } : {}),
  };
}

describe('models: the catalogue and the addon configuration of each entry', () => {
  it('the typedefs were read (so that the checks below can fail)', () => {
    assert.ok((DEFS.get('OnlineRecognizerConfig')?.size ?? 0) >= 10);
    assert.ok(DEFS.get('OnlineModelConfig')?.has('modelType'));
    assert.equal(DEFS.get('OfflineModelConfig')?.has('modelType'), false, 'if the typedef gains modelType, drop DOCUMENTED_ELSEWHERE');
    assert.throws(() => check({ featConfig: { sampleRate: 16000, featDim: 80 } }, 'OnlineRecognizerConfig', 'config'), /has no featDim/);
    assert.throws(() => check({ modelConfig: { numThreads: '1' } }, 'OnlineRecognizerConfig', 'config'), /numThreads is string/);
  });

  it('every entry: the four transducer files pinned by size and sha256 at a commit of its mirror, the release archive, languages, licence', () => {
    assert.equal(new Set(CATALOGUE.map((e) => e.name)).size, CATALOGUE.length);
    for (const e of CATALOGUE) {
      assert.deepEqual(e.files.map((f) => f.role).sort(), ['decoder', 'encoder', 'joiner', 'tokens'], e.name);
      for (const f of e.files) {
        assert.match(f.sha256 ?? '', /^[0-9a-f]{64}$/, `${e.name} ${f.path}`);
        assert.ok(f.size > 0);
      }
      assert.match(e.revision, /^[0-9a-f]{40}$/, e.name);
      assert.match(e.hfRepo, new RegExp(`^csukuangfj2?/${e.name.replace(/\./g, '\\.')}$`));
      assert.equal(e.archiveUrl, `https://github.com/k2-fsa/sherpa-onnx/releases/download/asr-models/${e.name}.tar.bz2`);
      assert.ok(e.languages.length && e.licence);
    }
    const byName = (s: string): CatalogueEntry => CATALOGUE.find((e) => e.name.includes(s))!;
    const nemotron = byName('nemotron-3.5-asr-streaming-0.6b-560ms-int8');
    assert.deepEqual([nemotron.kind, nemotron.featureDim, nemotron.perStreamLanguage, nemotron.punctuates], ['online', 128, true, true]);
    assert.deepEqual(
      ['fr', 'en', 'es', 'de'].filter((l) => nemotron.languages.includes(l)),
      ['fr', 'en', 'es', 'de'],
    );
    const parakeet = byName('parakeet-tdt-0.6b-v3-int8');
    assert.deepEqual([parakeet.kind, parakeet.modelType, parakeet.featureDim], ['offline', 'nemo_transducer', 128]);
    for (const l of ['fr', 'es', 'de']) {
      const k = byName(`${l}-kroko-2025-08-06`);
      assert.deepEqual([k.modelType, k.languages], ['zipformer2', [l]]);
      assert.match(k.licence, /^UNCLEAR: .*non-commercial/);
    }
    assert.equal(byName('zipformer-en-2023-06-26').licence, 'Apache-2.0');
    assert.equal(catalogueEntry(RECOMMENDED_STREAMING_MODEL), nemotron);
    assert.equal(catalogueEntry(PROOFREADING_MODEL), parakeet);
  });

  it('builds, for every entry, the config its kind needs, in the shape the addon documents', () => {
    for (const e of CATALOGUE) {
      const m = fakeModel(e, '/models/x');
      if (e.kind === 'online') {
        const c = onlineRecognizerConfig(m, { numThreads: 2 });
        check(c, 'OnlineRecognizerConfig', e.name);
        assert.deepEqual(c.featConfig, { sampleRate: 16000, featureDim: e.featureDim });
        const mc = c.modelConfig as Record<string, unknown>;
        assert.deepEqual(mc.transducer, { encoder: m.encoder, decoder: m.decoder, joiner: m.joiner });
        assert.equal(mc.modelType, e.modelType);
        assert.equal(c.decodingMethod, 'greedy_search');
        const hot = onlineRecognizerConfig(m, { hotwordsFile: '/tmp/hot.txt' });
        check(hot, 'OnlineRecognizerConfig', `${e.name} (hotwords)`);
        assert.equal(hot.decodingMethod, 'modified_beam_search');
        assert.throws(() => offlineRecognizerConfig(m), /is a streaming model; the proofreading pass needs an offline one/);
      } else {
        const c = offlineRecognizerConfig(m);
        check(c, 'OfflineRecognizerConfig', e.name);
        assert.equal((c.modelConfig as Record<string, unknown>).modelType, 'nemo_transducer');
        assert.throws(() => onlineRecognizerConfig(m), /is an offline model/);
      }
    }
  });
});

describe('models: a missing or corrupt model is refused before anything native, saying what to run', () => {
  const work = mkdtempSync(path.join(os.tmpdir(), 'dictee-resolve-'));
  const files = {
    'encoder.onnx': Buffer.from('enc'),
    'decoder.onnx': Buffer.from('dec'),
    'joiner.onnx': Buffer.from('joi'),
    'tokens.txt': Buffer.from('a 0\n'),
  };
  const entry: CatalogueEntry = {
    ...CATALOGUE.find((e) => e.name.includes('fr-kroko'))!,
    name: 'kroko-test',
    files: Object.entries(files).map(([p, b]) => ({
      role: p.startsWith('tokens') ? 'tokens' : (p.split('.')[0] as 'encoder'),
      path: p,
      size: b.length,
      sha256: sha256(b),
    })),
  };
  const catalogue = [entry];
  const install = (lock?: object): string => {
    const models = mkdtempSync(path.join(work, 'm-'));
    const dir = path.join(models, 'kroko-test');
    mkdirSync(dir);
    for (const [f, b] of Object.entries(files)) writeFileSync(path.join(dir, f), b);
    const l = lock ?? {
      format: 'dictee-model-lock/1',
      model: 'kroko-test',
      repo: entry.hfRepo,
      revision: entry.revision,
      files: Object.fromEntries(entry.files.map((f) => [f.path, { size: f.size, sha256: f.sha256 }])),
    };
    writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify(l));
    return models;
  };

  it('resolves by name and by directory', async () => {
    const models = install();
    const byName = await resolveModel('kroko-test', models, { catalogue });
    const byDir = await resolveModel(path.join(models, 'kroko-test'), '/nowhere', { catalogue });
    assert.deepEqual(byName, byDir);
    assert.equal(byName.modelType, 'zipformer2');
    assert.deepEqual(byName.languages, ['fr']);
    assert.deepEqual(installedModels(models, catalogue), [entry]);
    assert.deepEqual(installedModels(path.join(work, 'none'), catalogue), []);
  });

  it('not installed, unknown, without a lock: each says a command that works', async () => {
    await assert.rejects(
      resolveModel('kroko-test', path.join(work, 'empty'), { catalogue }),
      (e: Error) =>
        e instanceof ModelNotInstalledError &&
        /npm run models -- fetch kroko-test .*npm run models -- import <dir\|archive>/.test(e.message),
    );
    await assert.rejects(
      resolveModel('kroko', work, { catalogue }),
      /"kroko" is neither a model directory nor a model of the catalogue \(kroko-test\); npm run models -- list/,
    );
    const bare = path.join(work, 'bare');
    mkdirSync(bare);
    await assert.rejects(
      resolveModel(bare, work, { catalogue }),
      new RegExp(`has no ${LOCK_FILE.replace(/\./g, '\\.')}.*npm run models -- import ${bare}`),
    );
  });

  it('a changed, truncated, missing or linked file, and a lock that is not one, are refused', async () => {
    let models = install();
    writeFileSync(path.join(models, 'kroko-test', 'joiner.onnx'), 'jox');
    await assert.rejects(
      resolveModel('kroko-test', models, { catalogue }),
      (e: Error) =>
        e instanceof ModelCorruptError &&
        /joiner\.onnx .* does not match its sha256 in the lock .*npm run models -- fetch kroko-test/.test(e.message),
    );
    models = install();
    writeFileSync(path.join(models, 'kroko-test', 'encoder.onnx'), 'en');
    await assert.rejects(resolveModel('kroko-test', models, { catalogue }), /encoder\.onnx .* has 2 bytes, its lock says 3/);
    models = install();
    const target = path.join(models, 'kroko-test', 'tokens.txt');
    writeFileSync(path.join(models, 'elsewhere'), files['tokens.txt']);
    rmSync(target);
    symlinkSync(path.join(models, 'elsewhere'), target);
    await assert.rejects(resolveModel('kroko-test', models, { catalogue }), /tokens\.txt .* is not a regular file/);
    models = install();
    rmSync(path.join(models, 'kroko-test', 'decoder.onnx'));
    await assert.rejects(resolveModel('kroko-test', models, { catalogue }), /model file decoder\.onnx is missing from .*fetch kroko-test/);
    await assert.rejects(resolveModel('kroko-test', install({ format: 'x' }), { catalogue }), /is not a model lock: format is "x"/);
    const escaping = {
      format: 'dictee-model-lock/1',
      model: 'kroko-test',
      repo: 'r',
      revision: 'v',
      files: { '../../etc/passwd': { size: 1, sha256: 'a'.repeat(64) } },
    };
    await assert.rejects(
      resolveModel('kroko-test', install(escaping), { catalogue }),
      /"\.\.\/\.\.\/etc\/passwd" leaves the model directory/,
    );
    const other = {
      format: 'dictee-model-lock/1',
      model: 'kroko-test',
      repo: 'r',
      revision: 'v',
      files: { 'encoder.onnx': { size: 3, sha256: 'a'.repeat(64) } },
    };
    await assert.rejects(
      resolveModel('kroko-test', install(other), { catalogue }),
      /does not fit the catalogue: it lists encoder\.onnx; kroko-test is/,
    );
  });
});
