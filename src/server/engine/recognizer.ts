/**
 * The engine interface. An engine turns analysis windows (20 ms of PCM with the VAD decision) into
 * words, and proofreads a sentence of its own words. Real engines (a local neural model, a vendor's
 * cloud) plug in behind this interface; the one engine here is `simulated`.
 */
import type { EffectiveConfig } from '../../protocol';

export interface RecognizedWord {
  /** First-pass form, as a raw recogniser gives it (lower case, no punctuation). */
  raw: string;
  /** Proofread form (casing and punctuation restored). Never a different word. */
  proofread: string;
}

export interface Recognizer {
  /** Engine name, reported in `configured.engine` and logs. */
  readonly name: string;
  /** Feeds one analysis window. Returns the words recognised by the end of it (often none). */
  push(window: Buffer, voiced: boolean, ms: number): RecognizedWord[];
  /** The proofread text of a sentence made of these words, in order. */
  proofread(words: RecognizedWord[]): string;
  /** A JSON-serialisable snapshot of the engine's state, to resume a session after a restart. */
  checkpoint(): unknown;
  /** Restores a snapshot taken by {@link checkpoint}. Throws when it is not one of this engine's. */
  restore(snapshot: unknown): void;
}

export interface Engine {
  readonly name: string;
  /** Why this engine cannot serve the configuration (an INIT_ERROR message), or undefined. */
  unsupported(config: EffectiveConfig): string | undefined;
  create(config: EffectiveConfig): Recognizer;
}
