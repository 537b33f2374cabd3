/**
 * `npm run models -- synth` and what its models show through the REAL sherpa-onnx-node 1.13.8 addon (no
 * fake): the generator is deterministic and says what it needs; each catalogue entry's feature dimension
 * is the one its published export declares; a synthetic Kroko (streaming Zipformer2) serves a session;
 * and models sherpa-onnx would end the process on (a missing metadata key, `<blk>` not last, a TDT model
 * without durations) stop the start with sherpa-onnx's reason, never a native exit of the service.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ADDON_ID } from '../../src/server/engine/sherpa/addon';
import { CATALOGUE } from '../../src/server/engine/sherpa/catalogue';
import { bpeVocabFor, loadModel, offlineConfig, onlineConfig } from '../../src/server/engine/sherpa/load';
import { probeRecognizer } from '../../src/server/engine/sherpa/probe';
import { type SynthDefect, findPython, synthModel } from '../../src/models/synth';
import { WsProbe, withServer } from '../helpers/server';
import { framesOf, silence } from '../helpers/speech';
import { KROKO_FR, NEMOTRON, PARAKEET, synthFixture, synthUnavailable, toneBursts } from '../helpers/synthModels';

const ROOT = path.resolve(__dirname, '..', '..');

/** Runs the built service until it exits (or 90 s); its exit code, signal and output. */
function service(args: string[]): Promise<{ code: number | null; signal: string | null; out: string }> {
  return new Promise((resolve) => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'dictee-synth-start-'));
    const child = spawn(process.execPath, ['dist/server.js', '--port', '0', '--data-dir', dataDir, ...args], { cwd: ROOT });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const t = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('exit', (code, signal) => {
      clearTimeout(t);
      resolve({ code, signal, out });
    });
  });
}

function digestOf(dir: string): string {
  const h = createHash('sha256');
  for (const f of readdirSync(dir).sort()) h.update(f).update(readFileSync(path.join(dir, f)));
  return h.digest('hex');
}

