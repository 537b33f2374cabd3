/**
 * Models `npm run models` knows: sherpa-onnx streaming transducers as the sherpa-onnx project
 * publishes them (one `.tar.bz2` per model, one top-level directory named after it). An entry's
 * `sha256` and `size` are pinned from the published release; an entry without them cannot be
 * fetched (a hash read at download time proves nothing): download it yourself, check it, and
 * `import` it with `--name`.
 */

export interface CatalogueEntry {
  name: string;
  languages: string[];
  url: string;
  /** Bytes of the archive, or null while not pinned. */
  size: number | null;
  /** sha256 of the archive (hex), or null while not pinned. */
  sha256: string | null;
  /** Files of the streaming transducer, relative to the model directory. */
  transducer: { encoder: string; decoder: string; joiner: string; tokens: string };
  featureDim: number;
  modelType?: string;
  licence: string;
}

const RELEASES = 'https://github.com/k2-fsa/sherpa-onnx/releases/download/asr-models';

export const CATALOGUE: CatalogueEntry[] = [
  {
    name: 'sherpa-onnx-streaming-zipformer-en-2023-06-26',
    languages: ['en'],
    url: `${RELEASES}/sherpa-onnx-streaming-zipformer-en-2023-06-26.tar.bz2`,
    size: null,
    sha256: null,
    transducer: {
      encoder: 'encoder-epoch-99-avg-1-chunk-16-left-128.int8.onnx',
      decoder: 'decoder-epoch-99-avg-1-chunk-16-left-128.onnx',
      joiner: 'joiner-epoch-99-avg-1-chunk-16-left-128.int8.onnx',
      tokens: 'tokens.txt',
    },
    featureDim: 80,
    licence: 'Apache-2.0',
  },
  {
    name: 'sherpa-onnx-streaming-zipformer-fr-kroko-2025-08-06',
    languages: ['fr'],
    url: `${RELEASES}/sherpa-onnx-streaming-zipformer-fr-kroko-2025-08-06.tar.bz2`,
    size: null,
    sha256: null,
    transducer: { encoder: 'encoder.onnx', decoder: 'decoder.onnx', joiner: 'joiner.onnx', tokens: 'tokens.txt' },
    featureDim: 80,
    modelType: 'zipformer2',
    licence: 'unclear (the model card says non-commercial; check before use)',
  },
];
