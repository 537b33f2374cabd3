/**
 * Faults, against the BUILT service: a socket destroyed without a close, a client that stops reading,
 * the disk full under SQLite (a small tmpfs mounted for the test), and a jump of the wall clock
 * (libfaketime: the service's CLOCK_REALTIME is moved by writing its timestamp file while it runs;
 * the monotonic clock is left alone, as when NTP steps the clock). SIGKILL mid-session is covered by
 * server-resume.test.ts, the recorder dying by audio-capture.test.ts.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, closeSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type net from 'node:net';
import { logLines } from '../helpers/hostile';
import { WsProbe, startServer, withServer } from '../helpers/server';
import { bursts, framesOf, scriptFile, silence, tone } from '../helpers/speech';
import { waitFor } from '../helpers/wait';

const FAST = { language: 'en', silence_threshold: 1, engine_endpointing: 0.3, flush_timeout: 30, enable_final_proofreading: false };

/** A script of `words` words, each `pad` w's longer than `word<i>`. */
function wordsScript(words: number, pad = 0): string {
  return scriptFile(Array.from({ length: words }, (_, i) => `${'w'.repeat(pad)}word${i}`).join(' '));
}

const LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';

describe('service faults (built service)', function () {
  this.timeout(60_000);

  it('a socket destroyed without a close: the slot is freed at once and the session resumes with its text', async () => {
    await withServer({ script: wordsScript(60), args: ['--concurrency-limit', '1'] }, async (server) => {
      const { key } = await server.createKey();
      const p = new WsProbe(server.wsUrl, { header: key });
      const c = await p.configure(FAST);
      for (const f of framesOf(bursts(2))) p.sendAudio(f);
      await p.waitFor((m) => m.type === 'transcript' && m.status === 'final');
      const finals = (): string[] =>
        p
          .ofType('transcript')
          .filter((m) => m.status === 'final')
          .map((m) => String(m.text));
      await waitFor(() => finals().length >= 2, 5000, 'two finals');
      (p.ws as unknown as { _socket: net.Socket })._socket.destroy();
      // Another session gets the one slot as soon as the service has seen the socket go.
      const other = await server.createKey();
      await waitFor(
        async () => {
          const q = new WsProbe(server.wsUrl, { header: other.key });
          await q.opened;
          q.send({ type: 'configure', config: {} });
          const m = await q.waitFor((x) => x.type === 'configured' || x.type === 'error', 5000);
          q.close();
          await q.closed;
          return m.type === 'configured';
        },
        3000,
        'the slot to be free',
      );
      const r = new WsProbe(server.wsUrl, { header: key });
      const rc = await r.configure({ ...FAST, resume: { session_id: c.session_id, last_seq: 0 } });
      assert.equal(rc.resumed, true);
      await waitFor(() => r.ofType('transcript').filter((m) => m.status === 'final').length >= finals().length, 5000, 'the replay');
      assert.deepEqual(
        r
          .ofType('transcript')
          .filter((m) => m.status === 'final')
          .map((m) => String(m.text)),
        finals(),
      );
      r.close();
    });
  });

  it('a client that stops reading: dropped past the unsent-bytes bound, its text persisted and resumable', async () => {
    await withServer({ script: wordsScript(4000, 40), env: { DICTEE_MAX_UNSENT_BYTES: String(256 * 1024) } }, async (server) => {
      const { key } = await server.createKey();
      const p = new WsProbe(server.wsUrl, { header: key });
      // Long chunks of long words: every word re-sends the chunk's whole text, so the service has megabytes to
      // say, more than the kernel's socket buffers hold.
      const c = await p.configure({
        language: 'en',
        engine_endpointing: 5,
        silence_threshold: 10,
        audio_duration_threshold: 60,
        max_buffer_size: 100,
        flush_timeout: 60,
        enable_final_proofreading: false,
      });
      const socket = (p.ws as unknown as { _socket: net.Socket })._socket;
      socket.pause();
      const audio = bursts(600, 900, 200);
      for (const f of framesOf(audio, 32000)) p.sendAudio(f);
      await waitFor(() => /client is not reading: connection dropped/.test(server.logs()), 30_000, 'the service to drop the client');
      const line = logLines(server.logs()).find((l) => /client is not reading/.test(l.msg))!;
      assert.equal(line.level, 'warn');
      assert.ok(Number(line.unsent_bytes) > 256 * 1024);
      socket.resume();
      await p.closed;
      const q = new WsProbe(server.wsUrl, { header: key });
      const rc = await q.configure({ resume: { session_id: c.session_id, last_seq: 0 } });
      assert.equal(rc.resumed, true, 'the session can be resumed');
      await q.waitFor((m) => m.type === 'transcript' && m.status === 'final', 5000, 'its text, flushed as final before the drop');
      q.close();
    });
  });

  it('the disk full under SQLite: a session under way still gets its text, the loss of durability is logged, what needs the disk is INTERNAL_ERROR, writes resume once there is space', async function () {
    if (process.getuid?.() !== 0) {
      console.warn('      !! not root: cannot mount a small tmpfs; the disk-full test is NOT run');
      this.skip();
    }
    const mnt = mkdtempSync(path.join(os.tmpdir(), 'dictee-full-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mnt]);
    const dataDir = path.join(mnt, 'data');
    mkdirSync(dataDir, { mode: 0o700 });
    const filler = path.join(mnt, 'filler');
    try {
      await withServer({ dataDir, script: wordsScript(200) }, async (server) => {
        const { key } = await server.createKey();
        // A session under way when the disk fills up.
        const p = new WsProbe(server.wsUrl, { header: key });
        await p.configure(FAST);
        // Fill the file system to the last byte.
        const fd = openSync(filler, 'w');
        const block = Buffer.alloc(64 * 1024);
        try {
          for (;;) writeSync(fd, block);
        } catch {
          try {
            for (;;) writeSync(fd, block.subarray(0, 512));
          } catch {
            /* full */
          }
        } finally {
          closeSync(fd);
        }
        for (const f of framesOf(bursts(4))) p.sendAudio(f);
        await waitFor(
          () => p.ofType('transcript').filter((m) => m.status === 'final').length >= 4,
          10_000,
          'finals while the disk is full',
        );
        assert.match(server.logs(), /could not persist a final event/);
        // What needs the disk is refused as documented (INTERNAL_ERROR), the service stays up.
        const q = new WsProbe(server.wsUrl, { header: key });
        await q.opened;
        q.send({ type: 'configure', config: {} });
        assert.equal((await q.waitType('error')).code, 'INTERNAL_ERROR');
        assert.equal((await q.closed).code, 1011);
        const created = await fetch(`${server.url}/v1/api-keys`, {
          method: 'POST',
          headers: { authorization: `Bearer ${server.masterKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'while full', type: 'personal' }),
        });
        assert.equal(created.status, 500, 'a key cannot be stored: INTERNAL_ERROR, as documented');
        assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
        rmSync(filler);
        for (const f of framesOf(bursts(2))) p.sendAudio(f);
        await waitFor(() => /persistence works again/.test(server.logs()), 10_000, 'persistence to work again');
        p.send({ type: 'control', action: 'stop' });
        await p.closed;
      });
    } finally {
      if (existsSync(filler)) rmSync(filler);
      execFileSync('umount', [mnt]);
      rmSync(mnt, { recursive: true, force: true });
    }
  });

  for (const jump of ['+1h', '-1h']) {
    it(`a wall-clock jump of ${jump}: connected sessions stay, keep their text, and the limits keep working`, async () => {
      assert.ok(existsSync(LIBFAKETIME), `${LIBFAKETIME} is missing: install the Debian package faketime (npm run e2e:setup does)`);
      const dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-clock-'));
      const stamp = path.join(dir, 'faketime');
      writeFileSync(stamp, '+0\n');
      await withServer(
        {
          script: wordsScript(60),
          args: ['--rate-limit', '5'],
          env: {
            LD_PRELOAD: LIBFAKETIME,
            FAKETIME_TIMESTAMP_FILE: stamp,
            FAKETIME_NO_CACHE: '1',
            FAKETIME_DONT_FAKE_MONOTONIC: '1',
            DICTEE_PING_INTERVAL_MS: '300',
            DICTEE_PONG_TIMEOUT_MS: '3000',
          },
        },
        async (server) => {
          const { key } = await server.createKey();
          const p = new WsProbe(server.wsUrl, { header: key });
          const c = await p.configure(FAST);
          for (const f of framesOf(bursts(1))) p.sendAudio(f);
          await p.waitFor((m) => m.type === 'transcript' && m.status === 'final');
          writeFileSync(stamp, `${jump}\n`);
          // The service's clock has moved once its Date header says so. Each heartbeat checks the peer's last
          // sign of life before it pings (a peer it judges silent is cut, not pinged): two pings after that
          // come from heartbeats that ran on the moved clock.
          const moved = await waitFor(
            async () => {
              const r = await fetch(`${server.url}/healthz`);
              await r.text();
              return Math.abs(Date.parse(r.headers.get('date') ?? '') - Date.now()) > 30 * 60_000 ? Date.now() : 0;
            },
            5000,
            "the service's Date header to show the jump",
          );
          await waitFor(
            () => p.pings.filter((t) => t > moved).length >= 2 || p.ws.readyState !== p.ws.OPEN,
            5000,
            'two pings after the jump',
          );
          assert.equal(p.ws.readyState, p.ws.OPEN, 'the connection survived the jump');
          for (const f of framesOf(bursts(1))) p.sendAudio(f);
          await waitFor(() => p.ofType('transcript').filter((m) => m.status === 'final').length >= 2, 5000, 'text after the jump');
          // Rate limit: 5 per window; 2 used (key creation does not count, the WebSocket does).
          const statuses: number[] = [];
          for (let i = 0; i < 5; i++) {
            statuses.push((await fetch(`${server.url}/api/v1/live/sessions`, { method: 'POST', headers: { 'x-svc-key': key } })).status);
          }
          assert.deepEqual(statuses, [200, 200, 200, 200, 429], 'the window counts the same after the jump');
          p.send({ type: 'control', action: 'stop' });
          const stopped = await p.waitFor((m) => m.type === 'status' && m.state === 'stopped');
          const d = (stopped.metrics as { session_duration: number }).session_duration;
          assert.ok(d >= 0 && d < 60, `session_duration ${d} s is measured, not read off the wall clock`);
          assert.equal(c.session_id, stopped.session_id ?? c.session_id);
        },
      );
    });
  }
});
