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

export const POCKETSPHINX_LIBRARY = 'libpocketsphinx.so.3';
export const SPHINXBASE_LIBRARY = 'libsphinxbase.so.3';
export const DEFAULT_POCKETSPHINX_MODEL = '/usr/share/pocketsphinx/model/en-us';
export const POCKETSPHINX_SAMPLE_RATE = 16000;
export const POCKETSPHINX_LANGUAGES = ['en'] as const;
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
}

/** Checks a model directory; throws {@link EngineUnavailableError} naming what is missing. */
export function pocketsphinxModel(dir: string): PocketsphinxModel {
  const abs = path.resolve(dir);
  const m: PocketsphinxModel = { dir: abs, hmm: path.join(abs, 'en-us'), lm: path.join(abs, 'en-us.lm.bin'), dict: path.join(abs, 'cmudict-en-us.dict') };
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

export interface PocketsphinxApi {
  /** A decoder for the model; throws when pocketsphinx refuses it. */
  init(model: PocketsphinxModel): unknown;
  startUtt(ps: unknown): void;
  processRaw(ps: unknown, samples: Int16Array, fullUtt: boolean): void;
  endUtt(ps: unknown): void;
  /** The best hypothesis so far ('' when none). */
  hyp(ps: unknown): string;
  free(ps: unknown): void;
}

let api: PocketsphinxApi | undefined;

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
    throw new EngineUnavailableError(`the pocketsphinx library cannot be loaded (${errorMessage(e)}); install the Debian packages ${DEBIAN_PACKAGES}`);
  }
  const f = (lib: LibraryHandle, decl: string): NativeFn => lib.func(decl) as NativeFn;
  const psArgs = f(ps, 'void *ps_args(void)');
  const cmdLnInit = f(sb, 'void *cmd_ln_init(void *inout, void *defn, int strict, ...)');
  const cmdLnFree = f(sb, 'int cmd_ln_free_r(void *cmdln)');
  const psInit = f(ps, 'void *ps_init(void *config)');
  const psStart = f(ps, 'int ps_start_utt(void *ps)');
  const psProcess = f(ps, 'int ps_process_raw(void *ps, const int16_t *data, size_t n, int no_search, int full_utt)');
  const psEnd = f(ps, 'int ps_end_utt(void *ps)');
  const psHyp = f(ps, 'const char *ps_get_hyp(void *ps, _Out_ int32_t *score)');
  const psFree = f(ps, 'int ps_free(void *ps)');
  const check = (what: string, rc: unknown): void => {
    if (typeof rc === 'number' && rc < 0) throw new Error(`pocketsphinx ${what} failed (${rc})`);
  };
  api = {
    init(model) {
      const s = (v: string): [string, string] => ['str', v];
      const args = [
        ...s('-hmm'), ...s(model.hmm),
        ...s('-lm'), ...s(model.lm),
        ...s('-dict'), ...s(model.dict),
        ...s('-samprate'), ...s(String(POCKETSPHINX_SAMPLE_RATE)),
        // One search pass: ending an utterance costs milliseconds instead of a second pass over it
        // (0.2–1 s for a sentence); the whole-sentence re-decode is the second look.
        ...s('-fwdflat'), ...s('no'),
        ...s('-bestpath'), ...s('no'),
        // Its own log goes nowhere: dictated text must never reach a log.
        ...s('-logfn'), ...s('/dev/null'),
      ];
      const config = cmdLnInit(null, psArgs(), 1, ...args, 'void *', null) as unknown;
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
    free: (d) => {
      psFree(d);
    },
  };
  return api;
}
