/**
 * `lm build`: a trigram language model for pocketsphinx from plain text, in two streamed passes over
 * the corpus (words counted, then n-grams over the vocabulary kept), written as ARPA (which
 * pocketsphinx reads with `-lm FILE.arpa`). The vocabulary: the most frequent words that the
 * dictionary can pronounce (ties by code point); every other word counts as `<unk>`.
 */
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { CorpusError, readCorpus } from './corpus';
import { frenchWords } from './frenchText';
import { EOS, MAX_WORDS, TrigramCounter, type TrigramModel, UNK, estimate, writeArpa } from './kneserNey';

export const LM_LANGUAGES = ['fr'] as const;
export const DEFAULT_VOCABULARY = 65_000;

interface BuildOptions {
  language: (typeof LM_LANGUAGES)[number];
  texts: readonly string[];
  /** The pronunciation dictionary (pocketsphinx format: `word phones…`, `word(2) …` for variants). */
  dict: string;
  out: string;
  vocabulary?: number;
  /** Reads at most this many lines from all the texts together (a cheap model for tests). */
  maxLines?: number;
  /** Bound on distinct n-grams counted in memory. */
  maxEntries?: number;
}

interface BuildResult {
  out: string;
  lines: number;
  invalidBytes: number;
  tokens: number;
  /** Share of the words read that fell outside the vocabulary. */
  oovRate: number;
  vocabulary: number;
  ngrams: [number, number, number];
  /** Orders estimated with the fallback discounts (too little text for their own). */
  fallbackDiscounts: number[];
  model: TrigramModel;
}

/** The words of a pocketsphinx dictionary (variants `word(2)` folded into `word`). */
function dictionaryWords(file: string): Set<string> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new CorpusError(`cannot read the dictionary ${file}: ${(e as Error).message}`);
  }
  const words = new Set<string>();
  for (const line of text.split('\n')) {
    const w = line.split(/\s/u, 1)[0]!.replace(/\(\d+\)$/u, '');
    if (w && !w.startsWith('<') && !w.startsWith('[') && !w.startsWith('+')) words.add(w);
  }
  if (words.size === 0) throw new CorpusError(`${file} holds no pronunciation: not a pocketsphinx dictionary`);
  return words;
}

async function eachSentence(o: BuildOptions, has: (w: string) => boolean, onWords: (words: string[]) => void) {
  let lines = 0;
  let invalidBytes = 0;
  const max = o.maxLines ?? Infinity;
  for (const file of o.texts) {
    if (lines >= max) break;
    const stats = await readCorpus(file, (line) => {
      if (lines++ >= max) return;
      const words = frenchWords(line, has);
      if (words.length) onWords(words);
    });
    invalidBytes += stats.invalidBytes;
  }
  return { lines: Math.min(lines, max), invalidBytes };
}

export async function buildLm(o: BuildOptions): Promise<BuildResult> {
  const vocabSize = o.vocabulary ?? DEFAULT_VOCABULARY;
  if (!Number.isInteger(vocabSize) || vocabSize < 1 || vocabSize > MAX_WORDS) {
    throw new CorpusError(`the vocabulary must hold between 1 and ${MAX_WORDS} words (${vocabSize} asked)`);
  }
  if (o.texts.length === 0) throw new CorpusError('no text to build from');
  const dict = dictionaryWords(o.dict);
  const has = (w: string): boolean => dict.has(w);
  // Pass 1: how often each word the dictionary knows occurs.
  const freq = new Map<string, number>();
  let tokens = 0;
  const first = await eachSentence(o, has, (words) => {
    for (const w of words) {
      tokens++;
      if (dict.has(w)) freq.set(w, (freq.get(w) ?? 0) + 1);
    }
  });
  if (tokens === 0) {
    throw new CorpusError(`${o.texts.join(', ')}: no French word in ${first.lines} lines (empty, or not text); nothing was built`);
  }
  const chosen = [...freq.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, vocabSize)
    .map(([w]) => w)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const words = ['<unk>', '<s>', '</s>', ...chosen];
  const id = new Map(chosen.map((w, i) => [w, i + EOS + 1]));
  // Pass 2: the n-grams, every other word as <unk>.
  const counter = new TrigramCounter(o.maxEntries);
  let oov = 0;
  await eachSentence(o, has, (ws) =>
    counter.add(
      ws.map((w) => {
        const i = id.get(w);
        if (i === undefined) oov++;
        return i ?? UNK;
      }),
    ),
  );
  const model = estimate(counter, words);
  mkdirSync(path.dirname(path.resolve(o.out)), { recursive: true });
  const tmp = `${o.out}.part`;
  const fd = openSync(tmp, 'w');
  try {
    writeArpa(model, (s) => void writeSync(fd, s));
  } catch (e) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw e;
  }
  closeSync(fd);
  renameSync(tmp, o.out);
  return {
    out: o.out,
    lines: first.lines,
    invalidBytes: first.invalidBytes,
    tokens,
    oovRate: oov / tokens,
    vocabulary: chosen.length,
    ngrams: [model.orders[0]!.size, model.orders[1]!.size, model.orders[2]!.size],
    fallbackDiscounts: model.fallback,
    model,
  };
}
