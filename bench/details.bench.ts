/**
 * `configure.config.details` with the pocketsphinx engine, through the built service, on the real
 * recordings (Debian's pocketsphinx-testdata, test/helpers/recordings.ts), each measure beside a
 * baseline taken in the same run:
 *
 * 1. How well confidences find the engine's errors in the final (proofread) text: of its word errors
 *    against the reference, the share on words under the threshold (recall), and the share of all words
 *    marked; beside it, marking the same share of words at random (expected recall over 2000 draws).
 * 2. The cost of details: bytes of transcript and batch.replace events, and the service's CPU, per
 *    session with details beside the same session without them.
 * 3. What keeping silent frames (`-remove_silence no`, needed for word times) costs the decoder: the
 *    streaming pass's CPU and the whole-file word error rate, beside the library's default (dropped).
 */
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { type Recording, moreRecordings, normalizeWords, recordings, wordErrors } from '../test/helpers/recordings';
import { framesOf, silence } from '../test/helpers/speech';
import { DEFAULT_POCKETSPHINX_MODEL, loadPocketsphinx, pocketsphinxModel } from '../src/server/engine/pocketsphinx/ffi';
import { type MarkScore, addScores, highestWithin, leaveOneOut, placeErrors, scoreMarks, seededRandom } from './confidence';
import { type Svc, startService } from './engineService';
import type { BenchSection } from './run';
import { cpuSecondsOf } from './server.bench';

const CONFIG = { language: 'en' as const };
const THRESHOLDS = [0.1, 0.2, 0.3, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8];
/**
 * The threshold recommended for `dictee.proofreading.threshold`: on the recordings, the highest that
 * marks at most a quarter of the words (the goal's limit); recall does not fall as it rises.
 */
export const RECOMMENDED_THRESHOLD = 0.4;
const GOAL_RECALL = 0.6;
const GOAL_MARKED = 0.25;
const ROUNDS = 3;
const DRAWS = 2000;

interface Word {
  text: string;
  confidence: number;
}

interface Run {
  bytes: number;
  events: number;
  cpuS: number;
  wallS: number;
  /** Final (proofread) text's words, and the first pass's (the `final` transcripts). */
  proofread: Word[];
  firstPass: Word[];
}

/** One session with the recording sent at once (audio time drives the segmenter), then stop. */
async function session(svc: Svc, r: Recording, details: boolean): Promise<Run> {
  const ws = new WebSocket(svc.ws, { headers: { authorization: `Bearer ${svc.key}` } });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const run: Run = { bytes: 0, events: 0, cpuS: 0, wallS: 0, proofread: [], firstPass: [] };
  const stopped = new Promise<void>((resolve) => {
    ws.on('message', (d) => {
      const text = String(d);
      const m = JSON.parse(text) as {
        type: string;
        status?: string;
        state?: string;
        words?: Word[];
        data?: { new_chunk: { words?: Word[] } };
      };
      if (m.type === 'status' && m.state === 'stopped') resolve();
      if (m.type !== 'transcript' && m.type !== 'batch.replace') return;
      run.bytes += Buffer.byteLength(text);
      run.events++;
      if (m.status === 'final') run.firstPass.push(...(m.words ?? []));
      if (m.data) run.proofread.push(...(m.data.new_chunk.words ?? []));
    });
    ws.once('close', () => resolve());
  });
  ws.send(JSON.stringify({ type: 'configure', config: { ...CONFIG, details } }));
  await new Promise<void>((resolve) => ws.once('message', () => resolve()));
  const cpu0 = cpuSecondsOf(svc.child.pid) ?? 0;
  const t0 = performance.now();
  for (const f of framesOf(Buffer.concat([silence(500), r.pcm, silence(2500)]), 3200)) ws.send(f);
  ws.send(JSON.stringify({ type: 'control', action: 'stop' }));
  await stopped;
  run.wallS = (performance.now() - t0) / 1000;
  run.cpuS = (cpuSecondsOf(svc.child.pid) ?? 0) - cpu0;
  ws.terminate();
  return run;
}

const tokens = (words: Word[]): string[] => words.map((w) => normalizeWords(w.text).join(' '));

