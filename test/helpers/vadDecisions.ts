/** A voice-activity detector's decisions over audio, one per 20 ms window at 16 kHz, as the segmenter asks. */
import { type VoiceDetector, samplesOf } from '../../src/server/engine/vad';

/** Samples in one 20 ms window at 16 kHz. */
export const WINDOW = 320;

/** Every 20 ms window's decision over `audio` (s16le bytes, or samples from `samplesOf`). */
export function decisions(vad: VoiceDetector, audio: Buffer | Int16Array): boolean[] {
  const samples = Buffer.isBuffer(audio) ? samplesOf(audio) : audio;
  const out: boolean[] = [];
  for (let i = 0; i + WINDOW <= samples.length; i += WINDOW) out.push(vad.windowOf(samples, i, WINDOW));
  return out;
}
