/**
 * `npm run models`: fetching from a loopback HTTP server and importing, with archives generated
 * here (no model can be downloaded on this machine). Every error path leaves nothing installed.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { CatalogueEntry } from '../../src/models/catalogue';
import { CATALOGUE } from '../../src/models/catalogue';
import { ModelInstallError, fetchModel, importModel } from '../../src/models/install';
import { MODEL_MARKER, ModelCorruptError, verifiedModel } from '../../src/server/engine/sherpa/model';

const ROOT = path.resolve(__dirname, '..', '..');
const FILES = { encoder: 'encoder.int8.onnx', decoder: 'decoder.onnx', joiner: 'joiner.int8.onnx', tokens: 'tokens.txt' };

/** A .tar.bz2 laid out as sherpa-onnx publishes models: one top directory named after the model. */
function makeArchive(dir: string, name: string, files: Record<string, string>): { file: string; sha256: string; size: number } {
  const src = path.join(dir, `src-${name}-${Object.keys(files).length}`);
  mkdirSync(path.join(src, name), { recursive: true });
  for (const [f, content] of Object.entries(files)) writeFileSync(path.join(src, name, f), content);
  const file = path.join(dir, `${name}-${Object.keys(files).length}.tar.bz2`);
  execFileSync('tar', ['-cjf', file, '-C', src, name]);
  const buf = readFileSync(file);
  return { file, sha256: createHash('sha256').update(buf).digest('hex'), size: buf.length };
}

function entry(name: string, a: { sha256: string; size: number } | null, url: string): CatalogueEntry {
  return { name, languages: ['en'], url, size: a?.size ?? null, sha256: a?.sha256 ?? null, transducer: FILES, featureDim: 80, licence: 'test' };
}