function score(runs: ReadonlyArray<{ rec: Recording; words: Word[] }>, threshold: number): MarkScore {
  let s: MarkScore = { errors: 0, caught: 0, words: 0, marked: 0 };
  for (const { rec, words } of runs)
    s = addScores(
      s,
      scoreMarks(
        placeErrors(rec.reference, tokens(words)),
        words.map((w) => w.confidence < threshold),
      ),
    );
  return s;
}

/** Expected recall when each word is marked with probability `rate`. */
function randomRecall(runs: Array<{ rec: Recording; words: Word[] }>, rate: number): number {
  const rnd = seededRandom(20);
  let caught = 0;
  let errors = 0;
  for (let d = 0; d < DRAWS; d++) {
    for (const { rec, words } of runs) {
      const s = scoreMarks(
        placeErrors(rec.reference, tokens(words)),
        words.map(() => rnd() < rate),
      );
      caught += s.caught;
      errors += s.errors;
    }
  }
  return caught / errors;
}

/**
 * The decoder alone, silent frames kept or dropped: the recordings with 3 s of digital silence before
 * each, streamed in 20 ms windows (the hypothesis read every 5, as the service does), and each recording
 * decoded whole.
 */
function silentFrames(recs: Recording[], dropSilence: boolean): { rtf: number; errors: number; words: number } {
  const ps = loadPocketsphinx();
  const d = ps.init(pocketsphinxModel(DEFAULT_POCKETSPHINX_MODEL), { dropSilence });
  const pcm = Buffer.concat(recs.flatMap((r) => [silence(3000), r.pcm]));
  const samples = new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length >> 1);
  const c0 = process.cpuUsage();
  ps.startUtt(d);
  for (let o = 0, n = 0; o < samples.length; o += 320, n++) {
    ps.processRaw(d, samples.subarray(o, o + 320), false);
    if (n % 5 === 4) ps.hyp(d);
  }
  ps.endUtt(d);
  const c = process.cpuUsage(c0);
  let errors = 0;
  let words = 0;
  for (const r of recs) {
    ps.startUtt(d);
    ps.processRaw(d, new Int16Array(r.pcm.buffer, r.pcm.byteOffset, r.pcm.length >> 1), true);
    ps.endUtt(d);
    const w = wordErrors(r.reference, ps.hyp(d));
    errors += w.errors;
    words += w.words;
  }
  ps.free(d);
  return { rtf: (c.user + c.system) / 1e6 / (samples.length / 16000), errors, words };
}

const f2 = (n: number): string => n.toFixed(2);
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