describe('synthetic sherpa-onnx models through the REAL addon (generator, catalogue, Zipformer2, refusals)', function () {
  this.timeout(180_000);

  before(function () {
    const why = synthUnavailable();
    if (why) {
      console.warn(`skipped: ${why}`);
      this.skip();
    }
  });

  it('the generator needs Python with onnx, and says so', () => {
    assert.throws(
      () => findPython(['/nonexistent/python3', '/bin/false']),
      /Python 3 with the onnx and numpy modules \(Debian: apt-get install python3-onnx python3-numpy\); tried \/nonexistent\/python3: not found; \/bin\/false: exit 1/,
    );
  });

  it('is deterministic: the same model twice gives the same bytes (files, lock, manifest)', async () => {
    const a = mkdtempSync(path.join(os.tmpdir(), 'dictee-synth-a-'));
    const b = mkdtempSync(path.join(os.tmpdir(), 'dictee-synth-b-'));
    await synthModel(KROKO_FR, a);
    await synthModel(KROKO_FR, b);
    assert.equal(digestOf(a), digestOf(b));
  });

  it('npm run models -- synth writes a model the service’s own check (verify) takes, and says it is synthetic', () => {
    const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'dictee-synth-cli-')), 'm');
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/models/cli.ts', 'synth', PARAKEET, '--out', out], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /wrote a SYNTHETIC nemo-tdt model .* it recognises no speech/);
    const v = spawnSync(process.execPath, ['--import', 'tsx', 'src/models/cli.ts', 'verify', out], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(v.status, 0, v.stderr);
    assert.match(v.stdout, /every file matches its lock .*revision synthetic-1/);
  });

  it('every catalogue entry’s synthetic model loads and decodes through the catalogue’s own configuration', async () => {
    for (const e of CATALOGUE) {
      const { dir } = await synthFixture(e.name);
      const m = await loadModel(dir, e.kind === 'online' ? 'model' : 'proofread', {});
      assert.equal(m.name, e.name);
      const config = e.kind === 'online' ? onlineConfig(m) : offlineConfig(m, bpeVocabFor(m.tokens));
      await probeRecognizer(e.kind, config, dir, { addonId: ADDON_ID });
    }
  });

  it('each catalogue entry’s feature dimension is the one its export declares (the encoder’s feat_dim, else its input)', async () => {
    const python = findPython();
    const read =
      'import onnx,sys\nm=onnx.load(sys.argv[1])\nmeta={p.key:p.value for p in m.metadata_props}\n' +
      'd=[x.dim_value for x in m.graph.input[0].type.tensor_type.shape.dim]\nprint(meta.get("feat_dim") or (d[2] if m.graph.input[0].name=="x" else d[1]))';
    for (const e of CATALOGUE) {
      const { dir } = await synthFixture(e.name);
      const encoder = path.join(dir, e.files.find((f) => f.role === 'encoder')!.path);
      const r = spawnSync(python, ['-c', read, encoder], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(e.featureDim, Number(r.stdout.trim()), `${e.name}: the catalogue says ${e.featureDim}`);
    }
  });

  it('a synthetic Kroko (streaming Zipformer2): words at 40 ms frames, with confidences from its token probabilities', async () => {
    const kroko = await synthFixture(KROKO_FR);
    const tones = kroko.manifest.tones_hz;
    await withServer(
      { args: ['--engine', 'sherpa-onnx', '--model', kroko.dir, '--workers', '1'], startTimeoutMs: 60_000 },
      async (server) => {
        const health = (await (await fetch(`${server.url}/healthz`)).json()) as Record<string, unknown>;
        assert.deepEqual(health.languages, ['fr']);
        const { key } = await server.createKey();
        const p = new WsProbe(server.wsUrl, { header: key });
        await p.configure({
          language: 'fr',
          silence_threshold: 1,
          engine_endpointing: 0.3,
          stop_delay: 2,
          flush_timeout: 10,
          details: true,
        });
        for (const f of framesOf(Buffer.concat([toneBursts(tones.slice(0, 4), { gapMs: 150 }), silence(1500)]))) p.sendAudio(f);
        await p.roundTrip();
        p.send({ type: 'control', action: 'stop' });
        await p.closed;
        const final = p.ofType('transcript').filter((m) => m.status === 'final');
        const words = final.flatMap((m) => m.words as Array<{ text: string; start_ms: number; confidence?: number }>);
        assert.deepEqual(
          words.map((w) => w.text.toLowerCase().replace(/[.]/g, '')),
          kroko.manifest.words.fr,
        );
        words.forEach((w, i) => {
          const onset = 300 + i * 450;
          assert.ok(Math.abs(w.start_ms - onset) <= kroko.manifest.frame_ms + 20, `${w.text} at ${w.start_ms} ms, its tone at ${onset}`);
          assert.ok(w.confidence !== undefined && w.confidence > 0.9, `${w.text}: confidence ${w.confidence}`);
        });
      },
    );
  });

  const refused: Array<[string, SynthDefect, 'model' | 'proofread-model', RegExp]> = [
    [NEMOTRON, 'missing-metadata', 'model', /'pred_hidden' does not exist in the metadata/],
    [NEMOTRON, 'blank-not-last', 'model', /<blk> is not the last token/],
    [KROKO_FR, 'missing-metadata', 'model', /'decode_chunk_len' does not exist in the metadata/],
    [PARAKEET, 'not-tdt', 'proofread-model', /It is not a TDT model/],
  ];
  for (const [name, defect, flag, reason] of refused) {
    it(`refuses ${name.split('-').slice(2, 4).join('-')} with ${defect} (--${flag}) at start, with sherpa-onnx’s reason, before any thread loads it`, async () => {
      const bad = await synthFixture(name, defect);
      const args = flag === 'model' ? ['--model', bad.dir] : ['--model', (await synthFixture(NEMOTRON)).dir, '--proofread-model', bad.dir];
      const r = await service(['--engine', 'sherpa-onnx', ...args]);
      assert.equal(r.signal, null, r.out);
      assert.equal(r.code, 1, `the start fails as a start does (code 1), not by the native library's exit; ${r.out}`);
      const line = r.out.split('\n').find((l) => l.startsWith('error: '));
      assert.ok(line, r.out);
      assert.match(
        line,
        new RegExp(`sherpa-onnx cannot use the model in ${bad.dir.replace(/[.]/g, '\\.')}: loading it exited with code 255`),
      );
      assert.match(line, reason);
    });
  }
});
