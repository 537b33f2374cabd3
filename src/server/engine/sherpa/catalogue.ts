/**
 * The models `npm run models` installs and `--model NAME` names: sherpa-onnx exports as the
 * sherpa-onnx project publishes them, each file pinned by size and sha256 at a fixed commit of its
 * Hugging Face mirror. Files, feature dimensions and model types follow sherpa-onnx's Node examples
 * (`nodejs-addon-examples/test_asr_streaming_nemotron.js`, `test_asr_streaming_transducer.js`,
 * `test_asr_non_streaming_nemo_parakeet_tdt_v2.js`). The pins (revision, sizes, sha256) were read
 * from public projects that pin the same files (docs/engines.md says which); they were never checked
 * against the hub from here, which cannot reach it: a fetch whose bytes differ fails and installs
 * nothing.
 *
 * This module is data only, in the server's layer so that the service resolves `--model NAME`.
 */

/** One file of a model: its path inside the model (and the mirror), size and sha256 when pinned. */
export interface CatalogueFile {
  role: 'encoder' | 'decoder' | 'joiner' | 'tokens';
  path: string;
  size: number;
  /** Lower-case hex; null where the catalogue cannot pin it (the hub's published hash is checked, and locked). */
  sha256: string | null;
}

export interface CatalogueEntry {
  name: string;
  /** `online`: a streaming recognizer (first pass); `offline`: whole utterances (the proofreading pass). */
  kind: 'online' | 'offline';
  /** Languages the service offers with this model (those the model card calls ready for transcription). */
  languages: string[];
  /** The language is chosen per stream (`stream.setOption('language', …)`), e.g. Nemotron 3.5. */
  perStreamLanguage: boolean;
  /** Casing and punctuation come out of the model. */
  punctuates: boolean;
  featureDim: number;
  /** sherpa-onnx's `modelConfig.modelType`, where the model needs one. */
  modelType?: string;
  licence: string;
  /** Hugging Face repository that mirrors the release archive, file by file. */
  hfRepo: string;
  /** A commit of `hfRepo` (40 hex digits), or a branch such as `main` (then the lock pins the commit at first fetch). */
  revision: string;
  /** The release archive (`.tar.bz2`, one top directory named after the model): the fallback source. */
  archiveUrl: string;
  /** Approximate bytes of the archive (null: not known here); its Content-Length decides the disk check. */
  archiveSize: number | null;
  files: CatalogueFile[];
  note?: string;
}

const RELEASES = 'https://github.com/k2-fsa/sherpa-onnx/releases/download/asr-models';
const KROKO_LICENCE =
  'UNCLEAR: the model card says free for non-commercial use only; Kroko elsewhere says CC-BY-SA. Check with the authors before any commercial use';

function files(f: Record<CatalogueFile['role'], [string, number, string | null]>): CatalogueFile[] {
  return (Object.keys(f) as Array<CatalogueFile['role']>).map((role) => ({ role, path: f[role][0], size: f[role][1], sha256: f[role][2] }));
}

