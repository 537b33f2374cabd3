/** `npm run models -- lm build …`: a language model for a pocketsphinx language model directory (lm/build.ts). */
import path from 'node:path';
import { UsageError, nonEmpty } from '../shared/args';
import { POCKETSPHINX_LANGUAGE_MODELS, verifyPocketsphinxModel } from '../server/engine/pocketsphinx/languages';
import { DEFAULT_VOCABULARY, LM_LANGUAGES, buildLm } from './lm/build';
import { adaptCommand } from './lm/adaptCommand';

interface LmValues {
  language?: string | boolean;
  text?: string | boolean;
  name?: string | boolean;
  vocabulary?: string | boolean;
  'max-lines'?: string | boolean;
  from?: string | boolean;
  specialty?: string | boolean;
  weight?: string | boolean;
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

export async function lmCommand(
  sub: string | undefined,
  more: string[],
  v: LmValues,
  out: (s: string) => void,
  modelsDir: string,
): Promise<void> {
  if (sub === 'adapt') return adaptCommand(more, v, out, modelsDir);
  if (sub !== 'build')
    throw new UsageError(
      sub ? `unknown lm command ${JSON.stringify(sub)} (lm build, lm adapt)` : 'lm needs a command (lm build, lm adapt)',
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
    ...(maxLines !== undefined ? { maxLines } : {}),
  });
  out(`read ${r.lines} lines, ${r.tokens} words (${(100 * r.oovRate).toFixed(1)} % outside the ${r.vocabulary}-word vocabulary)`);
  out(`${r.invalidBytes ? `; ${r.invalidBytes} bytes not UTF-8 skipped` : ''}\n`);
  if (r.fallbackDiscounts.length) {
    out(
      `too little text for the discounts of order ${r.fallbackDiscounts.join(', ')}: the fallback values were used; a larger text gives a better model\n`,
    );
  }
  out(`wrote ${r.out} (${r.ngrams.join(' / ')} 1-/2-/3-grams)\n`);
}
