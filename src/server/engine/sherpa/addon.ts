/**
 * The part of the `sherpa-onnx-node` addon (1.13.8) that the service uses, as its JS wrapper defines it
 * (`streaming-asr.js`, `non-streaming-asr.js`): an OnlineRecognizer shared by the streams of a thread, and
 * an OfflineRecognizer for the proofreading pass. Tests implement these interfaces with a fake
 * (test/helpers/fakeSherpaAddon.ts): no speech model can be downloaded where this project is developed.
 */
import { errorMessage } from '../../../shared/errors';
import { EngineUnavailableError } from '../engine';

const SHERPA_VERSION = '1.13.8';

export interface Waveform {
  samples: Float32Array;
  sampleRate: number;
}

/**
 * What `OnlineRecognizer.getResult` returns (the addon parses `OnlineRecognizerResult::AsJsonString()`;
 * docs/engines.md says what each field holds per model). Only the fields the service reads.
 */
export interface SherpaOnlineResult {
  text: string;
  /** One per token: the piece (`▁` as a leading space; a fallback byte as `<0xNN>`). */
  tokens?: string[];
  /** Seconds from the start of the stream's current segment (since its last reset) at which each token came out. */
  timestamps?: number[];
  /** Natural-log probability of each token (zipformer transducers' greedy search); empty for NeMo transducers. */
  ys_probs?: number[];
  /** Seconds from the stream's first sample to the start of its current segment. */
  start_time?: number;
}

/** What `OfflineRecognizer.getResult` returns (`OfflineRecognitionResult::AsJsonString()`). Only the fields the service reads. */
export interface SherpaOfflineResult {
  text: string;
  tokens?: string[];
  /** Seconds from the start of the audio at which each token came out. */
  timestamps?: number[];
  /** Seconds each token lasts (TDT models only). */
  durations?: number[];
  /** Natural-log probability of each token (with a hotword's boost added under modified_beam_search). */
  ys_log_probs?: number[];
}

export interface SherpaOnlineStream {
  acceptWaveform(w: Waveform): void;
  /** Multilingual Nemotron models read `language` from the stream at every decode (unset: detected). */
  setOption?(key: string, value: string): void;
}

export interface SherpaOnline {
  /** The addon's online streams take no hotwords (1.13.8): only the recognizer's `hotwordsFile`. */
  createStream(): SherpaOnlineStream;
  isReady(s: SherpaOnlineStream): boolean;
  decode(s: SherpaOnlineStream): void;
  /** Decodes several ready streams of this recognizer in one call (batched). */
  decodeStreams?(streams: SherpaOnlineStream[]): void;
  getResult(s: SherpaOnlineStream): SherpaOnlineResult;
  reset(s: SherpaOnlineStream): void;
}

export interface SherpaOfflineStream {
  acceptWaveform(w: Waveform): void;
}

export interface SherpaOffline {
  /** `hotwords`: phrases separated by `/` (transducers decoded with `modified_beam_search`). */
  createStream(hotwords?: string): SherpaOfflineStream;
  decode(s: SherpaOfflineStream): void;
  getResult(s: SherpaOfflineStream): SherpaOfflineResult;
}

export interface SherpaAddon {
  version?: string;
  OnlineRecognizer: new (config: object) => SherpaOnline;
  OfflineRecognizer?: new (config: object) => SherpaOffline;
}

/**
 * Test hook (docs/server.md): the path of a module standing in for `sherpa-onnx-node`
 * (test/helpers/fakeSherpaModule.ts), so that the service's sherpa-onnx path, decoder and proofreading
 * threads included, runs end to end where no speech model can be downloaded.
 */
const TEST_ADDON = process.env.DICTEE_TEST_SHERPA_ADDON || undefined;
/** The module loaded as the addon (the start's check loads the models with it in a child process: probe.ts). */
export const ADDON_ID = TEST_ADDON ?? 'sherpa-onnx-node';

/** Loads the addon; throws {@link EngineUnavailableError} naming the platform package when it is missing. */
export function loadSherpa(load: (id: string) => unknown = require): SherpaAddon {
  try {
    return load(ADDON_ID) as SherpaAddon;
  } catch (e) {
    throw new EngineUnavailableError(
      `sherpa-onnx-node ${SHERPA_VERSION} cannot be loaded on ${process.platform}-${process.arch} (${errorMessage(e).split('\n')[0]}); run npm ci (it installs sherpa-onnx-${process.platform}-${process.arch})`,
    );
  }
}

/** 16-bit PCM as the addon takes it: float samples in [-1, 1). */
export function floatSamples(pcm: Int16Array): Float32Array {
  const out = new Float32Array(pcm.length);
  for (let i = 0; i < pcm.length; i++) out[i] = pcm[i]! / 32768;
  return out;
}
