/**
 * `npm start` packages the extension again only when what goes into it changed (issue 29, defect 8):
 * a real tree of files in a temporary folder, hashed as the start does.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

describe('npm start: the .vsix is packaged again only when its inputs changed', () => {
  let root: string;
  let vsix: string;
  let stamp: string;
  const write = (rel: string, text: string): void => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  };
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'dictee-vsix-'));
    vsix = path.join(root, 'dictee-0.1.0.vsix');
    stamp = path.join(root, '.cache', 'start', 'vsix-inputs.json');
    write('package.json', '{"name":"dictee"}');
    write('package.nls.fr.json', '{}');
    write('src/extension/extension.ts', 'export {};');
    write('media/icon.png', 'png');
    write('test/unit/x.test.ts', 'a test');
    write('dictee-0.1.0.vsix', 'the package');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('up to date once packaged, until a source, a translation or the manifest changes', async () => {
    const { vsixUpToDate, recordVsix } = await import('../../scripts/vsix-cache.mjs');
    const first = vsixUpToDate(root, vsix, stamp);
    assert.equal(first.upToDate, false);
    assert.equal(first.why, 'no record of what the package was made from');
    recordVsix(vsix, stamp, first.hash);
    assert.equal(vsixUpToDate(root, vsix, stamp).upToDate, true);
    // Not an input: a test file.
    write('test/unit/x.test.ts', 'another test');
    assert.equal(vsixUpToDate(root, vsix, stamp).upToDate, true);
    for (const [rel, text] of [
      ['src/extension/extension.ts', 'export const x = 1;'],
      ['package.nls.fr.json', '{"a":"b"}'],
      ['src/extension/new.ts', 'new'],
    ] as const) {
      write(rel, text);
      const r = vsixUpToDate(root, vsix, stamp);
      assert.deepEqual([r.upToDate, r.why], [false, 'its inputs changed'], rel);
      recordVsix(vsix, stamp, r.hash);
    }
  });

  it('made again when the package is missing or is not the one made', async () => {
    const { vsixUpToDate, recordVsix } = await import('../../scripts/vsix-cache.mjs');
    recordVsix(vsix, stamp, vsixUpToDate(root, vsix, stamp).hash);
    write('dictee-0.1.0.vsix', 'another package');
    assert.equal(vsixUpToDate(root, vsix, stamp).why, 'the package is not the one made then');
    rmSync(vsix);
    assert.equal(vsixUpToDate(root, vsix, stamp).why, 'no package yet');
  });
});
