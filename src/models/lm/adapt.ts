/**
 * `lm adapt`: a domain model learnt from the team's reports, templates and vocabulary
 * (adaptSources.ts), interpolated with the base model (`lm-<language>/general.arpa`, from `lm
 * build`) and written as `lm-<language>/<name>.arpa`, the model the service picks for a session
 * whose `configure.specialty` names it.
 *
 * - The text is normalised by the builder's own rules (frenchText.ts), so that the words are spelt as
 *   the base model's and the dictionary's.
 * - The domain vocabulary: every word of the text that has a pronunciation (the acoustic model's
 *   dictionary, the base model's `.dict` where `lm build` wrote one, else our rules, frenchG2p.ts);
 *   the others (letters the rules cannot map) count as `<unk>`
 *   and are reported.
 * - The domain trigram: interpolated modified Kneser-Ney (kneserNey.ts), no pruning (the text is small).
 * - The mixture: λ·domain + (1−λ)·base, merged into one back-off model (interpolate.ts).
 * - `<name>.dict` is written beside it: the base's entries (its `.dict`, else the acoustic model's
 *   dictionary), then the domain words it lacks (the acoustic dictionary's entries, else our rules').
 *
 * Deterministic: the same sources, base model and λ give the same bytes.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type ArpaModel, parseArpa, readArpaFile, writeArpaModel } from './arpaModel';
import { type AdaptText, AdaptSourceError, readAdaptSources } from './adaptSources';
import { frenchWords } from './frenchText';
import { interpolate } from './interpolate';
import { G2pError, frenchPronunciations } from './frenchG2p';
import { EOS, TrigramCounter, UNK, estimate, writeArpa } from './kneserNey';

/** The specialties `configure.specialty` names, and the built-in French template of each. */
export const SPECIALTY_TEMPLATES: Readonly<Record<string, string>> = {
  radiology: 'radiologie.md',
  cardiology: 'cardiologie.md',
  legal: 'juridique.md',
};
export const SPECIALTIES = Object.keys(SPECIALTY_TEMPLATES);
export const DEFAULT_DOMAIN_WEIGHT = 0.5;

/** The extension's built-in templates (`templates/<language>/` at the top of the repository). */
export const BUILTIN_TEMPLATES = path.resolve(__dirname, '..', '..', '..', 'templates');

interface AdaptOptions {
  language: 'fr';
  sources: readonly string[];
  /** `lm-<language>/general.arpa` (and `general.dict` beside it, when there is one). */
  base: string;
  /** The acoustic model's dictionary. */
  dict: string;
  out: string;
  /** The weight of the domain model, strictly between 0 and 1. */
  weight?: number;
  /** Built-in templates read besides the sources. */
  templates?: readonly string[];
}

interface AdaptResult {
  out: string;
  dictOut?: string;
  text: Omit<AdaptText, 'sentences'> & { sentences: number };
  tokens: number;
  domainWords: number;
  /** Domain words the base model lacked. */
  newWords: string[];
  /** Words of the text no pronunciation was found for (left out, as `<unk>`). */
  unpronounceable: string[];
  ngrams: number[];
  weight: number;
}

/** A pocketsphinx dictionary: each word's lines (variants `word(2)` under `word`), in file order. */
function readDictionary(file: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const w = line.split(/\s/u, 1)[0]!.replace(/\(\d+\)$/u, '');
    if (!w || w.startsWith('<') || w.startsWith('[') || w.startsWith('+')) continue;
    const l = out.get(w);
    if (l) l.push(line.trimEnd());
    else out.set(w, [line.trimEnd()]);
  }
  if (out.size === 0) throw new AdaptSourceError(`${file} holds no pronunciation: not a pocketsphinx dictionary`);
  return out;
}

