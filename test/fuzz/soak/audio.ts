/**
 * What every soak session says, and how many words the simulated engine releases for it. A session's audio
 * is a fixed loop of 100 ms frames (1.2 s of tone, then 1.3 s of silence: a sentence ends in each pause);
 * frame k of a session is `LOOP[k % LOOP.length]`, so after a resume (which continues from the byte offset
 * the service accounted for) the service has heard exactly the first N frames of the loop. The segmenter
 * and the simulated engine are deterministic, so running them here on those N frames says how many words
 * the service's engine has released: no more, no fewer may reach the client.
 */
import { type ClientConfig, resolveConfig } from '../../../src/protocol';
import { Segmenter } from '../../../src/server/engine/segmenter';
import { SimulatedEngine, type SimulatedRecognizer } from '../../../src/server/engine/simulated';
import { silence, tone } from '../../helpers/speech';

/** 100 ms at 16 kHz, s16le mono. */
export const FRAME_BYTES = 3200;
export const FRAME_MS = 100;

const TONE = tone(FRAME_MS);
const QUIET = silence(FRAME_MS);
/** 12 frames of tone, 13 of silence. */
export const LOOP: readonly Buffer[] = [...Array<Buffer>(12).fill(TONE), ...Array<Buffer>(13).fill(QUIET)];

/** Every session's configuration: a pause of 1 s ends the sentence (the loop has 1.3 s). */
export const SESSION_CONFIG: ClientConfig = { language: 'en', engine_endpointing: 0.3, silence_threshold: 1 };

export function frameAt(k: number): Buffer {
  return LOOP[k % LOOP.length]!;
}

/** Words the service's engine has released after the first N frames of a session (computed once, on demand). */
export class ReleasedWords {
  private readonly table: number[] = [0];
  private readonly segmenter: Segmenter;
  private readonly recognizer: SimulatedRecognizer;

  constructor(script: string) {
    const cfg = resolveConfig(SESSION_CONFIG);
    this.recognizer = new SimulatedEngine(script).create(cfg);
    this.segmenter = new Segmenter(cfg, this.recognizer);
  }

  after(frames: number): number {
    while (this.table.length <= frames) {
      this.segmenter.push(frameAt(this.table.length - 1));
      this.table.push(this.recognizer.released);
    }
    return this.table[frames]!;
  }
}
