/**
 * `--vad silero` (engine/sileroVad.ts): the real Silero VAD model run by sherpa-onnx-node on real
 * recorded speech, its 512-sample decisions mapped onto the segmenter's 20 ms windows, and the file
 * refused before any native call unless it is the pinned one.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolveConfig } from '../../src/protocol';
import { EngineUnavailableError } from '../../src/server/engine/engine';
import { Segmenter } from '../../src/server/engine/segmenter';
import { SILERO_WINDOW, SileroVad, defaultSileroModel, loadVadAddon, verifySileroModel } from '../../src/server/engine/sileroVad';
import { SimulatedRecognizer, tokenize } from '../../src/server/engine/simulated';
import { VAD_WINDOW_MS, type VoiceDetector, samplesOf } from '../../src/server/engine/vad';
import { recordings } from '../helpers/recordings';
import { silence } from '../helpers/speech';
import { WINDOW, decisions } from '../helpers/vadDecisions';

describe('Silero VAD (sherpa-onnx-node, real model, real speech)', function () {
  this.timeout(30000);
  const model = defaultSileroModel();
  const rec = recordings().find((r) => r.name.endsWith('0880'))!;
  const before = 1000;
  const pcm = Buffer.concat([silence(before), rec.pcm, silence(2500)]);
  const speechEndMs = before + (rec.pcm.length / 32000) * 1000;

  it('the installed model is the pinned file', () => {
    assert.ok(model, 'the Silero VAD model is installed (npm run vad:setup)');
    assert.equal(verifySileroModel(model), model);
  });

  it('a truncated, a corrupt or a missing file is refused in JavaScript, with what is wrong and what to do', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-silero-'));
    const bytes = readFileSync(model!);
    const truncated = path.join(dir, 'truncated.onnx');
    writeFileSync(truncated, bytes.subarray(0, 100_000));
    const corrupt = path.join(dir, 'corrupt.onnx');
    const flipped = Buffer.from(bytes);
    flipped[flipped.length >> 1]! ^= 0xff;
    writeFileSync(corrupt, flipped);
    for (const f of [truncated, corrupt]) {
      assert.throws(
        () => verifySileroModel(f),
        (e: unknown) => {
          assert.ok(e instanceof EngineUnavailableError);
          assert.match(e.message, /is not the pinned file \(\d+ bytes, sha256 [0-9a-f]{64}; expected 1289603 bytes, sha256 7ed98ddb/);
          assert.match(e.message, /npm run vad:setup/);
          return true;
        },
      );
    }
    assert.throws(() => verifySileroModel(path.join(dir, 'none.onnx')), /cannot read the Silero VAD model .*none\.onnx/);
    assert.throws(() => verifySileroModel(undefined), /install it with npm run vad:setup .*or give its file with --vad-model FILE/);
    // The same bytes under another name are accepted: it is the content that is pinned.
    const copy = path.join(dir, 'copy.onnx');
    copyFileSync(model!, copy);
    assert.equal(verifySileroModel(copy), copy);
  });

  it('why: the native library given that truncated file aborts its whole process (run in a child, so this one survives)', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-silero-'));
    const truncated = path.join(dir, 'truncated.onnx');
    writeFileSync(truncated, readFileSync(model!).subarray(0, 100_000));
    const code = `const s=require(${JSON.stringify(require.resolve('sherpa-onnx-node'))});new s.Vad({sileroVad:{model:${JSON.stringify(truncated)},windowSize:512},sampleRate:16000,numThreads:1},5);console.log('loaded')`;
    const r = spawnSync(process.execPath, ['-e', code], { encoding: 'utf8', timeout: 20000 });
    assert.equal(r.signal, 'SIGABRT', `expected an abort, got status ${r.status} signal ${r.signal}: ${r.stderr}`);
    assert.doesNotMatch(r.stdout, /loaded/);
    assert.match(r.stderr, /Ort::Exception|Protobuf parsing failed/);
  });

  it('silence is unvoiced, speech is voiced, and the pause after the speech is unvoiced within 500 ms of its end', () => {
    const d = decisions(new SileroVad(loadVadAddon(), model!), pcm);
    const ms = (i: number): number => i * VAD_WINDOW_MS;
    assert.ok(
      d.slice(0, before / VAD_WINDOW_MS).every((v) => !v),
      'the leading silence has no voiced window',
    );
    const voiced = d.filter((v) => v).length * VAD_WINDOW_MS;
    assert.ok(voiced > 1500, `voiced ${voiced} ms of a ${rec.pcm.length / 32} ms recording`);
    const last = d.lastIndexOf(true);
    // Silero's probability decays over about 0.4 s after speech (measured: 13 blocks of 32 ms here, the
    // same in digital silence and in faint noise); the energy detector drops within a window.
    assert.ok(
      ms(last + 1) > speechEndMs && ms(last + 1) <= speechEndMs + 500,
      `last voiced window ends at ${ms(last + 1)} ms, the speech at ${speechEndMs} ms`,
    );
    assert.ok(d.slice(last + 1).every((v) => !v));
  });

  it("a 20 ms window's decision is Silero's latest: it changes only in windows where a 512-sample block ends", () => {
    const d = decisions(new SileroVad(loadVadAddon(), model!), pcm);
    let changes = 0;
    for (let k = 1; k < d.length; k++) {
      const blockEnds = Math.floor(((k + 1) * WINDOW) / SILERO_WINDOW) > Math.floor((k * WINDOW) / SILERO_WINDOW);
      if (d[k] !== d[k - 1]) {
        changes++;
        assert.ok(blockEnds, `window ${k} changed its decision without a new Silero block`);
      }
    }
    assert.ok(changes >= 2, 'speech started and ended');
    // Fed in other slices (100 ms frames through the segmenter's windows), the decisions are the same.
    const again = new SileroVad(loadVadAddon(), model!);
    const samples = samplesOf(pcm);
    const other: boolean[] = [];
    for (let i = 0; i + WINDOW <= samples.length; i += WINDOW) other.push(again.windowOf(samples.slice(i, i + WINDOW), 0, WINDOW));
    assert.deepEqual(other, d);
  });

  it('in the segmenter: the sentence ends after silence_threshold of unvoiced windows counted from the last voiced one', () => {
    const config = resolveConfig({ language: 'en' });
    const voiced: boolean[] = [];
    const silero = new SileroVad(loadVadAddon(), model!);
    const recording: VoiceDetector = {
      windowOf: (s, start, n) => {
        const v = silero.windowOf(s, start, n);
        voiced.push(v);
        return v;
      },
      state: () => silero.state(),
    };
    const seg = new Segmenter(config, new SimulatedRecognizer(tokenize('he was not until exposed young man')), { detector: recording });
    let finalAt = -1;
    const texts: string[] = [];
    for (let off = 0; off < pcm.length; off += 3200) {
      for (const e of seg.push(pcm.subarray(off, off + 3200))) {
        if (e.type === 'transcript' && e.status === 'final' && finalAt < 0) finalAt = voiced.length;
        if (e.type === 'batch.replace') texts.push(e.data.new_chunk.text);
      }
    }
    assert.ok(finalAt > 0, 'a final came');
    const lastVoiced = voiced.lastIndexOf(true, finalAt - 1);
    assert.equal((finalAt - 1 - lastVoiced) * VAD_WINDOW_MS, config.silence_threshold * 1000);
    assert.equal(texts.length, 1);
    assert.match(texts[0]!, /^he was not/);
  });
});
