/**
 * What a session leaves behind and how it is taken up again, against the BUILT service: its metrics
 * survive a SIGKILL and a resume; `resume.last_seq` is bounded and never above what the session issued;
 * session records and transcript events older than the retention are deleted.
 */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DB_FILE } from '../../src/server/storage/db';
import { WsProbe, withServer } from '../helpers/server';
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

async function get(url: string, token?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

describe('service: session records, metrics and resume (built service)', function () {
  this.timeout(60_000);

  describe('metrics survive a SIGKILL and a resume', () => {
    it('after SIGKILL and a resume, status.metrics and the session record count every final of the session', async () => {
      await withServer({ script: scriptFile(SCRIPT) }, async (server) => {
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
        const rec = (await (
          await fetch(`${server.url}/v1/sessions/${String(c.session_id)}`, { headers: { authorization: `Bearer ${server.masterKey}` } })
        ).json()) as {
          session: Record<string, unknown>;
        };
        assert.equal(rec.session.final_chunks, finalsBefore + finalsAfter, JSON.stringify(rec.session));
      });
    });
  });

  describe('resume.last_seq is checked', () => {
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

    it('above what the session issued (in memory): CONFIG_ERROR naming resume.last_seq and the highest issued seq; a correct resume still works', async () => {
      await withServer({}, async (server) => {
        const { key } = await server.createKey();
        const p = new WsProbe(server.wsUrl, { header: key });
        const c = await p.configure();
        p.terminate();
        await p.closed;
        const q = new WsProbe(server.wsUrl, { header: key });
        await q.opened;
        q.send({ type: 'configure', config: { resume: { session_id: c.session_id, last_seq: 5 } } });
        const err = await q.waitType('error');
        assert.equal(err.code, 'CONFIG_ERROR');
        assert.match(String(err.message), /resume\.last_seq 5 is above the highest seq this session issued \(0\)/);
        assert.equal((await q.closed).code, 4002);
        const r = new WsProbe(server.wsUrl, { header: key });
        const rc = await r.configure({ resume: { session_id: c.session_id, last_seq: 0 } });
        assert.equal(rc.resumed, true);
        r.close();
      });
    });
  });

  describe('session records and transcript events older than the retention are deleted', () => {
    it('--retention-days 30 (default): records and events older than 30 days are deleted, newer ones kept', async () => {
      await withServer({}, async (server) => {
        const { key } = await server.createKey();
        const ids: string[] = [];
        for (let i = 0; i < 2; i++) {
          const p = new WsProbe(server.wsUrl, { header: key });
          ids.push(String((await p.configure()).session_id));
          p.send({ type: 'control', action: 'stop' });
          await p.closed;
        }
        await server.stop();
        const db = new Database(path.join(server.dataDir, DB_FILE));
        const old = new Date(Date.now() - 31 * 86_400_000).toISOString();
        db.prepare('UPDATE sessions SET created_at = ?, started_at = ?, ended_at = ? WHERE id = ?').run(old, old, old, ids[0]);
        db.prepare('INSERT INTO session_events (session_id, seq, json) VALUES (?, 1, ?)').run(
          ids[0],
          '{"type":"transcript","text":"old words"}',
        );
        db.prepare('UPDATE session_checkpoints SET created_at = ?, stopped_at = ?, updated_at = ? WHERE session_id = ?').run(
          old,
          old,
          old,
          ids[0],
        );
        db.close();
        await server.restart();
        assert.equal((await get(`${server.url}/v1/sessions/${ids[0]}`, server.masterKey)).status, 404, 'the old record is gone');
        assert.equal((await get(`${server.url}/v1/sessions/${ids[1]}`, server.masterKey)).status, 200, 'the recent one stays');
        await server.stop();
        const db2 = new Database(path.join(server.dataDir, DB_FILE), { readonly: true });
        assert.equal((db2.prepare('SELECT COUNT(*) AS n FROM session_events WHERE session_id = ?').get(ids[0]) as { n: number }).n, 0);
        db2.close();
      });
    });
  });
});
