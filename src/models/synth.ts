/**
 * `npm run models -- synth NAME --out DIR`: a synthetic model of a catalogue entry's exact shape, for tests
 * (the published weights cannot be downloaded everywhere). scripts/synth/sherpa_synth.py writes the ONNX
 * files and tokens.txt with the inputs, outputs and metadata sherpa-onnx 1.13.8 reads for the entry's
 * family, and weights chosen so that tone bursts decode to known words at known times; this writes the
 * lock (marked `synthetic`, so that `--model DIR` takes it with no other setting) and `synthetic.json`,
 * the generator's manifest (which tone gives which word). Needs Python 3 with onnx and numpy (Debian:
 * python3-onnx); deterministic: the same NAME gives the same bytes.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../shared/errors';
import { CATALOGUE, type CatalogueEntry, catalogueEntry } from '../server/engine/sherpa/catalogue';
import { LOCK_FILE, LOCK_FORMAT, type ModelLock, sha256File } from '../server/engine/sherpa/model';

/** The generator shipped with the repository. */
const SYNTH_SCRIPT = path.resolve(__dirname, '..', '..', 'scripts', 'synth', 'sherpa_synth.py');
/** The real-size Nemotron 3.5 graph (`size: 'real'`), beside it. */
const REAL_SCRIPT = path.resolve(__dirname, '..', '..', 'scripts', 'synth', 'nemotron_real.py');
export const MANIFEST_FILE = 'synthetic.json';

/** Which loader of sherpa-onnx reads the entry's model. */
export type SynthFamily = 'zipformer2' | 'nemo-streaming' | 'nemo-tdt';
/** Defects the generator can build in (mis-shaped models the service must refuse before the native library aborts). */
export const SYNTH_DEFECTS = ['missing-metadata', 'blank-not-last', 'not-tdt'] as const;
export type SynthDefect = (typeof SYNTH_DEFECTS)[number];

/** What the generator says of the model it wrote (synthetic.json). */
export interface SynthManifest {
  family: SynthFamily;
  /** Ms of audio per encoder output frame (the unit of the result's timestamps). */
  frame_ms: number;
  /** Per language (`*`: any), the word each tone of `tones_hz` gives, in order. */
  words: Record<string, string[]>;
  tones_hz: number[];
  /** The offline model's second word for the last tone, which wins when it is a hotword. */
  hotword_alternative?: string;
  feature_dim: number;
  generator_version: number;
  defect: SynthDefect | null;
  /** `real`: the published model's dimensions with random int8 weights (cost only); absent: a tiny fixture. */
  size?: 'real';
}

/**
 * The entry's family, and the feature dimension its published export declares (read from sherpa-onnx's
 * export scripts: NeMo's `feat_dim` metadata is 128 for Nemotron 3.5 and Parakeet TDT v3; icefall's
 * zipformers take 80-bin fbank) — deliberately not the catalogue's own `featureDim`, which this checks.
 */
function synthFamily(e: CatalogueEntry): { family: SynthFamily; featureDim: number } {
  if (e.kind === 'offline') return { family: 'nemo-tdt', featureDim: 128 };
  if (/nemotron|nemo/.test(e.name)) return { family: 'nemo-streaming', featureDim: 128 };
  return { family: 'zipformer2', featureDim: 80 };
}

/** The Python that has onnx and numpy: Debian's /usr/bin/python3 first, then `python3` on PATH. Throws why not. */
export function findPython(candidates: readonly string[] = ['/usr/bin/python3', 'python3']): string {
  const tried: string[] = [];
  for (const py of candidates) {
    const r = spawnSync(py, ['-c', 'import onnx, numpy; print(onnx.__version__)'], { encoding: 'utf8' });
    if (r.error) {
      tried.push(`${py}: not found`);
      continue;
    }
    if (r.status === 0) return py;
    tried.push(`${py}: ${(r.stderr.trim().split('\n').pop() ?? '').slice(0, 200) || `exit ${r.status}`}`);
  }
  throw new Error(
    `synthetic models need Python 3 with the onnx and numpy modules (Debian: apt-get install python3-onnx python3-numpy); tried ${tried.join('; ')}`,
  );
}

/** A digest of the generator (the script and this module), so that caches of its output are keyed by what made them. */
export function generatorDigest(): string {
  return createHash('sha256')
    .update(readFileSync(SYNTH_SCRIPT))
    .update(readFileSync(REAL_SCRIPT))
    .update(readFileSync(__filename))
    .digest('hex')
    .slice(0, 12);
}

interface SynthOptions {
  defect?: SynthDefect;
  /**
   * `real`: Nemotron 3.5's real dimensions (layers, width, heads, vocabulary, chunk, caches) with RANDOM int8
   * weights, ~660 MB, to measure what the runtime costs (bench/capacity.bench.ts); never for tests.
   */
  size?: 'tiny' | 'real';
  python?: string;
  catalogue?: readonly CatalogueEntry[];
}

/** Writes the synthetic model of catalogue entry `name` into `out` (files, lock, manifest); returns the manifest. */
export async function synthModel(name: string, out: string, o: SynthOptions = {}): Promise<SynthManifest> {
  const catalogue = o.catalogue ?? CATALOGUE;
  const entry = catalogueEntry(name, catalogue);
  if (!entry) throw new Error(`${JSON.stringify(name)} is not a model of the catalogue (${catalogue.map((e) => e.name).join(', ')})`);
  const { family, featureDim } = synthFamily(entry);
  const files = Object.fromEntries(entry.files.map((f) => [f.role, f.path]));
  const python = o.python ?? findPython();
  mkdirSync(out, { recursive: true });
  const args = [
    SYNTH_SCRIPT,
    '--family',
    family,
    '--out',
    out,
    '--files',
    JSON.stringify(files),
    '--feature-dim',
    String(featureDim),
    '--language',
    entry.languages[0] ?? 'en',
    ...(o.defect ? ['--defect', o.defect] : []),
    ...(o.size === 'real' ? ['--size', 'real'] : []),
  ];
  const r = spawnSync(python, args, { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.error || r.status !== 0)
    throw new Error(
      `the generator failed (${python} ${path.basename(SYNTH_SCRIPT)}): ${r.error ? errorMessage(r.error) : r.stderr.trim().slice(-800)}`,
    );
  let manifest: SynthManifest;
  try {
    manifest = JSON.parse(r.stdout) as SynthManifest;
  } catch (e) {
    throw new Error(`the generator's manifest is not JSON (${errorMessage(e)})`);
  }
  const lock: ModelLock = {
    format: LOCK_FORMAT,
    model: entry.name,
    repo: entry.hfRepo,
    revision: `synthetic-${manifest.generator_version}${manifest.size === 'real' ? '-real' : ''}`,
    synthetic:
      manifest.size === 'real'
        ? `made by npm run models -- synth --size real (generator ${manifest.generator_version}): the real dimensions of ${entry.name}, RANDOM int8 weights (to measure cost); it recognises no speech`
        : `made by npm run models -- synth (generator ${manifest.generator_version}${o.defect ? `, defect ${o.defect}` : ''}): the shape of ${entry.name}, made-up weights; it recognises no speech`,
    files: {},
  };
  for (const f of entry.files) {
    const file = path.join(out, f.path);
    lock.files[f.path] = { size: readFileSync(file).length, sha256: await sha256File(file) };
  }
  writeFileSync(path.join(out, LOCK_FILE), `${JSON.stringify(lock, null, 2)}\n`);
  writeFileSync(path.join(out, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}
