/**
 * Resume (our extension): in memory after a dropped socket, after a drained restart (SIGTERM) and
 * after a crash (SIGKILL), against the BUILT service. The transcript a resuming client ends up with
 * must hold exactly the words of an uninterrupted run: none lost, none twice.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type TestServer, WsProbe, withServer } from '../helpers/server';
import { framesOf, silence, speechPcm } from '../helpers/speech';
import { waitFor } from '../helpers/wait';

const SCRIPT =
  'Findings: no focal consolidation. No pleural effusion. The heart size is normal. Impression: no acute disease, follow up as needed with the referring physician next month. ' +
  'Technique: frontal and lateral views of the chest were obtained in the upright position. Comparison is made with the prior study from last year, which showed similar appearances. ' +
  'The bones and soft tissues are unremarkable for age. Dictated and reviewed by the attending radiologist.';
const STOPPED_TTL_MS = 1000;
const CONFIG = { language: 'en', silence_threshold: 1, engine_endpointing: 0.3, flush_timeout: 30, max_buffer_size: 2 };

/** A client-side transcript: the rules of the spec (seq, ids, batch.replace), provisional dropped on reconnect. */
class Doc {
  private chunks = new Map<string, { index: number; text: string; final: boolean }>();
  private lastSeq = 0;
  apply(m: Record<string, unknown>): void {
    if (m.type !== 'transcript' && m.type !== 'batch.replace') return;
    const seq = Number(m.seq);
    if (seq <= this.lastSeq) return;
    this.lastSeq = seq;
    if (m.type === 'transcript') {
      this.chunks.set(String(m.id), { index: Number(m.index), text: String(m.text), final: m.status === 'final' });
    } else {
      const d = m.data as { target_ids: string[]; new_chunk: { id: string; index: number; text: string } };
      for (const id of d.target_ids) this.chunks.delete(id);
      this.chunks.set(d.new_chunk.id, { index: d.new_chunk.index, text: d.new_chunk.text, final: true });
    }
  }
  get seq(): number {
    return this.lastSeq;
  }
  dropProvisional(): void {
    for (const [id, c] of this.chunks) if (!c.final) this.chunks.delete(id);
  }
  text(): string {
    return [...this.chunks.values()]
      .filter((c) => c.final)
      .sort((a, b) => a.index - b.index)
      .map((c) => c.text)
      .join(' ');
  }
  words(): string[] {
    return this.text()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s'-]/gu, '')
      .split(/\s+/)
      .filter(Boolean);
  }
}

function applyAll(doc: Doc, p: WsProbe, from = 0): number {
  for (const m of p.messages.slice(from)) doc.apply(m);
  return p.messages.length;
}

