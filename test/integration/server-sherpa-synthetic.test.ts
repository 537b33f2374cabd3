/**
 * The BUILT service with `--engine sherpa-onnx`, the REAL sherpa-onnx-node 1.13.8 addon (no fake) and
 * SYNTHETIC models of the catalogue's Nemotron 3.5 (streaming, language per stream) and Parakeet TDT v3
 * (proofreading) — exactly their inputs, outputs and metadata, made-up weights (test/helpers/synthModels.ts):
 * a tone burst decodes to a known word at the encoder frame where it starts, in the stream's language.
 * What this proves: our configuration loads them, and the streaming loop, the language prompt, the
 * segmenter's utterances, word times, the proofreading pass with hotwords and resume all work through the
 * real runtime. What it cannot: anything about recognising speech (docs/engines.md, "what ran here").
 */
import assert from 'node:assert/strict';
import { type TestServer, WsProbe, startServer } from '../helpers/server';
import { framesOf, silence } from '../helpers/speech';
import { NEMOTRON, PARAKEET, type SynthFixture, synthFixture, synthUnavailable, toneBursts } from '../helpers/synthModels';

const FAST = { silence_threshold: 1, engine_endpointing: 0.3, stop_delay: 2, flush_timeout: 10 };
type Msg = Record<string, unknown>;
interface Word {
  text: string;
  start_ms: number;
  end_ms: number;
}

/** Streams `pcm`, waits until every frame is handled, stops, waits for the close; returns the messages. */
async function dictate(server: TestServer, key: string, config: Msg, pcm: Buffer): Promise<WsProbe> {
  const p = new WsProbe(server.wsUrl, { header: key });
  await p.configure({ ...FAST, ...config });
  for (const f of framesOf(pcm)) p.sendAudio(f);
  await p.roundTrip();
  p.send({ type: 'control', action: 'stop' });
  await p.closed;
  return p;
}

const finals = (p: WsProbe): Msg[] => p.ofType('transcript').filter((m) => m.status === 'final');
const textOf = (ms: Msg[]): string => ms.map((m) => String(m.text)).join(' ');
const replaced = (p: WsProbe): Array<{ text: string; words?: Word[] }> =>
  p.ofType('batch.replace').map((m) => (m.data as { new_chunk: { text: string; words?: Word[] } }).new_chunk);

/** A client's transcript (seq, ids, batch.replace; provisional text dropped on reconnect), as the spec says. */
class Doc {
  private chunks = new Map<string, { index: number; text: string; final: boolean }>();
  seq = 0;
  apply(ms: Msg[]): void {
    for (const m of ms) {
      if ((m.type !== 'transcript' && m.type !== 'batch.replace') || Number(m.seq) <= this.seq) continue;
      this.seq = Number(m.seq);
      if (m.type === 'transcript') {
        this.chunks.set(String(m.id), { index: Number(m.index), text: String(m.text), final: m.status === 'final' });
      } else {
        const d = m.data as { target_ids: string[]; new_chunk: { id: string; index: number; text: string } };
        for (const id of d.target_ids) this.chunks.delete(id);
        this.chunks.set(d.new_chunk.id, { index: d.new_chunk.index, text: d.new_chunk.text, final: true });
      }
    }
  }
  dropProvisional(): void {
    for (const [id, c] of this.chunks) if (!c.final) this.chunks.delete(id);
  }
  words(): string[] {
    return [...this.chunks.values()]
      .filter((c) => c.final)
      .sort((a, b) => a.index - b.index)
      .flatMap((c) => c.text.toLowerCase().replace(/[.,]/g, '').split(/\s+/))
      .filter(Boolean);
  }
}

