// The dictation language `npm start` writes into code-server's settings (`dictee.language`): the language
// the engine it started serves, as the service's `GET /healthz` says it. The setting's own default, `auto`
// (VS Code's display language), is for everyone else; here the engine decides, so that dictation works.

const KNOWN = ['fr', 'en', 'es', 'de'];

/**
 * `languages`: the `languages` of `GET /healthz` (`any` when the engine releases a script whatever the
 * language: the sample script is English). Returns the language and why, said in the printed notes.
 */
export function startLanguage(languages, engine) {
  const served = (languages ?? []).filter((l) => KNOWN.includes(l));
  if (languages?.includes('any')) return { language: 'en', why: `the ${engine} engine's script (the sample report's findings) is English` };
  if (served.length === 1) return { language: served[0], why: `the only language the ${engine} engine serves` };
  if (served.includes('en'))
    return { language: 'en', why: `the sample report is English (the ${engine} engine serves ${served.join(', ')})` };
  if (served.length > 0) return { language: served[0], why: `the first language the ${engine} engine serves (${served.join(', ')})` };
  return { language: 'en', why: `the ${engine} engine did not say which languages it serves` };
}
