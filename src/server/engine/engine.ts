/**
 * An engine: the factory of a session's {@link Recognizer} (docs/engines.md). An engine whose decoding
 * is too slow for the service's event loop runs the segmenter and its recognizers in worker threads:
 * its {@link Engine.create} returns a {@link WorkerRecognizer}, and the session talks to it through a
 * {@link SegmenterPort}.
 */
import type { EffectiveConfig } from '../../protocol';
import type { Recognizer } from './recognizer';
import type { PortInit, SegmenterPort } from './segmenterPort';

/** An engine cannot start: a missing library, model or file (the service exits 1 with the message). */
export class EngineUnavailableError extends Error {}

/**
 * What the session needs to open a segmenter that runs elsewhere or waits on something (a worker thread,
 * see engine/pool.ts; a remote recogniser, see engine/remote/).
 */
export interface WorkerRecognizer {
  readonly kind: 'worker';
  readonly name: string;
  open(init: PortInit): SegmenterPort;
}

export interface EngineBusy {
  message: string;
  retryAfterMs: number;
}

/** A connection an engine made for a new session before it was admitted (a remote recogniser's socket). */
export interface EngineLink {
  close(): void;
}

/** Why {@link Engine.connect} could not make a session's connection (an INIT_ERROR with a retry time). */
export interface EngineConnectRefusal {
  message: string;
  retryAfterMs: number;
}

export interface Engine {
  readonly name: string;
  /** Language codes the engine serves (`configured.languages`, `GET /healthz`). */
  readonly languages: readonly string[];
  /** Languages whose models are installed but refused at start, and why (said at start). */
  readonly refused?: ReadonlyArray<{ language: string; reason: string }>;
  /** Why this engine cannot serve the configuration (an INIT_ERROR message), or undefined. */
  unsupported(config: EffectiveConfig): string | undefined;
  /**
   * Engines whose recogniser is another machine: reaches it for a new session, before the session is
   * admitted, so that a session never exists without it. The link goes to {@link create}.
   */
  connect?(config: EffectiveConfig): Promise<EngineLink | EngineConnectRefusal>;
  create(config: EffectiveConfig, link?: EngineLink): Recognizer | WorkerRecognizer;
  /**
   * Whether this engine biases its recognition towards the session's `keyterms` (`configured.keyterms_applied`).
   * Absent: it ignores them (simulated, pocketsphinx).
   */
  appliesKeyterms?(config: EffectiveConfig): boolean;
  /** Set when decoding has fallen behind real time: new sessions are refused until it catches up. */
  busy?(): EngineBusy | undefined;
  /** Frees workers and native resources (service shutdown). */
  close?(): Promise<void>;
}

export function isWorkerRecognizer(r: Recognizer | WorkerRecognizer): r is WorkerRecognizer {
  return (r as WorkerRecognizer).kind === 'worker';
}

/** The INIT_ERROR text for a language an engine does not serve. */
export function languageRefusal(engine: string, language: string, languages: readonly string[]): string {
  return `language ${language} is not available in the ${engine} engine; it serves: ${languages.join(', ')}`;
}

export function isConnectRefusal(r: EngineLink | EngineConnectRefusal): r is EngineConnectRefusal {
  return typeof (r as EngineConnectRefusal).retryAfterMs === 'number';
}

/** `configured.keyterms_applied`: the session has keyterms and its engine biases recognition towards them. */
export function keytermsApplied(engine: Engine, config: EffectiveConfig): boolean {
  return (config.keyterms?.length ?? 0) > 0 && engine.appliesKeyterms?.(config) === true;
}