describe('server with sherpa-onnx: the REAL addon on synthetic Nemotron 3.5 and Parakeet v3 models (no speech model)', function () {
  this.timeout(120_000);
  let server: TestServer;
  let key: string;
  let nemotron: SynthFixture;
  let parakeet: SynthFixture;
  let tones: number[];
  let frameMs: number;

  before(async function () {
    const why = synthUnavailable();
    if (why) {
      console.warn(`skipped: ${why}`);
      this.skip();
    }
    nemotron = await synthFixture(NEMOTRON);
    parakeet = await synthFixture(PARAKEET);
    tones = nemotron.manifest.tones_hz;
    frameMs = nemotron.manifest.frame_ms;
    server = await startServer({
      args: ['--engine', 'sherpa-onnx', '--model', nemotron.dir, '--proofread-model', parakeet.dir, '--workers', '1'],
      startTimeoutMs: 90_000,
    });
    key = (await server.createKey({ name: 'sherpa synthetic' })).key;
  });
  after(async () => {
    await server?.stop();
  });

  it('loads both through the catalogue (--model DIR, nothing else), says they are synthetic, serves the entry’s languages', async () => {
    const health = (await (await fetch(`${server.url}/healthz`)).json()) as Msg;
    assert.equal(health.engine, 'sherpa-onnx');
    assert.deepEqual(health.languages, ['fr', 'en', 'es', 'de']);
    assert.match(server.logs(), /SYNTHETIC model.*sherpa-onnx-nemotron-3\.5/);
    assert.match(server.logs(), /SYNTHETIC model.*sherpa-onnx-nemo-parakeet-tdt-0\.6b-v3-int8/);
  });

  it('streaming, interim and final with the words of the tones, in each session’s pinned language, on one decoder thread', async () => {
    const pcm = Buffer.concat([toneBursts(tones.slice(0, 3), { gapMs: 150 }), silence(1500)]);
    const langs = ['fr', 'de', 'es', 'en'] as const;
    // Every session admitted first, then the audio (sent faster than real time, it would hold back admission).
    const runs = await Promise.all(
      langs.map(async (language) => {
        const p = new WsProbe(server.wsUrl, { header: key });
        await p.configure({ ...FAST, language, enable_final_proofreading: false, auto_punctuation: false });
        return p;
      }),
    );
    await Promise.all(
      runs.map(async (p) => {
        for (const f of framesOf(pcm)) p.sendAudio(f);
        await p.roundTrip();
        p.send({ type: 'control', action: 'stop' });
        await p.closed;
      }),
    );
    runs.forEach((p, i) => {
      const want = nemotron.manifest.words[langs[i]!]!.slice(0, 3).join(' ');
      assert.ok(
        p.ofType('transcript').some((m) => m.status === 'streaming'),
        `${langs[i]}: streaming text`,
      );
      assert.ok(
        p.ofType('transcript').some((m) => m.status === 'interim'),
        `${langs[i]}: interim text`,
      );
      assert.equal(textOf(finals(p)), want, `${langs[i]}: the model's words in that language`);
      assert.equal(p.ofType('batch.replace').length, 0, 'no proofreading pass asked');
    });
  });

  it('word times: each word starts within one encoder frame of its tone; the segmenter’s silences end utterances', async () => {
    const first = toneBursts(tones.slice(0, 3), { gapMs: 150, leadMs: 300 });
    const second = toneBursts([tones[3]!, tones[0]!], { gapMs: 150, leadMs: 300 });
    const pcm = Buffer.concat([first, silence(1500), second, silence(1500)]);
    const p = await dictate(server, key, { language: 'fr', enable_final_proofreading: false, details: true, auto_punctuation: false }, pcm);
    const fr = nemotron.manifest.words.fr!;
    const f = finals(p);
    assert.deepEqual(
      f.map((m) => m.text),
      [fr.slice(0, 3).join(' '), `${fr[3]} ${fr[0]}`],
      'two utterances, as the audio has two stretches of sound',
    );
    const secondAt = first.length / 32 + 1500;
    const onsets = [300, 750, 1200, secondAt + 300, secondAt + 750];
    const words = f.flatMap((m) => m.words as Word[]);
    assert.deepEqual(
      words.map((w) => w.text),
      [...fr.slice(0, 3), fr[3], fr[0]],
    );
    words.forEach((w, i) => {
      assert.ok(Math.abs(w.start_ms - onsets[i]!) <= frameMs + 20, `${w.text} starts at ${w.start_ms} ms, its tone at ${onsets[i]} ms`);
      assert.ok(w.end_ms > w.start_ms);
    });
  });

  it('the proofreading pass (Parakeet, offline TDT) arrives as batch.replace, with its words and times', async () => {
    const pcm = Buffer.concat([toneBursts(tones.slice(0, 3), { gapMs: 150 }), silence(1500)]);
    const p = await dictate(server, key, { language: 'fr', details: true }, pcm);
    const r = replaced(p);
    assert.equal(r.length, 1);
    const offline = parakeet.manifest.words['*']!;
    assert.equal(r[0]!.text, offline.slice(0, 3).join(' '), 'the offline model’s cased, punctuated words');
    const onsets = [300, 750, 1200];
    r[0]!.words!.forEach((w, i) => assert.ok(Math.abs(w.start_ms - onsets[i]!) <= frameMs + 20, `${w.text} at ${w.start_ms} ms`));
    const targets = (p.ofType('batch.replace')[0]!.data as { target_ids: string[] }).target_ids;
    assert.deepEqual(
      targets,
      finals(p).map((m) => m.id),
      'it replaces the first pass of that sentence',
    );
  });

  it('keyterms are hotwords of the proofreading pass (modified_beam_search): the ambiguous tone gives the keyterm', async () => {
    const pcm = Buffer.concat([toneBursts([tones[0]!, tones[3]!], { gapMs: 150 }), silence(1500)]);
    const alt = parakeet.manifest.hotword_alternative!;
    const plain = replaced(await dictate(server, key, { language: 'fr' }, pcm));
    const p = new WsProbe(server.wsUrl, { header: key });
    const c = await p.configure({ ...FAST, language: 'fr', keyterms: [alt] });
    assert.equal(c.keyterms_applied, true);
    p.close();
    const boosted = replaced(await dictate(server, key, { language: 'fr', keyterms: [alt] }, pcm));
    const offline = parakeet.manifest.words['*']!;
    // The service ends a proofread sentence with a period where the model wrote none.
    assert.equal(plain[0]!.text, `${offline[0]} ${offline[3]}.`, 'without the keyterm: the best word');
    assert.equal(boosted[0]!.text, `${offline[0]} ${alt}.`, 'with it: the keyterm');
  });

  it('after a crash (SIGKILL): resumed from the journal, every word once', async () => {
    const t = tones;
    const utterances = [[t[0]!, t[1]!], [t[2]!, t[3]!, t[2]!], [t[1]!, t[0]!, t[1]!, t[0]!], [t[3]!], [t[0]!, t[2]!]];
    const pcm = Buffer.concat(utterances.flatMap((u) => [toneBursts(u, { gapMs: 150 }), silence(1500)]));
    const config = { language: 'es' };
    const reference = new Doc();
    reference.apply((await dictate(server, key, config, pcm)).messages);
    assert.ok(reference.words().length >= 12);

    const doc = new Doc();
    const cut = Math.floor((pcm.length * 0.55) / 3200) * 3200;
    const p = new WsProbe(server.wsUrl, { header: key });
    const c = await p.configure({ ...FAST, ...config });
    for (const f of framesOf(pcm.subarray(0, cut))) p.sendAudio(f);
    await p.roundTrip();
    await p.waitFor((m) => m.status === 'final', 30_000, 'a final transcript before the crash');
    doc.apply(p.messages);
    await server.restart({ kill: true });
    await p.closed;
    doc.dropProvisional();
    const q = new WsProbe(server.wsUrl, { header: key });
    const rc = await q.configure({ ...FAST, ...config, resume: { session_id: c.session_id, last_seq: doc.seq } });
    assert.equal(rc.resumed, true);
    const offset = Number(rc.resume_audio_offset);
    assert.ok(offset > 0 && offset <= cut, `resume_audio_offset ${offset} (cut at ${cut})`);
    for (const f of framesOf(pcm.subarray(offset))) q.sendAudio(f);
    await q.roundTrip();
    q.send({ type: 'control', action: 'stop' });
    await q.closed;
    doc.apply(q.messages);
    // A sentence can come out of either pass (the one open at the crash may keep its first pass): each word is
    // compared as the tone it stands for, in the first pass's (Spanish) or the proofreading pass's words.
    const es = nemotron.manifest.words.es!.map((w) => w.toLowerCase());
    const off = parakeet.manifest.words['*']!.map((w) => w.toLowerCase().replace(/[.,]/g, ''));
    const asTones = (ws: string[]): number[] => ws.map((w) => (es.includes(w) ? es.indexOf(w) : off.indexOf(w)));
    const want = utterances.flatMap((u) => u.map((f) => t.indexOf(f)));
    assert.deepEqual(asTones(reference.words()), want, 'the uninterrupted run: every tone a word');
    assert.deepEqual(asTones(doc.words()), want, `resumed: ${doc.words().join(' ')}`);
  });
});
