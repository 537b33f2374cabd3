/**
 * The pocketsphinx 5prealpha C API (Debian's libpocketsphinx3 / libsphinxbase3) through koffi, and
 * the layout of a model directory. Loaded in the worker threads that decode, and once at start to
 * check that the library and the model are there.
 */
import { errorMessage } from '../../../shared/errors';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { EngineUnavailableError } from '../engine';
import type { LibraryHandle } from 'koffi';

type NativeFn = (...args: unknown[]) => unknown;

const POCKETSPHINX_LIBRARY = 'libpocketsphinx.so.3';
const SPHINXBASE_LIBRARY = 'libsphinxbase.so.3';
export const DEFAULT_POCKETSPHINX_MODEL = '/usr/share/pocketsphinx/model/en-us';
export const POCKETSPHINX_SAMPLE_RATE = 16000;
const DEBIAN_PACKAGES = 'libpocketsphinx3 pocketsphinx-en-us (apt-get install libpocketsphinx3 pocketsphinx-en-us)';

/** A model directory laid out as Debian's pocketsphinx-en-us. */
export interface PocketsphinxModel {
  dir: string;
  /** Acoustic model directory (`en-us/`, with `mdef`). */
  hmm: string;
  /** Language model (`en-us.lm.bin`). */
  lm: string;
  /** Pronunciation dictionary (`cmudict-en-us.dict`). */
  dict: string;
  /** The rate the acoustic model was trained at (default 16000): the audio is brought to it. */
  sampleRate?: number;
  /** Front-end options of the acoustic model (languages.ts `frontEnd`), after the defaults. */
  frontEnd?: ReadonlyArray<readonly [string, string]>;
  /** Its search options for the streaming decoder and for the proofreading one (languages.ts `search`). */
  search?: {
    live?: ReadonlyArray<readonly [string, string]>;
    proofread?: ReadonlyArray<readonly [string, string]>;
  };
}

/** Checks a model directory; throws {@link EngineUnavailableError} naming what is missing. */
export function pocketsphinxModel(dir: string): PocketsphinxModel {
  const abs = path.resolve(dir);
  const m: PocketsphinxModel = {
    dir: abs,
    hmm: path.join(abs, 'en-us'),
    lm: path.join(abs, 'en-us.lm.bin'),
    dict: path.join(abs, 'cmudict-en-us.dict'),
  };
  if (!existsSync(abs) || !statSync(abs).isDirectory()) {
    throw new EngineUnavailableError(
      `pocketsphinx model directory ${abs} does not exist; install the Debian package pocketsphinx-en-us or pass --model DIR (a directory with en-us/, en-us.lm.bin and cmudict-en-us.dict)`,
    );
  }
  const missing = [
    [path.join(m.hmm, 'mdef'), 'en-us/mdef (the acoustic model)'],
    [m.lm, 'en-us.lm.bin (the language model)'],
    [m.dict, 'cmudict-en-us.dict (the dictionary)'],
  ].filter(([f]) => !existsSync(f!));
  if (missing.length) {
    throw new EngineUnavailableError(`pocketsphinx model directory ${abs} lacks ${missing.map(([, what]) => what).join(', ')}`);
  }
  return m;
}

/** A word of the last utterance decoded, where it was heard (10 ms frames from its start) and how sure. */
export interface SegmentWord {
  word: string;
  startFrame: number;
  /** Last frame (inclusive). */
  endFrame: number;
  /** Posterior probability in [0, 1]. */
  confidence: number;
}

/** Frames are 10 ms. */
export const FRAME_MS = 10;

export interface UtteranceDetails {
  /** The words of the hypothesis (fillers and silences left out). */
  words: SegmentWord[];
  /** Other readings of the whole utterance, best first, distinct, none equal to the hypothesis. */
  alternatives: string[];
}

/**
 * The most HMMs a streaming decoder keeps active in a frame (pocketsphinx's `-maxhmmpf`; its default,
 * 30,000, is no bound for this model). Where speech starts after a pause the search widens and a 100 ms
 * frame took up to 200 ms to decode, holding back every session of its worker; bounded, at most 78 ms,
 * a third less CPU in all, and the same words on the LibriVox recordings (docs/engines.md). The
 * whole-sentence proofreading decode keeps the full search, unless its model says otherwise
 * ({@link PocketsphinxModel.search}).
 */
const LIVE_MAX_HMM_PER_FRAME = 5000;

