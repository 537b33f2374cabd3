/**
 * An installed sherpa-onnx streaming transducer model: a directory laid out as sherpa-onnx publishes
 * them (encoder, decoder, joiner `.onnx` files and `tokens.txt`) plus the marker
 * {@link MODEL_MARKER} that `npm run models` writes once the archive's sha256 was verified. Every
 * file is hashed again against the marker before any native call: a corrupt model file aborts the
 * native library (the whole process), so it must never reach it.
 */
import { errorMessage } from '../../../shared/errors';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { EngineUnavailableError } from '../engine';

export const MODEL_MARKER = '.dictee-model.json';

export interface SherpaModel {
  dir: string;
  name: string;
  languages: string[];
  encoder: string;
  decoder: string;
  joiner: string;
  tokens: string;
  featureDim: number;
  modelType?: string;
}

/** The marker written by the installer (src/models/install.ts). */
export interface ModelMarker {
  name: string;
  languages: string[];
  /** sha256 of the archive it came from. */
  archiveSha256: string;
  /** Whether that sha256 is the one pinned in the catalogue. */
  pinned: boolean;
  files: Record<string, { size: number; sha256: string }>;
  transducer: { encoder: string; decoder: string; joiner: string; tokens: string };
  featureDim: number;
  modelType?: string;
}

export class ModelNotInstalledError extends EngineUnavailableError {}
export class ModelCorruptError extends EngineUnavailableError {}

export function sha256File(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream(file)
      .on('data', (d) => h.update(d))
      .on('error', reject)
      .on('end', () => resolve(h.digest('hex')));
  });
}

/** Reads the marker and checks every file's size and sha256. Throws before anything native runs. */
export async function verifiedModel(dir: string): Promise<SherpaModel> {
  const abs = path.resolve(dir);
  const markerFile = path.join(abs, MODEL_MARKER);
  if (!existsSync(abs)) {
    throw new ModelNotInstalledError(`model directory ${abs} does not exist; install a model with npm run models -- fetch <name> (or import <archive>)`);
  }
  if (!existsSync(markerFile)) {
    throw new ModelNotInstalledError(
      `${abs} is not a model installed by npm run models (no ${MODEL_MARKER}); install it with npm run models -- fetch <name> or import <archive>, which verify its sha256`,
    );
  }
  let marker: ModelMarker;
  try {
    marker = JSON.parse(readFileSync(markerFile, 'utf8')) as ModelMarker;
  } catch (e) {
    throw new ModelCorruptError(`${markerFile} is unreadable (${errorMessage(e)}); install the model again`);
  }
  for (const [rel, want] of Object.entries(marker.files ?? {})) {
    const file = path.join(abs, rel);
    if (!existsSync(file)) throw new ModelCorruptError(`model file ${rel} is missing from ${abs}; install the model again`);
    const size = statSync(file).size;
    if (size !== want.size) throw new ModelCorruptError(`model file ${rel} has ${size} bytes, ${want.size} expected; install the model again`);
    const sha = await sha256File(file);
    if (sha !== want.sha256) throw new ModelCorruptError(`model file ${rel} does not match its sha256 (corrupt); install the model again`);
  }
  const t = marker.transducer;
  for (const rel of [t.encoder, t.decoder, t.joiner, t.tokens]) {
    if (!marker.files[rel]) throw new ModelCorruptError(`${MODEL_MARKER} in ${abs} does not list ${rel}; install the model again`);
  }
  return {
    dir: abs,
    name: marker.name,
    languages: marker.languages,
    encoder: path.join(abs, t.encoder),
    decoder: path.join(abs, t.decoder),
    joiner: path.join(abs, t.joiner),
    tokens: path.join(abs, t.tokens),
    featureDim: marker.featureDim,
    ...(marker.modelType ? { modelType: marker.modelType } : {}),
  };
}
