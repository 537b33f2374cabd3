/**
 * What `npm run package` puts into the .vsix (`vsce ls`: the same list, without building it): the extension and
 * the one module it loads at run time (node-record-lpcm16, with its own debug and ms), never the service's
 * modules (better-sqlite3, koffi, pg, ioredis, sherpa-onnx-node… are dependencies for a server-only install,
 * and vsce collects dependencies; .vscodeignore denies by default) nor what they pulled to the top level.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const VSCE = path.join(ROOT, 'node_modules', '.bin', 'vsce');

describe('the .vsix holds the extension only', function () {
  this.timeout(180_000);
  let files: string[];

  before(() => {
    const r = spawnSync(VSCE, ['ls'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    assert.equal(r.status, 0, `vsce ls failed:\n${r.stderr}`);
    files = r.stdout.split('\n').filter(Boolean);
  });

  it('has the bundle, the manifest and node-record-lpcm16, and no other module', () => {
    for (const f of ['package.json', 'dist/extension.js', 'node_modules/node-record-lpcm16/index.js'])
      assert.ok(files.includes(f), `${f} is packaged`);
    const strays = files.filter((f) => f.startsWith('node_modules/') && !f.startsWith('node_modules/node-record-lpcm16/'));
    assert.deepEqual(strays, [], 'modules other than node-record-lpcm16 (the service has its own install)');
    assert.deepEqual(
      files.filter((f) => f.startsWith('dist/') && /server|engine-worker/.test(f)),
      [],
      'no part of the service',
    );
  });

  it('node-record-lpcm16 loads from the packaged files alone (its debug and ms are there)', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-vsix-'));
    try {
      for (const f of files.filter((x) => x.startsWith('node_modules/'))) {
        mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
        cpSync(path.join(ROOT, f), path.join(dir, f));
      }
      const r = spawnSync(
        process.execPath,
        ['-e', "const r = require('node-record-lpcm16'); if (typeof r.record !== 'function') process.exit(3);"],
        {
          cwd: dir,
          encoding: 'utf8',
          env: { ...process.env, NODE_PATH: '' },
        },
      );
      assert.equal(r.status, 0, `require('node-record-lpcm16') from the packaged files:\n${r.stderr}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
