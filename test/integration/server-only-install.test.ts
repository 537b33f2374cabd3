/**
 * A server-only install, as a team that runs the service without the extension's tooling makes it: only
 * package.json, package-lock.json and the built dist/ in a fresh directory, `npm ci --omit=dev`, then
 * `node dist/server.js`. The service must start there with its stores (better-sqlite3) and with pocketsphinx
 * (koffi), take a key made with the master key, a session, and drain on SIGTERM.
 *
 * The install needs the npm registry (npm's cache makes it quick; better-sqlite3 may be compiled). Where the
 * registry cannot be reached the tests are skipped, saying so, except in CI (CI set), where that fails.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WsProbe } from '../helpers/server';
import { exited } from '../helpers/processes';
import { recordings, recordingsAvailable } from '../helpers/recordings';
import { framesOf, silence } from '../helpers/speech';
import { sleep, waitFor } from '../helpers/wait';

const ROOT = path.resolve(__dirname, '..', '..');
/** The modules the service loads from node_modules (the rest is bundled into dist/server.js). */
const SERVICE_MODULES = ['better-sqlite3', 'koffi', 'sherpa-onnx-node', 'pg', 'ioredis'];
/** Tools of the repository that a server-only install must not get. */
const TOOLS = ['esbuild', 'typescript', 'mocha', 'tsx', '@vscode/vsce', 'eslint', 'ws'];
const NETWORK_FAILURE = /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH)\b/;

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

interface Started {
  child: ChildProcess;
  port: number;
  masterKey: string;
  output: () => string;
}

/** `node dist/server.js …` in the install, without DICTEE_MASTER_KEY: the master key is the one it prints. */
async function startService(dir: string, args: string[]): Promise<Started> {
  const env = { ...process.env };
  delete env.DICTEE_MASTER_KEY;
  const dataDir = path.join(dir, `data-${Date.now()}`);
  const child = spawn(process.execPath, ['dist/server.js', '--port', '0', '--data-dir', dataDir, ...args], {
    cwd: dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d));
  const listening = await waitFor(
    () => {
      if (child.exitCode !== null) throw new Error(`the service exited (${child.exitCode}):\n${output}`);
      return /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
    },
    30_000,
    'the listening line',
  ).catch((e: unknown) => {
    child.kill('SIGKILL');
    throw e;
  });
  const masterKey = /master key \(shown once\): (\S+)/.exec(output)?.[1];
  assert.ok(masterKey, 'the master key is printed at the first start');
  return { child, port: Number(listening[1]), masterKey, output: () => output };
}

async function createKey(s: Started): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${s.port}/v1/api-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.masterKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'server-only', type: 'personal', permissions: ['read', 'write'] }),
  });
  assert.equal(res.status, 201, await res.clone().text());
  return ((await res.json()) as { key: string }).key;
}

/** SIGTERM: the session is stopped and closed 1000, the service logs its drain and exits 0. */
async function stopService(s: Started, probe: WsProbe): Promise<void> {
  s.child.kill('SIGTERM');
  assert.deepEqual(await exited(s.child), { code: 0, signal: null }, s.output());
  assert.equal((await probe.closed).code, 1000);
  assert.deepEqual(
    probe.ofType('status').map((m) => m.state),
    ['stopping', 'stopped'],
  );
  assert.match(s.output(), /"msg":"shutdown complete"/);
}

describe('a server-only install (package.json, the lock file, dist/; npm ci --omit=dev)', function () {
  this.timeout(15 * 60_000);
  let dir: string;
  const running: ChildProcess[] = [];

  before(async function () {
    assert.ok(existsSync(path.join(ROOT, 'dist', 'server.js')), 'dist/server.js is built (npm run build)');
    dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-server-only-'));
    // Nothing above the install may hold modules that node would find instead of the installed ones.
    for (let up = path.dirname(dir); ; up = path.dirname(up)) {
      assert.ok(!existsSync(path.join(up, 'node_modules')), `${up}/node_modules would be seen by the service: not a server-only install`);
      if (path.dirname(up) === up) break;
    }
    cpSync(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'));
    cpSync(path.join(ROOT, 'package-lock.json'), path.join(dir, 'package-lock.json'));
    cpSync(path.join(ROOT, 'dist'), path.join(dir, 'dist'), { recursive: true });
    mkdirSync(path.join(dir, 'data'));
    // JOBS: node-gyp compiles better-sqlite3 on every core when no prebuilt binary can be fetched.
    const r = await run('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund'], dir, { ...process.env, JOBS: 'max' });
    if (r.code !== 0) {
      if (!process.env.CI && NETWORK_FAILURE.test(r.output)) {
        console.log(
          `    skipped: the npm registry cannot be reached from here (${NETWORK_FAILURE.exec(r.output)![1]}); CI runs these tests`,
        );
        this.skip();
      }
      assert.fail(`npm ci --omit=dev failed (exit ${r.code}):\n${r.output.slice(-4000)}`);
    }
  });
  afterEach(() => {
    for (const c of running.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  });
  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("installs the service's modules and none of the repository's tools", () => {
    for (const m of SERVICE_MODULES) assert.ok(existsSync(path.join(dir, 'node_modules', m, 'package.json')), `${m} is installed`);
    for (const m of TOOLS) assert.ok(!existsSync(path.join(dir, 'node_modules', m)), `${m} is not installed`);
  });

  it('node dist/server.js (simulated engine, SQLite): a key made with the master key, a session, SIGTERM drains', async () => {
    const s = await startService(dir, []);
    running.push(s.child);
    assert.match(s.output(), /"msg":"service started".*"store":"sqlite".*"engine":"simulated"/);
    // A deployment that forgot --engine is told so in its log.
    await waitFor(() => /"level":"warn","msg":"the simulated engine recognises no speech/.test(s.output()), 5000, 'the warning');
    const key = await createKey(s);
    const probe = new WsProbe(`ws://127.0.0.1:${s.port}/api/v1/audio/live`, { header: key });
    const configured = await probe.configure({ language: 'en' });
    assert.equal(typeof configured.session_id, 'string');
    await stopService(s, probe);
  });

  it('node dist/server.js --engine pocketsphinx (koffi from the install): real speech decoded, SIGTERM drains', async function () {
    if (!recordingsAvailable() && !process.env.CI) this.skip(); // pocketsphinx-testdata: .ci/run installs it
    const goforward = recordings().find((r) => r.name === 'goforward')!;
    const s = await startService(dir, ['--engine', 'pocketsphinx', '--workers', '1']);
    running.push(s.child);
    assert.match(s.output(), /"msg":"service started".*"engine":"pocketsphinx"/);
    assert.doesNotMatch(s.output(), /simulated engine recognises no speech/);
    const key = await createKey(s);
    const probe = new WsProbe(`ws://127.0.0.1:${s.port}/api/v1/audio/live`, { header: key });
    await probe.configure({ language: 'en', silence_threshold: 1, engine_endpointing: 0.5 });
    // Twice real time: 100 ms of audio every 50 ms.
    for (const f of framesOf(Buffer.concat([silence(300), goforward.pcm, silence(1500)]))) {
      probe.sendAudio(f);
      await sleep(50);
    }
    const final = await probe.waitFor((m) => m.type === 'transcript' && m.status === 'final', 20_000, 'a final');
    assert.match(String(final.text).toLowerCase(), /forward/);
    await stopService(s, probe);
  });
});
