/** `npm run models -- lm build …`: a language model for a pocketsphinx language model directory (lm/build.ts); `lm check FILE.arpa`. */
import { createReadStream, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { UsageError, nonEmpty } from '../shared/args';
import { POCKETSPHINX_LANGUAGE_MODELS, verifyPocketsphinxModel } from '../server/engine/pocketsphinx/languages';
import { ArpaChecker } from './lm/arpa';
import { DEFAULT_VOCABULARY, LM_LANGUAGES, buildLm } from './lm/build';
import { adaptCommand } from './lm/adaptCommand';
import { CorpusError } from './lm/corpus';

interface LmValues {
  language?: string | boolean;
  text?: string | boolean;
  name?: string | boolean;
  vocabulary?: string | boolean;
  'max-lines'?: string | boolean;
  from?: string | boolean;
  specialty?: string | boolean;
  weight?: string | boolean;
  'dictionary-only'?: string | boolean;
  prune?: string | boolean;
}

/** `--prune THRESHOLD`: a relative perplexity rise per n-gram, 0 (none) to 1e-3. */
function threshold(v: string | boolean | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (typeof v !== 'string' || !/^\d*\.?\d+(e-?\d+)?$/iu.test(v) || !(n >= 0 && n <= 1e-3))
    throw new UsageError('--prune needs a threshold between 0 and 1e-3 (a relative perplexity rise per n-gram, such as 1e-8)');
  return n;
}

function count(flag: string, v: string | boolean | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (typeof v !== 'string' || !/^\d+$/.test(v) || !Number.isSafeInteger(n) || n < 1)
    throw new UsageError(`${flag} needs a whole number above 0`);
  return n;
}

/** Where `lm build` writes a model: DIR/lm-<language>/<name>.arpa. */
export function lmPath(modelsDir: string, language: string, name: string): string {
  return path.join(modelsDir, `lm-${language}`, `${name}.arpa`);
}

/** The pronunciation dictionary `lm build` writes beside it (pocketsphinx's `-dict`): DIR/lm-<language>/<name>.dict. */
export function lmDictPath(modelsDir: string, language: string, name: string): string {
  return path.join(modelsDir, `lm-${language}`, `${name}.dict`);
}

export async function lmCommand(
  sub: string | undefined,
  more: string[],
  v: LmValues,
  out: (s: string) => void,
  modelsDir: string,
): Promise<void> {
  if (sub === 'adapt') return adaptCommand(more, v, out, modelsDir);
  if (sub === 'check') return checkCommand(more, out);
  if (sub !== 'build')
    throw new UsageError(
      sub
        ? `unknown lm command ${JSON.stringify(sub)} (lm build, lm adapt, lm check)`
        : 'lm needs a command (lm build, lm adapt, lm check)',
    );
  const language = typeof v.language === 'string' ? v.language : undefined;
  if (!language || !(LM_LANGUAGES as readonly string[]).includes(language)) {
    throw new UsageError(`lm build needs --language ${LM_LANGUAGES.join('|')}`);
  }
  if (typeof v.text !== 'string') throw new UsageError('lm build needs --text FILE (plain or .gz; more files may follow it)');
  const texts = [nonEmpty('--text', v.text), ...more].map((f) => path.resolve(f));
  const name = typeof v.name === 'string' ? nonEmpty('--name', v.name) : 'general';
  if (!/^[\w.-]+$/u.test(name) || name.startsWith('.')) throw new UsageError('--name takes letters, digits, ".", "-" and "_" only');
  const maxLines = count('--max-lines', v['max-lines']);
  const vocabulary = count('--vocabulary', v.vocabulary) ?? DEFAULT_VOCABULARY;
  const prune = threshold(v.prune);
  const acoustic = POCKETSPHINX_LANGUAGE_MODELS.find((m) => m.language === language)!;
  const modelDir = path.join(modelsDir, acoustic.name);
  // The dictionary decides the vocabulary: it must be the pinned one.
  await verifyPocketsphinxModel(modelDir, acoustic);
  const r = await buildLm({
    language: language as (typeof LM_LANGUAGES)[number],
    texts,
    dict: path.join(modelDir, acoustic.dict),
    out: lmPath(modelsDir, language, name),
    vocabulary,
    g2p: v['dictionary-only'] !== true,
    ...(maxLines !== undefined ? { maxLines } : {}),
    ...(prune !== undefined ? { prune } : {}),
  });
  out(`read ${r.lines} lines, ${r.tokens} words (${(100 * r.oovRate).toFixed(1)} % outside the ${r.vocabulary}-word vocabulary)`);
  out(`${r.invalidBytes ? `; ${r.invalidBytes} bytes not UTF-8 skipped` : ''}\n`);
  if (r.fallbackDiscounts.length) {
    out(
      `too little text for the discounts of order ${r.fallbackDiscounts.join(', ')}: the fallback values were used; a larger text gives a better model\n`,
    );
  }
  out(
    `vocabulary: ${r.vocabulary - r.guessed} words from the dictionary, ${r.guessed} pronounced by rules` +
      (r.unmapped.count ? `; ${r.unmapped.count} frequent words skipped, their letters not mapped (${r.unmapped.examples[0]!})` : '') +
      '\n',
  );
  if (prune) out(`pruned at ${prune}: ${r.pruned[0]} bigrams and ${r.pruned[1]} trigrams dropped\n`);
  out(`wrote ${r.out} (${r.ngrams.join(' / ')} 1-/2-/3-grams) and its dictionary ${r.dictOut}\n`);
}

/** `lm check FILE.arpa`: the file read line by line through the ARPA checker (lm/arpa.ts). */
async function checkCommand(files: string[], out: (s: string) => void): Promise<void> {
  if (files.length !== 1) throw new UsageError('lm check needs one FILE.arpa');
  const file = path.resolve(files[0]!);
  if (!existsSync(file) || !statSync(file).isFile()) throw new CorpusError(`${file} is not a file`);
  const checker = new ArpaChecker(file);
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  for await (const l of lines) checker.line(l);
  const r = checker.end();
  out(`${file}: a well-formed ARPA model (${r.counts.map((c, i) => `${c} ${i + 1}-grams`).join(', ')})\n`);
}
