/**
 * Regression tests for defects a hostile review of the service found (issue 12: numbers in the titles),
 * against the BUILT service over real sockets: a key in a disguised query parameter, a weak master key,
 * data files readable by others, log amplification by control messages, metrics lost at a restart, and
 * an unbounded `resume.last_seq`.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DB_FILE } from '../../src/server/storage/db';
import { logLines, rawRequest } from '../helpers/hostile';
import { SERVER_JS, WsProbe, withServer, useServer } from '../helpers/server';
import { framesOf, silence, tone } from '../helpers/speech';

const SCRIPT = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
const FAST = { language: 'en', silence_threshold: 1, engine_endpointing: 0.3, flush_timeout: 30, max_buffer_size: 2, enable_final_proofreading: false };

function scriptFile(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-hard-'));
  const file = path.join(dir, 'script.txt');
  writeFileSync(file, SCRIPT);
  return file;
}

/** `n` bursts of tone (≈ 2 words each) each followed by a sentence-ending pause. */
function bursts(n: number): Buffer {
  const parts: Buffer[] = [];
  for (let i = 0; i < n; i++) parts.push(tone(700), silence(1300));
  return Buffer.concat(parts);
}

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

describe('server hardening (built service, real sockets)', function () {
  this.timeout(60_000);

  describe('3: a key in a disguised query parameter never reaches the log', () => {
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
      for (let i = 0; i + 12 <= secret.length; i++) assert.ok(!logs.includes(secret.slice(i, i + 12)), `no 12-character piece of the key (${i})`);
      assert.ok(logs.includes('[redacted]'), 'the parameter is shown as redacted');
    });
  });

  describe('5: a weak master key is refused at start', () => {
    const weak = ['a', 'x'.repeat(64), 'passwordpasswordpasswordpassword', 'abcdefghijklmnopqrstuvwxyz0123456789', '0123456789012345678901234567890123456789'];
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
      for (const k of [`msk_${Buffer.from(Array.from({ length: 32 }, (_, i) => (i * 97 + 13) % 256)).toString('base64url')}`, 'c3ab8ff13720e8ad9047dd39466b3c8974e592c2fa383d4a3960714caef0c4f2']) {
        await withServer({ env: { DICTEE_MASTER_KEY: k } }, async (server) => {
          const created = await server.createKey();
          assert.match(created.key, /^svc_live_/);
        });
      }
    });
  });

  describe('6: data files are private whatever the data dir mode', () => {
    it('in an existing 0755 data dir the database, -wal and -shm are 0600, and a warning names the dir', async () => {
      const parent = mkdtempSync(path.join(os.tmpdir(), 'dictee-modes-'));
      const dataDir = path.join(parent, 'data');
      mkdirSync(dataDir, { mode: 0o755 });
      chmodSync(dataDir, 0o755);
      await withServer({ dataDir, script: scriptFile() }, async (server) => {
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

  describe('7: control messages are bounded per connection and state changes are logged at debug', () => {
    it('20,000 pause/resume: PROTOCOL_ERROR past the bound, close 4000, and a few lines of log at info', async () => {
      await withServer({}, async (server) => {
        const { key } = await server.createKey();
        const p = new WsProbe(server.wsUrl, { header: key });
        const c = await p.configure();
        const before = server.logs().length;
        for (let i = 0; i < 20_000; i++) {
          if (p.ws.readyState !== p.ws.OPEN) break;
          p.send({ type: 'control', action: i % 2 ? 'resume' : 'pause' });
        }
        const err = await p.waitType('error');
        assert.equal(err.code, 'PROTOCOL_ERROR');
        assert.match(String(err.message), /too many control messages/);
        assert.equal(err.session_id, c.session_id);
        assert.equal((await p.closed).code, 4000);
        const grown = server.logs().length - before;
        assert.ok(grown < 4000, `${grown} bytes of log for the flood`);
        assert.ok(!logLines(server.logs()).some((l) => l.msg === 'state change' && l.level === 'info'), 'state changes are not at info');
      });
    });

    it('an ordinary rhythm of pause and resume stays under the bound', async () => {
      await withServer({}, async (server) => {
        const { key } = await server.createKey();
        const p = new WsProbe(server.wsUrl, { header: key });
        await p.configure();
        for (let i = 0; i < 20; i++) p.send({ type: 'control', action: i % 2 ? 'resume' : 'pause' });
        p.send({ type: 'control', action: 'stop' });
        await p.waitFor((m) => m.type === 'status' && m.state === 'stopped');
        assert.equal((await p.closed).code, 1000);
        assert.equal(p.ofType('error').length, 0);
      });
    });
  });

  describe('13: metrics survive a restart', () => {
    it('after SIGKILL and a resume, status.metrics and the session record count every final of the session', async () => {
      await withServer({ script: scriptFile() }, async (server) => {
        const { key } = await server.createKey();
        const p = new WsProbe(server.wsUrl, { header: key });
        const c = await p.configure(FAST);
        const audio = bursts(5);
        for (const f of framesOf(audio)) p.sendAudio(f);
        await p.roundTrip();
        const finalsBefore = p.ofType('transcript').filter((m) => m.status === 'final').length;
        assert.ok(finalsBefore >= 5, `${finalsBefore} finals before the crash`);
        const lastSeq = Math.max(...p.messages.filter((m) => typeof m.seq === 'number').map((m) => Number(m.seq)));
        await server.restart({ kill: true });
        await p.closed;
        const q = new WsProbe(server.wsUrl, { header: key });
        const rc = await q.configure({ ...FAST, resume: { session_id: c.session_id, last_seq: lastSeq } });
        assert.equal(rc.resumed, true);
        for (const f of framesOf(audio.subarray(Number(rc.resume_audio_offset)))) q.sendAudio(f);
        for (const f of framesOf(bursts(1))) q.sendAudio(f);
        await q.roundTrip();
        q.send({ type: 'control', action: 'stop' });
        const stopped = await q.waitFor((m) => m.type === 'status' && m.state === 'stopped');
        const finalsAfter = q.ofType('transcript').filter((m) => m.status === 'final' && Number(m.seq) > lastSeq).length;
        const metrics = stopped.metrics as Record<string, number>;
        assert.equal(metrics.final_chunks, finalsBefore + finalsAfter, JSON.stringify(metrics));
        assert.ok(metrics.total_chunks! >= framesOf(audio).length, 'frames before the crash are counted');
        assert.ok(metrics.audio_seconds! >= audio.length / 32000 - 0.1, `audio_seconds ${metrics.audio_seconds}`);
        const rec = (await (await fetch(`${server.url}/v1/sessions/${String(c.session_id)}`, { headers: { authorization: `Bearer ${server.masterKey}` } })).json()) as {
          session: Record<string, unknown>;
        };
        assert.equal(rec.session.final_chunks, finalsBefore + finalsAfter, JSON.stringify(rec.session));
      });
    });
  });

  describe('14: resume.last_seq is bounded', () => {
    it('2^53−1 (or anything above 2^31−1) is a CONFIG_ERROR naming resume.last_seq, close 4002', async () => {
      await withServer({}, async (server) => {
        const { key } = await server.createKey();
        const p = new WsProbe(server.wsUrl, { header: key });
        const c = await p.configure();
        p.terminate();
        for (const lastSeq of [Number.MAX_SAFE_INTEGER, 2 ** 31]) {
          const q = new WsProbe(server.wsUrl, { header: key });
          await q.opened;
          q.send({ type: 'configure', config: { resume: { session_id: c.session_id, last_seq: lastSeq } } });
          const err = await q.waitType('error');
          assert.equal(err.code, 'CONFIG_ERROR');
          assert.match(String(err.message), /resume\.last_seq/);
          assert.equal((await q.closed).code, 4002);
        }
      });
    });
  });
});
