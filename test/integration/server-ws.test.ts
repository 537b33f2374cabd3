/**
 * The WebSocket endpoint of the BUILT service, over real sockets: the state table of the spec, every
 * error code with its close code, malformed input, both token placements, transcripts from espeak
 * speech, pause/resume, stop, timeouts, limits and revocation.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { WsProbe, useServer } from '../helpers/server';
import { waitFor } from '../helpers/wait';
import { framesOf, scriptFile, silence, speechPcm } from '../helpers/speech';

const SCRIPT = 'Good morning, Doctor Smith. All clear.';
const SCRIPT_WORDS = ['good', 'morning', 'doctor', 'smith', 'all', 'clear'];
const FAST = { silence_threshold: 1, engine_endpointing: 0.3, stop_delay: 0.5, flush_timeout: 5 };

async function speech(): Promise<Buffer> {
  // ≈ 3 s of voiced audio: more than the 6 words × 300 ms the script needs.
  return Buffer.concat([await speechPcm('The patient is a fifty two year old man with chest pain.'), silence(1200)]);
}

describe('server WebSocket (built service, real sockets)', function () {
  this.timeout(20000);
  const server = useServer(() => ({
    script: scriptFile(SCRIPT),
    env: { DICTEE_CONFIGURE_TIMEOUT_MS: '1500', DICTEE_PING_INTERVAL_MS: '300', DICTEE_PONG_TIMEOUT_MS: '2000' },
  }));
  let key: string;

  before(async () => {
    key = (await server.createKey({ name: 'ws tests' })).key;
  });

  async function expectError(p: WsProbe, code: string, close: number, re?: RegExp): Promise<Record<string, unknown>> {
    const err = await p.waitType('error');
    assert.equal(err.code, code, JSON.stringify(err));
    assert.equal(typeof err.message, 'string');
    assert.equal(typeof err.retry_after_ms, 'number');
    if (re) assert.match(String(err.message), re);
    const c = await p.closed;
    assert.equal(c.code, close);
    // The error is the last message before the close.
    assert.equal(p.messages[p.messages.length - 1], err);
    return err;
  }

  describe('the spec state table', () => {
    it('connected → configure → configured (session_id, engine simulated)', async () => {
      const p = new WsProbe(server.wsUrl, { header: key });
      const c = await p.configure();
      assert.match(String(c.session_id), /^[0-9a-f-]{36}$/);
      assert.equal(c.engine, 'simulated');
      assert.equal(c.resumed, undefined, 'no resume fields without a resume request');
      assert.equal(c.keyterms_applied, false);
      p.close();
    });

    it('keyterms and auto_punctuation are accepted; the simulated engine ignores the keyterms and says so', async () => {
      const p = new WsProbe(server.wsUrl, { header: key });
      const c = await p.configure({ keyterms: Array.from({ length: 100 }, (_, i) => `Doliprane ${i}`), auto_punctuation: false });
      assert.equal(c.engine, 'simulated');
      assert.equal(c.keyterms_applied, false);
      p.close();
    });

    it('full session: start, audio → transcript + batch.replace, stop → stopping, stopped with metrics, close 1000', async () => {
      const p = new WsProbe(server.wsUrl, { header: key });
      const c = await p.configure({ language: 'en', ...FAST });
      p.send({ type: 'control', action: 'start' });
      const frames = framesOf(await speech());
      for (const f of frames) p.sendAudio(f);
      await p.waitType('batch.replace');
      p.send({ type: 'control', action: 'stop' });
      const stopped = await p.waitFor((m) => m.type === 'status' && m.state === 'stopped');
      const close = await p.closed;
      assert.equal(close.code, 1000);
      const transcripts = p.ofType('transcript');
      const finals = transcripts.filter((m) => m.status === 'final');
      assert.deepEqual(
        finals
          .map((m) => m.text)
          .join(' ')
          .split(' '),
        SCRIPT_WORDS,
      );
      const br = p.ofType('batch.replace');
      assert.equal(br.length, 1);
      const data = br[0]!.data as { target_ids: string[]; new_chunk: { text: string; index: number; status: string; id: string } };
      assert.equal(data.new_chunk.text, SCRIPT);
      assert.equal(data.new_chunk.status, 'final');
      assert.deepEqual(
        data.target_ids,
        finals.map((m) => m.id),
      );
      // seq: +1 on every transcript and batch.replace, from 1.
      const seqs = p.messages.filter((m) => m.type === 'transcript' || m.type === 'batch.replace').map((m) => m.seq);
      assert.deepEqual(
        seqs,
        seqs.map((_, i) => i + 1),
      );
      // status order: stopping then stopped, both with metrics.
      const statuses = p.ofType('status');
      assert.deepEqual(
        statuses.map((s) => s.state),
        ['stopping', 'stopped'],
      );
      const m = stopped.metrics as Record<string, number>;
      assert.equal(m.total_chunks, frames.length, 'total_chunks counts audio frames received');
      assert.ok(m.session_duration! > 0);
      assert.equal(m.discarded_chunks, 0);
      assert.ok(Math.abs(m.audio_seconds! - frames.reduce((a, f) => a + f.length, 0) / 32000) < 0.03);
      assert.equal(p.messages[p.messages.length - 1], stopped, 'stopped is the last message');
      assert.ok(c.session_id);
    });

    for (const rate of [8000, 48000]) {
      it(`transcribes ${rate} Hz audio when configured for it`, async () => {
        const p = new WsProbe(server.wsUrl, { header: key });
        await p.configure({ language: 'en', sample_rate: rate, encoding: 'pcm_s16le', ...FAST });
        const pcm = Buffer.concat([
          await speechPcm('The patient is a fifty two year old man with chest pain.', { sampleRate: rate }),
          silence(1200, rate),
        ]);
        for (const f of framesOf(pcm, rate / 5)) p.sendAudio(f); // 100 ms frames
        const br = await p.waitType('batch.replace');
        assert.equal((br.data as { new_chunk: { text: string } }).new_chunk.text, SCRIPT);
        p.send({ type: 'control', action: 'stop' });
        const stopped = await p.waitFor((m) => m.type === 'status' && m.state === 'stopped');
        assert.ok(Math.abs((stopped.metrics as { audio_seconds: number }).audio_seconds - pcm.length / 2 / rate) < 0.03);
      });
    }

    it('audio in configured state before start starts recording', async () => {
      const p = new WsProbe(server.wsUrl, { header: key });
      await p.configure({ language: 'en', ...FAST });
      for (const f of framesOf(await speech())) p.sendAudio(f);
      await p.waitType('batch.replace');
      assert.ok(p.ofType('transcript').length > 0);
      p.close();
    });

    it('pause → audio discarded and counted; resume → recording; redundant controls are no-ops', async () => {
      const p = new WsProbe(server.wsUrl, { header: key });
      await p.configure({ language: 'en', ...FAST });
      p.send({ type: 'control', action: 'start' });
      p.send({ type: 'control', action: 'start' }); // no-op
      p.send({ type: 'control', action: 'pause' });
      p.send({ type: 'control', action: 'pause' }); // no-op
      const frames = framesOf(await speech());
      for (const f of frames) p.sendAudio(f);
      await p.roundTrip(); // every frame handled, and whatever it caused has arrived
      assert.equal(p.ofType('transcript').length, 0, 'no transcript while paused');
      p.send({ type: 'control', action: 'resume' });
      p.send({ type: 'control', action: 'resume' }); // no-op
      for (const f of frames) p.sendAudio(f);
      await p.waitType('batch.replace');
      p.send({ type: 'control', action: 'stop' });
      const stopped = await p.waitFor((m) => m.type === 'status' && m.state === 'stopped');
      const m = stopped.metrics as Record<string, number>;
      assert.equal(m.discarded_chunks, frames.length);
      assert.equal(m.total_chunks, 2 * frames.length);
      assert.equal((await p.closed).code, 1000);
    });

    it('flush_timeout: no audio for that long → pending text final and proofread', async () => {
      const p = new WsProbe(server.wsUrl, { header: key });
      await p.configure({ language: 'en', silence_threshold: 5, engine_endpointing: 0.3, flush_timeout: 0.6 });
      const pcm = await speechPcm('The patient is a fifty two year old man with chest pain.');
      const t0 = Date.now();
      for (const f of framesOf(pcm)) p.sendAudio(f);
      const br = await p.waitType('batch.replace', 5000);
      const took = Date.now() - t0;
      assert.ok(took >= 550, `flushed after ${took} ms`);
      assert.equal((br.data as { new_chunk: { text: string } }).new_chunk.text, SCRIPT);
      const finals = p.ofType('transcript').filter((m) => m.status === 'final');
      assert.deepEqual(
        finals
          .map((m) => m.text)
          .join(' ')
          .split(' '),
        SCRIPT_WORDS,
      );
      p.close();
    });

    it('flush_timeout counts from the last frame: audio that keeps coming for longer than it is never flushed early', async () => {
      const p = new WsProbe(server.wsUrl, { header: key });
      await p.configure({ language: 'en', silence_threshold: 5, engine_endpointing: 0.3, flush_timeout: 0.6 });
      const frames = framesOf(await speechPcm('The patient is a fifty two year old man with chest pain.'));
      assert.ok(frames.length * 100 > 3 * 600, 'the speech lasts several flush timeouts');
      // A microphone's pace: one 100 ms frame every 100 ms, for several times flush_timeout.
      let lastSentAt = 0;
      for (const f of frames) {
        p.sendAudio(f);
        lastSentAt = Date.now();
        await new Promise((r) => setTimeout(r, 100));
      }
      const br = await p.waitType('batch.replace', 5000);
      const after = Date.now() - lastSentAt;
      assert.equal(p.ofType('batch.replace').length, 1, 'one flush, at the end');
      assert.ok(after >= 450, `flushed ${after} ms after the last frame (flush_timeout 600 ms), not while audio came`);
      assert.equal((br.data as { new_chunk: { text: string } }).new_chunk.text, SCRIPT);
      p.close();
    });

    it('the session record shows the end, duration and frames (tracking endpoint)', async () => {
      const p = new WsProbe(server.wsUrl, { header: key });
      const c = await p.configure({ language: 'en', ...FAST });
      const frames = framesOf(await speech());
      for (const f of frames) p.sendAudio(f);
      p.send({ type: 'control', action: 'stop' });
      await p.closed;
      const res = await fetch(`${server.url}/v1/sessions/${String(c.session_id)}`, {
        headers: { authorization: `Bearer ${server.masterKey}` },
      });
      assert.equal(res.status, 200);
      const s = ((await res.json()) as { session: Record<string, unknown> }).session;
      assert.equal(s.session_id, c.session_id);
      assert.equal(s.state, 'stopped');
      assert.equal(s.total_frames, frames.length);
      assert.ok(Number(s.duration) >= 0 && s.ended_at && s.end_reason === 'client stop', JSON.stringify(s));
      const own = await fetch(`${server.url}/v1/sessions/${String(c.session_id)}`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(own.status, 200, 'a key with "read" reads the sessions of its scope');
      const writeOnly = (await server.createKey({ name: 'write only', permissions: ['write'] })).key;
      const denied = await fetch(`${server.url}/v1/sessions/${String(c.session_id)}`, {
        headers: { authorization: `Bearer ${writeOnly}` },
      });
      assert.equal(denied.status, 403, 'a key without "read" (or "admin") cannot read sessions');
    });

    it('after stop: no more events, the socket closes 1000', async () => {
      const p = new WsProbe(server.wsUrl, { header: key });
      await p.configure();
      p.send({ type: 'control', action: 'stop' });
      p.send({ type: 'control', action: 'pause' });
      p.sendAudio(silence(100));
      const c = await p.closed;
      assert.equal(c.code, 1000);
      assert.deepEqual(
        p.messages.map((m) => `${m.type}:${String(m.state ?? '')}`),
        ['configured:', 'status:stopping', 'status:stopped'],
      );
    });
  });

  describe('errors: an error message, then the close code', () => {
    const cases: Array<{ name: string; steps: (p: WsProbe) => void; code: string; close: number; re: RegExp }> = [
      {
        name: 'audio before configure',
        steps: (p) => p.sendAudio(silence(100)),
        code: 'PROTOCOL_ERROR',
        close: 4000,
        re: /before configure/,
      },
      {
        name: 'control before configure',
        steps: (p) => p.send({ type: 'control', action: 'start' }),
        code: 'PROTOCOL_ERROR',
        close: 4000,
        re: /configure must be the first/,
      },
      { name: 'malformed JSON', steps: (p) => p.send('{"type": "configure",'), code: 'PROTOCOL_ERROR', close: 4000, re: /malformed JSON/ },
      { name: 'not an object', steps: (p) => p.send('[1,2]'), code: 'PROTOCOL_ERROR', close: 4000, re: /JSON object/ },
      {
        name: 'unknown type',
        steps: (p) => p.send({ type: 'hello' }),
        code: 'PROTOCOL_ERROR',
        close: 4000,
        re: /unknown message type "hello"/,
      },
      { name: 'missing type', steps: (p) => p.send({ config: {} }), code: 'PROTOCOL_ERROR', close: 4000, re: /"type"/ },
      {
        name: 'unknown config field',
        steps: (p) => p.send({ type: 'configure', config: { langage: 'fr' } }),
        code: 'CONFIG_ERROR',
        close: 4002,
        re: /langage/,
      },
      {
        name: 'language out of enum',
        steps: (p) => p.send({ type: 'configure', config: { language: 'it' } }),
        code: 'CONFIG_ERROR',
        close: 4002,
        re: /language/,
      },
      {
        name: 'specialty out of enum',
        steps: (p) => p.send({ type: 'configure', config: { specialty: 'dental' } }),
        code: 'CONFIG_ERROR',
        close: 4002,
        re: /specialty/,
      },
      {
        name: 'preset out of enum',
        steps: (p) => p.send({ type: 'configure', config: { preset: 'fast' } }),
        code: 'CONFIG_ERROR',
        close: 4002,
        re: /preset/,
      },
      {
        name: 'silence_threshold out of bounds',
        steps: (p) => p.send({ type: 'configure', config: { silence_threshold: 99 } }),
        code: 'CONFIG_ERROR',
        close: 4002,
        re: /silence_threshold/,
      },
      {
        name: 'max_buffer_size not an integer',
        steps: (p) => p.send({ type: 'configure', config: { max_buffer_size: 2.5 } }),
        code: 'CONFIG_ERROR',
        close: 4002,
        re: /max_buffer_size/,
      },
      {
        name: 'flush_timeout wrong type',
        steps: (p) => p.send({ type: 'configure', config: { flush_timeout: '3' } }),
        code: 'CONFIG_ERROR',
        close: 4002,
        re: /flush_timeout/,
      },
      {
        name: 'enable_final_proofreading wrong type',
        steps: (p) => p.send({ type: 'configure', config: { enable_final_proofreading: 'yes' } }),
        code: 'CONFIG_ERROR',
        close: 4002,
        re: /enable_final_proofreading/,
      },
      {
        name: 'stop_delay negative',
        steps: (p) => p.send({ type: 'configure', config: { stop_delay: -1 } }),
        code: 'CONFIG_ERROR',
        close: 4002,
        re: /stop_delay/,
      },
      {
        name: 'keyterms: 101 terms',
        steps: (p) => p.send({ type: 'configure', config: { keyterms: Array.from({ length: 101 }, (_, i) => `t${i}`) } }),
        code: 'CONFIG_ERROR',
        close: 4002,
        re: /keyterms holds at most 100 terms/,
      },
      {
        name: 'keyterms: a term of 51 characters',
        steps: (p) => p.send({ type: 'configure', config: { keyterms: ['x'.repeat(51)] } }),
        code: 'CONFIG_ERROR',
        close: 4002,
        re: /keyterms: a term has at most 50 characters/,
      },
      {
        name: 'config not an object',
        steps: (p) => p.send({ type: 'configure', config: 5 }),
        code: 'CONFIG_ERROR',
        close: 4002,
        re: /config/,
      },
      {
        name: 'endpointing ≥ silence threshold',
        steps: (p) => p.send({ type: 'configure', config: { engine_endpointing: 2, silence_threshold: 1 } }),
        code: 'CONFIG_ERROR',
        close: 4002,
        re: /engine_endpointing/,
      },
      {
        name: 'encoding not pcm_s16le',
        steps: (p) => p.send({ type: 'configure', config: { encoding: 'opus' } }),
        code: 'INIT_ERROR',
        close: 4003,
        re: /encoding "opus"/,
      },
      {
        name: 'sample rate the engine cannot serve',
        steps: (p) => p.send({ type: 'configure', config: { sample_rate: 11025 } }),
        code: 'INIT_ERROR',
        close: 4003,
        re: /sample_rate 11025/,
      },
    ];
    for (const c of cases) {
      it(`${c.name} → ${c.code}, close ${c.close}`, async () => {
        const p = new WsProbe(server.wsUrl, { header: key });
        await p.opened;
        c.steps(p);
        const err = await expectError(p, c.code, c.close, c.re);
        assert.equal(err.retry_after_ms, 0);
        assert.equal(err.session_id, undefined, 'no session yet');
      });
    }

    const after: Array<{ name: string; steps: (p: WsProbe) => void; re: RegExp }> = [
      { name: 'second configure', steps: (p) => p.send({ type: 'configure', config: {} }), re: /configure received twice/ },
      { name: 'bad control action', steps: (p) => p.send({ type: 'control', action: 'rewind' }), re: /action/ },
      { name: 'odd-length audio frame', steps: (p) => p.sendAudio(Buffer.alloc(3201)), re: /odd length/ },
      { name: '65 KiB audio frame', steps: (p) => p.sendAudio(Buffer.alloc(65 * 1024)), re: /larger than 65536/ },
      { name: 'malformed JSON mid-session', steps: (p) => p.send('nope'), re: /malformed JSON/ },
      { name: 'unknown type mid-session', steps: (p) => p.send({ type: 'flush' }), re: /unknown message type/ },
    ];
    for (const c of after) {
      it(`${c.name} after configure → PROTOCOL_ERROR with session_id, close 4000`, async () => {
        const p = new WsProbe(server.wsUrl, { header: key });
        const conf = await p.configure();
        c.steps(p);
        const err = await expectError(p, 'PROTOCOL_ERROR', 4000, c.re);
        assert.equal(err.session_id, conf.session_id);
      });
    }

    it('pending text is flushed as final before a fatal error mid-recording', async () => {
      const p = new WsProbe(server.wsUrl, { header: key });
      await p.configure({ language: 'en', silence_threshold: 5, engine_endpointing: 0.3, flush_timeout: 30 });
      const pcm = await speechPcm('The patient is a fifty two year old man with chest pain.');
      for (const f of framesOf(pcm)) p.sendAudio(f);
      await p.waitFor((m) => m.type === 'transcript' && m.text === 'good morning doctor smith all clear');
      assert.equal(p.ofType('transcript').filter((m) => m.status === 'final').length, 0);
      p.sendAudio(Buffer.alloc(3));
      await expectError(p, 'PROTOCOL_ERROR', 4000);
      const finals = p.ofType('transcript').filter((m) => m.status === 'final');
      assert.deepEqual(
        finals
          .map((m) => m.text)
          .join(' ')
          .split(' '),
        SCRIPT_WORDS,
      );
      assert.equal(p.ofType('batch.replace').length, 0, 'no proofreading on an error flush');
    });

    it('no configure within the configure timeout → PROTOCOL_ERROR, close 4000', async () => {
      const p = new WsProbe(server.wsUrl, { header: key });
      await expectError(p, 'PROTOCOL_ERROR', 4000, /no configure message within 1.5 s/);
    });
  });

  describe('authentication', () => {
    it('accepts the token in ?token= and in Authorization: Bearer', async () => {
      const a = new WsProbe(server.wsUrl, { token: key });
      await a.configure();
      const b = new WsProbe(server.wsUrl, { header: key });
      await b.configure();
      a.close();
      b.close();
    });

    for (const [name, opts, re] of [
      ['missing token', {}, /missing API key/],
      ['malformed token', { token: 'abc' }, /not of the form/],
      ['unknown token', { token: 'svc_live_' + 'x'.repeat(43) }, /unknown/],
    ] as Array<[string, { token?: string }, RegExp]>) {
      it(`${name} → AUTH_ERROR, close 4001`, async () => {
        const p = new WsProbe(server.wsUrl, opts);
        await expectError(p, 'AUTH_ERROR', 4001, re);
      });
    }

    it('a read-only key → AUTH_ERROR saying it lacks "write"', async () => {
      const ro = await server.createKey({ name: 'ro', permissions: ['read'] });
      const p = new WsProbe(server.wsUrl, { header: ro.key });
      await expectError(p, 'AUTH_ERROR', 4001, /lacks the "write" permission/);
    });

    it('revoking a key mid-session: pending text flushed as final, then AUTH_ERROR, close 4001 within 1 s', async () => {
      const k = await server.createKey({ name: 'to revoke' });
      const p = new WsProbe(server.wsUrl, { header: k.key });
      const conf = await p.configure({ language: 'en', silence_threshold: 5, engine_endpointing: 0.3, flush_timeout: 30 });
      for (const f of framesOf(await speechPcm('The patient is a fifty two year old man with chest pain.'))) p.sendAudio(f);
      await p.waitFor((m) => m.type === 'transcript' && m.text === 'good morning doctor smith all clear');
      const t0 = Date.now();
      await server.revokeKey(k.id);
      const err = await expectError(p, 'AUTH_ERROR', 4001, /revoked/);
      assert.ok(Date.now() - t0 < 1000, `closed ${Date.now() - t0} ms after the revocation`);
      assert.equal(err.session_id, conf.session_id);
      const finals = p.ofType('transcript').filter((m) => m.status === 'final');
      assert.deepEqual(
        finals
          .map((m) => m.text)
          .join(' ')
          .split(' '),
        SCRIPT_WORDS,
      );
      // And the key no longer opens anything.
      const again = new WsProbe(server.wsUrl, { header: k.key });
      await expectError(again, 'AUTH_ERROR', 4001, /revoked/);
    });

    it('an unknown path is refused with 404', async () => {
      const ws = new WebSocket(server.url.replace('http', 'ws') + '/api/v1/audio/other');
      const status = await new Promise<number>((resolve) => {
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('error', () => resolve(-1));
      });
      assert.equal(status, 404);
    });
  });

  describe('keep-alive', () => {
    const PONG_TIMEOUT_MS = 2000;

    it('a peer that never answers pings is dropped and its slot freed', async () => {
      const mark = server.logs().length;
      const p = new WsProbe(server.wsUrl, { header: key, autoPong: false });
      const conf = await p.configure();
      const t0 = Date.now();
      const c = await p.closed;
      const took = Date.now() - t0;
      assert.equal(c.code, 1006, 'terminated without a close frame');
      assert.ok(took >= 1500 && took < 6000, `dropped after ${took} ms (pong timeout ${PONG_TIMEOUT_MS} ms)`);
      assert.ok(p.pings.length >= 2, `the service pinged it (${p.pings.length} pings) before giving up`);
      assert.match(
        server.logs().slice(mark),
        new RegExp(`"msg":"peer silent: connection dropped".*"session_id":"${String(conf.session_id)}"`),
      );
      // Its slot is free: the session is detached, resumable.
      await waitFor(async () => (await server.session(String(conf.session_id))).connected === false, 5000, 'the session to be detached');
    });

    it('a peer that answers pings stays: pinged again and again past the pong timeout', async () => {
      const p = new WsProbe(server.wsUrl, { header: key });
      await p.configure();
      const t0 = Date.now();
      // A ping that comes after the pong timeout has passed: the service still counts the peer as alive.
      await waitFor(() => p.pings.some((t) => t - t0 > PONG_TIMEOUT_MS), 3 * PONG_TIMEOUT_MS, 'a ping after the pong timeout');
      assert.ok(p.pings.length >= 3, `pinged every 300 ms (${p.pings.length} pings)`);
      assert.equal(p.ws.readyState, WebSocket.OPEN);
      p.close();
    });
  });

  describe('logs', () => {
    it('never contain a key or a token= value', async () => {
      const mark = server.logs().length;
      // Traffic of its own: a key in the header, a key in ?token=, an unknown key in ?token=, a whole session.
      const inQuery = new WsProbe(server.wsUrl, { token: key });
      await inQuery.configure({ language: 'en', ...FAST });
      inQuery.close();
      await expectError(new WsProbe(server.wsUrl, { token: `svc_live_${'Q'.repeat(43)}` }), 'AUTH_ERROR', 4001);
      const p = new WsProbe(server.wsUrl, { header: key });
      await p.configure({ language: 'en', ...FAST });
      for (const f of framesOf(await speech())) p.sendAudio(f);
      p.send({ type: 'control', action: 'stop' });
      await p.closed;
      const own = server.logs().slice(mark);
      for (const expected of [/"token_in":"query"/, /"token_in":"header"/, /"msg":"session stopped"/, /"reason":"unknown"/])
        assert.match(own, expected);
      assert.ok(!own.includes(`svc_live_${'Q'.repeat(43)}`), 'nor an unknown key');
      const logs = server.logs();
      assert.ok(!logs.includes(key), 'the key is not in the logs');
      assert.ok(!/svc_(live|test|proj)_[A-Za-z0-9_-]{20,}/.test(logs), 'no key-shaped string');
      assert.ok(!/token=(?!\[redacted\])/.test(logs), 'every token= is redacted');
      assert.ok(!logs.includes(server.masterKey), 'nor the master key');
      for (const line of logs.split('\n').filter((l) => l.startsWith('{'))) {
        const j = JSON.parse(line) as Record<string, unknown>;
        assert.ok(j.time && j.level && j.msg, line);
      }
    });
  });
});
