/**
 * `fetch pocketsphinx-es` / `import pocketsphinx-es`: the Spanish model from a FAKE GitHub raw host
 * on loopback (GitHub is never reached from the tests), serving the model's real files (the copy in
 * the shared speech data) in raw.githubusercontent.com's layout; a corrupted file refused; import
 * from an installed copy (through the command line, every real pin) and from a copy of the repository.
 *
 * The shared data holds the dictionary unpacked (es.dict), not the repository's gzip bytes: the fake
 * host serves a gzip made here, so the fetch is given the same pins but that one archive's (the
 * content's pin, checked after gunzip, is the real one).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { main } from '../../src/models/cli';
import { ModelInstallError } from '../../src/models/install';
import { POCKETSPHINX_ES, verifyPocketsphinxModel } from '../../src/server/engine/pocketsphinx/languages';
import { POCKETSPHINX_ES_SOURCE, fetchPocketsphinxEs, importPocketsphinxEs, verifyPocketsphinxEs } from '../../src/models/pocketsphinxEs';
import { LOCK_FILE, ModelCorruptError, readLockFile } from '../../src/server/engine/sherpa/model';

const SHARED = '/work/shared/speech/es/model/cmusphinx-es-5.2';
const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** The repository's files, as the fake host serves them (path in the repository → bytes). */
function repositoryFiles(): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const f of POCKETSPHINX_ES_SOURCE.files) {
    const shared = path.join(SHARED, f.gzip ? 'es.dict' : path.basename(f.path));
    files.set(f.from, f.gzip ? gzipSync(readFileSync(shared), { level: 9 }) : readFileSync(shared));
  }
  return files;
}

/** The pins, the dictionary archive's replaced by those of the gzip made here. */
function modelFor(files: Map<string, Buffer>): typeof POCKETSPHINX_ES_SOURCE {
  const gz = files.get('base_dictionary.txt.gz')!;
  return {
    ...POCKETSPHINX_ES_SOURCE,
    files: POCKETSPHINX_ES_SOURCE.files.map((f) => (f.gzip ? { ...f, gzip: { size: gz.length, sha256: sha256(gz) } } : f)),
  };
}

