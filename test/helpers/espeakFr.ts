/**
 * Synthetic French speech and pronunciations from Debian's espeak-ng, for the tests of `lm adapt`:
 * - {@link synthesiseFr}: a sentence spoken by espeak-ng's French voice, brought to 8 kHz 16-bit raw
 *   PCM by sox (the rate of pocketsphinx-fr's acoustic model). It is SYNTHETIC speech, far easier and
 *   far narrower than a person dictating: figures measured on it say so.
 * - {@link espeakPronunciation}: a word's phones in pocketsphinx-fr's phone set, from espeak-ng's IPA.
 *   The tests use it where the French dictionary lacks a word, standing in for the
 *   grapheme-to-phoneme that `lm build` gives the base model's `.dict`.
 */
import { spawnSync } from 'node:child_process';

/** espeak-ng's French IPA symbols to the phones of CMU Sphinx's French model. */
const PHONES: Record<string, string> = {
  a: 'aa',
  ɑ: 'aa',
  e: 'ei',
  ɛ: 'ai',
  ə: 'ee',
  ø: 'eu',
  œ: 'oe',
  o: 'oo',
  ɔ: 'oo',
  u: 'ou',
  y: 'uu',
  i: 'ii',
  ɥ: 'uy',
  j: 'yy',
  w: 'ww',
  ɑ̃: 'an',
  ɔ̃: 'on',
  ɛ̃: 'in',
  œ̃: 'un',
  ʃ: 'ch',
  ʒ: 'jj',
  ɲ: 'gn',
  ŋ: 'gg',
  ʁ: 'rr',
  r: 'rr',
  b: 'bb',
  p: 'pp',
  t: 'tt',
  d: 'dd',
  k: 'kk',
  g: 'gg',
  ɡ: 'gg',
  f: 'ff',
  v: 'vv',
  s: 'ss',
  z: 'zz',
  m: 'mm',
  n: 'nn',
  l: 'll',
};

export const espeakAvailable = (): boolean => spawnSync('espeak-ng', ['--version'], { stdio: 'ignore' }).status === 0;
export const soxAvailable = (): boolean => spawnSync('sox', ['--version'], { stdio: 'ignore' }).status === 0;

/** The phones of `word`, or undefined when espeak-ng gives a symbol without a phone here. */
export function espeakPronunciation(word: string): string[] | undefined {
  const r = spawnSync('espeak-ng', ['-v', 'fr', '-q', '--ipa', word], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`espeak-ng failed: ${r.stderr}`);
  const ipa = r.stdout.normalize('NFD').replace(/[ˈˌː\s_-]/gu, '');
  const out: string[] = [];
  for (let i = 0; i < ipa.length; i++) {
    const two = ipa.slice(i, i + 2);
    const p = two.endsWith('\u0303') ? (PHONES[two.normalize('NFC')] ?? PHONES[two]) : undefined;
    if (p) {
      out.push(p);
      i++;
      continue;
    }
    const one = PHONES[ipa[i]!];
    if (!one) return undefined;
    out.push(one);
  }
  return out.length ? out : undefined;
}

/** `text` spoken by espeak-ng's French voice, written to `raw` as 8 kHz 16-bit mono PCM (sox's resampler). */
export function synthesiseFr(text: string, wav: string, raw: string): void {
  const e = spawnSync('espeak-ng', ['-v', 'fr', '-s', '150', '-w', wav, text], { encoding: 'utf8' });
  if (e.status !== 0) throw new Error(`espeak-ng failed: ${e.stderr}`);
  const s = spawnSync('sox', ['-D', wav, '-r', '8000', '-b', '16', '-c', '1', '-e', 'signed-integer', '-t', 'raw', raw], {
    encoding: 'utf8',
  });
  if (s.status !== 0) throw new Error(`sox failed: ${s.stderr}`);
}