type Options = ReadonlyArray<readonly [string, string]>;
const words = (o: Options = []): string => o.map(([k, v]) => `${k} ${v}`).join(' ');

/** A model's two searches in words (for the bench's tables). */
export function searchSettings(model: Pick<PocketsphinxModel, 'search'>): string {
  const live = withOptions(['-maxhmmpf', String(LIVE_MAX_HMM_PER_FRAME)], model.search?.live ?? []);
  return `live ${live.join(' ')}; proofreading ${words(model.search?.proofread) || 'unbounded'}`;
}

/** How a decoder is set up beyond its model (see {@link PocketsphinxApi.init}). */
export interface DecoderOptions {
  dropSilence?: boolean;
  live?: boolean;
  /** The whole-sentence proofreading decoder (the model's `search.proofread`). */
  proofread?: boolean;
  /** Other pocketsphinx options (name, value), in place of the same ones set here. */
  search?: ReadonlyArray<readonly [string, string]>;
}

export interface PocketsphinxApi {
  /**
   * A decoder for the model; throws when pocketsphinx refuses it. `dropSilence` (the bench's baseline
   * only): the library's own voice-activity filter drops silent frames, and word times with them.
   * `live`: a streaming decoder, whose search is bounded per frame ({@link LIVE_MAX_HMM_PER_FRAME}); `live`
   * or `proofread` (the whole-sentence decoder): the model's own search for it ({@link PocketsphinxModel.search}).
   */
  init(model: PocketsphinxModel, opts?: DecoderOptions): unknown;
  startUtt(ps: unknown): void;
  processRaw(ps: unknown, samples: Int16Array, fullUtt: boolean): void;
  endUtt(ps: unknown): void;
  /** The best hypothesis so far ('' when none). */
  hyp(ps: unknown): string;
  /**
   * After `endUtt`: the hypothesis's word times and confidences, and up to `nbest` alternatives. A
   * word's confidence is the posterior probability, in the word graph, of that word at the middle of
   * its span (the links of the same word crossing it, summed).
   */
  details(ps: unknown, nbest: number): UtteranceDetails;
  free(ps: unknown): void;
  /** Whether the library's log, one for the whole process, is off (see {@link loadPocketsphinx}). */
  libraryLogOff(): boolean;
}

