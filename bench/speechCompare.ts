/**
 * One recording decoded two ways with the same model, and the two compared (word errors against its
 * reference transcript):
 *
 * - **whole file**: the file in one utterance (`full_utt`, so the decoder normalises its features over
 *   all of it), by the service's whole-sentence decoder (recognizer.ts `Proofreader`);
 * - **streamed**: what the service does with a session's audio: 0.4 s of silence, the file, 1.2 s of
 *   silence, in 100 ms frames through the service's own {@link Segmenter} and
 *   {@link PocketsphinxRecognizer} (the streaming decoder, voice-activity detection, utterances and
 *   sentences cut at pauses, each sentence's audio decoded again by the same `Proofreader`; a streaming
 *   decoder of its own per recording, as a session has): its first
 *   pass (the `final` chunks) and its final text (the `batch.replace` chunks).
 *
 * The models are those the service finds in a models directory (modelSet.ts, the grammar's words
 * added as at the service's start). The in-process pipeline is the service's decoding logic without its
 * sockets and threads, which carry audio and text and change neither; bench/languages.bench.ts also
 * measures the built service over real sockets. Not a bench itself (run.ts reads only *.bench.ts).
 *
 *   node --import tsx bench/speechCompare.ts --language fr --models DIR [--folder voxforge-fr-sb]…
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseWav } from '../src/client/wav';
import { frenchWords } from '../src/models/lm/frenchText';
import { resolveConfig } from '../src/protocol';
import { Segmenter } from '../src/server/engine/segmenter';
import { type DecoderOptions, loadPocketsphinx } from '../src/server/engine/pocketsphinx/ffi';
import type { SearchEffort } from '../src/server/engine/pocketsphinx/languages';
import { type PocketsphinxDecoderModel, pocketsphinxModelSet } from '../src/server/engine/pocketsphinx/modelSet';
import { PocketsphinxRecognizer, Proofreader, type SentenceDecoder } from '../src/server/engine/pocketsphinx/recognizer';
import type { Proofread, RecognizedWord, Recognizer } from '../src/server/engine/recognizer';
import { Downsampler } from '../src/server/engine/downsample';
import { wordErrors } from '../test/helpers/recordings';

/** The shared speech (../shared/speech beside the repository), unless DICTEE_SPEECH_DIR says otherwise. */
export const SPEECH_DIR = process.env.DICTEE_SPEECH_DIR ?? path.resolve(__dirname, '..', '..', 'shared', 'speech');
/** Silence before and after each recording in a streamed session (ms). */
export const LEAD_MS = 400;
export const TAIL_MS = 1200;

export interface Clip {
  id: string;
  folder: string;
  /** 16 kHz s16le mono. */
  pcm: Buffer;
  reference: string;
}

/**
 * The development recordings of a language listed in the shared manifest, at 16 kHz (the telephone
 * prompts, 8 kHz, are left out), those of `folders` only when given.
 */
export function speechClips(language: string, folders: readonly string[] = []): Clip[] {
  const rows = readFileSync(path.join(SPEECH_DIR, 'manifest.tsv'), 'utf8').trim().split('\n').slice(1);
  const out: Clip[] = [];
  for (const row of rows) {
    const [file, lang, , rate, , , text] = row.split('\t');
    if (lang !== language || rate !== '16000' || !file || text === undefined) continue;
    const folder = path.basename(path.dirname(file));
    if (folders.length && !folders.includes(folder)) continue;
    out.push({ id: path.basename(file, '.wav'), folder, pcm: parseWav(readFileSync(path.join(SPEECH_DIR, file))).data, reference: text });
  }
  return out;
}

/** The words scored: French as the dictation grammar and the language model write them (elisions, numbers). */
export function scoredWords(language: string, text: string): string {
  return language === 'fr' ? frenchWords(text, () => false).join(' ') : text;
}

export interface ClipResult {
  id: string;
  words: number;
  seconds: number;
  whole: string;
  firstPass: string;
  final: string;
  errors: { whole: number; firstPass: number; final: number };
}

export interface Comparison {
  clips: ClipResult[];
  words: number;
  errors: { whole: number; firstPass: number; final: number };
  /**
   * CPU seconds per second of audio: the whole-file decode, the streamed session (both passes), and of
   * the streamed its whole-sentence proofreading decodes alone.
   */
  rtf: { whole: number; streamed: number; proofread: number };
  /** Each sentence proofread: its first pass (words and their confidences) and what the proofreading made of it. */
  sentences: SentenceRecord[];
}