describe('models: fetch and import (loopback HTTP server, generated archives)', function () {
  this.timeout(30000);
  const work = mkdtempSync(path.join(os.tmpdir(), 'dictee-models-'));
  const content = { [FILES.encoder]: 'e'.repeat(5000), [FILES.decoder]: 'd'.repeat(300), [FILES.joiner]: 'j'.repeat(700), [FILES.tokens]: '<blk> 0\na 1\n' };
  const good = makeArchive(work, 'test-model', content);
  const partial = makeArchive(work, 'test-model', { [FILES.encoder]: 'x', [FILES.tokens]: 't' });
  let server: http.Server;
  let base: string;
  const served: string[] = [];
  let stallNext = false;

  before(async () => {
    server = http.createServer((req, res) => {
      served.push(req.url ?? '');
      const name = path.basename(req.url ?? '');
      if (stallNext) {
        stallNext = false;
        res.writeHead(200, { 'content-length': String(good.size) });
        res.write(readFileSync(good.file).subarray(0, 100)); // then nothing more
        return;
      }
      const file = name === 'test-model.tar.bz2' ? good.file : name === 'partial.tar.bz2' ? partial.file : undefined;
      if (!file) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(readFileSync(file));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  const fresh = (): string => mkdtempSync(path.join(work, 'models-'));
  const nothingInstalled = (dir: string): void => assert.deepEqual(readdirSync(dir), [], 'nothing left behind, not even a staging directory');

  it('fetch: verifies size and sha256, installs atomically with a marker, and reuses a verified copy', async () => {
    const dir = fresh();
    const e = entry('test-model', good, `${base}/test-model.tar.bz2`);
    const progress: number[] = [];
    const r = await fetchModel(e, { modelsDir: dir, onProgress: (got) => progress.push(got) });
    assert.deepEqual(r, { dir: path.join(dir, 'test-model'), installed: true });
    assert.deepEqual(readdirSync(dir), ['test-model']);
    assert.equal(progress[progress.length - 1], good.size);
    const marker = JSON.parse(readFileSync(path.join(r.dir, MODEL_MARKER), 'utf8')) as { archiveSha256: string; pinned: boolean; files: Record<string, { sha256: string }> };
    assert.equal(marker.archiveSha256, good.sha256);
    assert.equal(marker.pinned, true);
    assert.equal(marker.files[FILES.encoder]!.sha256, createHash('sha256').update(content[FILES.encoder]!).digest('hex'));
    const m = await verifiedModel(r.dir);
    assert.equal(m.encoder, path.join(r.dir, FILES.encoder));
    const before = served.length;
    assert.deepEqual(await fetchModel(e, { modelsDir: dir }), { dir: r.dir, installed: false });
    assert.equal(served.length, before, 'a verified copy is reused without a download');
  });

  it('fetch: a wrong sha256, a wrong size, HTTP 404, a stalled download, or an archive without the model files install nothing', async () => {
    const cases: Array<[CatalogueEntry, RegExp, boolean?]> = [
      [entry('test-model', { ...good, sha256: 'f'.repeat(64) }, `${base}/test-model.tar.bz2`), /sha256 is [0-9a-f]{64}, the catalogue pins f{64}; nothing was installed/],
      [entry('test-model', { ...good, size: good.size + 1 }, `${base}/test-model.tar.bz2`), /sent \d+ bytes, the catalogue pins \d+; nothing was installed/],
      [entry('test-model', { ...good, size: good.size - 1 }, `${base}/test-model.tar.bz2`), /sent more than the \d+ bytes/],
      [entry('test-model', good, `${base}/missing.tar.bz2`), /HTTP 404/],
      [entry('test-model', partial, `${base}/partial.tar.bz2`), /lacks decoder\.onnx, joiner\.int8\.onnx; nothing was installed/],
      [entry('test-model', good, `${base}/test-model.tar.bz2`), /no data for 300 ms/, true],
    ];
    for (const [e, re, stall] of cases) {
      const dir = fresh();
      stallNext = Boolean(stall);
      await assert.rejects(fetchModel(e, { modelsDir: dir, idleTimeoutMs: 300 }), (err: Error) => err instanceof ModelInstallError && re.test(err.message));
      nothingInstalled(dir);
    }
  });

  it('fetch: an entry without a pinned sha256 is refused; --base-url reads a mirror', async () => {
    const dir = fresh();
    await assert.rejects(fetchModel(entry('test-model', null, `${base}/test-model.tar.bz2`), { modelsDir: dir }), /no pinned sha256.*import <archive> --name test-model/);
    nothingInstalled(dir);
    const r = await fetchModel(entry('test-model', good, 'https://example.invalid/asr-models/test-model.tar.bz2'), { modelsDir: dir, baseUrl: `${base}/mirror/` });
    assert.equal(r.installed, true);
    assert.equal(served[served.length - 1], '/mirror/test-model.tar.bz2');
  });

  it('import: by pinned hash, by --name for an unpinned entry, refused otherwise', async () => {
    const dir = fresh();
    const pinned = [entry('test-model', good, 'unused')];
    assert.equal((await importModel(pinned, good.file, { modelsDir: dir })).installed, true);
    const dir2 = fresh();
    await assert.rejects(importModel([entry('test-model', null, 'unused')], good.file, { modelsDir: dir2 }), /matches no pinned model.*--name/);
    nothingInstalled(dir2);
    const r = await importModel([entry('test-model', null, 'unused')], good.file, { modelsDir: dir2, name: 'test-model' });
    assert.equal(JSON.parse(readFileSync(path.join(r.dir, MODEL_MARKER), 'utf8')).pinned, false);
    const dir3 = fresh();
    await assert.rejects(importModel(pinned, partial.file, { modelsDir: dir3, name: 'test-model' }), /is not test-model: its sha256 is/);
    await assert.rejects(importModel(pinned, path.join(work, 'nope.tar.bz2'), { modelsDir: dir3 }), /no such file/);
    nothingInstalled(dir3);
  });

  it('an installed model whose file changed is refused before anything native runs', async () => {
    const dir = fresh();
    const r = await importModel([entry('test-model', good, 'unused')], good.file, { modelsDir: dir });
    writeFileSync(path.join(r.dir, FILES.joiner), 'j'.repeat(699) + 'x');
    await assert.rejects(verifiedModel(r.dir), (e: Error) => e instanceof ModelCorruptError && /joiner\.int8\.onnx does not match its sha256/.test(e.message));
  });

  it('the CLI: list, fetch from the loopback mirror with a catalogue file, errors exit 1, usage exits 2', async () => {
    const dir = fresh();
    const catalogue = path.join(work, 'catalogue.json');
    writeFileSync(catalogue, JSON.stringify([entry('test-model', good, 'https://example.invalid/x/test-model.tar.bz2')]));
    // Asynchronous: the loopback server answers from this process meanwhile.
    const cli = (...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> =>
      new Promise((resolve) => {
        const child = execFile(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/models/cli.ts'), ...args], { cwd: ROOT }, (_e, stdout, stderr) =>
          resolve({ status: child.exitCode, stdout, stderr }),
        );
      });
    let r = await cli('fetch', 'test-model', '--dir', dir, '--catalogue', catalogue, '--base-url', base);
    assert.equal(r.status, 0, String(r.stderr));
    assert.match(String(r.stdout), /installed .*test-model\n.*--engine sherpa-onnx --model /);
    r = await cli('list', '--dir', dir, '--catalogue', catalogue);
    assert.match(String(r.stdout), /test-model {2}\[en\] {2}sha256 [0-9a-f]{12}…, \d+ bytes {2}installed/);
    r = await cli('fetch', 'nope', '--dir', dir, '--catalogue', catalogue);
    assert.equal(r.status, 1);
    assert.match(String(r.stderr), /no model named "nope" in the catalogue; known: test-model/);
    r = await cli('frobnicate');
    assert.equal(r.status, 2);
    r = await cli('list', '--dir', fresh());
    assert.match(String(r.stdout), new RegExp(CATALOGUE[0]!.name));
    assert.ok(existsSync(path.join(dir, 'test-model', MODEL_MARKER)));
  });
});
