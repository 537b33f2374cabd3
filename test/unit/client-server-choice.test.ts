/**
 * Which service `npm run client` talks to (issue 29, defect 9): --server, else DICTEE_SERVER_URL, else the
 * service `npm start` is running from this clone (its address in .dictee-data/dev/service.json, on
 * whatever port it got), else the default; and it says which and why. Real files in a temporary clone, a
 * real process id (this one) for a running `npm start`, and one that has exited for a stale file.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from '../../src/client/cli';
import { chooseServer, runningStartService, START_SERVICE_FILE } from '../../src/client/serverChoice';

describe("client: the server it uses, and npm start's service", () => {
  let root: string;
  const started = (url: string, pid: number): void => {
    mkdirSync(path.dirname(path.join(root, START_SERVICE_FILE)), { recursive: true });
    writeFileSync(path.join(root, START_SERVICE_FILE), JSON.stringify({ url, pid }));
  };
  beforeEach(() => (root = mkdtempSync(path.join(os.tmpdir(), 'dictee-clone-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('follows the service npm start is running, on the port it got, and says so', () => {
    started('http://127.0.0.1:40123', process.pid);
    assert.equal(runningStartService(root), 'http://127.0.0.1:40123');
    const o = parseArgs(['f.wav'], {}, () => runningStartService(root));
    assert.equal(o.server, 'http://127.0.0.1:40123');
    assert.match(o.serverWhy, /npm start/);
  });

  it('--server and DICTEE_SERVER_URL win over it', () => {
    started('http://127.0.0.1:40123', process.pid);
    const running = (): string | undefined => runningStartService(root);
    assert.deepEqual(chooseServer('http://h:1', { DICTEE_SERVER_URL: 'http://x:2' }, running), { url: 'http://h:1', why: '--server' });
    assert.deepEqual(chooseServer(undefined, { DICTEE_SERVER_URL: 'http://x:2' }, running), {
      url: 'http://x:2',
      why: 'DICTEE_SERVER_URL',
    });
  });

  it('a file left by an npm start that has exited is ignored: the default, named as such', () => {
    const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
    started('http://127.0.0.1:40123', gone);
    assert.equal(runningStartService(root), undefined);
    const c = chooseServer(undefined, {}, () => runningStartService(root));
    assert.equal(c.url, 'http://127.0.0.1:8787');
    assert.match(c.why, /the default; --server URL or DICTEE_SERVER_URL chooses another/);
    rmSync(path.join(root, START_SERVICE_FILE));
    assert.equal(runningStartService(root), undefined);
  });
});
