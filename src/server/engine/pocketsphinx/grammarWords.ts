/**
 * The dictation grammar's words (spoken punctuation, structure and commands; src/dictation/lang/*) that
 * a pocketsphinx decoder must be able to hear, and how each gets into the decoder: a word the language
 * model lacks is added to a copy of it as a unigram ({@link ADDED_LOG10_PROB}), and a word the
 * dictionary lacks to a copy of it, with its phones from the acoustic model's dictionary, else
 * {@link PHONES} below (the words neither dictionary has). A word whose phones are nowhere is said in the
 * log. The copies are written once, in a directory of this user's, named by what they are made of.
 * (pocketsphinx's own `ps_add_word` was tried: with a language model read from ARPA, Debian's
 * libpocketsphinx3 crashes in the next decode.)
 *
 * The lists are the grammar's own words as the language model's text is spelt (frenchWords of
 * src/models/lm/frenchText.ts: elisions as `d'`, hyphenated forms split); test/unit/grammar-words.test.ts
 * checks them against the grammar's tables, so that a word added there is added here.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

export const GRAMMAR_WORDS: Readonly<{ fr: readonly string[]; es: readonly string[] }> = {
  fr: (
    "-ce -je accepter annule annuler arrête arrêter barre champ choisir choisis complète corrige corriger crochet d' de deux " +
    'dictée dire défaut efface effacer est exclamation fermant fermante ferme fermer fermez fin final guillemets insère insérer ' +
    'interrogation je la le les ligne littéral littéralement modèle niveau nouveau nouvelle oblique ouvrant ouvrante ouvre ouvrez ' +
    "ouvrir par paragraphe parenthèse parenthèses peux point points précédent précédente puce puis qu' que retour slash suivant " +
    'suivante supprime suspension tiret titre trait trois un union valeurs variable virgule à ça épeler épelle'
  ).split(' '),
  es: (
    'abre abrir aceptar anterior aparte barra borra borrar campo cerrar cierra cierre coma comillas corregir corrige de decir ' +
    'defecto deletrea deletrear deshacer deshaz detener dictado dos elegir elige elimina eso exclamación final guion guión inserta ' +
    'insertar interrogación la literal literalmente línea nivel nueva nuevo oblicua paréntesis plantilla por predeterminados ' +
    'previo puedo punto puntos párrafo qué raya salto seguido signo siguiente suspensivos terminar tres título uno valores viñeta y'
  ).split(' '),
};

/** Phones of the grammar's words that the models' own dictionaries lack (each model's phone set). */
const PHONES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  fr: {
    ouvrante: 'ou vv rr an tt',
    fermante: 'ff ai rr mm an tt',
    épeler: 'ei pp ee ll ei',
    épelle: 'ei pp ai ll',
  },
  es: {
    viñeta: 'b i gn e t a',
    exclamación: 'e x k l a m a z i o n',
    suspensivos: 's u s p e n s i b o s',
    paréntesis: 'p a r e n t e s i s',
    guion: 'g i o n',
    guión: 'g i o n',
    barra: 'b a rr a',
    oblicua: 'o b l i k u a',
    borra: 'b o rr a',
    deshaz: 'd e s a z',
    predeterminados: 'p r e d e t e r m i n a d o s',
    corregir: 'k o rr e j i r',
    corrige: 'k o rr i j e',
    deletrear: 'd e l e t r e a r',
    deletrea: 'd e l e t r e a',
    plantilla: 'p l a n t i ll a',
    inserta: 'i n s e r t a',
    literal: 'l i t e r a l',
  },
};

/** A pocketsphinx dictionary: each word's first pronunciation (variants `word(2)` left out). */
export function readDictionary(file: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^(\S+)\s+(.+?)\s*$/u.exec(line);
    if (m && !/\(\d+\)$/u.test(m[1]!) && !out.has(m[1]!)) out.set(m[1]!, m[2]!);
  }
  return out;
}

/** The words of an ARPA file's unigram section (read up to its end only). */
export async function arpaUnigrams(file: string): Promise<Set<string>> {
  const words = new Set<string>();
  const rl = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  let inUnigrams = false;
  for await (const line of rl) {
    if (line.startsWith('\\')) {
      if (inUnigrams) break;
      inUnigrams = line.trim() === '\\1-grams:';
      continue;
    }
    if (!inUnigrams) continue;
    const w = line.split(/\s+/u)[1];
    if (w) words.add(w);
  }
  rl.close();
  return words;
}

/** Where derived files (a dictionary without some words, a unigram model) are written, by content hash. */
function derivedDir(): string {
  return path.join(os.tmpdir(), `dictee-pocketsphinx-${typeof process.getuid === 'function' ? process.getuid() : 'user'}`);
}

/** Writes `text` once as DIR/<hash>.<ext> (atomically) and returns its path. */
function writeDerived(text: string, ext: string, dir = derivedDir()): string {
  const file = path.join(dir, `${createHash('sha256').update(text).digest('hex').slice(0, 24)}.${ext}`);
  if (existsSync(file)) return file;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const part = `${file}.${process.pid}.part`;
  writeFileSync(part, text);
  renameSync(part, file);
  return file;
}