/** Silences and fillers in a segmentation (`<s>`, `<sil>`, `[NOISE]`, `++UH++`). */
const isFiller = (w: string): boolean => /^[<[+]/u.test(w);
/** `word(2)`: the second pronunciation of `word`. */
const baseWord = (w: string): string => w.replace(/\(\d+\)$/u, '');
/** The language weight of the word graph's best path, as the decoder's own bestpath pass (1 without fwdflat). */
const BESTPATH_LW_RATIO = 1.0;
/** The decoder's acoustic scale (1 / `-ascale`, 20 by default). */
const ACOUSTIC_SCALE = 1 / 20;
/** N-best entries read at most to find distinct alternatives. */
const NBEST_READ = 20;

let api: PocketsphinxApi | undefined;

/** An argument vector with `extra`'s options in place of the same ones (pocketsphinx refuses a repeated option). */
function withOptions(args: string[], extra: ReadonlyArray<readonly [string, string]>): string[] {
  const out = [...args];
  for (const [k, v] of extra) {
    const at = out.findIndex((a, i) => i % 2 === 0 && a === k);
    if (at >= 0) out[at + 1] = v;
    else out.push(k, v);
  }
  return out;
}

/** Loads the libraries (once per thread). Throws {@link EngineUnavailableError} when they are missing. */
export function loadPocketsphinx(): PocketsphinxApi {
  if (api) return api;
  let koffi: typeof import('koffi');
  try {
    koffi = require('koffi') as typeof import('koffi');
  } catch (e) {
    throw new EngineUnavailableError(`the koffi package (FFI for pocketsphinx) cannot be loaded: ${errorMessage(e)}; run npm ci`);
  }
  let ps: LibraryHandle;
  let sb: LibraryHandle;
  try {
    sb = koffi.load(SPHINXBASE_LIBRARY);
    ps = koffi.load(POCKETSPHINX_LIBRARY);
  } catch (e) {
    throw new EngineUnavailableError(
      `the pocketsphinx library cannot be loaded (${errorMessage(e)}); install the Debian packages ${DEBIAN_PACKAGES}`,
    );
  }
  const f = (lib: LibraryHandle, decl: string): NativeFn => lib.func(decl) as NativeFn;
  // The library logs to one FILE for the whole process. A decoder given `-logfn` opens another and closes
  // the last (err_set_logfile), while another thread loading or running a decoder may be writing to it:
  // a use after free, and a service that crashed (SIGSEGV) at a start where its threads loaded their
  // decoders at once. So the log is turned off here, before any decoder (err_set_logfp(NULL) only sets
  // two variables, so every thread doing it is harmless), and no decoder is given `-logfn`. Nothing the
  // library says reaches a log: its hypotheses are dictated text.
  f(sb, 'void err_set_logfp(void *stream)')(null);
  const getLogFp = f(sb, 'void *err_get_logfp(void)');
  const psArgs = f(ps, 'void *ps_args(void)');
  // An argument vector rather than cmd_ln_init's variadic list: koffi takes at most 64 arguments in a call.
  const cmdLnParse = f(sb, 'void *cmd_ln_parse_r(void *inout, void *defn, int argc, const char **argv, int strict)');
  const cmdLnFree = f(sb, 'int cmd_ln_free_r(void *cmdln)');
  const psInit = f(ps, 'void *ps_init(void *config)');
  const psStart = f(ps, 'int ps_start_utt(void *ps)');
  const psProcess = f(ps, 'int ps_process_raw(void *ps, const int16_t *data, size_t n, int no_search, int full_utt)');
  const psEnd = f(ps, 'int ps_end_utt(void *ps)');
  const psHyp = f(ps, 'const char *ps_get_hyp(void *ps, _Out_ int32_t *score)');
  const psFree = f(ps, 'int ps_free(void *ps)');
  const segIter = f(ps, 'void *ps_seg_iter(void *ps)');
  const segNext = f(ps, 'void *ps_seg_next(void *seg)');
  const segWord = f(ps, 'const char *ps_seg_word(void *seg)');
  const segFrames = f(ps, 'void ps_seg_frames(void *seg, _Out_ int *sf, _Out_ int *ef)');
  const getLattice = f(ps, 'void *ps_get_lattice(void *ps)');
  const getSearch = f(ps, 'const char *ps_get_search(void *ps)');
  const getLm = f(ps, 'void *ps_get_lm(void *ps, const char *name)');
  const latLogmath = f(ps, 'void *ps_lattice_get_logmath(void *dag)');
  const latBestpath = f(ps, 'void *ps_lattice_bestpath(void *dag, void *lmset, float lwf, float ascale)');
  const latPosterior = f(ps, 'int32_t ps_lattice_posterior(void *dag, void *lmset, float ascale)');
  const latEdges = f(ps, 'void *ps_lattice_traverse_edges(void *dag, void *start, void *end)');
  const latNext = f(ps, 'void *ps_lattice_traverse_next(void *dag, void *end)');
  const linkTimes = f(ps, 'int ps_latlink_times(void *link, _Out_ int16_t *sf)');
  const linkWord = f(ps, 'const char *ps_latlink_baseword(void *dag, void *link)');
  const linkProb = f(ps, 'int32_t ps_latlink_prob(void *dag, void *link, _Out_ int32_t *ascr)');
  const logmathExp = f(sb, 'double logmath_exp(void *lmath, int p)');
  const nbestStart = f(ps, 'void *ps_nbest(void *ps)');
  const nbestNext = f(ps, 'void *ps_nbest_next(void *nbest)');
  const nbestHyp = f(ps, 'const char *ps_nbest_hyp(void *nbest, _Out_ int32_t *score)');
  const nbestFree = f(ps, 'void ps_nbest_free(void *nbest)');
  const segments = (d: unknown): SegmentWord[] => {
    const out: SegmentWord[] = [];
    // Frames count from the decoder's stream, which does not always restart with the utterance; the
    // first segment (`<s>`) starts the utterance: frames are made relative to it, as the word graph's.
    let origin: number | undefined;
    for (let g = segIter(d); g; g = segNext(g)) {
      const w = segWord(g) as string;
      const sf = [0];
      const ef = [0];
      segFrames(g, sf, ef);
      origin ??= sf[0]!;
      if (!isFiller(w)) out.push({ word: baseWord(w), startFrame: sf[0]! - origin, endFrame: ef[0]! - origin, confidence: 0 });
    }
    return out;
  };
  const confidences = (d: unknown, words: SegmentWord[]): void => {
    const dag = getLattice(d);
    const lm = getLm(d, getSearch(d));
    if (!dag || !lm || words.length === 0) return;
    const lmath = latLogmath(dag);
    latBestpath(dag, lm, BESTPATH_LW_RATIO, ACOUSTIC_SCALE);
    latPosterior(dag, lm, ACOUSTIC_SCALE);
    const wanted = new Set(words.map((w) => w.word));
    const links: Array<{ word: string; sf: number; ef: number; p: number }> = [];
    for (let l = latEdges(dag, null, null); l; l = latNext(dag, null)) {
      const word = linkWord(dag, l) as string;
      if (!wanted.has(word)) continue;
      const sf = [0];
      const ef = linkTimes(l, sf) as number;
      links.push({ word, sf: sf[0]!, ef, p: logmathExp(lmath, linkProb(dag, l, [0])) as number });
    }
    for (const w of words) {
      const mid = (w.startFrame + w.endFrame) / 2;
      const p = links.filter((l) => l.word === w.word && l.sf <= mid && mid <= l.ef).reduce((n, l) => n + l.p, 0);
      w.confidence = Math.min(1, Math.max(0, p));
    }
  };
  const alternatives = (d: unknown, hyp: string, n: number): string[] => {
    const out: string[] = [];
    let it = nbestStart(d);
    for (let read = 0; it && out.length < n && read < NBEST_READ; read++) {
      it = nbestNext(it);
      if (!it) break;
      const text = ((nbestHyp(it, [0]) as string | null) ?? '').trim();
      if (text !== '' && text !== hyp && !out.includes(text)) out.push(text);
    }
    if (it) nbestFree(it);
    return out;
  };
  const check = (what: string, rc: unknown): void => {
    if (typeof rc === 'number' && rc < 0) throw new Error(`pocketsphinx ${what} failed (${rc})`);
  };
  api = {
    init(model, opts) {
      const s = (v: string): [string] => [v];
      const base = [
        ...s('-hmm'),
        ...s(model.hmm),
        ...s('-lm'),
        ...s(model.lm),
        ...s('-dict'),
        ...s(model.dict),
        ...s('-samprate'),
        ...s(String(model.sampleRate ?? POCKETSPHINX_SAMPLE_RATE)),
        ...(model.frontEnd ?? []).filter(([k]) => k !== '-samprate').flatMap(([k, v]) => [...s(k), ...s(v)]),
        // One search pass: ending an utterance costs milliseconds instead of a second pass over it
        // (0.2–1 s for a sentence); the whole-sentence re-decode is the second look.
        ...s('-fwdflat'),
        ...s('no'),
        ...s('-bestpath'),
        ...s('no'),
        // Every frame is decoded, silence too: word times (10 ms frames) are then times in the audio.
        // (Its voice-activity filter drops silent frames, and the times with them.)
        ...s('-remove_silence'),
        ...s(opts?.dropSilence ? 'yes' : 'no'),
        ...(opts?.live ? [...s('-maxhmmpf'), ...s(String(LIVE_MAX_HMM_PER_FRAME))] : []),
      ];
      const own = opts?.live ? model.search?.live : opts?.proofread ? model.search?.proofread : undefined;
      const args = withOptions(withOptions(base, own ?? []), opts?.search ?? []);
      const config = cmdLnParse(null, psArgs(), args.length, args, 1) as unknown;
      if (!config) throw new EngineUnavailableError(`pocketsphinx refused the model configuration in ${model.dir}`);
      const decoder = psInit(config) as unknown;
      cmdLnFree(config); // the decoder keeps its own reference
      if (!decoder) throw new EngineUnavailableError(`pocketsphinx could not load the model in ${model.dir}`);
      return decoder;
    },
    startUtt: (d) => check('start_utt', psStart(d)),
    processRaw: (d, samples, fullUtt) => check('process_raw', psProcess(d, samples, samples.length, 0, fullUtt ? 1 : 0)),
    endUtt: (d) => check('end_utt', psEnd(d)),
    hyp: (d) => (psHyp(d, [0]) as string | null) ?? '',
    details: (d, nbest) => {
      const hyp = ((psHyp(d, [0]) as string | null) ?? '').trim();
      const words = segments(d);
      // The n-best list first: the word graph is the same, and its search leaves the posteriors alone.
      const alts = nbest > 0 ? alternatives(d, hyp, nbest) : [];
      confidences(d, words);
      return { words, alternatives: alts };
    },
    free: (d) => {
      psFree(d);
    },
    libraryLogOff: () => getLogFp() === null,
  };
  return api;
}
