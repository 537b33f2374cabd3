/** Messages between the service (engine/pool.ts) and its decoder worker threads (engine/worker.ts). */
import type { EffectiveConfig } from '../../protocol';
import type { ChunkEvent, SegmentEvent, SegmenterCheckpoint } from './segmenter';
import type { PocketsphinxDecoderModel } from './pocketsphinx/modelSet';
import type { LoadedModel } from './sherpa/load';

/** pocketsphinx: one model per language (and per domain language model); a session's language and specialty pick one. */
export type WorkerEngine = (
  | { engine: 'pocketsphinx'; models: PocketsphinxDecoderModel[] }
  /** `proofreadModel`: the offline model of the proofreading pass (`--proofread-model`). */
  | { engine: 'sherpa-onnx'; model: LoadedModel; proofreadModel?: LoadedModel }
  /** The simulated engine in the pool: only with `--vad silero` (the detector is native). */
  | { engine: 'simulated'; script?: string }
) & {
  /** A decoder worker's proofreading thread (pocketsphinx/proofreadThread.ts) rather than a decoder worker. */
  role?: 'proofreader';
  /** `--vad silero`: each session's segmenter uses Silero VAD from this file (its sha256 checked at start). */
  sileroModel?: string;
};

export type ToWorker =
  | { t: 'open'; id: string; config: EffectiveConfig; restore?: SegmenterCheckpoint }
  /** `pcm` is transferred, not copied. */
  | { t: 'audio'; id: string; pcm: ArrayBuffer }
  | { t: 'flush'; id: string; req: number; proofread: boolean }
  | { t: 'close'; id: string };

export type FromWorker =
  /** The engine loaded and one decoder was made and freed: the worker can serve sessions. */
  | { t: 'ready' }
  | { t: 'fatal'; message: string }
  | {
      t: 'events';
      id: string;
      events: SegmentEvent[];
      /** Bytes of the session's audio decoded so far. */
      decoded: number;
      pending: ChunkEvent[];
      checkpoint: SegmenterCheckpoint;
      /** Present on the answer to a flush. */
      flushed?: number;
      /** Milliseconds the worker spent decoding what this message reports (the metrics' real-time factor). */
      decodeMs?: number;
    }
  /** This session's decoder threw: it is gone, the worker goes on. */
  | { t: 'failed'; id: string; message: string }
  | { t: 'closed'; id: string }
  /** Work for this session goes on (a proofreading slice decoded); at most one a second. */
  | { t: 'progress'; id: string }
  /** A spare decoder was loaded for the next session, in `ms`, while this worker hosted `hosted` sessions. */
  | { t: 'spare'; ms: number; hosted: number };
