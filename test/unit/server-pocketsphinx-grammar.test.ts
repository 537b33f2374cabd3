/**
 * The dictation grammar's words in the pocketsphinx decoders (engine/pocketsphinx/grammarWords.ts): the
 * lists follow the grammar's tables, and the words a language model or dictionary lacks are added to
 * copies of them.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TABLES } from '../../src/dictation/lang';
import { frenchWords } from '../../src/models/lm/frenchText';
import {
  ADDED_LOG10_PROB,
  GRAMMAR_WORDS,
  arpaUnigrams,
  dictionaryUnigramModel,
  grammarPlan,
  readDictionary,
} from '../../src/server/engine/pocketsphinx/grammarWords';
import { modelKey } from '../../src/server/engine/pocketsphinx/modelSet';

/** Every word of the grammar's spoken forms (punctuation, structure, commands, "literal"), as `spell` writes them. */
function grammarWords(language: 'fr' | 'es', spell: (s: string) => string[]): Set<string> {
  const t = TABLES[language];
  const says = [...t.structure, ...t.punctuation, ...t.commands].flatMap((r) => r.say).concat(t.literal);
  // `{name}`: a placeholder (what is said there is the user's), not a word.
  return new Set(says.map((s) => s.replace(/\{\w+\}/gu, ' ')).flatMap(spell));
}

describe("pocketsphinx: the dictation grammar's words", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-grammar-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("the French list holds every word of the French grammar, spelt as the language model's text is", () => {
    const listed = new Set(GRAMMAR_WORDS.fr);
    const spoken = grammarWords('fr', (s) => frenchWords(s, (w) => listed.has(w)));
    assert.deepEqual(
      [...spoken].filter((w) => !listed.has(w)),
      [],
    );
    for (const w of ['virgule', 'point', 'à', 'la', 'ligne', 'nouveau', 'paragraphe', "d'", 'interrogation']) assert.ok(listed.has(w), w);
  });

  it('the Spanish list holds every word of the Spanish grammar', () => {
    const listed = new Set(GRAMMAR_WORDS.es);
    const spoken = grammarWords('es', (s) => s.toLowerCase().split(/\s+/u).filter(Boolean));
    assert.deepEqual(
      [...spoken].filter((w) => !listed.has(w)),
      [],
    );
  });

  it('words the language model lacks become unigrams of a copy; words the dictionary lacks get their phones in a copy', async () => {
    const lm = path.join(dir, 'general.arpa');
    writeFileSync(
      lm,
      [
        '\\data\\',
        'ngram 1=4',
        'ngram 2=1',
        '',
        '\\1-grams:',
        '-99 <s> -0.3',
        '-1 </s>',
        '-1 point -0.2',
        '-1 la -0.2',
        '',
        '\\2-grams:',
        '-0.5 point la',
        '',
        '\\end\\',
        '',
      ].join('\n'),
    );
    const dict = path.join(dir, 'general.dict');
    writeFileSync(dict, 'point pp ww ei\nla ll aa\nligne ll ii gn\nligne(2) ll ii gn ee\n');
    const words = GRAMMAR_WORDS.fr;
    const plan = await grammarPlan('fr', lm, dict, dict);
    // In the dictionary, not in the model: to the model only.
    assert.ok(plan.addedToLm.includes('ligne'));
    assert.ok(!plan.addedToDict.some(([w]) => w === 'ligne'));
    // In neither, with phones of ours: both.
    assert.deepEqual(
      plan.addedToDict.find(([w]) => w === 'ouvrante'),
      ['ouvrante', 'ou vv rr an tt'],
    );
    assert.ok(plan.addedToLm.includes('ouvrante'));
    // In neither and nowhere to be pronounced: said.
    assert.ok(plan.unpronounceable.includes('virgule'));
    assert.ok(!plan.addedToLm.includes('virgule'));
    assert.ok(!plan.addedToLm.includes('point') && !plan.addedToLm.includes('la'));
    assert.equal(plan.addedToLm.length + plan.unpronounceable.length + 2, words.length);
    const arpa = readFileSync(plan.lm, 'utf8');
    assert.match(arpa, new RegExp(`^ngram 1=${4 + plan.addedToLm.length}$`, 'm'));
    assert.match(arpa, new RegExp(`^${ADDED_LOG10_PROB.toFixed(6)} ouvrante 0\\.000000$`, 'm'));
    assert.match(arpa, /\n\n\\2-grams:\n-0\.5 point la\n/u, 'the bigrams untouched');
    assert.equal((await arpaUnigrams(plan.lm)).size, 4 + plan.addedToLm.length);
    assert.equal(readDictionary(plan.dict).get('ouvrante'), 'ou vv rr an tt');
    assert.equal(readDictionary(plan.dict).get('ligne'), 'll ii gn');
    // The originals are left alone, and the same inputs give the same copies.
    assert.match(readFileSync(lm, 'utf8'), /^ngram 1=4$/m);
    assert.deepEqual(await grammarPlan('fr', lm, dict, dict), plan);
  });

  it('a model that has every word is used as it is', async () => {
    const lm = path.join(dir, 'all.arpa');
    const dict = path.join(dir, 'all.dict');
    const ws = GRAMMAR_WORDS.es;
    writeFileSync(lm, ['\\data\\', `ngram 1=${ws.length}`, '', '\\1-grams:', ...ws.map((w) => `-2 ${w}`), '', '\\end\\', ''].join('\n'));
    writeFileSync(dict, ws.map((w) => `${w} a`).join('\n'));
    assert.deepEqual(await grammarPlan('es', lm, dict, dict), { lm, dict, addedToLm: [], addedToDict: [], unpronounceable: [] });
  });

  it('a unigram model of a dictionary: every word once, equally likely', async () => {
    const dict = path.join(dir, 'es.dict');
    writeFileSync(dict, 'uno u n o\ndos d o s\ndos(2) d o s e\n<sil> SIL\n');
    const arpa = dictionaryUnigramModel(dict);
    assert.deepEqual([...(await arpaUnigrams(arpa))].sort(), ['</s>', '<s>', 'dos', 'uno']);
    assert.match(readFileSync(arpa, 'utf8'), /^ngram 1=4$/m);
  });

  it("a session's specialty picks its domain model where one is installed, else general", () => {
    const models = [{ key: 'en/general' }, { key: 'fr/general' }, { key: 'fr/radiology' }];
    assert.equal(modelKey(models, 'fr', 'radiology'), 'fr/radiology');
    assert.equal(modelKey(models, 'fr', 'legal'), 'fr/general');
    assert.equal(modelKey(models, 'en', 'radiology'), 'en/general');
    assert.equal(modelKey(models, 'de', 'general'), undefined);
  });
});