/** A FAKE raw.githubusercontent.com: /<owner>/<repo>/<commit>/<path>; records the paths asked for. */
async function fakeGithubRaw(files: Map<string, Buffer>): Promise<{ url: string; paths: string[]; server: Server }> {
  const paths: string[] = [];
  const prefix = `/${POCKETSPHINX_ES_SOURCE.repo}/${POCKETSPHINX_ES_SOURCE.commit}/`;
  const server = createServer((req, res) => {
    const p = req.url ?? '';
    paths.push(p);
    const body = p.startsWith(prefix) ? files.get(p.slice(prefix.length)) : undefined;
    if (!body) {
      res.writeHead(404).end('404: Not Found');
      return;
    }
    res.writeHead(200, { 'content-length': body.length, 'content-type': 'application/octet-stream' }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, paths, server };
}

describe('models: pocketsphinx-es (the Spanish model from its pinned repository files)', function () {
  this.timeout(120_000);
  let dir: string;
  let server: Server | undefined;
  before(function () {
    if (!existsSync(SHARED)) this.skip();
  });
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-pses-'));
  });
  afterEach(async () => {
    if (server) await new Promise((r) => server!.close(r));
    server = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it("pins the shared copy's files (the repository's at the commit)", async () => {
    for (const f of POCKETSPHINX_ES_SOURCE.files) {
      const b = readFileSync(path.join(SHARED, f.gzip ? 'es.dict' : path.basename(f.path)));
      assert.equal(b.length, f.size, f.path);
      assert.equal(sha256(b), f.sha256, f.path);
    }
    assert.match(POCKETSPHINX_ES_SOURCE.commit, /^4d39c1304b8c[0-9a-f]{28}$/);
  });

  it('fetches every file from the host, checks it, installs hmm/, es.dict and LICENSE with the lock; a second fetch finds it installed', async () => {
    const files = repositoryFiles();
    const host = await fakeGithubRaw(files);
    server = host.server;
    const m = modelFor(files);
    const r = await fetchPocketsphinxEs({ modelsDir: dir, baseUrl: host.url }, m);
    assert.equal(r.installed, true);
    const model = path.join(dir, 'pocketsphinx-es');
    assert.deepEqual(readdirSync(dir), ['pocketsphinx-es']); // no stage, no fetch lock left
    assert.deepEqual(readdirSync(path.join(model, 'hmm')).sort(), [
      'feat.params',
      'mdef',
      'means',
      'noisedict',
      'sendump',
      'transition_matrices',
      'variances',
    ]);
    assert.deepEqual(readFileSync(path.join(model, 'es.dict')), readFileSync(path.join(SHARED, 'es.dict')));
    const lock = readLockFile(path.join(model, LOCK_FILE));
    assert.equal(lock.repo, 'github:synesthesiam/es_pocketsphinx-cmu');
    assert.equal(lock.revision, POCKETSPHINX_ES_SOURCE.commit);
    assert.equal(lock.files['es.dict']!.sha256, 'a3a4cee999b89f2b99c7802477d4e4010c5ff705ed3567a198ef10500e1524ab');
    assert.deepEqual(
      [...host.paths].sort(),
      POCKETSPHINX_ES_SOURCE.files.map((f) => `/${POCKETSPHINX_ES_SOURCE.repo}/${POCKETSPHINX_ES_SOURCE.commit}/${f.from}`).sort(),
    );
    await verifyPocketsphinxEs(model); // the real pins
    await verifyPocketsphinxModel(model, POCKETSPHINX_ES); // the service's check, on the same list
    const again = await fetchPocketsphinxEs({ modelsDir: dir, baseUrl: host.url }, m);
    assert.equal(again.installed, false);
    assert.equal(host.paths.length, POCKETSPHINX_ES_SOURCE.files.length);
  });

  it('refuses a file whose bytes are not the pinned ones (one byte changed), and installs nothing', async () => {
    const files = repositoryFiles();
    const m = modelFor(files);
    const bad = Buffer.from(files.get('acoustic_model/means')!);
    bad[1000] = bad[1000]! ^ 0xff;
    files.set('acoustic_model/means', bad);
    const host = await fakeGithubRaw(files);
    server = host.server;
    await assert.rejects(fetchPocketsphinxEs({ modelsDir: dir, baseUrl: host.url, attempts: 1 }, m), (e: Error) => {
      assert.ok(e instanceof ModelInstallError, e.message);
      assert.match(e.message, /acoustic_model\/means that pocketsphinx-es pins .*nothing was installed/);
      return true;
    });
    assert.equal(existsSync(path.join(dir, 'pocketsphinx-es')), false);
  });

  it('refuses a dictionary archive that unpacks to other words than the pinned dictionary', async () => {
    const files = repositoryFiles();
    const words = readFileSync(path.join(SHARED, 'es.dict'));
    files.set(
      'base_dictionary.txt.gz',
      gzipSync(Buffer.concat([words.subarray(0, 1000), Buffer.from('hola o l a\n'), words.subarray(1000)])),
    );
    const m = modelFor(files); // the archive's own pin matches; its content does not
    const host = await fakeGithubRaw(files);
    server = host.server;
    await assert.rejects(
      fetchPocketsphinxEs({ modelsDir: dir, baseUrl: host.url }, m),
      /unpacks to more than the 584446 bytes of es\.dict; nothing was installed/,
    );
    assert.equal(existsSync(path.join(dir, 'pocketsphinx-es')), false);
  });

  it("refuses a dictionary of the pinned length with one word changed (the content's sha256, after gunzip)", async () => {
    const files = repositoryFiles();
    const words = Buffer.from(readFileSync(path.join(SHARED, 'es.dict')));
    words[2000] = words[2000] === 0x61 ? 0x62 : 0x61;
    files.set('base_dictionary.txt.gz', gzipSync(words));
    const host = await fakeGithubRaw(files);
    server = host.server;
    await assert.rejects(
      fetchPocketsphinxEs({ modelsDir: dir, baseUrl: host.url }, modelFor(files)),
      /es\.dict from .* has sha256 [0-9a-f]{64}, a3a4cee9[0-9a-f]+ expected .*nothing was installed/,
    );
    assert.equal(existsSync(path.join(dir, 'pocketsphinx-es')), false);
  });

  it("fetch on the command line (--mirror): the real pins refuse an archive that is not the repository's", async () => {
    const host = await fakeGithubRaw(repositoryFiles());
    server = host.server;
    await assert.rejects(
      main(
        ['fetch', 'pocketsphinx-es', '--mirror', host.url, '--dir', dir],
        () => {},
        () => {},
      ),
      /base_dictionary\.txt\.gz that pocketsphinx-es pins .*nothing was installed/,
    );
    assert.equal(existsSync(path.join(dir, 'pocketsphinx-es')), false);
  });

  it('imports an installed copy through the command line (every real pin), and refuses one with a damaged file', async () => {
    const src = path.join(dir, 'from-elsewhere');
    mkdirSync(path.join(src, 'hmm'), { recursive: true });
    for (const f of POCKETSPHINX_ES_SOURCE.files)
      cpSync(path.join(SHARED, f.gzip ? 'es.dict' : path.basename(f.path)), path.join(src, f.path));
    const models = path.join(dir, 'models');
    const out: string[] = [];
    await main(
      ['import', 'pocketsphinx-es', src, '--dir', models],
      (s) => out.push(s),
      () => {},
    );
    assert.match(out.join(''), /installed .*pocketsphinx-es \(synesthesiam\/es_pocketsphinx-cmu@4d39c1304b8c; licence: GPL-3\.0/);
    await verifyPocketsphinxEs(path.join(models, 'pocketsphinx-es'));
    // A damaged copy (its variances truncated) is refused; the installed one stays.
    writeFileSync(path.join(src, 'hmm', 'variances'), readFileSync(path.join(SHARED, 'variances')).subarray(0, 1000));
    await assert.rejects(
      main(
        ['import', 'pocketsphinx-es', src, '--dir', models],
        () => {},
        () => {},
      ),
      /hmm\/variances from .* has 1000 bytes, 519244 expected; nothing was installed/,
    );
    await verifyPocketsphinxEs(path.join(models, 'pocketsphinx-es'));
    await assert.rejects(
      main(
        ['import', 'pocketsphinx-es', '--dir', models],
        () => {},
        () => {},
      ),
      /import pocketsphinx-es needs a directory/,
    );
    await assert.rejects(
      main(
        ['import', 'pocketsphinx-es', dir, '--dir', models],
        () => {},
        () => {},
      ),
      /holds neither hmm\/mdef .* nor acoustic_model\/mdef/,
    );
  });

  it('imports a copy of the repository (acoustic_model/, base_dictionary.txt.gz), the archive checked then unpacked', async () => {
    const files = repositoryFiles();
    const src = path.join(dir, 'repo');
    for (const [rel, b] of files) {
      mkdirSync(path.dirname(path.join(src, rel)), { recursive: true });
      writeFileSync(path.join(src, rel), b);
    }
    const r = await importPocketsphinxEs(src, path.join(dir, 'models'), modelFor(files));
    assert.equal(r.installed, true);
    await verifyPocketsphinxEs(r.dir);
    // With the real pins, this gzip (made here, not the repository's) is refused.
    await assert.rejects(importPocketsphinxEs(src, path.join(dir, 'models2')), /base_dictionary\.txt\.gz in .* is not the pinned file/);
    // An installed copy whose file was changed afterwards fails its check.
    writeFileSync(path.join(r.dir, 'hmm', 'noisedict'), '<s> SIL\n');
    await assert.rejects(verifyPocketsphinxEs(r.dir), ModelCorruptError);
  });
});
