/**
 * Which language to dictate in, given the languages the service serves (`GET /healthz`): the example
 * client's default when no `--language` is given, and the check of one that is.
 */
import { DEFAULTS, LANGUAGES, type Language } from '../protocol/config';

interface LanguageChoice {
  language: Language;
  /** Why this one, said to the user. */
  why: string;
}

function isLanguage(l: string): l is Language {
  return (LANGUAGES as readonly string[]).includes(l);
}

/**
 * The language to use when none is given: the service's only language; else French when it serves it;
 * else the first it serves. `served` undefined (the service did not say) or `any`: French, the protocol's
 * default.
 */
export function chooseLanguage(served: readonly string[] | undefined): LanguageChoice {
  const fallback = DEFAULTS.language;
  if (!served) return { language: fallback, why: 'the default: the service did not say which languages it serves' };
  if (served.includes('any')) return { language: fallback, why: 'the default: the service takes any language' };
  const usable = served.filter(isLanguage);
  if (usable.length === 0)
    return {
      language: fallback,
      why: `the default: the service serves none of ${LANGUAGES.join(', ')} (it says ${served.join(', ') || 'none'})`,
    };
  if (usable.length === 1) return { language: usable[0]!, why: 'the only language the service serves' };
  if (usable.includes(fallback))
    return { language: fallback, why: `the default, among the languages the service serves (${usable.join(', ')})` };
  return { language: usable[0]!, why: `the first of the languages the service serves (${usable.join(', ')})` };
}

/** Why the service cannot take `language` (it says it serves others), or undefined when it can or does not say. */
export function languageRefusal(language: string, served: readonly string[] | undefined): string | undefined {
  if (!served || served.length === 0 || served.includes('any') || served.includes(language)) return undefined;
  return `the service does not serve the language ${language}; it serves ${served.join(', ')}`;
}