/** An added word's unigram probability (log10): a rare word's, so that it does not displace others. */
export const ADDED_LOG10_PROB = -6;

interface GrammarPlan {
  /** The language model the decoder is given (the one in use, or a copy with the words added). */
  lm: string;
  /** The dictionary the decoder is given (the one in use, or a copy with the words added). */
  dict: string;
  /** Words added to the language model. */
  addedToLm: string[];
  /** Words added to the dictionary, with their phones. */
  addedToDict: Array<[string, string]>;
  /** Grammar words no dictionary could pronounce (said in the log). */
  unpronounceable: string[];
}

/** The name of a copy of `file` with `extra` added: where it is, its size and time, and what is added. */
export function copyName(file: string, extra: string, ext: string): string {
  const st = statSync(file);
  const id = createHash('sha256')
    .update(`${path.resolve(file)}\n${st.size}\n${st.mtimeMs}\n${extra}`)
    .digest('hex')
    .slice(0, 24);
  return path.join(derivedDir(), `${id}.${ext}`);
}

/** A copy of an ARPA file with `words` added as unigrams (the count in its header raised), streamed. */
async function arpaWith(lm: string, words: readonly string[]): Promise<string> {
  const out = copyName(lm, words.join(' '), 'arpa');
  if (existsSync(out)) return out;
  mkdirSync(path.dirname(out), { recursive: true, mode: 0o700 });
  const part = `${out}.${process.pid}.part`;
  const w = createWriteStream(part);
  const write = async (line: string): Promise<void> => {
    if (!w.write(`${line}\n`)) await once(w, 'drain');
  };
  const rl = createInterface({ input: createReadStream(lm, { encoding: 'utf8' }), crlfDelay: Infinity });
  const UNIGRAMS = '\\1-grams:';
  let section = '';
  for await (const line of rl) {
    const count = section === '\\data\\' ? /^ngram 1=(\d+)\s*$/u.exec(line) : null;
    if (count) {
      await write(`ngram 1=${Number(count[1]) + words.length}`);
    } else if (line.startsWith('\\')) {
      // The end of the unigrams: the words go there, then the blank line that ends a section.
      if (section === UNIGRAMS) {
        for (const word of words) await write(`${ADDED_LOG10_PROB.toFixed(6)} ${word} 0.000000`);
        await write('');
      }
      section = line.trim();
      await write(line);
    } else if (!(section === UNIGRAMS && line.trim() === '')) {
      await write(line);
    }
  }
  w.end();
  await once(w, 'finish');
  renameSync(part, out);
  return out;
}

/**
 * How the grammar's words of `language` get into a decoder of `lm` with `dict` (`acousticDict`: the
 * acoustic model's own dictionary, for phones the other lacks).
 */
export async function grammarPlan(language: string, lm: string, dict: string, acousticDict: string): Promise<GrammarPlan> {
  const words = (GRAMMAR_WORDS as Readonly<Record<string, readonly string[] | undefined>>)[language] ?? [];
  const plan: GrammarPlan = { lm, dict, addedToLm: [], addedToDict: [], unpronounceable: [] };
  if (words.length === 0) return plan;
  const inLm = await arpaUnigrams(lm);
  const used = readDictionary(dict);
  const acoustic = acousticDict === dict ? used : readDictionary(acousticDict);
  for (const w of words) {
    if (used.has(w)) {
      if (!inLm.has(w)) plan.addedToLm.push(w);
      continue;
    }
    const phones = acoustic.get(w) ?? PHONES[language]?.[w];
    if (!phones) {
      plan.unpronounceable.push(w);
      continue;
    }
    plan.addedToDict.push([w, phones]);
    if (!inLm.has(w)) plan.addedToLm.push(w);
  }
  if (plan.addedToLm.length) plan.lm = await arpaWith(lm, plan.addedToLm);
  if (plan.addedToDict.length) {
    const extra = plan.addedToDict.map(([w, p]) => `${w} ${p}`).join('\n');
    const out = copyName(dict, extra, 'dict');
    if (!existsSync(out)) {
      const text = readFileSync(dict, 'utf8');
      const part = `${out}.${process.pid}.part`;
      writeFileSync(part, `${text}${text.endsWith('\n') ? '' : '\n'}${extra}\n`);
      renameSync(part, out);
    }
    plan.dict = out;
  }
  return plan;
}

/**
 * A unigram model of every word of a dictionary, all equally likely (a language without a language
 * model of its own: the decoder needs one).
 */
export function dictionaryUnigramModel(dict: string): string {
  const words = [...readDictionary(dict).keys()].filter((w) => !/^[<[+]/u.test(w)).sort();
  const p = (-Math.log10(words.length + 1)).toFixed(6);
  const lines = [
    '\\data\\',
    `ngram 1=${words.length + 2}`,
    '',
    '\\1-grams:',
    '-99 <s>',
    `${p} </s>`,
    ...words.map((w) => `${p} ${w}`),
    '',
    '\\end\\',
    '',
  ];
  return writeDerived(lines.join('\n'), 'arpa');
}
