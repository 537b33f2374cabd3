/**
 * `lm build`: a trigram language model for pocketsphinx from plain text, written as ARPA (which
 * pocketsphinx reads with `-lm FILE.arpa`) with the pronunciation dictionary of its vocabulary beside
 * it (`-dict FILE.dict`).
 *
 * Pass 1 reads the corpus once, spells each line as the dictionary does (frenchText.ts), counts every
 * word, and writes the line as word ids to a scratch file beside the output (4 bytes a word). The
 * vocabulary: the words of the dictation grammar (always), then the most frequent words that the
 * dictionary or, failing it, our grapheme-to-phoneme can pronounce (ties by code point); every other
 * word counts as `<unk>`. Pass 2 reads the ids back and counts the n-grams (kneserNey.ts); `--prune`
 * then drops the n-grams that matter least (prune.ts).
 */
import { closeSync, existsSync, mkdirSync, openSync, readSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { CorpusError, readCorpus } from './corpus';
import { frenchTokens, frenchWords, tokenWords } from './frenchText';
import { FRENCH_GRAMMAR_WORDS } from './grammarWords';
import { EOS, MAX_WORDS, TrigramCounter, type TrigramModel, UNK, estimate, writeArpa } from './kneserNey';
import { pruneEntropy } from './prune';
import { type Pronunciations, pronouncer, readDictionary, writeDictionary } from './pronounce';

export const LM_LANGUAGES = ['fr'] as const;
export const DEFAULT_VOCABULARY = 65_000;
/** Changes whenever the same corpus would give another model (test caches are keyed by it). */
export const LM_BUILDER_VERSION = 3;
/** Distinct words remembered from a corpus; the words first seen beyond it count as `<unk>` (memory stays bounded). */
const MAX_CORPUS_WORDS = 4_000_000;
/** Marks a sentence's end in the scratch file of word ids. */
const END = 0xffffffff;

interface BuildOptions {
  language: (typeof LM_LANGUAGES)[number];
  texts: readonly string[];
  /** The pronunciation dictionary (pocketsphinx format: `word phones…`, `word(2) …` for variants). */
  dict: string;
  /** The ARPA file; the dictionary is written beside it (`.dict` in place of `.arpa`). */
  out: string;
  vocabulary?: number;
  /** Reads at most this many lines from all the texts together (a cheap model for tests). */
  maxLines?: number;
  /** Bound on distinct n-grams counted in memory. */
  maxEntries?: number;
  /** Words pronounced by our grapheme-to-phoneme when the dictionary lacks them (default); false: dictionary words only. */
  g2p?: boolean;
  /** Words always in the vocabulary (default: the French dictation grammar's). */
  grammarWords?: readonly string[];
  /** Relative-entropy pruning threshold (prune.ts; SRILM's `-prune`); absent or 0: none beyond singleton trigrams. */
  prune?: number;
}

interface BuildResult {
  out: string;
  dictOut: string;
  lines: number;
  invalidBytes: number;
  tokens: number;
  /** Share of the words read that fell outside the vocabulary. */
  oovRate: number;
  vocabulary: number;
  /** Vocabulary words pronounced by the grapheme-to-phoneme (not in the dictionary). */
  guessed: number;
  /** Frequent words skipped because their letters could not be mapped. */
  unmapped: { count: number; examples: string[] };
  ngrams: [number, number, number];
  /** Bigrams and trigrams dropped by the relative-entropy pruning. */
  pruned: [number, number];
  /** Orders estimated with the fallback discounts (too little text for their own). */
  fallbackDiscounts: number[];
  model: TrigramModel;
}

/** The words of the corpus, numbered as first seen (0: `<unk>`), with their counts. */
class CorpusWords {
  readonly ids = new Map<string, number>([['<unk>', UNK]]);
  readonly words: string[] = ['<unk>'];
  counts = new Float64Array(1 << 16);
  /** A token's ids, by its text (most tokens repeat: spelt once). */
  private readonly cache = new Map<string, number[]>();
  constructor(private readonly has: (w: string) => boolean) {}

  idOf(w: string): number {
    let id = this.ids.get(w);
    if (id === undefined) {
      if (this.words.length >= MAX_CORPUS_WORDS) return UNK;
      id = this.words.length;
      this.ids.set(w, id);
      this.words.push(w);
      if (id >= this.counts.length) {
        const c = new Float64Array(this.counts.length * 2);
        c.set(this.counts);
        this.counts = c;
      }
    }
    return id;
  }

  tokenIds(t: string): number[] {
    let ids = this.cache.get(t);
    if (ids === undefined) {
      ids = tokenWords(t, this.has).map((w) => this.idOf(w));
      if (this.cache.size >= 1 << 20) this.cache.clear();
      this.cache.set(t, ids);
    }
    return ids;
  }
}

/** Pass 1: counts the words and writes the lines as ids to `scratch`. */
async function firstPass(o: BuildOptions, words: CorpusWords, scratch: string) {
  let lines = 0;
  let invalidBytes = 0;
  let tokens = 0;
  const max = o.maxLines ?? Infinity;
  const fd = openSync(scratch, 'w');
  const buf = new Uint32Array(1 << 18);
  let n = 0;
  const flush = (): void => {
    writeSync(fd, new Uint8Array(buf.buffer, 0, n * 4));
    n = 0;
  };
  try {
    for (const file of o.texts) {
      if (lines >= max) break;
      const stats = await readCorpus(file, (line) => {
        if (lines++ >= max) return;
        let wrote = false;
        for (const t of frenchTokens(line)) {
          for (const id of words.tokenIds(t)) {
            if (n + 1 >= buf.length) flush();
            buf[n++] = id;
            words.counts[id]!++;
            tokens++;
            wrote = true;
          }
        }
        // (a token leaves a slot free after it: the end fits)
        if (wrote) buf[n++] = END;
      });
      invalidBytes += stats.invalidBytes;
    }
    flush();
  } finally {
    closeSync(fd);
  }
  return { lines: Math.min(lines, max), invalidBytes, tokens };
}

/** Pass 2: the n-grams of the lines written by pass 1, each word mapped by `lmId`. */
function secondPass(scratch: string, lmId: Int32Array, counter: TrigramCounter): number {
  const fd = openSync(scratch, 'r');
  const buf = new Uint32Array(1 << 18);
  const bytes = new Uint8Array(buf.buffer);
  const sentence = new Int32Array(1 << 20);
  let len = 0;
  let oov = 0;
  try {
    for (;;) {
      const got = readSync(fd, bytes, 0, bytes.length, null);
      if (got === 0) break;
      for (let i = 0; i < got >> 2; i++) {
        const id = buf[i]!;
        if (id === END) {
          counter.add(sentence, 0, len);
          len = 0;
        } else if (len < sentence.length) {
          const w = lmId[id]!;
          if (w === UNK) oov++;
          sentence[len++] = w;
        }
      }
    }
    if (len) counter.add(sentence, 0, len);
  } finally {
    closeSync(fd);
  }
  return oov;
}

/** The vocabulary: the grammar's words, then the most frequent words that can be pronounced. */
function chooseVocabulary(words: CorpusWords, size: number, forced: readonly string[], pron: (w: string) => string[] | undefined) {
  const chosen = new Map<string, string[]>();
  for (const w of forced) {
    if (chosen.size >= size) break;
    const p = pron(w);
    if (p) chosen.set(w, p);
  }
  const order = Array.from({ length: words.words.length - 1 }, (_, i) => i + 1).filter((i) => words.counts[i]! > 0);
  order.sort((a, b) => words.counts[b]! - words.counts[a]! || (words.words[a]! < words.words[b]! ? -1 : 1));
  for (const i of order) {
    if (chosen.size >= size) break;
    const w = words.words[i]!;
    if (chosen.has(w) || w.startsWith('<')) continue;
    const p = pron(w);
    if (p) chosen.set(w, p);
  }
  return chosen;
}

/** The dictionary file written beside an ARPA file. */
const dictPathOf = (arpa: string): string => arpa.replace(/\.arpa$/u, '') + '.dict';

export async function buildLm(o: BuildOptions): Promise<BuildResult> {
  const vocabSize = o.vocabulary ?? DEFAULT_VOCABULARY;
  if (!Number.isInteger(vocabSize) || vocabSize < 1 || vocabSize > MAX_WORDS) {
    throw new CorpusError(`the vocabulary must hold between 1 and ${MAX_WORDS} words (${vocabSize} asked)`);
  }
  if (o.texts.length === 0) throw new CorpusError('no text to build from');
  // Every file checked before the first is read: a typo in the last one must not cost a pass over the others.
  for (const f of o.texts) if (!existsSync(f) || !statSync(f).isFile()) throw new CorpusError(`${f} is not a file; nothing was built`);
  const dict: Pronunciations = readDictionary(o.dict);
  const has = (w: string): boolean => dict.has(w);
  mkdirSync(path.dirname(path.resolve(o.out)), { recursive: true });
  const scratch = `${o.out}.words.part`;
  try {
    const words = new CorpusWords(has);
    const first = await firstPass(o, words, scratch);
    if (first.tokens === 0) {
      throw new CorpusError(`${o.texts.join(', ')}: no French word in ${first.lines} lines (empty, or not text); nothing was built`);
    }
    const pron = pronouncer(dict, o.g2p ?? true);
    const forced = [...new Set((o.grammarWords ?? FRENCH_GRAMMAR_WORDS).flatMap((p) => frenchWords(p, has)))];
    const vocab = chooseVocabulary(words, vocabSize, forced, (w) => pron.of(w));
    const chosen = [...vocab.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const lmWords = ['<unk>', '<s>', '</s>', ...chosen];
    const lmId = new Int32Array(words.words.length);
    chosen.forEach((w, i) => {
      const id = words.ids.get(w);
      if (id !== undefined) lmId[id] = i + EOS + 1;
    });
    const counter = new TrigramCounter(o.maxEntries);
    const oov = secondPass(scratch, lmId, counter);
    rmSync(scratch, { force: true });
    const { model, pruned } = pruneEntropy(estimate(counter, lmWords), o.prune ?? 0);
    const tmp = `${o.out}.part`;
    const fd = openSync(tmp, 'w');
    try {
      writeArpa(model, (s) => void writeSync(fd, s));
    } finally {
      closeSync(fd);
    }
    const dictOut = dictPathOf(o.out);
    writeDictionary(dictOut, chosen, (w) => vocab.get(w)!);
    renameSync(tmp, o.out);
    return {
      out: o.out,
      dictOut,
      lines: first.lines,
      invalidBytes: first.invalidBytes,
      tokens: first.tokens,
      oovRate: oov / first.tokens,
      vocabulary: chosen.length,
      guessed: chosen.filter((w) => !dict.has(w)).length,
      unmapped: pron.unmapped,
      ngrams: [model.orders[0].keys.length, model.orders[1].keys.length, model.orders[2].keys.length],
      pruned,
      fallbackDiscounts: model.fallback,
      model,
    };
  } finally {
    rmSync(scratch, { force: true });
    rmSync(`${o.out}.part`, { force: true });
  }
}