const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The domain trigram of `sentences` (spelt as `spells` says) over the words `has` accepts, as an ARPA model. */
function domainModel(sentences: readonly string[], spells: (w: string) => boolean, has: (w: string) => boolean) {
  const freq = new Map<string, number>();
  const unknown = new Set<string>();
  const tokenised: string[][] = [];
  let tokens = 0;
  for (const s of sentences) {
    const ws = frenchWords(s, spells);
    if (ws.length === 0) continue;
    tokenised.push(ws);
    for (const w of ws) {
      tokens++;
      if (has(w)) freq.set(w, (freq.get(w) ?? 0) + 1);
      else if (w !== '<unk>') unknown.add(w);
    }
  }
  const vocab = [...freq.keys()].sort(byCodePoint);
  const id = new Map(vocab.map((w, i) => [w, i + EOS + 1]));
  const counter = new TrigramCounter();
  for (const ws of tokenised) counter.add(ws.map((w) => id.get(w) ?? UNK));
  let text = '';
  if (tokens > 0) writeArpa(estimate(counter, ['<unk>', '<s>', '</s>', ...vocab], false), (s) => void (text += s));
  return { tokens, vocab, unknown: [...unknown].sort(byCodePoint), arpa: text };
}

function writeAtomically(file: string, write: (put: (s: string) => void) => void): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.part`;
  const chunks: string[] = [];
  try {
    write((s) => chunks.push(s));
    writeFileSync(tmp, chunks.join(''));
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

export async function adaptLm(o: AdaptOptions): Promise<AdaptResult> {
  const weight = o.weight ?? DEFAULT_DOMAIN_WEIGHT;
  if (!existsSync(o.base)) {
    throw new AdaptSourceError(
      `no base model: ${o.base} does not exist; run npm run models -- lm build --language ${o.language} --text FILE first (the domain model is mixed with it)`,
    );
  }
  const text = readAdaptSources(o.sources, o.language, o.templates ?? []);
  const acoustic = readDictionary(o.dict);
  const baseDictFile = o.base.replace(/\.arpa$/u, '.dict');
  const baseDict = existsSync(baseDictFile) ? readDictionary(baseDictFile) : undefined;
  // A word neither dictionary has is pronounced by our rules (frenchG2p.ts), as `lm build` does.
  const guessed = new Map<string, string[] | undefined>();
  const byRules = (w: string): string[] | undefined => {
    if (!guessed.has(w)) {
      let lines: string[] | undefined;
      try {
        lines = frenchPronunciations(w).map((p, i) => `${i ? `${w}(${i + 1})` : w} ${p.join(' ')}`);
      } catch (e) {
        if (!(e instanceof G2pError)) throw e;
      }
      guessed.set(w, lines);
    }
    return guessed.get(w);
  };
  // The text is spelt as the dictionaries spell it (elisions, hyphens), as `lm build` does.
  const spells = (w: string): boolean => acoustic.has(w) || (baseDict?.has(w) ?? false);
  const domain = domainModel(text.sentences, spells, (w) => spells(w) || byRules(w) !== undefined);
  if (domain.vocab.length === 0) {
    throw new AdaptSourceError(
      `${o.sources.join(', ')}: no word with a pronunciation in ${text.sentences.length} sentences (not French text?); nothing was written`,
    );
  }
  const base = await readArpaFile(o.base);
  const mixed: ArpaModel = interpolate(parseArpa(domain.arpa, 'the domain model'), base, weight);
  writeAtomically(o.out, (put) => writeArpaModel(mixed, put));
  const newWords = domain.vocab.filter((w) => !base.index.has(w));
  // The model's dictionary: the base's (its .dict, else the acoustic model's), then the domain words it lacks.
  const dictOut = o.out.replace(/\.arpa$/u, '.dict');
  const known = baseDict ?? acoustic;
  const added = domain.vocab.filter((w) => !known.has(w)).flatMap((w) => acoustic.get(w) ?? byRules(w) ?? []);
  const baseText = readFileSync(baseDict ? baseDictFile : o.dict, 'utf8').replace(/\n*$/u, '\n');
  writeAtomically(dictOut, (put) => {
    put(baseText);
    if (added.length) put(`${added.join('\n')}\n`);
  });
  const { sentences, ...counts } = text;
  return {
    out: o.out,
    dictOut,
    text: { ...counts, sentences: sentences.length },
    tokens: domain.tokens,
    domainWords: domain.vocab.length,
    newWords,
    unpronounceable: domain.unknown,
    ngrams: mixed.grams.map((g) => g.size),
    weight,
  };
}
