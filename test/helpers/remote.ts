/**
 * Integration tests of the remote engines: a recorded dictation (LibriVox recordings with their
 * reference transcripts, pauses between them), the FAKE upstream that releases those words, and a
 * real client session (src/client/session.ts) whose assembled transcript is checked word by word.
 */
import assert from 'node:assert/strict';
import { DictationSession } from '../../src/client/session';
import { TranscriptModel } from '../../src/client/transcript';
import type { ClientConfig } from '../../src/protocol';
import { voicedMs } from './fakeUpstream';
import { normalizeWords, recordings } from './recordings';
import type { TestServer } from './server';
import { silence } from './speech';
import { sleep } from './wait';

export interface Dictation {
  pcm: Buffer;
  words: string[];
  msPerWord: number;
}

/** `count` LibriVox recordings, each followed by `pauseMs` of silence, and the words they say. */
export function dictation(count = 2, pauseMs = 1500): Dictation {
  const recs = recordings()
    .filter((r) => r.name !== 'goforward')
    .slice(0, count);
  const pcm = Buffer.concat(recs.flatMap((r) => [r.pcm, silence(pauseMs)]));
  const words = recs.flatMap((r) => normalizeWords(r.reference));
  // A little less than the voiced time per word: every word is out before the audio ends.
  const msPerWord = Math.floor((voicedMs(pcm, 16000) * 0.9) / words.length);
  return { pcm, words, msPerWord };
}

/**
 * The recordings named, each followed by `pauseMs` of silence, at a `msPerWord` that releases each one's
 * words while its own audio plays, none spilling into the next recording's sentence: the middle of the
 * range where that holds for every recording (throws when there is none).
 */
export function sentenceDictation(names: string[], pauseMs = 1500): Dictation & { references: string[] } {
  const all = recordings();
  const recs = names.map((n) => all.find((r) => r.name === n) ?? assert.fail(`no recording ${n}`));
  let voiced = 0;
  let count = 0;
  let lo = 0;
  let hi = Infinity;
  for (const [i, r] of recs.entries()) {
    voiced += voicedMs(r.pcm, 16000);
    count += normalizeWords(r.reference).length;
    // The recording's last word out by the end of its audio, the next recording's first word not before.
    hi = Math.min(hi, voiced / count);
    if (i < recs.length - 1) lo = Math.max(lo, voiced / (count + 1));
  }
  assert.ok(lo < hi, `no pace releases each of ${names.join(', ')} within its own audio`);
  return {
    pcm: Buffer.concat(recs.flatMap((r) => [r.pcm, silence(pauseMs)])),
    words: recs.flatMap((r) => normalizeWords(r.reference)),
    msPerWord: Math.round((lo + hi) / 2),
    references: recs.map((r) => r.reference),
  };
}

export const FAST: Omit<ClientConfig, 'resume'> = { language: 'en', engine_endpointing: 0.4, silence_threshold: 1, stop_delay: 2 };

export interface Run {
  session: DictationSession;
  model: TranscriptModel;
  errors: string[];
  streaming: number;
}

export function clientRun(server: TestServer, key: string, config = FAST): Run {
  const session = new DictationSession({
    serverUrl: server.url,
    apiKey: key,
    config,
    backoffBaseMs: 100,
    backoffMaxMs: 1000,
    maxAttempts: 20,
  });
  const model = new TranscriptModel();
  const run: Run = { session, model, errors: [], streaming: 0 };
  session.on('message', (m) => {
    if (m.type === 'transcript' && m.status === 'streaming') run.streaming++;
    model.apply(m);
  });
  session.on('generation', () => model.beginGeneration());
  session.on('configured', () => model.dropProvisional());
  session.on('error', (e) => run.errors.push(`${e.code}: ${e.message}`));
  return run;
}

/** Streams `pcm` in 100 ms frames, `speed` times real time; `during(frame)` may act and is awaited. */
export async function stream(
  session: DictationSession,
  pcm: Buffer,
  speed = 4,
  during?: (frame: number) => Promise<void> | void,
): Promise<void> {
  const frameMs = 100;
  const t0 = Date.now();
  let n = 0;
  for (let off = 0; off < pcm.length; off += 3200, n++) {
    await during?.(n);
    session.sendAudio(pcm.subarray(off, off + 3200));
    const wait = t0 + ((n + 1) * frameMs) / speed - Date.now();
    if (wait > 0) await sleep(wait);
  }
}

/** A whole dictation of `pcm` through `server` with a new key: started, streamed (4× real time), stopped. */
export async function dictateThrough(
  server: TestServer,
  pcm: Buffer,
): Promise<{ run: Run; result: Awaited<ReturnType<DictationSession['stop']>> }> {
  const { key } = await server.createKey();
  const run = clientRun(server, key);
  await run.session.start();
  await stream(run.session, pcm);
  return { run, result: await run.session.stop() };
}

/** The client's transcript is every recorded word once, in order. */
export function assertEveryWordOnce(run: Run, words: string[]): void {
  assert.deepEqual(normalizeWords(run.model.committedText()), words, `committed: ${run.model.committedText()}`);
}
