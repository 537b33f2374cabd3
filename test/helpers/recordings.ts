/**
 * Real recorded English speech with reference transcripts, from Debian's pocketsphinx-testdata:
 * five LibriVox utterances (Sense and Sensibility) and `goforward.raw`, all 16 kHz mono s16le. Plus
 * the word error rate used to score transcripts against them.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseWav } from '../../src/client/wav';

export const TESTDATA = '/usr/share/pocketsphinx/test/data';
const LIBRIVOX = path.join(TESTDATA, 'librivox');

export interface Recording {
  name: string;
  pcm: Buffer;
  /** Reference transcript, lower case, no punctuation. */
  reference: string;
}

export function recordingsAvailable(): boolean {
  return existsSync(path.join(LIBRIVOX, 'transcription')) && existsSync(path.join(TESTDATA, 'goforward.raw'));
}

/** The six recordings (throws when pocketsphinx-testdata is not installed). */
export function recordings(): Recording[] {
  const out: Recording[] = [];
  for (const line of readFileSync(path.join(LIBRIVOX, 'transcription'), 'utf8').split('\n')) {
    const m = /^<s>\s*(.*?)\s*<\/s>\s*\((.+)\)\s*$/.exec(line.trim());
    if (!m) continue;
    const wav = readFileSync(path.join(LIBRIVOX, `${m[2]}.wav`));
    out.push({ name: m[2]!, pcm: parseWav(wav).data, reference: m[1]! });
  }
  // The decoder's own test expects this hypothesis for goforward.raw.
  out.push({ name: 'goforward', pcm: readFileSync(path.join(TESTDATA, 'goforward.raw')), reference: 'go forward ten meters' });
  return out;
}

/**
 * More real speech with a reference, for measures that want every word they can get: the one TIDIGITS
 * utterance of pocketsphinx-testdata kept as audio (`tidigits/dhd.2934z.raw`, a man reading digits; the
 * corpus names each file after what is said, z for zero). The other raw files there (`numbers.raw`,
 * `something.raw`, `cards/*.wav`) come with no transcript, and the rest of `tidigits/` is features only.
 */
export function moreRecordings(): Recording[] {
  const pcm = readFileSync(path.join(TESTDATA, 'tidigits', 'dhd.2934z.raw'));
  return [{ name: 'tidigits-dhd.2934z', pcm, reference: 'two nine three four zero' }];
}

/** Lower-case words without punctuation. */
export function normalizeWords(text: string): string[] {
  return text
    .toLocaleLowerCase()
    .replace(/[^\p{L}\p{N}'\s-]/gu, ' ')
    .split(/\s+/u)
    .filter((w) => w !== '');
}

/** Word errors (substitutions + deletions + insertions) of `hypothesis` against `reference`. */
export function wordErrors(reference: string, hypothesis: string): { errors: number; words: number } {
  const r = normalizeWords(reference);
  const h = normalizeWords(hypothesis);
  let prev = Array.from({ length: h.length + 1 }, (_, j) => j);
  for (let i = 1; i <= r.length; i++) {
    const cur = [i];
    for (let j = 1; j <= h.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (r[i - 1] === h[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return { errors: prev[h.length]!, words: r.length };
}