export const CATALOGUE: readonly CatalogueEntry[] = [
  {
    // 560 ms chunks: the middle of the four exports (80, 160, 560, 1120 ms; a 320 ms one is published
    // too). Text appears at most ~0.6 s behind speech, which reads as live in an editor, while the
    // encoder sees enough right context to stay close to the 1120 ms export's accuracy; 80/160 ms
    // cost more decoding per second of audio and lose accuracy for latency a dictation does not need.
    name: 'sherpa-onnx-nemotron-3.5-asr-streaming-0.6b-560ms-int8-2026-06-11',
    kind: 'online',
    languages: ['fr', 'en', 'es', 'de'],
    perStreamLanguage: true,
    punctuates: true,
    featureDim: 128,
    licence: 'OpenMDW-1.1 (NVIDIA)',
    hfRepo: 'csukuangfj2/sherpa-onnx-nemotron-3.5-asr-streaming-0.6b-560ms-int8-2026-06-11',
    revision: 'ab43d895f5985b1bbab8b6eac8607fcdc05343f3',
    archiveUrl: `${RELEASES}/sherpa-onnx-nemotron-3.5-asr-streaming-0.6b-560ms-int8-2026-06-11.tar.bz2`,
    archiveSize: 475_271_763,
    files: files({
      encoder: ['encoder.int8.onnx', 657_601_403, '012e9321373af99021415e0b0eb3ec827b4be3153be6f30d9b448fe65e896e68'],
      decoder: ['decoder.int8.onnx', 14_978_075, '19f9c98fc6d0a2c33a65a43b36fdb2e914c26c0aa9764be3aebc502a1e982fb0'],
      joiner: ['joiner.int8.onnx', 9_504_438, '4101c7c679a0bc30483794b27a059e34e79232aa2068d78d51231a22c8b0d7ce'],
      tokens: ['tokens.txt', 131_440, '729cc103155bafa785f9cd45746cd41cabe97eab7182fc04d594129587958f8a'],
    }),
    note: 'recommended: French, English, Spanish, German with punctuation and casing; the language pinned per session',
  },
  {
    name: 'sherpa-onnx-nemo-parakeet-tdt-0.6b-v3-int8',
    kind: 'offline',
    languages: [
      'bg',
      'hr',
      'cs',
      'da',
      'nl',
      'en',
      'et',
      'fi',
      'fr',
      'de',
      'el',
      'hu',
      'it',
      'lv',
      'lt',
      'mt',
      'pl',
      'pt',
      'ro',
      'sk',
      'sl',
      'es',
      'sv',
      'ru',
      'uk',
    ],
    perStreamLanguage: false,
    punctuates: true,
    // 128-bin log-mel, as its export declares (`feat_dim` in the encoder's metadata, which sherpa-onnx
    // then uses whatever the configuration says): scripts/nemo/parakeet-tdt-0.6b-v3/export_onnx.py.
    featureDim: 128,
    modelType: 'nemo_transducer',
    licence: 'CC-BY-4.0 (NVIDIA)',
    hfRepo: 'csukuangfj/sherpa-onnx-nemo-parakeet-tdt-0.6b-v3-int8',
    revision: '2bda32ec70b097a55adaa07d9a7173915b43cc78',
    archiveUrl: `${RELEASES}/sherpa-onnx-nemo-parakeet-tdt-0.6b-v3-int8.tar.bz2`,
    archiveSize: 487_000_000,
    files: files({
      encoder: ['encoder.int8.onnx', 652_184_281, 'acfc2b4456377e15d04f0243af540b7fe7c992f8d898d751cf134c3a55fd2247'],
      decoder: ['decoder.int8.onnx', 11_845_275, '179e50c43d1a9de79c8a24149a2f9bac6eb5981823f2a2ed88d655b24248db4e'],
      joiner: ['joiner.int8.onnx', 6_355_277, '3164c13fc2821009440d20fcb5fdc78bff28b4db2f8d0f0b329101719c0948b3'],
      tokens: ['tokens.txt', 93_939, 'd58544679ea4bc6ac563d1f545eb7d474bd6cfa467f0a6e2c1dc1c7d37e3c35d'],
    }),
    note: 'the proofreading pass: each finished sentence decoded again (25 European languages, detected)',
  },
  {
    name: 'sherpa-onnx-streaming-zipformer-en-2023-06-26',
    kind: 'online',
    languages: ['en'],
    perStreamLanguage: false,
    punctuates: false,
    featureDim: 80,
    licence: 'Apache-2.0',
    hfRepo: 'csukuangfj/sherpa-onnx-streaming-zipformer-en-2023-06-26',
    revision: '672fbf1b30579d6585301139bb363f42a0ad4a24',
    archiveUrl: `${RELEASES}/sherpa-onnx-streaming-zipformer-en-2023-06-26.tar.bz2`,
    archiveSize: null, // it carries every variant of the export, of which four files are used
    files: files({
      encoder: [
        'encoder-epoch-99-avg-1-chunk-16-left-128.int8.onnx',
        71_083_163,
        '563fde436d16cf7607cf408cd6b30909819d03162652ef389c2450ced3f45ac1',
      ],
      decoder: [
        'decoder-epoch-99-avg-1-chunk-16-left-128.onnx',
        2_092_621,
        '7bf787f90b194b307e5a4ad6a34fadb4e748304c35f78a8d66358a05b13ee6ef',
      ],
      joiner: [
        'joiner-epoch-99-avg-1-chunk-16-left-128.int8.onnx',
        259_335,
        'd944208d660d67c8d72cd2acaeac971fa5ceb8c80e76c1968148846fedd6e297',
      ],
      tokens: ['tokens.txt', 5_048, '49e3c2646595fd907228b3c6787069658f67b17377c60aeb8619c4551b2316fb'],
    }),
    note: 'light English model, no punctuation or casing',
  },
  kroko('fr', '08b84b7b7cf519be9817e9c16919d96a7a8bad91', 55_000_000, {
    encoder: ['encoder.onnx', 70_092_599, 'e02facae1daf6f1f13da67ea3ace7c722516d0868d1768d78c0580bc22cc0c5b'],
    decoder: ['decoder.onnx', 617_488, '6aed547570e3ab5afc05429a017cedd3a056c16df3baa5703f02461cefa25bac'],
    joiner: ['joiner.onnx', 336_817, 'a51eec759bcdcaae2614686fa2a8b57417b2d420dd55a5a5558b388d35a9b2b6'],
    tokens: ['tokens.txt', 5_415, 'fedfb9c844bfb2bf14171f8184863e3d617b815a8667bdd9fc9a3149fde73298'],
  }),
  kroko('es', '20cf7a4921613397841d31168796cade5b866585', 120_000_000, {
    encoder: ['encoder.onnx', 154_878_102, '2d9f5ef87d1a5257f8a6687e21501c56f3aa2fcbfcfab9364dcc4ce4e06ae81b'],
    decoder: ['decoder.onnx', 617_488, 'd4ce176b94b25f7acc88717bc3f704fcf5d6e131aaac2e0cabab3885541181ee'],
    joiner: ['joiner.onnx', 336_817, 'dae35df88d676e320fcdb99217328e66dcf722bf11b0f2459e14ddb5b982ded5'],
    tokens: ['tokens.txt', 6_385, '1be5e0a58e05d06d327df4c6b7b5e4f8aba01da6981eb016fcaceafc6a56680f'],
  }),
  kroko('de', '887db3d083240198c2d2b99fb66cfcfe6948ced8', 55_000_000, {
    encoder: ['encoder.onnx', 70_091_557, '6e83993d6967ec7a3498b055b7e85ace85b5d64d1b1e8773cb29a43a11f5edb5'],
    decoder: ['decoder.onnx', 617_489, '94a29592b403c53fa2231b478637da1ab4abcef7f5e46e432098416a4a3ed562'],
    joiner: ['joiner.onnx', 336_817, '28356bff070aea51ab1d725a3278e81d19f9300f860d3248a7014292264df15a'],
    tokens: ['tokens.txt', 5_606, '86e8370994ff2c01149ba8c4f8709aa93cdc18914b27a717e291e96faf39a6eb'],
  }),
];

