/**
 * The models of `--engine pocketsphinx`, one set per language, found at start (before anything native
 * reads them):
 *
 * - English: Debian's pocketsphinx-en-us (or `--model DIR`);
 * - French: `<models dir>/pocketsphinx-fr` (languages.ts, every file's sha256 checked) with a language
 *   model `<models dir>/lm-fr/general.arpa` (`npm run models -- lm build`); French is served only with both;
 * - Spanish: `<models dir>/pocketsphinx-es` (checked the same way) with `lm-es/general.arpa` where there
 *   is one, else a unigram model of its dictionary's words (grammarWords.ts).
 *
 * A language model read from ARPA text is given to the decoders in its binary form (binaryLm.ts),
 * made once at the first start that finds it.
 *
 * A language's domain models (`lm-<lang>/<specialty>.arpa`: radiology, cardiology, legal) serve the
 * sessions of that `specialty`; the others get `general`. A model's dictionary is `<name>.dict` beside
 * its ARPA file when there is one (lm build writes it: every word of the model's vocabulary), else the
 * acoustic model's. A language whose model is corrupt or incomplete is refused, with the reason, and the
 * others are served; none served at all fails the start.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../../../shared/errors';
import { SPECIALTIES } from '../../../shared/vocabulary';
import { EngineUnavailableError } from '../engine';
import { binaryLanguageModel } from './binaryLm';
import { type PocketsphinxModel, pocketsphinxModel } from './ffi';
import { dictionaryUnigramModel, grammarPlan } from './grammarWords';
import { POCKETSPHINX_LANGUAGE_MODELS, type PocketsphinxLanguageModel, type SearchEffort, verifyPocketsphinxModel } from './languages';

/** A decoder's model: one language, one language model (`key`: `<language>/<specialty>`). */
export interface PocketsphinxDecoderModel extends PocketsphinxModel {
  key: string;
  language: string;
  specialty: string;
}

interface PocketsphinxModelSet {
  models: PocketsphinxDecoderModel[];
  /** The languages served, in the order found. */
  languages: string[];
  /** Languages installed but not served, and why. */
  refused: Array<{ language: string; reason: string }>;
  /** What each language's decoders are made of, and what was added (for the start's log). */
  notes: Array<{
    language: string;
    specialty: string;
    lm: string;
    dict: string;
    addedToLm: number;
    addedToDict: number;
    unpronounceable: string[];
    /** The file the decoders load (the binary form of `lm` where it could be made, binaryLm.ts). */
    loaded: string;
    /** Why the binary form is not used (absent when it is, or for a small model). */
    binaryNote?: string;
    /** The search its decoders run (`--search`): `fast` only where the language has fast bounds. */
    search: SearchEffort;
  }>;
}

/** The decoder model of a session: its language's model for its specialty, else its `general`. */
export function modelKey(
  models: readonly Pick<PocketsphinxDecoderModel, 'key'>[],
  language: string,
  specialty: string,
): string | undefined {
  const own = `${language}/${specialty}`;
  if (models.some((m) => m.key === own)) return own;
  const general = `${language}/general`;
  return models.some((m) => m.key === general) ? general : undefined;
}

async function otherLanguage(
  m: PocketsphinxLanguageModel,
  modelsDir: string,
  set: PocketsphinxModelSet,
  effort: SearchEffort,
): Promise<void> {
  const dir = path.join(modelsDir, m.name);
  if (!existsSync(dir)) return; // not installed: nothing to say
  try {
    await verifyPocketsphinxModel(dir, m);
  } catch (e) {
    set.refused.push({ language: m.language, reason: errorMessage(e) });
    return;
  }
  const acousticDict = path.join(dir, m.dict);
  const lmDir = path.join(modelsDir, `lm-${m.language}`);
  const found: PocketsphinxDecoderModel[] = [];
  for (const specialty of SPECIALTIES) {
    let lm = path.join(lmDir, `${specialty}.arpa`);
    let dict = acousticDict;
    if (existsSync(lm)) {
      const beside = lm.replace(/\.arpa$/u, '.dict');
      if (existsSync(beside)) dict = beside;
    } else if (specialty !== 'general') {
      continue;
    } else if (m.language === 'es') {
      lm = dictionaryUnigramModel(acousticDict);
    } else {
      set.refused.push({
        language: m.language,
        reason: `${m.name} is installed but has no language model (${lm}); npm run models -- lm build --language ${m.language} --text FILE builds it`,
      });
      return;
    }
    const fast = effort === 'fast' && m.fastSearch !== undefined;
    const search = fast ? m.fastSearch : m.search;
    const plan = await grammarPlan(m.language, lm, dict, acousticDict);
    const binary = await binaryLanguageModel(plan.lm);
    found.push({
      key: `${m.language}/${specialty}`,
      language: m.language,
      specialty,
      dir,
      hmm: path.join(dir, m.hmm),
      lm: binary.lm,
      dict: plan.dict,
      sampleRate: m.sampleRate,
      frontEnd: m.frontEnd,
      ...(search ? { search } : {}),
    });
    set.notes.push({
      language: m.language,
      specialty,
      lm,
      dict,
      addedToLm: plan.addedToLm.length,
      addedToDict: plan.addedToDict.length,
      unpronounceable: plan.unpronounceable,
      loaded: binary.lm,
      ...(binary.note !== undefined ? { binaryNote: binary.note } : {}),
      search: fast ? 'fast' : 'accurate',
    });
  }
  set.models.push(...found);
  set.languages.push(m.language);
}

/**
 * Finds every language's models. `english`: the English model directory; `explicit`: it was given
 * (`--model`), so that its absence fails the start even when other languages are there; `effort`: the
 * search (`--search`), whose `fast` bounds apply to the languages measured with them (languages.ts).
 */
export async function pocketsphinxModelSet(
  english: string,
  explicit: boolean,
  modelsDir: string,
  effort: SearchEffort = 'accurate',
): Promise<PocketsphinxModelSet> {
  const set: PocketsphinxModelSet = { models: [], languages: [], refused: [], notes: [] };
  let englishError: EngineUnavailableError | undefined;
  try {
    set.models.push({ ...pocketsphinxModel(english), key: 'en/general', language: 'en', specialty: 'general' });
    set.languages.push('en');
  } catch (e) {
    if (explicit || !(e instanceof EngineUnavailableError)) throw e;
    englishError = e;
  }
  for (const m of POCKETSPHINX_LANGUAGE_MODELS) await otherLanguage(m, modelsDir, set, effort);
  if (englishError) {
    if (set.models.length === 0) throw englishError;
    set.refused.unshift({ language: 'en', reason: englishError.message });
  }
  return set;
}
