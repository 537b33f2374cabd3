/**
 * The BUILT service with `--engine sherpa-onnx --model NAME --proofread-model NAME`, its decoder and
 * proofreading threads running the FAKE addon (test/helpers/fakeSherpaModule.ts, through the
 * `DICTEE_TEST_SHERPA_ADDON` hook) over models that pass every check but are not models
 * (test/helpers/fakeModels.ts). It proves the plumbing — names resolved in the models directory, the
 * language pinned per session in a shared thread, keyterms reaching the proofreading thread,
 * `auto_punctuation`, `configured.keyterms_applied` — and nothing about recognition: no speech model ran.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fakeCatalogue, fakeInstalled } from '../helpers/fakeModels';
import { type TestServer, WsProbe, startServer } from '../helpers/server';
import { silence } from '../helpers/speech';

const FAST = { silence_threshold: 1, engine_endpointing: 0.3, stop_delay: 2, flush_timeout: 10 };
const SCRIPTS = { es: ['Hola,', 'doctor', 'García.'], de: ['Guten', 'Tag,', 'Frau', 'Doktor.'], auto: ['¿detectado?'] };

function tone(ms: number): Buffer {
  const n = (16000 * ms) / 1000;
  const b = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) b.writeInt16LE(Math.round(9000 * Math.sin((2 * Math.PI * 220 * i) / 16000)), i * 2);
  return b;
}

async function dictate(p: WsProbe, pcm: Buffer): Promise<void> {
  for (let off = 0; off < pcm.length; off += 3200) p.sendAudio(pcm.subarray(off, off + 3200));
}

describe('server with the sherpa-onnx engine on a FAKE addon (plumbing only: no speech model ran)', function () {
  this.timeout(30000);
  let server: TestServer;
  let key: string;

  before(async () => {
    const models = mkdtempSync(path.join(os.tmpdir(), 'dictee-fake-models-'));
    fakeInstalled(path.join(models, 'fake-nemotron'));
    fakeInstalled(path.join(models, 'fake-parakeet'), { modelType: 'nemo_transducer' });
    server = await startServer({
      args: ['--engine', 'sherpa-onnx', '--model', 'fake-nemotron', '--proofread-model', 'fake-parakeet', '--workers', '1'],
      env: {
        DICTEE_MODELS_DIR: models,
        DICTEE_MODEL_CATALOGUE: fakeCatalogue(models),
        NODE_OPTIONS: '--require tsx/cjs',
        DICTEE_TEST_SHERPA_ADDON: path.resolve(__dirname, '..', 'helpers', 'fakeSherpaModule.ts'),
        DICTEE_FAKE_SHERPA_SCRIPTS: JSON.stringify(SCRIPTS),
        DICTEE_FAKE_SHERPA_PROOFREAD: 'Second, pass.',
        DICTEE_FAKE_SHERPA_PROBS: '1',
      },
    });
    key = (await server.createKey({ name: 'sherpa fake' })).key;
  });
  after(async () => {
    await server?.stop();
  });

  it("/healthz and configured: the model's languages; keyterms applied only with proofreading on", async () => {
    const health = (await (await fetch(`${server.url}/healthz`)).json()) as Record<string, unknown>;
    assert.equal(health.engine, 'sherpa-onnx');
    assert.deepEqual(health.languages, ['fr', 'en', 'es', 'de']);
    const a = new WsProbe(server.wsUrl, { header: key });
    const ca = await a.configure({ ...FAST, language: 'es', keyterms: ['Doliprane'] });
    assert.equal(ca.engine, 'sherpa-onnx');
    assert.equal(ca.keyterms_applied, true);
    const b = new WsProbe(server.wsUrl, { header: key });
    assert.equal(
      (await b.configure({ ...FAST, language: 'es', keyterms: ['Doliprane'], enable_final_proofreading: false })).keyterms_applied,
      false,
    );
    const c = new WsProbe(server.wsUrl, { header: key });
    assert.equal((await c.configure({ ...FAST, language: 'es' })).keyterms_applied, false, 'no keyterms, none applied');
    for (const p of [a, b, c]) p.close();
  });

  it('two sessions on one decoder thread, each pinned to its language; the proofreading thread gets the keyterms; auto_punctuation as asked', async () => {
    const es = new WsProbe(server.wsUrl, { header: key });
    const de = new WsProbe(server.wsUrl, { header: key });
    await es.configure({ ...FAST, language: 'es', keyterms: ['Doliprane', 'scanner/thorax'], auto_punctuation: false });
    await de.configure({ ...FAST, language: 'de', auto_punctuation: true });
    const speech = Buffer.concat([silence(200), tone(600), silence(1600)]);
    await Promise.all([dictate(es, speech), dictate(de, speech)]);
    const replaceOf = (p: WsProbe) => p.waitFor((m) => m.type === 'batch.replace', 15000, 'a batch.replace');
    const [res, rde] = await Promise.all([replaceOf(es), replaceOf(de)]);
    const finalText = (p: WsProbe): string =>
      p
        .ofType('transcript')
        .filter((m) => m.status === 'final')
        .map((m) => String(m.text))
        .join(' ');
    assert.equal(finalText(es), 'hola doctor García', "the model's punctuation and sentence capital taken off");
    assert.equal(finalText(de), 'Guten Tag, Frau Doktor.', 'kept as the model wrote it');
    assert.equal((res.data as { new_chunk: { text: string } }).new_chunk.text, 'Second pass Doliprane scanner thorax.');
    assert.equal((rde.data as { new_chunk: { text: string } }).new_chunk.text, 'Second, pass.');
    for (const p of [es, de]) p.send({ type: 'control', action: 'stop' });
    await Promise.all([es, de].map((p) => p.waitFor((m) => m.type === 'status' && m.state === 'stopped', 15000, 'stopped')));
  });
  it('details: interim, final and new_chunk carry word times within the audio, monotonic, confidences in [0, 1]; without details, the spec shape', async () => {
    const withD = new WsProbe(server.wsUrl, { header: key });
    const without = new WsProbe(server.wsUrl, { header: key });
    await withD.configure({ ...FAST, language: 'es', details: true });
    await without.configure({ ...FAST, language: 'es' });
    const speech = Buffer.concat([silence(400), tone(600), silence(1600)]);
    const audioMs = 2600;
    await Promise.all([dictate(withD, speech), dictate(without, speech)]);
    await Promise.all([withD, without].map((p) => p.waitFor((m) => m.type === 'batch.replace', 15000, 'a batch.replace')));
    type Word = { text: string; start_ms: number; end_ms: number; confidence?: number };
    type Chunk = { status: string; text: string; start_ms?: number; end_ms?: number; words?: Word[]; alternatives?: unknown };
    const chunks = (p: WsProbe): Chunk[] => [
      ...p.ofType('transcript').map((m) => m as unknown as Chunk),
      ...p.ofType('batch.replace').map((m) => (m.data as { new_chunk: Chunk }).new_chunk),
    ];
    const detailed = chunks(withD).filter((c) => c.status !== 'streaming');
    assert.ok(detailed.some((c) => c.status === 'interim') && detailed.some((c) => c.status === 'final'), JSON.stringify(detailed));
    for (const c of detailed) {
      assert.ok(c.words?.length, `words in ${JSON.stringify(c)}`);
      assert.equal(c.words.map((w) => w.text).join(' '), c.text);
      // The first pass's words come with the tone (from 400 ms); the fake's proofreading answer shares the
      // sentence's audio, its lead-in of silence included, evenly among its words.
      const from = c.status === 'final' && c.text === 'Second, pass.' ? 0 : 400;
      assert.ok(c.start_ms! >= from && c.end_ms! <= audioMs && c.start_ms! <= c.end_ms!, JSON.stringify(c));
      let last = c.start_ms!;
      for (const w of c.words) {
        assert.ok(w.start_ms >= last && w.end_ms >= w.start_ms && w.end_ms <= c.end_ms!, JSON.stringify(c));
        assert.ok(typeof w.confidence === 'number' && w.confidence >= 0 && w.confidence <= 1, JSON.stringify(w));
        last = w.start_ms;
      }
      assert.equal(c.alternatives, undefined, 'greedy search: no other readings');
    }
    assert.equal(detailed.find((c) => c.words!.length === 2 && c.text === 'Second, pass.')?.words![1]!.confidence, 0.8);
    for (const c of chunks(without))
      for (const k of ['start_ms', 'end_ms', 'words', 'alternatives']) assert.ok(!(k in c), `${k} in ${JSON.stringify(c)}`);
    for (const p of [withD, without]) p.send({ type: 'control', action: 'stop' });
    await Promise.all([withD, without].map((p) => p.waitFor((m) => m.type === 'status' && m.state === 'stopped', 15000, 'stopped')));
  });
});
