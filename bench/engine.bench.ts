/**
 * The pocketsphinx engine on real recorded speech (Debian's pocketsphinx-testdata: five LibriVox
 * utterances and goforward.raw, with their reference transcripts), each measure beside a baseline
 * taken in the same run:
 *
 * 1. Word error rate of the service's final transcript (after batch.replace), every recording streamed
 *    in real time through the built service, beside the same decoder run on each whole file.
 * 2. Real-time factor (CPU seconds per second of audio) of the streaming first pass, beside the
 *    whole-file decode.
 * 3. End of speech → `final` latency, beside the simulated engine fed the same stream.
 *
 * The concurrent real-time sessions a service holds: capacity.bench.ts.
 */
import os from 'node:os';
import { resolveConfig } from '../src/protocol';
import { DEFAULT_POCKETSPHINX_MODEL, loadPocketsphinx, pocketsphinxModel } from '../src/server/engine/pocketsphinx/ffi';
import type { PocketsphinxRecognizer } from '../src/server/engine/pocketsphinx/recognizer';
import { VAD_WINDOW_MS, Vad } from '../src/server/engine/vad';
import { type Recording, recordings, wordErrors } from '../test/helpers/recordings';
import { framesOf, silence } from '../test/helpers/speech';
import { CONFIG, type Svc, recognizerFor, session, startService, stopService } from './engineService';
import { percentile } from './server.bench';

const EFFECTIVE = resolveConfig(CONFIG);
const FRAME = 3200;
const psModel = (): ReturnType<typeof pocketsphinxModel> => pocketsphinxModel(DEFAULT_POCKETSPHINX_MODEL);

const pct = percentile;
const f1 = (n: number): string => (Number.isFinite(n) ? n.toFixed(1) : '–');

// ------------------------------------------------------------------ 1 + 2: accuracy and cost

function wholeFile(recs: Recording[]): { hyps: string[]; cpuS: number } {
  const ps = loadPocketsphinx();
  const d = ps.init(psModel());
  const hyps: string[] = [];
  const c0 = process.cpuUsage();
  for (const r of recs) {
    ps.startUtt(d);
    ps.processRaw(d, new Int16Array(r.pcm.buffer, r.pcm.byteOffset, r.pcm.length / 2), true);
    ps.endUtt(d);
    hyps.push(ps.hyp(d));
  }
  const c = process.cpuUsage(c0);
  ps.free(d);
  return { hyps, cpuS: (c.user + c.system) / 1e6 };
}

function streamingFirstPassCpu(recs: Recording[]): number {
  const r = recognizerFor('pocketsphinx', EFFECTIVE) as PocketsphinxRecognizer;
  const bytes = Vad.windowBytes(16000);
  const c0 = process.cpuUsage();
  for (const x of recs) {
    for (let off = 0; off + bytes <= x.pcm.length; off += bytes) r.push(x.pcm.subarray(off, off + bytes), true, VAD_WINDOW_MS);
    r.endUtterance();
    void r.endSentence([], false);
  }
  const c = process.cpuUsage(c0);
  r.dispose();
  return (c.user + c.system) / 1e6;
}

function wer(pairs: Array<[string, string]>): { errors: number; words: number; rate: number } {
  let errors = 0;
  let words = 0;
  for (const [ref, hyp] of pairs) {
    const w = wordErrors(ref, hyp);
    errors += w.errors;
    words += w.words;
  }
  return { errors, words, rate: errors / words };
}

/** Each recording alone in a session (two at a time), streamed in real time, then 2.5 s of silence. */
async function streamed(svc: Svc, recs: Recording[]): Promise<Array<{ finals: string; proofread: string; endToFinalMs: number }>> {
  const out: Array<{ finals: string; proofread: string; endToFinalMs: number }> = [];
  for (let i = 0; i < recs.length; i += 2) {
    const batch = recs.slice(i, i + 2);
    const results = await Promise.all(
      batch.map(async (r) => {
        const speech = framesOf(Buffer.concat([silence(500), r.pcm]), FRAME);
        const frames = [...speech, ...framesOf(silence(2500), FRAME)];
        const s = await session(svc, frames);
        const endOfSpeech = s.sent[speech.length - 1]!;
        const firstFinal = s.events.find((e) => e.status === 'final' && e.at >= endOfSpeech);
        return {
          finals: s.events
            .filter((e) => e.status === 'final')
            .map((e) => e.text)
            .join(' '),
          proofread: s.events
            .filter((e) => e.type === 'batch.replace')
            .map((e) => e.replaceText)
            .join(' '),
          endToFinalMs: firstFinal ? firstFinal.at - endOfSpeech : NaN,
        };
      }),
    );
    out.push(...results);
  }
  return out;
}

