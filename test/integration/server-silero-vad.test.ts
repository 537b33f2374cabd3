/**
 * The BUILT service with `--vad silero`: Silero VAD run by sherpa-onnx-node in the decoder worker
 * threads, on real recorded speech over real sockets, with the simulated engine and with pocketsphinx;
 * and a Silero file that is not the pinned one refused at start, before the native library reads it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DecoderPool } from '../../src/server/engine/pool';
import { defaultSileroModel } from '../../src/server/engine/sileroVad';
import { createLogger } from '../../src/server/log';
import { SERVER_JS, type TestServer, WsProbe, startServer } from '../helpers/server';
import { recordings } from '../helpers/recordings';
import { framesOf, silence } from '../helpers/speech';

const FAST = { language: 'en', silence_threshold: 1, engine_endpointing: 0.5, stop_delay: 2 };

function proofread(p: WsProbe): string[] {
  return p.ofType('batch.replace').map((m) => (m.data as { new_chunk: { text: string } }).new_chunk.text);
}

function stopped(p: WsProbe): Promise<Record<string, unknown>> {
  return p.waitFor((m) => m.type === 'status' && m.state === 'stopped', 30000, 'status stopped');
}

describe('server with --vad silero (built service, real model, real recordings)', function () {
  this.timeout(60000);
  const recs = recordings();
  const goforward = recs.find((r) => r.name === 'goforward')!;
  const a = recs.find((r) => r.name.endsWith('0880'))!;
  const b = recs.find((r) => r.name.endsWith('0930'))!;

  describe('simulated engine: the segmenters run in the decoder threads', () => {
    let server: TestServer;
    let key: string;
    before(async () => {
      server = await startServer({ args: ['--vad', 'silero', '--workers', '1'] });
      key = (await server.createKey({ name: 'silero' })).key;
    });
    after(() => server?.stop());

    it('two recorded sentences with a pause between them: each pause found, each sentence final and proofread before the stop', async () => {
      const p = new WsProbe(server.wsUrl, { header: key });
      const c = await p.configure(FAST);
      assert.equal(c.engine, 'simulated');
      for (const f of framesOf(Buffer.concat([silence(500), a.pcm, silence(1800), b.pcm, silence(1800)]))) p.sendAudio(f);
      await p.waitFor(() => proofread(p).length === 2, 20000, 'two proofread sentences');
      const finalsBeforeStop = p.ofType('transcript').filter((m) => m.status === 'final').length;
      p.send({ type: 'control', action: 'stop' });
      await stopped(p);
      assert.ok(finalsBeforeStop >= 2, `${finalsBeforeStop} finals before the stop`);
      assert.equal(proofread(p).length, 2, JSON.stringify(proofread(p)));
      assert.ok(proofread(p).every((t) => t.length > 0));
    });

    it('a sample rate other than 16 kHz is refused with INIT_ERROR naming Silero', async () => {
      const p = new WsProbe(server.wsUrl, { header: key });
      await p.opened;
      p.send({ type: 'configure', config: { ...FAST, sample_rate: 8000 } });
      const err = await p.waitType('error');
      assert.equal(err.code, 'INIT_ERROR');
      assert.match(
        String(err.message),
        /sample_rate 8000 Hz is not supported with the Silero voice-activity detector \(--vad silero\); use 16000/,
      );
    });
  });

  describe('pocketsphinx engine', () => {
    let server: TestServer;
    let key: string;
    before(async () => {
      server = await startServer({ args: ['--engine', 'pocketsphinx', '--vad', 'silero', '--workers', '1'] });
      key = (await server.createKey({ name: 'silero ps' })).key;
    });
    after(() => server?.stop());

    it('real speech: the pause Silero hears ends the sentence, decoded and proofread', async () => {
      const p = new WsProbe(server.wsUrl, { header: key });
      await p.configure(FAST);
      for (const f of framesOf(Buffer.concat([silence(300), goforward.pcm, silence(1800)]))) p.sendAudio(f);
      const replace = await p.waitType('batch.replace', 30000);
      assert.equal((replace.data as { new_chunk: { text: string } }).new_chunk.text, 'Go forward ten meters.');
      assert.ok(p.ofType('transcript').some((m) => m.status === 'final'));
      p.send({ type: 'control', action: 'stop' });
      await stopped(p);
    });
  });

  it('a truncated or altered Silero file: exit 1 at start with what is wrong, before the native library reads it (no abort)', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-silero-'));
    const bytes = readFileSync(defaultSileroModel()!);
    const truncated = path.join(dir, 'truncated.onnx');
    writeFileSync(truncated, bytes.subarray(0, 100_000));
    const altered = path.join(dir, 'altered.onnx');
    const flipped = Buffer.from(bytes);
    flipped[1000]! ^= 0x01;
    writeFileSync(altered, flipped);
    for (const [file, engine] of [
      [truncated, 'simulated'],
      [altered, 'pocketsphinx'],
    ] as const) {
      const r = spawnSync(
        process.execPath,
        [SERVER_JS, '--engine', engine, '--vad', 'silero', '--vad-model', file, '--port', '0', '--data-dir', dir],
        {
          encoding: 'utf8',
          timeout: 20000,
        },
      );
      assert.equal(r.signal, null, `ended by ${r.signal}: ${r.stderr}`);
      assert.equal(r.status, 1, r.stderr);
      assert.match(
        r.stderr,
        new RegExp(`error: the ${engine} engine cannot start: the Silero VAD model .*${path.basename(file)} is not the pinned file`),
      );
      assert.doesNotMatch(r.stderr, /Ort::Exception|terminate called|Protobuf/);
      assert.doesNotMatch(r.stdout, /listening/);
    }
  });

  it('a decoder worker checks the file again before it loads the runtime: given a corrupt copy it refuses, and this process goes on', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-silero-'));
    const corrupt = path.join(dir, 'corrupt.onnx');
    writeFileSync(corrupt, readFileSync(defaultSileroModel()!).subarray(0, 50_000));
    const pool = new DecoderPool({
      size: 1,
      script: path.join(path.dirname(SERVER_JS), 'engine-worker.js'),
      spec: { engine: 'simulated', sileroModel: corrupt },
      engineSnapshot: { engine: 'simulated', cursor: 0, voicedMs: 0 },
      log: createLogger({ level: 'error', write: () => undefined }),
    });
    await assert.rejects(pool.start(), /the Silero VAD model .*corrupt\.onnx is not the pinned file \(50000 bytes/);
    // The same pool spec with the pinned file starts: the runtime loads and runs in a worker thread.
    const good = new DecoderPool({
      size: 1,
      script: path.join(path.dirname(SERVER_JS), 'engine-worker.js'),
      spec: { engine: 'simulated', sileroModel: defaultSileroModel()! },
      engineSnapshot: { engine: 'simulated', cursor: 0, voicedMs: 0 },
      log: createLogger({ level: 'error', write: () => undefined }),
    });
    await good.start();
    assert.equal(good.size, 1);
    await good.close();
  });

  it('--vad takes energy or silero; --vad-model only with --vad silero (usage errors, exit 2)', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-silero-'));
    let r = spawnSync(process.execPath, [SERVER_JS, '--vad', 'webrtc', '--port', '0', '--data-dir', dir], { encoding: 'utf8' });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /unknown --vad "webrtc"; choose one of energy, silero/);
    r = spawnSync(process.execPath, [SERVER_JS, '--vad-model', '/x.onnx', '--port', '0', '--data-dir', dir], { encoding: 'utf8' });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--vad-model is for --vad silero/);
  });
});
