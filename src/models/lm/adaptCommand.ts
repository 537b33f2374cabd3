/** `npm run models -- lm adapt …`: the command line of adapt.ts. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { UsageError, nonEmpty } from '../../shared/args';
import { POCKETSPHINX_LANGUAGE_MODELS, verifyPocketsphinxModel } from '../../server/engine/pocketsphinx/languages';
import { BUILTIN_TEMPLATES, DEFAULT_DOMAIN_WEIGHT, SPECIALTIES, SPECIALTY_TEMPLATES, adaptLm } from './adapt';

interface AdaptValues {
  language?: string | boolean;
  from?: string | boolean;
  specialty?: string | boolean;
  name?: string | boolean;
  weight?: string | boolean;
}

/** Words listed in the output: the first few, then how many more. */
function some(words: readonly string[], max = 20): string {
  return words.length <= max ? words.join(', ') : `${words.slice(0, max).join(', ')} … (${words.length - max} more)`;
}

export async function adaptCommand(more: string[], v: AdaptValues, out: (s: string) => void, modelsDir: string): Promise<void> {
  if (v.language !== 'fr') throw new UsageError('lm adapt needs --language fr');
  if (typeof v.from !== 'string')
    throw new UsageError('lm adapt needs --from DIR (reports, templates, vocabulary; more folders may follow it)');
  const sources = [nonEmpty('--from', v.from), ...more].map((f) => path.resolve(f));
  const specialty = typeof v.specialty === 'string' ? v.specialty : undefined;
  if (specialty !== undefined && !SPECIALTIES.includes(specialty)) {
    throw new UsageError(`unknown specialty ${JSON.stringify(specialty)} (--specialty ${SPECIALTIES.join('|')})`);
  }
  const name = typeof v.name === 'string' ? nonEmpty('--name', v.name) : specialty;
  if (name === undefined) {
    throw new UsageError(`lm adapt needs --specialty ${SPECIALTIES.join('|')} (or --name NAME for a model no session picks by itself)`);
  }
  if (!/^[\w.-]+$/u.test(name) || name.startsWith('.') || name === 'general') {
    throw new UsageError('--name takes letters, digits, ".", "-" and "_" only, and not "general" (the base model)');
  }
  let weight = DEFAULT_DOMAIN_WEIGHT;
  if (v.weight !== undefined) {
    weight = Number(v.weight);
    if (typeof v.weight !== 'string' || !/^0?\.\d+$/u.test(v.weight) || !(weight > 0 && weight < 1)) {
      throw new UsageError("--weight takes the domain model's weight, a number strictly between 0 and 1 (e.g. 0.5)");
    }
  }
  const acoustic = POCKETSPHINX_LANGUAGE_MODELS.find((m) => m.language === 'fr')!;
  const modelDir = path.join(modelsDir, acoustic.name);
  await verifyPocketsphinxModel(modelDir, acoustic);
  const builtin = specialty ? path.join(BUILTIN_TEMPLATES, 'fr', SPECIALTY_TEMPLATES[specialty]!) : undefined;
  const lmDir = path.join(modelsDir, 'lm-fr');
  const r = await adaptLm({
    language: 'fr',
    sources,
    base: path.join(lmDir, 'general.arpa'),
    dict: path.join(modelDir, acoustic.dict),
    out: path.join(lmDir, `${name}.arpa`),
    weight,
    templates: builtin && existsSync(builtin) ? [builtin] : [],
  });
  const t = r.text;
  out(
    `read ${t.reports} reports, ${t.templates} templates${builtin ? ' (the built-in one included)' : ''}, ${t.vocabularyEntries} vocabulary entries: ` +
      `${t.sentences} sentences, ${r.tokens} words, ${r.domainWords} distinct with a pronunciation\n`,
  );
  for (const s of t.skipped) out(`skipped ${s}\n`);
  if (r.newWords.length) out(`${r.newWords.length} words the base model lacked: ${some(r.newWords)}\n`);
  if (r.unpronounceable.length) {
    out(`${r.unpronounceable.length} words have no pronunciation (not learnt; add them to the dictionary): ${some(r.unpronounceable)}\n`);
  }
  out(`wrote ${r.out} (${r.ngrams.join(' / ')} 1-/2-/3-grams; domain weight ${r.weight})\n`);
  if (r.dictOut) out(`wrote ${r.dictOut}\n`);
  if (specialty && name === specialty) out(`sessions whose configure.specialty is "${specialty}" use it\n`);
}
