/**
 * A sherpa-onnx streaming transducer behind the {@link Recognizer} contract, through the
 * `sherpa-onnx-node` addon (its npm platform packages ship the native library). Runs in a worker
 * thread: one OnlineRecognizer per model and thread, one stream per session. The segmenter decides
 * the utterances (the addon's own endpointing stays off); proofreading is the first pass with a
 * capital and a final period (models that restore casing and punctuation keep theirs).
 */
import { errorMessage } from '../../../shared/errors';
import type { EffectiveConfig } from '../../../protocol';
import { EngineUnavailableError } from '../engine';
import type { RecognizedWord, Recognizer } from '../recognizer';
import { sentenceCase } from '../recognizer';
import type { SherpaModel } from './model';

export const SHERPA_ENGINE_NAME = 'sherpa-onnx';
export const SHERPA_VERSION = '1.13.8';
const RESULT_EVERY_WINDOWS = 5;

interface SherpaStream {
  acceptWaveform(w: { samples: Float32Array; sampleRate: number }): void;
  setOption?(key: string, value: string): void;
}
interface SherpaOnline {
  createStream(): SherpaStream;
  isReady(s: SherpaStream): boolean;
  decode(s: SherpaStream): void;
  getResult(s: SherpaStream): { text: string };
  reset(s: SherpaStream): void;
}
export interface SherpaAddon {
  version?: string;
  OnlineRecognizer: new (config: object) => SherpaOnline;
}

/** Loads the addon; throws {@link EngineUnavailableError} naming the platform package when it is missing. */
export function loadSherpa(load: (id: string) => unknown = require): SherpaAddon {
  try {
    return load('sherpa-onnx-node') as SherpaAddon;
  } catch (e) {
    throw new EngineUnavailableError(
      `sherpa-onnx-node ${SHERPA_VERSION} cannot be loaded on ${process.platform}-${process.arch} (${errorMessage(e).split('\n')[0]}); run npm ci (it installs sherpa-onnx-${process.platform}-${process.arch})`,
    );
  }
}

const shared = new Map<string, SherpaOnline>();

/** The model's recognizer in this thread (loaded once; what the sessions' streams share). */
export function online(addon: SherpaAddon, model: SherpaModel): SherpaOnline {
  let r = shared.get(model.dir);
  if (!r) {
    try {
      r = new addon.OnlineRecognizer({
        featConfig: { sampleRate: 16000, featureDim: model.featureDim },
        modelConfig: {
          transducer: { encoder: model.encoder, decoder: model.decoder, joiner: model.joiner },
          tokens: model.tokens,
          numThreads: 1,
          provider: 'cpu',
          ...(model.modelType ? { modelType: model.modelType } : {}),
        },
        decodingMethod: 'greedy_search',
        enableEndpoint: false,
      });
    } catch (e) {
      throw new EngineUnavailableError(`sherpa-onnx refused the model in ${model.dir}: ${errorMessage(e)}`);
    }
    shared.set(model.dir, r);
  }
  return r;
}

function words(text: string): RecognizedWord[] {
  return text
    .split(/\s+/u)
    .filter((w) => w !== '')
    .map((w) => ({ raw: w, proofread: w }));
}

export class SherpaRecognizer implements Recognizer {
  readonly name = SHERPA_ENGINE_NAME;
  readonly resumeFrom = 'utterance-start';
  private readonly online: SherpaOnline;
  private readonly stream: SherpaStream;
  private windows = 0;
  private last = '';

  constructor(addon: SherpaAddon, model: SherpaModel, config: EffectiveConfig) {
    this.online = online(addon, model);
    this.stream = this.online.createStream();
    // Multilingual models: pin the language (auto-detection misfires on short phrases).
    if (model.languages.length > 1 && config.language) this.stream.setOption?.('language', config.language);
  }

  push(window: Buffer, _voiced: boolean, _ms: number): RecognizedWord[] | undefined {
    const n = window.length >> 1;
    const samples = new Float32Array(n);
    for (let i = 0; i < n; i++) samples[i] = window.readInt16LE(i * 2) / 32768;
    this.stream.acceptWaveform({ samples, sampleRate: 16000 });
    while (this.online.isReady(this.stream)) this.online.decode(this.stream);
    if (++this.windows % RESULT_EVERY_WINDOWS !== 0) return undefined;
    const text = this.online.getResult(this.stream).text.trim();
    if (text === this.last) return undefined;
    this.last = text;
    return words(text);
  }

  endUtterance(): RecognizedWord[] {
    while (this.online.isReady(this.stream)) this.online.decode(this.stream);
    const out = words(this.online.getResult(this.stream).text.trim());
    this.online.reset(this.stream);
    this.last = '';
    this.windows = 0;
    return out;
  }

  endSentence(firstPass: RecognizedWord[], proofread: boolean): string | undefined {
    return proofread ? sentenceCase(firstPass.map((w) => w.raw)) : undefined;
  }

  checkpoint(): { engine: 'sherpa-onnx' } {
    return { engine: 'sherpa-onnx' };
  }

  restore(snapshot: unknown): void {
    if ((snapshot as { engine?: string } | null)?.engine !== 'sherpa-onnx') throw new Error('not a checkpoint of the sherpa-onnx engine');
    this.online.reset(this.stream);
    this.last = '';
  }
}
