/**
 * Keys and stored data stay private, against the BUILT service: a key in a disguised query parameter never
 * reaches the log; a weak master key is refused at start and master-key guesses are limited per address;
 * a project's admin key reads only its project's sessions; the data files are 0600 whatever the data
 * dir's mode.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DB_FILE } from '../../src/server/storage/db';
import { logLines, rawRequest } from '../helpers/hostile';
import { SERVER_JS, WsProbe, useServer, withServer } from '../helpers/server';
import { bursts, framesOf, scriptFile, silence, tone } from '../helpers/speech';

const SCRIPT = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
const FAST = {
  language: 'en',
  silence_threshold: 1,
  engine_endpointing: 0.3,
  flush_timeout: 30,
  max_buffer_size: 2,
  enable_final_proofreading: false,
};

/** Runs a command; kills it (SIGKILL) if it has not exited within 10 s. */
function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

async function get(url: string, token?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

describe('service: keys and stored data stay private (built service)', function () {
  this.timeout(60_000);

  describe('a key in a disguised query parameter never reaches the log', () => {
    const server = useServer({ env: { DICTEE_LOG_LEVEL: 'debug' } });

    it('?tok%65n=%73vc_live_… authenticates the WebSocket, and neither the key nor most of it is logged', async () => {
      const { key } = await server.createKey({ name: 'disguised' });
      const secret = key.slice('svc_live_'.length);
      const disguised = `${server.wsUrl}?tok%65n=%73${key.slice(1)}`;
      const p = new WsProbe(disguised);
      const c = await p.configure();
      assert.match(String(c.session_id), /^[0-9a-f-]{36}$/, 'the disguised parameter is the token');
      p.close();
      await p.closed;
      // The same on HTTP paths: a 404 with the key in the query, and the key as a path segment.
      const r = await fetch(`${server.url}/no/such/path?a=1&TOKEN=${encodeURIComponent(key)}&tok%65n=${key}`);
      assert.equal(r.status, 404);
      await r.text();
      const r2 = await rawRequest(server.port, `GET /v1/sessions/%73${key.slice(1)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      assert.ok(r2.status >= 400 && r2.status < 500, r2.text);
      const logs = server.logs();
      assert.ok(!logs.includes(secret), 'the key is not logged');
      for (let i = 0; i + 12 <= secret.length; i++)
        assert.ok(!logs.includes(secret.slice(i, i + 12)), `no 12-character piece of the key (${i})`);
      assert.ok(logs.includes('[redacted]'), 'the parameter is shown as redacted');
    });
  });

  describe('a weak master key is refused at start', () => {
    const weak = [
      'a',
      'x'.repeat(64),
      'passwordpasswordpasswordpassword',
      'abcdefghijklmnopqrstuvwxyz0123456789',
      '0123456789012345678901234567890123456789',
    ];
    for (const k of weak) {
      it(`DICTEE_MASTER_KEY=${JSON.stringify(k.length > 12 ? `${k.slice(0, 12)}…` : k)} → exit 2, a message that says why, the key not echoed`, async () => {
        const dataDir = mkdtempSync(path.join(os.tmpdir(), 'dictee-weak-'));
        const r = await run(process.execPath, [SERVER_JS, '--port', '0', '--data-dir', dataDir], { ...process.env, DICTEE_MASTER_KEY: k });
        assert.equal(r.status, 2, `stdout ${r.stdout} stderr ${r.stderr}`);
        assert.match(r.stderr, /DICTEE_MASTER_KEY/);
        assert.match(r.stderr, /at least 32 characters/);
        assert.ok(!r.stdout.includes('listening on'), 'never listened');
        if (k.length > 1) assert.ok(!r.stderr.includes(k), 'the key is not echoed');
        assert.ok(!existsSync(path.join(dataDir, DB_FILE)), 'nothing was created');
      });
    }

    it('a random key of 43 base64url characters is accepted (and so is 64 hex characters)', async () => {
      for (const k of [
        `msk_${Buffer.from(Array.from({ length: 32 }, (_, i) => (i * 97 + 13) % 256)).toString('base64url')}`,
        'c3ab8ff13720e8ad9047dd39466b3c8974e592c2fa383d4a3960714caef0c4f2',
      ]) {
        await withServer({ env: { DICTEE_MASTER_KEY: k } }, async (server) => {
          const created = await server.createKey();
          assert.match(created.key, /^svc_live_/);
        });
      }
    });
  });

  describe('failed master-key attempts are rate-limited per address', () => {
    it('after 10 failures in a minute: 429 RATE_LIMITED with retry_after_ms, even for the right key', async () => {
      await withServer({}, async (server) => {
        for (let i = 0; i < 10; i++) assert.equal((await get(`${server.url}/v1/api-keys`, `wrong-master-key-${i}`)).status, 401);
        const r = await get(`${server.url}/v1/api-keys`, 'wrong-master-key-x');
        assert.equal(r.status, 429);
        const e = r.body.error as { code: string; retry_after_ms: number };
        assert.equal(e.code, 'RATE_LIMITED');
        assert.ok(e.retry_after_ms > 50_000 && e.retry_after_ms <= 60_000, String(e.retry_after_ms));
        assert.equal((await get(`${server.url}/v1/api-keys`, server.masterKey)).status, 429);
        assert.equal((await get(`${server.url}/healthz`)).status, 200, 'other endpoints unaffected');
      });
    });
  });

  describe("session reads are scoped to the key's project", () => {
    it("an admin key of project A cannot read a session of project B (404); project B's admin key and the master key can", async () => {
      await withServer({}, async (server) => {
        const adminA = await server.createKey({ type: 'project', project_id: 'A', permissions: ['read', 'write', 'admin'] });
        const adminB = await server.createKey({ type: 'project', project_id: 'B', permissions: ['read', 'write', 'admin'] });
        const writerB = await server.createKey({ type: 'project', project_id: 'B' });
        const p = new WsProbe(server.wsUrl, { header: writerB.key });
        const id = String((await p.configure()).session_id);
        const init = await fetch(`${server.url}/api/v1/live/sessions`, { method: 'POST', headers: { 'x-svc-key': writerB.key } });
        const initId = String(((await init.json()) as { session_id: string }).session_id);
        for (const sid of [id, initId]) {
          assert.equal(
            (await get(`${server.url}/v1/sessions/${sid}`, adminA.key)).status,
            404,
            "live or recorded, another project's session is not found",
          );
          assert.equal((await get(`${server.url}/v1/sessions/${sid}`, adminB.key)).status, 200);
          assert.equal((await get(`${server.url}/v1/sessions/${sid}`, server.masterKey)).status, 200);
        }
        p.close();
      });
    });
  });

  describe('data files are private whatever the data dir mode', () => {
    it('in an existing 0755 data dir the database, -wal and -shm are 0600, and a warning names the dir', async () => {
      const parent = mkdtempSync(path.join(os.tmpdir(), 'dictee-modes-'));
      const dataDir = path.join(parent, 'data');
      mkdirSync(dataDir, { mode: 0o755 });
      chmodSync(dataDir, 0o755);
      await withServer({ dataDir, script: scriptFile(SCRIPT) }, async (server) => {
        const { key } = await server.createKey();
        const p = new WsProbe(server.wsUrl, { header: key });
        await p.configure(FAST);
        for (const f of framesOf(bursts(1))) p.sendAudio(f);
        await p.waitFor((m) => m.type === 'transcript' && m.status === 'final');
        p.close();
        for (const f of [DB_FILE, `${DB_FILE}-wal`, `${DB_FILE}-shm`]) {
          const file = path.join(dataDir, f);
          assert.ok(existsSync(file), `${f} exists`);
          assert.equal((statSync(file).mode & 0o777).toString(8), '600', `${f} is 0600`);
        }
        const warn = logLines(server.logs()).find((l) => l.level === 'warn' && /data dir/.test(l.msg));
        assert.ok(warn, 'a warning about the data dir');
        assert.match(JSON.stringify(warn), /readable by other users/);
        // A database left 0644 by an older version is made private at the next start.
        await server.stop();
        chmodSync(path.join(dataDir, DB_FILE), 0o644);
        await server.restart();
        assert.equal((statSync(path.join(dataDir, DB_FILE)).mode & 0o777).toString(8), '600');
      });
    });

    it('a private (0700) data dir: no warning', async () => {
      await withServer({}, async (server) => {
        await server.createKey();
        assert.equal((statSync(server.dataDir).mode & 0o777).toString(8), '700');
        assert.ok(!logLines(server.logs()).some((l) => l.level === 'warn' && /data dir/.test(l.msg)));
      });
    });
  });
});