export interface SentenceRecord {
  clip: string;
  firstPass: RecognizedWord[];
  proofread: string;
  /** CPU seconds of its proofreading decode (0 when the streaming decoder's own passes made it). */
  cpu: number;
}

/** The proofreading decoder, its decodes' CPU counted (they run synchronously in process). */
function timedDecoder(p: Proofreader, count: (s: number) => void): SentenceDecoder {
  const timed = <T>(f: () => T): Promise<T> => {
    const c0 = process.cpuUsage();
    try {
      return Promise.resolve(f());
    } catch (e) {
      return Promise.reject(e as Error);
    } finally {
      count(cpuS(process.cpuUsage(c0)));
    }
  };
  return {
    decode: (samples) => timed(() => p.decodeNow(samples)),
    decodeDetailed: (samples) => timed(() => p.decodeDetailedNow(samples)),
    dispose: () => p.dispose(),
  };
}

/** The recognizer with each sentence's first pass and proofread text recorded. */
function recording(r: Recognizer, clip: string, lastCpu: () => number, out: SentenceRecord[]): Recognizer {
  const text = (p: Proofread): string => (typeof p === 'string' ? p : p.text);
  return {
    name: r.name,
    resumeFrom: r.resumeFrom,
    push: (w, v, ms) => r.push(w, v, ms),
    endUtterance: (d) => r.endUtterance(d),
    endSentence: (firstPass, proofread, details) => {
      const before = lastCpu();
      const p = r.endSentence(firstPass, proofread, details);
      if (p === undefined) return p;
      const rec = (x: Proofread): Proofread => {
        out.push({ clip, firstPass, proofread: text(x), cpu: lastCpu() - before });
        return x;
      };
      return p instanceof Promise ? p.then(rec) : rec(p);
    },
    checkpoint: () => r.checkpoint(),
    restore: (s) => r.restore(s),
    dispose: () => r.dispose?.(),
  };
}

const samples = (b: Buffer): Int16Array => new Int16Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
const cpuS = (c: NodeJS.CpuUsage): number => (c.user + c.system) / 1e6;

/** The service's decoder model of `language` (general) in `modelsDir`, for the search `effort` (`--search`). */
export async function serviceModel(
  modelsDir: string,
  language: string,
  effort: SearchEffort = 'accurate',
): Promise<PocketsphinxDecoderModel> {
  const set = await pocketsphinxModelSet('/usr/share/pocketsphinx/model/en-us', false, modelsDir, effort);
  const m = set.models.find((x) => x.key === `${language}/general`);
  if (!m) throw new Error(`no ${language} model in ${modelsDir}: ${set.refused.map((r) => r.reason).join('; ') || 'not installed'}`);
  return m;
}