export async function run(): Promise<{ title: string; markdown: string }> {
  const recs = recordings();
  const audioS = recs.reduce((a, r) => a + r.pcm.length / 32000, 0);
  const whole = wholeFile(recs);
  const streamCpu = streamingFirstPassCpu(recs);
  const ps = await startService('pocketsphinx');
  const sim = await startService('simulated');
  try {
    const psStreamed = await streamed(ps, recs);
    const simStreamed = await streamed(sim, recs);
    const werWhole = wer(recs.map((r, i) => [r.reference, whole.hyps[i]!]));
    const werFinal = wer(recs.map((r, i) => [r.reference, psStreamed[i]!.proofread]));
    const werFirst = wer(recs.map((r, i) => [r.reference, psStreamed[i]!.finals]));
    const lat = (xs: Array<{ endToFinalMs: number }>): number[] => xs.map((x) => x.endToFinalMs).sort((a, b) => a - b);
    const psLat = lat(psStreamed);
    const simLat = lat(simStreamed);
    const perRec = recs.map(
      (r, i) =>
        `| ${r.name} | ${(r.pcm.length / 32000).toFixed(1)} | ${wordErrors(r.reference, whole.hyps[i]!).errors} | ${wordErrors(r.reference, psStreamed[i]!.finals).errors} | ${wordErrors(r.reference, psStreamed[i]!.proofread).errors} | ${wordErrors(r.reference, '').words} | ${psStreamed[i]!.proofread} |`,
    );
    const markdown = [
      `Real recorded English: Debian's pocketsphinx-testdata (${recs.length} recordings, ${audioS.toFixed(1)} s: five LibriVox utterances`,
      'with their reference transcription, and goforward.raw, "go forward ten meters"), Debian\'s en-us model, default',
      `configuration (silence_threshold 2 s, engine_endpointing 0.5 s, proofreading on). Machine: ${os.cpus().length} cores; the service`,
      `starts one decoder worker per core. Clients run in the bench process.`,
      '',
      '### Word error rate',
      '',
      'Each recording alone in a session, after 0.5 s of silence and followed by 2.5 s of it, streamed in real time (100 ms',
      'frames, two sessions at a time); its final transcript is the text of its `batch.replace` (the whole sentence decoded',
      'again). Baseline: the same decoder on each whole file (one utterance), in the bench process.',
      '',
      `**WER of the service's final transcript: ${(werFinal.rate * 100).toFixed(1)} % (${werFinal.errors}/${werFinal.words} words). Whole-file decoder: ${(werWhole.rate * 100).toFixed(1)} % (${werWhole.errors}/${werWhole.words}). Difference: ${((werFinal.rate - werWhole.rate) * 100).toFixed(1)} points.**`,
      `The streamed first pass (the \`final\` chunks before proofreading): ${(werFirst.rate * 100).toFixed(1)} % (${werFirst.errors}/${werFirst.words}).`,
      '',
      '| recording | seconds | errors whole file | errors first pass | errors final | words | final transcript |',
      '|---|---:|---:|---:|---:|---:|---|',
      ...perRec,
      '',
      '### Real-time factor',
      '',
      `CPU seconds per second of audio, in one thread: streaming first pass (a partial hypothesis every 100 ms, the utterance ended at the end) **${(streamCpu / audioS).toFixed(3)}**;`,
      `whole-file decode (baseline) ${(whole.cpuS / audioS).toFixed(3)}; ratio ${(streamCpu / whole.cpuS).toFixed(2)}. Proofreading decodes each sentence once more, so a`,
      `session with proofreading costs about the sum of the two: ${((streamCpu + whole.cpuS) / audioS).toFixed(3)} CPU s per audio s.`,
      '',
      '### End of speech → final',
      '',
      'From sending the last frame of a recording to receiving its first `final` (the pause must first reach silence_threshold,',
      '2 s, by design). Baseline: the simulated engine, fed the same stream (its finals come from the same segmenter rule).',
      '',
      `pocketsphinx: median **${f1(pct(psLat, 50))} ms**, max ${f1(psLat[psLat.length - 1] ?? NaN)} ms; simulated: median ${f1(pct(simLat, 50))} ms, max ${f1(simLat[simLat.length - 1] ?? NaN)} ms; ratio of medians ${(pct(psLat, 50) / pct(simLat, 50)).toFixed(2)}.`,
      '',
      `The concurrent sessions a service holds: the section "Speech recognition: concurrent real-time sessions".`,
    ].join('\n');
    return { title: 'Speech recognition: the pocketsphinx engine on real recordings', markdown };
  } finally {
    await stopService(ps);
    await stopService(sim);
  }
}