function kroko(lang: 'fr' | 'es' | 'de', revision: string, archiveSize: number | null, f: Parameters<typeof files>[0]): CatalogueEntry {
  const name = `sherpa-onnx-streaming-zipformer-${lang}-kroko-2025-08-06`;
  return {
    name,
    kind: 'online',
    languages: [lang],
    perStreamLanguage: false,
    punctuates: false,
    featureDim: 80,
    modelType: 'zipformer2',
    licence: KROKO_LICENCE,
    hfRepo: `csukuangfj/${name}`,
    revision,
    archiveUrl: `${RELEASES}/${name}.tar.bz2`,
    archiveSize,
    files: files(f),
    note: `light ${lang} model (Kroko), no punctuation or casing; licence unclear`,
  };
}

/** The recommended streaming model (fr, en, es, de with punctuation), and the model of the proofreading pass. */
export const RECOMMENDED_STREAMING_MODEL = 'sherpa-onnx-nemotron-3.5-asr-streaming-0.6b-560ms-int8-2026-06-11';
export const PROOFREADING_MODEL = 'sherpa-onnx-nemo-parakeet-tdt-0.6b-v3-int8';

/** The entry named `name`, or undefined. */
export function catalogueEntry(name: string, catalogue: readonly CatalogueEntry[] = CATALOGUE): CatalogueEntry | undefined {
  return catalogue.find((e) => e.name === name);
}

/** Total bytes of an entry's files. */
export function entrySize(e: CatalogueEntry): number {
  return e.files.reduce((n, f) => n + f.size, 0);
}
