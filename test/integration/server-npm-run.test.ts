/**
 * `npm run server` (the README's command) stops as `node dist/server.js` does: a signal sent to the npm
 * process reaches the service, which drains its sessions and exits, leaving nothing behind and the port free.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WsProbe } from '../helpers/server';
import { alive, descendants, exited, listening } from '../helpers/processes';
import { waitFor } from '../helpers/wait';

const ROOT = path.resolve(__dirname, '..', '..');
/** How long the stop may take, from the signal to a free port (an idle drain takes well under a second). */
const STOP_BOUND_MS = 15_000;

describe('npm run server: a signal to npm stops the service with its drain', function () {
  this.timeout(60_000);
  let npm: ChildProcess | undefined;
  let servicePid: number | undefined;
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'dictee-npm-run-'));
  });

  afterEach(() => {
    // Whatever the test found, nothing it started outlives it.
    if (npm && npm.exitCode === null && npm.signalCode === null) npm.kill('SIGKILL');
    if (servicePid !== undefined && alive(servicePid)) process.kill(servicePid, 'SIGKILL');
    npm = servicePid = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} to npm: the live session is stopped and closed 1000, node exits, the port is free, npm exits 0`, async () => {
      const masterKey = `master_${randomBytes(24).toString('base64url')}`;
      const child = spawn('npm', ['run', 'server', '--', '--port', '0', '--data-dir', dataDir], {
        cwd: ROOT,
        env: { ...process.env, DICTEE_MASTER_KEY: masterKey },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      npm = child;
      let output = '';
      child.stdout!.setEncoding('utf8').on('data', (d: string) => (output += d));
      child.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d));
      const m = await waitFor(() => /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output), 30_000, 'the listening line');
      const port = Number(m[1]);
      const services = descendants(child.pid!, /^\S*node\s+dist\/server\.js\b/);
      assert.equal(services.length, 1, `one service process under npm: ${JSON.stringify(services)}`);
      servicePid = services[0]!.pid;

      const res = await fetch(`http://127.0.0.1:${port}/v1/api-keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${masterKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'npm-run', type: 'personal' }),
      });
      assert.equal(res.status, 201);
      const { key } = (await res.json()) as { key: string };
      const probe = new WsProbe(`ws://127.0.0.1:${port}/api/v1/audio/live`, { header: key });
      await probe.configure({ language: 'en' });

      const signalled = Date.now();
      child.kill(signal);
      const npmExit = await Promise.race([
        exited(child),
        new Promise<undefined>((r) => setTimeout(() => r(undefined), STOP_BOUND_MS).unref()),
      ]);
      assert.ok(npmExit, `npm still running ${STOP_BOUND_MS} ms after ${signal}`);
      const pid = servicePid;
      await waitFor(
        () => !alive(pid),
        STOP_BOUND_MS - (Date.now() - signalled),
        `the service process ${pid} to exit after ${signal} to npm`,
      );
      assert.equal(await listening(port), false, 'the port is free');
      assert.deepEqual(
        probe.ofType('status').map((s) => s.state),
        ['stopping', 'stopped'],
      );
      assert.equal((await probe.closed).code, 1000);
      assert.match(output, new RegExp(`"msg":"signal received","signal":"${signal}"`));
      assert.match(output, /"msg":"shutdown complete"/);
      assert.deepEqual(npmExit, { code: 0, signal: null }, `npm's exit; its output:\n${output}`);
    });
  }
});