export async function run(): Promise<BenchSection> {
  const recs = [...recordings(), ...moreRecordings()];
  // The same service with the bare posterior as proofread words' confidence: the baseline.
  const bare = await startService('pocketsphinx', [], { DICTEE_POCKETSPHINX_CONFIDENCE: 'posterior' });
  const posterior: Array<{ rec: Recording; words: Word[] }> = [];
  try {
    await session(bare, recs[recs.length - 1]!, true);
    // The same sequence as the first round below (a decoder's feature normalisation carries over).
    for (const rec of recs) {
      await session(bare, rec, false);
      posterior.push({ rec, words: (await session(bare, rec, true)).proofread });
    }
  } finally {
    bare.child.kill('SIGTERM');
  }
  const svc = await startService('pocketsphinx');
  try {
    // A first session loads the decoders and the proofreading thread.
    await session(svc, recs[recs.length - 1]!, true);
    const plain: Run[] = [];
    const detailed: Array<Run & { rec: Recording }> = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const rec of recs) {
        // Alternated, so that the machine's load falls on both alike.
        plain.push(await session(svc, rec, false));
        detailed.push({ ...(await session(svc, rec, true)), rec });
      }
    }
    const first = detailed.slice(0, recs.length);
    const proof = first.map((r) => ({ rec: r.rec, words: r.proofread }));
    const sameText = proof.every((p, k) => tokens(p.words).join(' ') === tokens(posterior[k]!.words).join(' '));
    const rows: string[] = [];
    for (const t of THRESHOLDS) {
      const s = score(proof, t);
      const rate = s.marked / s.words;
      const b = score(posterior, t);
      const mark = t === RECOMMENDED_THRESHOLD ? ' **(recommended)**' : '';
      rows.push(
        `| ${t}${mark} | ${f2(s.caught / s.errors)} (${s.caught}/${s.errors}) | ${f2(rate)} (${s.marked}/${s.words}) | ${f2(randomRecall(proof, rate))} | ${f2(b.caught / b.errors)} (${b.caught}/${b.errors}) | ${f2(b.marked / b.words)} (${b.marked}/${b.words}) |`,
      );
    }
    const rec = score(proof, RECOMMENDED_THRESHOLD);
    const recBare = score(posterior, RECOMMENDED_THRESHOLD);
    const met = rec.caught / rec.errors >= GOAL_RECALL && rec.marked / rec.words <= GOAL_MARKED;
    const reaching = THRESHOLDS.map((t) => ({ t, s: score(proof, t) })).find(({ s }) => s.caught / s.errors >= GOAL_RECALL);
    const goal = met
      ? `The goal (recall ≥ ${GOAL_RECALL} with at most a quarter of the words marked) is met at ${RECOMMENDED_THRESHOLD}: recall ${f2(rec.caught / rec.errors)} with ${f2(rec.marked / rec.words)} of the words marked, ${f2(rec.caught / rec.errors / (recBare.caught / recBare.errors))}× the bare posterior's recall at that threshold (${f2(recBare.caught / recBare.errors)}, ${f2(recBare.marked / recBare.words)} marked) and ${f2(rec.caught / rec.errors / randomRecall(proof, rec.marked / rec.words))}× random marks at the same rate.`
      : `The goal (recall ≥ ${GOAL_RECALL} with at most a quarter of the words marked) is **not met**: at ${RECOMMENDED_THRESHOLD} recall is ${f2(rec.caught / rec.errors)} with ${f2(rec.marked / rec.words)} of the words marked` +
        (reaching
          ? `; recall first reaches ${GOAL_RECALL} at ${reaching.t}, marking ${f2(reaching.s.marked / reaching.s.words)} of the words.`
          : '.');
    const loo = leaveOneOut(proof, THRESHOLDS, score, highestWithin(GOAL_MARKED));
    const looBare = leaveOneOut(posterior, THRESHOLDS, score, highestWithin(GOAL_MARKED));
    const looRow = (name: string, l: typeof loo): string =>
      `| ${name} | ${[...new Set(l.picked)].join(', ')} | ${f2(l.score.caught / l.score.errors)} (${l.score.caught}/${l.score.errors}) | ${f2(l.score.marked / l.score.words)} (${l.score.marked}/${l.score.words}) |`;
    const per = (runs: Run[], k: 'bytes' | 'events' | 'cpuS'): number => mean(runs.map((r) => r[k]));
    const cost = [
      `| events per session | ${per(plain, 'events').toFixed(1)} | ${per(detailed, 'events').toFixed(1)} | ${f2(per(detailed, 'events') / per(plain, 'events'))} |`,
      `| bytes of events per session | ${per(plain, 'bytes').toFixed(0)} | ${per(detailed, 'bytes').toFixed(0)} | ${f2(per(detailed, 'bytes') / per(plain, 'bytes'))} |`,
      `| bytes per event | ${(per(plain, 'bytes') / per(plain, 'events')).toFixed(0)} | ${(per(detailed, 'bytes') / per(detailed, 'events')).toFixed(0)} | ${f2(per(detailed, 'bytes') / per(detailed, 'events') / (per(plain, 'bytes') / per(plain, 'events')))} |`,
      `| service CPU per session (s) | ${per(plain, 'cpuS').toFixed(2)} | ${per(detailed, 'cpuS').toFixed(2)} | ${f2(per(detailed, 'cpuS') / per(plain, 'cpuS'))} |`,
    ];
    const kept: Array<ReturnType<typeof silentFrames>> = [];
    const dropped: Array<ReturnType<typeof silentFrames>> = [];
    for (let round = 0; round < ROUNDS; round++) {
      kept.push(silentFrames(recs, false));
      dropped.push(silentFrames(recs, true));
    }
    const rtf = (xs: Array<{ rtf: number }>): number => mean(xs.map((x) => x.rtf));
    const w = (xs: Array<{ errors: number; words: number }>): string =>
      `${f2(xs[0]!.errors / xs[0]!.words)} (${xs[0]!.errors}/${xs[0]!.words})`;
    const audioS = recs.reduce((n, r) => n + r.pcm.length / 32000, 0);
    const errorsOf = (runs: Array<{ rec: Recording; words: Word[] }>): number =>
      runs.reduce((n, r) => n + wordErrors(r.rec.reference, tokens(r.words).join(' ')).errors, 0);
    const markdown = `
${recs.length} recordings (${audioS.toFixed(1)} s, pocketsphinx-testdata: the five LibriVox sentences, \`goforward.raw\` and the TIDIGITS \`dhd.2934z.raw\`), each in a session of its own through the built service
(\`--engine pocketsphinx\`, default configuration, \`details: true\`), the audio sent at once after 0.5 s of silence and
followed by 2.5 s of silence, then \`stop\`. The service ran on a machine shared with other work (its load
changes wall times; CPU seconds are the service process's own).

### Confidence: the engine's errors on marked words

A word is marked when its confidence is under the threshold. The final text is the proofread sentences
(\`new_chunk\`); an error is a substituted or inserted word of the text, or a reference word missing from
it (caught when a word beside the gap is marked). Two-pass: the confidence the service sends, the
whole-sentence decode's posterior weighed against the first pass's word at the same place (docs/engines.md).
Posterior: the same recordings through a second service started with \`DICTEE_POCKETSPHINX_CONFIDENCE=posterior\`
(the bare posterior, the confidence before; ${sameText ? 'the same final text' : '**a different final text** from the two-pass run'}).
Random: the two-pass run's share of words marked at random (expected recall, ${DRAWS} draws).
**The sample is small**: the ${recs.length} recordings hold ${score(proof, 1).words} words of final text and ${score(proof, 1).errors} errors
(${errorsOf(proof)} by the word error count), so each error is several points of recall; the rule was chosen by reasoning, but
after looking at these same recordings (there are no others with a transcript here), so read the figures as a first measure, not a proof.

| Threshold | Recall, two-pass | Words marked, two-pass | Recall, random marks at that rate | Recall, posterior | Words marked, posterior |
|---|---:|---:|---:|---:|---:|
${rows.join('\n')}

${goal}
One error of the final text cannot be caught by any confidence: the reference's "mister", which the
engine writes "mr" (counted as a substitution, as in the word error rates of the pocketsphinx section).

The threshold held out: for each recording, the highest threshold of the table that marks at most a quarter
of the words of the *other* recordings, applied to that recording alone (thresholds chosen, then the
held-out recordings' sums):

| Confidence | Thresholds chosen | Recall, held out | Words marked, held out |
|---|---|---:|---:|
${looRow('two-pass', loo)}
${looRow('posterior', looBare)}

### The cost of details

Per session (mean of ${ROUNDS} rounds over the ${recs.length} recordings, sessions with and without details alternated):

| | Without details | With details | Ratio |
|---|---:|---:|---:|
${cost.join('\n')}

### Keeping silent frames

Word times need every frame decoded (\`-remove_silence no\`): the library's voice-activity filter drops
silent frames and its frame numbers no longer say where a word is. The decoder alone in the bench process
(mean of ${ROUNDS} rounds): the recordings with 3 s of digital silence before each, streamed in 20 ms windows,
and each recording decoded whole.

| | Silent frames dropped (before) | Kept (now) | Ratio |
|---|---:|---:|---:|
| streaming real-time factor (CPU s per audio s) | ${rtf(dropped).toFixed(3)} | ${rtf(kept).toFixed(3)} | ${f2(rtf(kept) / rtf(dropped))} |
| word error rate, whole files | ${w(dropped)} | ${w(kept)} | |
`;
    return { title: 'Details on the wire: confidence and cost (pocketsphinx, real recordings)', markdown };
  } finally {
    svc.child.kill('SIGTERM');
  }
}
