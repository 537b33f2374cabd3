/**
 * Pronunciations for a language model's vocabulary: the acoustic model's dictionary where it has the
 * word (with all its variants), else our French grapheme-to-phoneme; and the pocketsphinx dictionary
 * written beside the model (`<name>.dict`), complete for its vocabulary, sorted, deterministic.
 */
import { closeSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { CorpusError } from './corpus';
import { G2pError, frenchPronunciations } from './frenchG2p';

/** A pocketsphinx dictionary: each word's pronunciations (phones joined by one space), variants in their order. */
export type Pronunciations = Map<string, string[]>;

/** Reads a pocketsphinx dictionary (`word phones…`, `word(2) phones…` for variants). */
export function readDictionary(file: string): Pronunciations {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new CorpusError(`cannot read the dictionary ${file}: ${(e as Error).message}`);
  }
  const dict: Pronunciations = new Map();
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/u);
    if (f.length < 2) continue;
    const w = f[0]!.replace(/\(\d+\)$/u, '');
    if (!w || w.startsWith('<') || w.startsWith('[') || w.startsWith('+')) continue;
    const list = dict.get(w);
    const phones = f.slice(1).join(' ');
    if (list) {
      if (!list.includes(phones)) list.push(phones);
    } else dict.set(w, [phones]);
  }
  if (dict.size === 0) throw new CorpusError(`${file} holds no pronunciation: not a pocketsphinx dictionary`);
  return dict;
}

interface Pronouncer {
  /** The pronunciations of a word, or undefined when it has none (the dictionary lacks it and G2P cannot map its letters). */
  of(word: string): string[] | undefined;
  /** Words pronounced by the grapheme-to-phoneme so far. */
  readonly guessed: number;
  /** Words skipped because their letters could not be mapped, with a few examples. */
  readonly unmapped: { count: number; examples: string[] };
}

/** Pronounces from `dict`, else (when `g2p`) by rules; every word asked is remembered. */
export function pronouncer(dict: Pronunciations, g2p: boolean): Pronouncer {
  let guessed = 0;
  const unmapped = { count: 0, examples: [] as string[] };
  return {
    of(word) {
      const known = dict.get(word);
      if (known || !g2p) return known;
      try {
        const p = frenchPronunciations(word).map((x) => x.join(' '));
        guessed++;
        return p;
      } catch (e) {
        if (!(e instanceof G2pError)) throw e;
        unmapped.count++;
        if (unmapped.examples.length < 5) unmapped.examples.push(e.message);
        return undefined;
      }
    },
    get guessed() {
      return guessed;
    },
    unmapped,
  };
}

/** Writes the dictionary of `words` (sorted by code point, variants numbered from 2) to `out`, atomically. */
export function writeDictionary(out: string, words: readonly string[], pronounce: (w: string) => string[]): void {
  const sorted = [...words].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const tmp = `${out}.part`;
  const fd = openSync(tmp, 'w');
  try {
    let buf = '';
    for (const w of sorted) {
      pronounce(w).forEach((p, i) => (buf += `${i === 0 ? w : `${w}(${i + 1})`} ${p}\n`));
      if (buf.length > 1 << 16) {
        writeSync(fd, buf);
        buf = '';
      }
    }
    writeSync(fd, buf);
  } catch (e) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw e;
  }
  closeSync(fd);
  renameSync(tmp, out);
}
