/**
 * A language model given to the decoders in its binary form (binaryLm.ts): made by Debian's
 * `sphinx_lm_convert` from an ARPA file written here (a bigram of the reference transcripts of
 * pocketsphinx-testdata's recordings), it decodes two of those real recordings to the same words as the ARPA
 * file, is made once, and a converter that is missing or fails leaves the ARPA file in use with the reason.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { binaryLanguageModel } from '../../src/server/engine/pocketsphinx/binaryLm';
import { DEFAULT_POCKETSPHINX_MODEL, loadPocketsphinx, pocketsphinxModel } from '../../src/server/engine/pocketsphinx/ffi';
import { Proofreader } from '../../src/server/engine/pocketsphinx/recognizer';
import { recordings, recordingsAvailable } from '../helpers/recordings';

/** A bigram ARPA model of `sentences` (maximum likelihood, a fixed back-off weight). */
function bigramArpa(sentences: readonly string[]): string {
  const uni = new Map<string, number>();
  const bi = new Map<string, number>();
  let total = 0;
  for (const s of sentences) {
    const ws = ['<s>', ...s.split(/\s+/u).filter(Boolean), '</s>'];
    ws.forEach((w, i) => {
      uni.set(w, (uni.get(w) ?? 0) + 1);
      total++;
      if (i > 0) bi.set(`${ws[i - 1]} ${w}`, (bi.get(`${ws[i - 1]} ${w}`) ?? 0) + 1);
    });
  }
  const lg = (x: number): string => Math.log10(x).toFixed(6);
  return [
    '\\data\\',
    `ngram 1=${uni.size}`,
    `ngram 2=${bi.size}`,
    '',
    '\\1-grams:',
    ...[...uni].map(([w, n]) => `${w === '<s>' ? '-99.000000' : lg(n / total)}\t${w}\t-0.500000`),
    '',
    '\\2-grams:',
    ...[...bi].map(([k, n]) => `${lg(n / uni.get(k.split(' ')[0]!)!)}\t${k}`),
    '',
    '\\end\\',
    '',
  ].join('\n');
}

describe('pocketsphinx: the language model in binary form', function () {
  this.timeout(120_000);
  const converter = spawnSync('sphinx_lm_convert', ['-i'], { stdio: 'ignore' }).error === undefined;
  let dir: string;
  let tmp: string | undefined;
  before(function () {
    if (!recordingsAvailable() || !converter) this.skip(); // sphinxbase-utils and pocketsphinx-testdata (.ci/run installs both)
    dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-binlm-'));
    // Derived files go to the temporary directory's dictee-pocketsphinx-<uid>: one of this test's own.
    tmp = process.env.TMPDIR;
    process.env.TMPDIR = dir;
  });
  after(() => {
    if (tmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmp;
    if (dir) rmSync(dir, { recursive: true, force: true });
    delete process.env.DICTEE_SPHINX_LM_CONVERT;
  });

  it('decodes real recordings to the same words as its ARPA file, and is made once', async () => {
    const all = recordings();
    // The model is of every transcript; two recordings decoded (each decode takes a second or more on a busy machine).
    const recs = [all.find((r) => r.name === 'goforward')!, [...all].sort((a, b) => a.pcm.length - b.pcm.length)[0]!];
    const arpa = path.join(dir, 'test.arpa');
    writeFileSync(arpa, bigramArpa(all.map((r) => r.reference)));
    const bin = await binaryLanguageModel(arpa);
    assert.equal(bin.note, undefined);
    assert.notEqual(bin.lm, arpa);
    assert.ok(bin.lm.startsWith(path.join(dir, 'dictee-pocketsphinx-')) && bin.lm.endsWith('.lm.bin'), bin.lm);
    const made = statSync(bin.lm).mtimeMs;
    assert.deepEqual(await binaryLanguageModel(arpa), { lm: bin.lm });
    assert.equal(statSync(bin.lm).mtimeMs, made, 'made again');
    const ps = loadPocketsphinx();
    const en = pocketsphinxModel(DEFAULT_POCKETSPHINX_MODEL);
    // The English dictionary's entries of the model's words only (all 130k take seconds to load per decoder).
    const vocabulary = new Set(all.flatMap((r) => r.reference.split(/\s+/u)));
    const dict = path.join(dir, 'test.dict');
    const entries = readFileSync(en.dict, 'utf8')
      .split('\n')
      .filter((l) => vocabulary.has(l.split(' ')[0]!.replace(/\(\d+\)$/u, '')));
    writeFileSync(dict, `${entries.join('\n')}\n`);
    const text = new Proofreader(ps, { ...en, lm: arpa, dict });
    const binary = new Proofreader(ps, { ...en, lm: bin.lm, dict });
    try {
      for (const r of recs) {
        const pcm = new Int16Array(r.pcm.buffer.slice(r.pcm.byteOffset, r.pcm.byteOffset + r.pcm.length));
        const a = text.decodeNow(pcm);
        assert.ok(a.split(' ').length >= 3, `${r.name}: ${a}`);
        assert.equal(binary.decodeNow(pcm), a, r.name);
      }
    } finally {
      text.dispose();
      binary.dispose();
    }
  });

  it('a malformed ARPA file or a missing converter: the ARPA file is used, with the reason, and nothing is left behind', async () => {
    const bad = path.join(dir, 'bad.arpa');
    writeFileSync(bad, '\\data\\\nngram 1=3\n\n\\1-grams:\n-1.0\tone\n\\end\\\n');
    const r = await binaryLanguageModel(bad);
    assert.equal(r.lm, bad);
    assert.match(r.note ?? '', /sphinx_lm_convert failed/);
    const derived = readdirSync(dir).filter((f) => f.startsWith('dictee-pocketsphinx-'));
    for (const d of derived)
      assert.deepEqual(
        readdirSync(path.join(dir, d)).filter((f) => f.includes('.part')),
        [],
      );
    process.env.DICTEE_SPHINX_LM_CONVERT = path.join(dir, 'no-such-converter');
    const good = path.join(dir, 'other.arpa');
    writeFileSync(good, bigramArpa(['go forward ten meters']));
    const m = await binaryLanguageModel(good);
    assert.equal(m.lm, good);
    assert.match(m.note ?? '', /cannot be run.*sphinxbase-utils/);
    process.env.DICTEE_SPHINX_LM_CONVERT = 'off';
    assert.equal((await binaryLanguageModel(good)).lm, good);
    assert.ok(!existsSync(`${good}.bin`));
  });
});