/** Decodes every clip whole and streamed (see the header), with the service's model of `language`. */
export async function compareDecodes(
  model: PocketsphinxDecoderModel,
  clips: readonly Clip[],
  opts: {
    live?: DecoderOptions;
    proofread?: DecoderOptions;
    /** false: no whole-file decode (its text empty, its errors and CPU NaN), where another run has it. */
    whole?: boolean;
    /** false: sessions that do not ask for details (word times, confidences, alternatives; default true). */
    details?: boolean;
  } = {},
): Promise<Comparison> {
  const ps = loadPocketsphinx();
  const proofreader = new Proofreader(ps, model, opts.proofread);
  let proofreadCpu = 0;
  const timedProofreader = timedDecoder(proofreader, (s) => (proofreadCpu += s));
  const sentences: SentenceRecord[] = [];
  // Each clip gets a streaming decoder of its own, as each session of the service does: one decoder kept
  // across clips carries its live cepstral mean (the front end's running estimate) from one recording to
  // the next, a warm start no session of the service has.
  const newLive = (): unknown => ps.init(model, opts.live ?? { live: true });
  let live: unknown;
  const rate = model.sampleRate ?? 16000;
  const cfg = resolveConfig({
    language: model.language,
    details: opts.details ?? true,
    silence_threshold: 1,
    engine_endpointing: 0.5,
  } as never);
  const out: ClipResult[] = [];
  let wholeCpu = 0;
  let streamedCpu = 0;
  let audioS = 0;
  try {
    for (const clip of clips) {
      const pcm = samples(clip.pcm);
      const atRate = rate === 16000 ? pcm : new Downsampler(16000, rate).push(pcm);
      let c0 = process.cpuUsage();
      const whole = opts.whole === false ? '' : proofreader.decodeNow(atRate);
      wholeCpu += cpuS(process.cpuUsage(c0));
      if (live !== undefined) ps.free(live);
      live = newLive();
      const r = recording(
        new PocketsphinxRecognizer(ps, model, () => timedProofreader, undefined, live),
        clip.id,
        () => proofreadCpu,
        sentences,
      );
      const late: string[] = [];
      const seg = new Segmenter(cfg, r, {
        onLateEvents: (evs) => evs.forEach((e) => e.type === 'batch.replace' && late.push(e.data.new_chunk.text)),
      });
      const session = Buffer.concat([Buffer.alloc(LEAD_MS * 32), clip.pcm, Buffer.alloc(TAIL_MS * 32)]);
      c0 = process.cpuUsage();
      const events = [];
      for (let i = 0; i < session.length; i += 3200) events.push(...seg.push(session.subarray(i, i + 3200)));
      events.push(...seg.flush({ proofread: true }));
      await seg.proofreadingDone();
      streamedCpu += cpuS(process.cpuUsage(c0));
      audioS += clip.pcm.length / 32000;
      const firstPass = events.flatMap((e) => (e.type === 'transcript' && e.status === 'final' ? [e.text] : [])).join(' ');
      const final = [...events.flatMap((e) => (e.type === 'batch.replace' ? [e.data.new_chunk.text] : [])), ...late].join(' ');
      const ref = scoredWords(model.language, clip.reference);
      const errs = (hyp: string): number => wordErrors(ref, scoredWords(model.language, hyp)).errors;
      out.push({
        id: clip.id,
        words: wordErrors(ref, '').words,
        seconds: clip.pcm.length / 32000,
        whole,
        firstPass,
        final,
        errors: { whole: opts.whole === false ? NaN : errs(whole), firstPass: errs(firstPass), final: errs(final) },
      });
    }
  } finally {
    proofreader.dispose();
    if (live !== undefined) ps.free(live);
  }
  const sum = (k: keyof ClipResult['errors']): number => out.reduce((n, c) => n + c.errors[k], 0);
  return {
    clips: out,
    words: out.reduce((n, c) => n + c.words, 0),
    errors: { whole: sum('whole'), firstPass: sum('firstPass'), final: sum('final') },
    rtf: { whole: opts.whole === false ? NaN : wholeCpu / audioS, streamed: streamedCpu / audioS, proofread: proofreadCpu / audioS },
    sentences,
  };
}

export const percent = (errors: number, words: number): string => `${((100 * errors) / words).toFixed(1)} % (${errors}/${words})`;

async function main(argv: string[]): Promise<void> {
  const arg = (name: string): string[] => argv.flatMap((a, i) => (a === name && argv[i + 1] ? [argv[i + 1]!] : []));
  const language = arg('--language')[0] ?? 'fr';
  const modelsDir = arg('--models')[0] ?? process.env.DICTEE_MODELS_DIR;
  if (!modelsDir) throw new Error('--models DIR (or DICTEE_MODELS_DIR): the models directory the service would use');
  const c = await compareDecodes(await serviceModel(modelsDir, language), speechClips(language, arg('--folder')));
  for (const r of c.clips) {
    console.log(`${r.id}: errors whole ${r.errors.whole}, first pass ${r.errors.firstPass}, final ${r.errors.final} of ${r.words}`);
    console.log(`  whole: ${r.whole}\n  first: ${r.firstPass}\n  final: ${r.final}`);
  }
  console.log(
    `WER whole file ${percent(c.errors.whole, c.words)}; streamed: first pass ${percent(c.errors.firstPass, c.words)}, final ${percent(c.errors.final, c.words)}`,
  );
  console.log(`CPU s per audio s: whole file ${c.rtf.whole.toFixed(3)}, streamed with proofreading ${c.rtf.streamed.toFixed(3)}`);
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