describe('server resume (built service)', function () {
  this.timeout(60000);
  let scriptPath: string;
  let audio: Buffer;
  let reference: string[];

  before(async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-resume-'));
    scriptPath = path.join(dir, 'script.txt');
    writeFileSync(scriptPath, SCRIPT);
    const a = await speechPcm('The chest radiograph shows clear lungs on both sides.');
    const b = await speechPcm('There is no sign of fluid, and the heart looks normal in size.');
    audio = Buffer.concat([a, silence(1200), b, silence(400), a, silence(1200)]);
    // Reference: one uninterrupted run.
    await withServer({ script: scriptPath }, async (server) => {
      const { key } = await server.createKey();
      const p = new WsProbe(server.wsUrl, { header: key });
      await p.configure(CONFIG);
      for (const f of framesOf(audio)) p.sendAudio(f);
      await p.roundTrip(); // every frame handled, its events arrived
      p.send({ type: 'control', action: 'stop' });
      await p.closed;
      const doc = new Doc();
      applyAll(doc, p);
      reference = doc.words();
      assert.ok(reference.length >= 12, `reference has ${reference.length} words`);
      assert.ok(
        reference.length < SCRIPT.split(' ').length,
        'the audio does not exhaust the script, so a doubled stretch of audio would show',
      );
      if (process.env.DEBUG_RESUME) console.log(reference.join(' '));
      assert.ok(p.ofType('batch.replace').length >= 2, 'several sentences');
    });
  });

  /**
   * Streams the first `cutAt` bytes, breaks the connection with `interrupt`, resumes with the
   * client's last seq, re-sends audio from resume_audio_offset, finishes, stops. Returns the words.
   */
  async function interrupted(
    server: TestServer,
    key: string,
    cutAt: number,
    interrupt: (p: WsProbe) => Promise<void>,
  ): Promise<{ words: string[]; configured: Record<string, unknown>; doc: Doc }> {
    const doc = new Doc();
    const p = new WsProbe(server.wsUrl, { header: key });
    const c = await p.configure(CONFIG);
    for (const f of framesOf(audio.subarray(0, cutAt))) p.sendAudio(f);
    await p.roundTrip(); // every frame handled, its events arrived
    applyAll(doc, p);
    assert.ok(
      p.ofType('transcript').some((m) => m.status === 'final'),
      'some text is final before the cut',
    );
    assert.ok(
      p.ofType('transcript').some((m) => m.status !== 'final'),
      'some text is provisional at the cut',
    );
    await interrupt(p);
    doc.dropProvisional();
    const clientLastSeq = doc.seq;
    const q = new WsProbe(server.wsUrl, { header: key });
    const rc = await q.configure({ ...CONFIG, resume: { session_id: c.session_id, last_seq: clientLastSeq } });
    assert.equal(rc.session_id, c.session_id);
    assert.equal(rc.resumed, true);
    assert.ok(Number(rc.last_seq) >= 0);
    const offset = Number(rc.resume_audio_offset);
    assert.ok(offset > 0 && offset <= cutAt, `resume_audio_offset ${offset} (cut at ${cutAt})`);
    assert.equal(offset % 2, 0);
    for (const f of framesOf(audio.subarray(offset))) q.sendAudio(f);
    await q.roundTrip();
    q.send({ type: 'control', action: 'stop' });
    await q.closed;
    applyAll(doc, q);
    const seqs = q.messages.filter((m) => m.seq !== undefined).map((m) => Number(m.seq));
    assert.ok(seqs.length > 0);
    assert.ok(
      seqs.every((s, i) => i === 0 || s > seqs[i - 1]!),
      'seq rises through replay and new events',
    );
    assert.ok(seqs[0]! > clientLastSeq, `every event after the resume is newer than the client's last seq (${seqs[0]} > ${clientLastSeq})`);
    return { words: doc.words(), configured: rc, doc };
  }

  it('in memory: a dropped socket resumes with the same session, replay and the audio offset; no word lost or doubled', async () => {
    await withServer({ script: scriptPath }, async (server) => {
      const { key } = await server.createKey();
      const cut = Math.floor((audio.length * 0.45) / 3200) * 3200 + 1000;
      const r = await interrupted(server, key, cut, async (p) => {
        p.terminate();
        await p.closed;
      });
      assert.equal(r.configured.resume_audio_offset, cut, 'in memory: every byte received is accounted for');
      assert.deepEqual(r.words, reference);
    });
  });

  it('in memory, before the server notices the drop: the resume takes over the old socket without a new slot', async () => {
    await withServer({ script: scriptPath, args: ['--concurrency-limit', '1'] }, async (server) => {
      const { key } = await server.createKey();
      const mark = server.logs().length;
      const cut = Math.floor((audio.length * 0.6) / 3200) * 3200;
      const r = await interrupted(server, key, cut, async () => {
        // The old socket stays open (a half-dead connection); the new one must take its slot.
      });
      assert.deepEqual(r.words, reference);
      assert.match(server.logs().slice(mark), /connection replaced by a resuming one/);
    });
  });

  it('after a drained restart (SIGTERM): stopped with resumable, then resumed from storage', async () => {
    await withServer({ script: scriptPath }, async (server) => {
      const { key } = await server.createKey();
      const cut = Math.floor((audio.length * 0.45) / 3200) * 3200;
      let drained: WsProbe | undefined;
      const r = await interrupted(server, key, cut, async (p) => {
        drained = p;
        await server.restart();
        await p.closed;
      });
      const stopped = drained!.messages.find((m) => m.type === 'status' && m.state === 'stopped')!;
      assert.ok(stopped, 'the drain sent status stopped');
      assert.equal(stopped.resumable, true);
      assert.equal((await drained!.closed).code, 1000);
      // The drain made the pending text final; the words are all there once.
      assert.deepEqual(r.words, reference);
      assert.equal(r.configured.resume_audio_offset, cut);
    });
  });

  it('after a crash (SIGKILL): resumes from the last checkpoint; the client re-sends from its offset', async () => {
    await withServer({ script: scriptPath }, async (server) => {
      const { key } = await server.createKey();
      const cut = Math.floor((audio.length * 0.6) / 3200) * 3200;
      const r = await interrupted(server, key, cut, async (p) => {
        await server.restart({ kill: true });
        await p.closed;
      });
      assert.ok(Number(r.configured.resume_audio_offset) < cut, 'the provisional tail is re-sent');
      assert.deepEqual(r.words, reference);
    });
  });

  it('another key, an unknown session, or an expired one → configured with resumed: false and a new session_id', async () => {
    await withServer({ script: scriptPath, env: { DICTEE_STOPPED_TTL_MS: String(STOPPED_TTL_MS) } }, async (server) => {
      const a = await server.createKey();
      const b = await server.createKey();
      const p = new WsProbe(server.wsUrl, { header: a.key });
      const c = await p.configure(CONFIG);
      p.terminate();
      const q = new WsProbe(server.wsUrl, { header: b.key });
      const rc = await q.configure({ resume: { session_id: c.session_id, last_seq: 0 } });
      assert.equal(rc.resumed, false);
      assert.notEqual(rc.session_id, c.session_id);
      const u = new WsProbe(server.wsUrl, { header: a.key });
      const ru = await u.configure({ resume: { session_id: 'no-such-session', last_seq: 3 } });
      assert.equal(ru.resumed, false);
      assert.notEqual(ru.session_id, 'no-such-session');
      q.close();
      u.close();
      // A stopped session replays, then expires.
      const s = new WsProbe(server.wsUrl, { header: a.key });
      const sc = await s.configure(CONFIG);
      for (const f of framesOf(audio.subarray(0, 32000 * 4))) s.sendAudio(f);
      await s.roundTrip();
      const stoppedAt = Date.now(); // no later than the service's stop
      s.send({ type: 'control', action: 'stop' });
      await s.closed;
      const finals = s.messages.filter((m) => m.type === 'batch.replace' || (m.type === 'transcript' && m.status === 'final'));
      assert.ok(finals.length > 0);
      const again = new WsProbe(server.wsUrl, { header: a.key });
      const ra = await again.configure({ resume: { session_id: sc.session_id, last_seq: 0 } });
      assert.equal(ra.resumed, true);
      assert.equal((await again.closed).code, 1000);
      const replay = again.messages.filter((m) => m.type === 'batch.replace' || m.type === 'transcript');
      assert.deepEqual(replay, finals, 'the durable events are replayed as sent');
      assert.equal(again.messages[again.messages.length - 1]!.state, 'stopped');
      // Until its stopped TTL has passed it is replayed; then a resume of it starts a new session.
      await waitFor(
        async () => {
          const late = new WsProbe(server.wsUrl, { header: a.key });
          const rl = await late.configure({ resume: { session_id: sc.session_id, last_seq: 0 } });
          late.close();
          return rl.resumed === false;
        },
        15_000,
        'the stopped session to expire',
        200,
      );
      assert.ok(Date.now() - stoppedAt >= STOPPED_TTL_MS, `expired after the stopped TTL (${STOPPED_TTL_MS} ms), not before`);
    });
  });
});
