/**
 * Synthetic sherpa-onnx models (`npm run models -- synth`, src/models/synth.ts) for tests that run the REAL
 * addon: generated once per generator version into a cache under the system's temporary directory
 * (keyed by the generator's digest, so a changed generator makes new ones), and tone bursts that they
 * decode to known words. Needs Debian's python3-onnx (CI installs it); `synthAvailable()` says why not.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MANIFEST_FILE, type SynthDefect, type SynthManifest, findPython, generatorDigest, synthModel } from '../../src/models/synth';

export const NEMOTRON = 'sherpa-onnx-nemotron-3.5-asr-streaming-0.6b-560ms-int8-2026-06-11';
export const PARAKEET = 'sherpa-onnx-nemo-parakeet-tdt-0.6b-v3-int8';
export const KROKO_FR = 'sherpa-onnx-streaming-zipformer-fr-kroko-2025-08-06';
export const ZIPFORMER_EN = 'sherpa-onnx-streaming-zipformer-en-2023-06-26';

export interface SynthFixture {
  dir: string;
  manifest: SynthManifest;
}

/** The synthetic model of catalogue entry `name` (with `defect` built in), from the cache or made now. */
export async function synthFixture(name: string, defect?: SynthDefect): Promise<SynthFixture> {
  const cache = path.join(os.tmpdir(), `dictee-synth-${generatorDigest()}`);
  const dir = path.join(cache, defect ? `${name}--${defect}` : name);
  if (!existsSync(path.join(dir, MANIFEST_FILE))) {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'dictee-synth-tmp-'));
    const target = path.join(tmp, name);
    await synthModel(name, target, defect ? { defect } : {});
    try {
      mkdirSync(cache, { recursive: true });
      renameSync(target, dir);
    } catch (e) {
      if (!existsSync(path.join(dir, MANIFEST_FILE))) throw e; // another run made it meanwhile
    }
    rmSync(tmp, { recursive: true, force: true });
  }
  return { dir, manifest: JSON.parse(readFileSync(path.join(dir, MANIFEST_FILE), 'utf8')) as SynthManifest };
}

/** Why synthetic models cannot be made here (no Python with onnx), or undefined when they can. */
export function synthUnavailable(): string | undefined {
  try {
    findPython();
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

/**
 * 16 kHz 16-bit PCM: `leadMs` of silence, then for each frequency a tone of `toneMs` (10 ms ramps, so that
 * its edges stay in its band) followed by `gapMs` of silence. Tone i starts at leadMs + i × (toneMs + gapMs).
 */
export function toneBursts(
  freqs: readonly number[],
  o: { toneMs?: number; gapMs?: number; leadMs?: number; amplitude?: number } = {},
): Buffer {
  const toneMs = o.toneMs ?? 300;
  const gapMs = o.gapMs ?? 300;
  const lead = o.leadMs ?? 300;
  const amp = o.amplitude ?? 9000;
  const rate = 16000;
  const n = Math.round(((lead + freqs.length * (toneMs + gapMs)) * rate) / 1000);
  const b = Buffer.alloc(n * 2);
  const toneN = (toneMs * rate) / 1000;
  const ramp = rate / 100;
  freqs.forEach((f, k) => {
    const start = Math.round(((lead + k * (toneMs + gapMs)) * rate) / 1000);
    for (let i = 0; i < toneN; i++) {
      const env = Math.min(1, i / ramp, (toneN - 1 - i) / ramp);
      b.writeInt16LE(Math.round(amp * env * Math.sin((2 * Math.PI * f * i) / rate)), (start + i) * 2);
    }
  });
  return b;
}
