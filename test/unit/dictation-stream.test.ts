/**
 * A dictation run chunk by chunk (DictationFormatter): hold-back of words that may begin a command,
 * the caller-driven flush, commands said alone, and batch.replace that neither writes a held word
 * twice nor re-runs a command.
 */
import assert from 'node:assert/strict';
import { DictationFormatter, HOLD_BACK_MS } from '../../src/dictation/stream';

const start = { before: '', after: '' };
const after = (before: string) => ({ before, after: '' });

describe('dictation: a run chunk by chunk', () => {
  it('holds back a word that may begin a command until the next chunk', () => {
    const f = new DictationFormatter({ language: 'fr' });
    const a = f.commit('c1', 'le foie est normal nouveau', start);
    assert.equal(a.text, 'Le foie est normal');
    assert.equal(a.held, 'nouveau');
    assert.deepEqual(f.held, { id: 'c1', text: 'nouveau' });
    const b = f.commit('c2', 'paragraphe la rate aussi', after('Le foie est normal'));
    assert.equal(b.text, '\n\nLa rate aussi');
    assert.equal(f.held, null);
  });

  it('"point d\'" + "interrogation" across two chunks is one question mark', () => {
    const f = new DictationFormatter({ language: 'fr' });
    assert.equal(f.commit('c1', "pourquoi point d'", start).text, 'Pourquoi');
    assert.equal(f.commit('c2', 'interrogation', after('Pourquoi')).text, '\u202F?');
  });

  it('English "new" + "paragraph", Spanish "punto y" + "coma", German "neuer" + "Absatz"', () => {
    const en = new DictationFormatter({ language: 'en' });
    assert.equal(en.commit('1', 'the liver is normal new', start).text, 'The liver is normal');
    assert.equal(en.commit('2', 'paragraph', after('The liver is normal')).text, '\n\n');
    const es = new DictationFormatter({ language: 'es' });
    assert.equal(es.commit('1', 'sin fiebre punto y', start).text, 'Sin fiebre');
    assert.equal(es.commit('2', 'coma sin dolor', after('Sin fiebre')).text, '; sin dolor');
    const de = new DictationFormatter({ language: 'de' });
    assert.equal(de.commit('1', 'die Leber neuer', start).text, 'Die Leber');
    assert.equal(de.commit('2', 'Absatz die Milz', after('Die Leber')).text, '\n\nDie Milz');
  });

  it('held words that do not make a command are written with the next chunk, as words', () => {
    const f = new DictationFormatter({ language: 'fr' });
    f.commit('c1', 'il faut un nouveau', start);
    assert.equal(f.commit('c2', 'scanner', after('Il faut un')).text, ' nouveau scanner');
  });

  it("flush() writes the held words, for the chunk they came from (the caller's timer or the end of the run)", () => {
    assert.equal(HOLD_BACK_MS, 800);
    const f = new DictationFormatter({ language: 'en' });
    f.commit('c1', 'we need a new', start);
    const r = f.flush(after('We need a'));
    assert.deepEqual(r, { id: 'c1', text: ' new', actions: [], held: '' });
    assert.equal(f.flush(after('We need a new')), null);
  });

  it('a complete command word is not held ("point" at the end of a chunk is written at once)', () => {
    const f = new DictationFormatter({ language: 'fr' });
    const r = f.commit('c1', 'le foie est normal point', start);
    assert.equal(r.text, 'Le foie est normal.');
    assert.equal(r.held, '');
  });

  it('never splits what a rule reads as one ("T" + "deux" is "T2", "deux" is not held)', () => {
    const f = new DictationFormatter({ language: 'fr' });
    const r = f.commit('c1', 'séquence pondérée T deux', start);
    assert.equal(r.text, 'Séquence pondérée T2');
    assert.equal(r.held, '');
  });

  it('a whole-utterance command split across chunks ("efface" + "ça") still works', () => {
    const f = new DictationFormatter({ language: 'fr' });
    f.commit('c1', 'le foie est normal point', start);
    const a = f.commit('c2', 'efface', after('Le foie est normal.'));
    assert.equal(a.text, '');
    assert.equal(a.held, 'efface');
    const b = f.commit('c3', 'ça', after('Le foie est normal.'));
    assert.deepEqual(b.actions, [{ kind: 'deleteLastUtterance', targetId: 'c1' }]);
  });

  it('a command said inside a sentence is dictation', () => {
    const f = new DictationFormatter({ language: 'fr' });
    const r = f.commit('c1', 'il a dit efface ça', start);
    assert.equal(r.text, 'Il a dit efface ça');
    assert.deepEqual(r.actions, []);
  });

  it('"efface ça" after held words deletes the utterance they belong to, held words included', () => {
    const f = new DictationFormatter({ language: 'fr' });
    f.commit('c1', 'le foie nouveau', start);
    const r = f.commit('c2', 'efface ça', after('Le foie'));
    assert.equal(r.text, '');
    assert.deepEqual(r.actions, [{ kind: 'deleteLastUtterance', targetId: 'c1' }]);
    assert.equal(f.held, null);
  });

  it('"champ suivant" after held words writes them first, then moves', () => {
    const f = new DictationFormatter({ language: 'fr' });
    f.commit('c1', 'le foie nouveau', start);
    const r = f.commit('c2', 'champ suivant', after('Le foie'));
    assert.equal(r.text, ' nouveau');
    assert.deepEqual(r.actions, [{ kind: 'nextField' }]);
  });

  it('"efface ça" twice deletes the two last utterances', () => {
    const f = new DictationFormatter({ language: 'en' });
    f.commit('a', 'one', start);
    f.commit('b', 'two', after('One'));
    assert.deepEqual(f.commit('c', 'scratch that', after('One two')).actions, [{ kind: 'deleteLastUtterance', targetId: 'b' }]);
    assert.deepEqual(f.commit('d', 'scratch that', after('One')).actions, [{ kind: 'deleteLastUtterance', targetId: 'a' }]);
    assert.deepEqual(f.commit('e', 'scratch that', start).actions, [{ kind: 'deleteLastUtterance' }]);
  });

  it('batch.replace formats the new chunk again', () => {
    const f = new DictationFormatter({ language: 'fr' });
    f.commit('c1', 'le foie mesure trois virgule deux', start);
    const r = f.replace(['c1'], 'r1', 'Le foie mesure trois virgule deux centimètres.', start)!;
    assert.equal(r.text, 'Le foie mesure 3,2\u00A0cm.');
    assert.deepEqual(r.actions, []);
  });

  it('batch.replace of a chunk whose held word went to the next chunk does not write that word twice', () => {
    const f = new DictationFormatter({ language: 'fr' });
    f.commit('c1', 'le foie est normal nouveau', start);
    f.commit('c2', 'paragraphe la rate aussi', after('Le foie est normal'));
    const r = f.replace(['c1'], 'r1', 'Le foie est normal, nouveau', start)!;
    assert.equal(r.text, 'Le foie est normal,');
  });

  it('batch.replace of the chunk that received held words puts them back in front', () => {
    const f = new DictationFormatter({ language: 'fr' });
    f.commit('c1', 'le foie est normal nouveau', start);
    f.commit('c2', 'paragraphe la rate aussi', after('Le foie est normal'));
    const r = f.replace(['c2'], 'r2', 'Paragraphe, la rate aussi.', after('Le foie est normal'))!;
    assert.equal(r.text, '\n\nLa rate aussi.');
  });

  it('batch.replace of both chunks formats them as one', () => {
    const f = new DictationFormatter({ language: 'fr' });
    f.commit('c1', 'le foie est normal nouveau', start);
    f.commit('c2', 'paragraphe la rate aussi', after('Le foie est normal'));
    assert.equal(
      f.replace(['c1', 'c2'], 'r', 'Le foie est normal. Nouveau paragraphe. La rate aussi.', start)?.text,
      'Le foie est normal\n\nLa rate aussi.',
    );
  });

  it('batch.replace of a command chunk never runs the command again and leaves the document as it is', () => {
    const f = new DictationFormatter({ language: 'fr' });
    f.commit('c1', 'le foie est normal point', start);
    f.commit('c2', 'efface ça', start);
    assert.equal(f.replace(['c2'], 'r2', 'Efface ça.', start), null);
    // The rewritten command is a command too: a later rewrite of it leaves the document as well.
    assert.equal(f.replace(['r2'], 'r3', 'Efface ça', start), null);
  });

  it('batch.replace of a sentence that mixes dictation and a command said alone leaves the document as it is', () => {
    const f = new DictationFormatter({ language: 'fr' });
    f.commit('c1', 'rien à signaler', start);
    assert.deepEqual(f.commit('c2', 'champ suivant', after('Rien à signaler')).actions, [{ kind: 'nextField' }]);
    f.commit('c3', 'normal', after('Rien à signaler'));
    // Its rewrite would write "champ suivant" as words where the first chunk was.
    assert.equal(f.replace(['c1', 'c2', 'c3'], 'r', 'Rien à signaler champ suivant normal.', start), null);
    // Nothing was forgotten: "efface ça" still deletes the last utterance.
    assert.deepEqual(f.commit('c4', 'efface ça', start).actions, [{ kind: 'deleteLastUtterance', targetId: 'c3' }]);
  });

  it('"efface ça" after a template inserted by voice deletes the template', () => {
    const template = {
      name: 'Radiologie',
      language: 'fr' as const,
      content: '# CR\n\n{{Bilan.}}\n',
      source: 'builtin' as const,
      path: 'fr/radiologie.md',
    };
    const f = new DictationFormatter({ language: 'fr', templates: [template] });
    f.commit('c1', 'le foie est normal point', start);
    assert.equal(f.commit('c2', 'insérer modèle radiologie', after('Le foie est normal.')).actions[0]?.kind, 'insertTemplate');
    assert.deepEqual(f.commit('c3', 'efface ça', start).actions, [{ kind: 'deleteLastUtterance', targetId: 'c2' }]);
    assert.deepEqual(f.commit('c4', 'efface ça', start).actions, [{ kind: 'deleteLastUtterance', targetId: 'c1' }]);
  });

  it('a mark said right after the mark the last utterance ended with replaces it, where the caller allows it', () => {
    const en = new DictationFormatter({ language: 'en' });
    en.commit('a', 'three views of the chest period', start);
    const r = en.commit('b', 'question mark', { before: 'Three views of the chest.', after: '', replaceable: 25 });
    assert.equal(r.text, '?');
    assert.equal(r.deleteBefore, 1);
    // French: the narrow no-break space before "?" goes with it.
    const fr = new DictationFormatter({ language: 'fr' });
    const q = fr.commit('b', "point d'exclamation", { before: 'Pourquoi\u202F?', after: '', replaceable: 10 });
    assert.deepEqual([q.text, q.deleteBefore], ['\u202F!', 2]);
    // Text it may not rewrite (typed by a person): the words stay words, never ".?".
    const n = new DictationFormatter({ language: 'en' });
    const w = n.commit('b', 'question mark', { before: 'Findings: chest.', after: '' });
    assert.equal(w.text, ' Question mark');
    assert.equal(w.deleteBefore, undefined);
  });

  it('batch.replace of the latest chunk while its words are held holds the new tail instead', () => {
    const f = new DictationFormatter({ language: 'en' });
    f.commit('c1', 'the liver new', start);
    const r = f.replace(['c1'], 'r1', 'The liver, new', start)!;
    assert.equal(r.text, 'The liver,');
    assert.deepEqual(f.held, { id: 'r1', text: 'new' });
  });

  it('provisional text shows the formatting committed text will have, held words first', () => {
    const f = new DictationFormatter({ language: 'fr' });
    assert.equal(f.provisional('trois virgule deux centimètres', after('mesure')), ' 3,2\u00A0cm');
    f.commit('c1', 'le foie nouveau', start);
    assert.equal(f.provisional('paragraphe la rate', after('Le foie')), '\n\nLa rate');
  });

  it('setOptions switches the language of the next chunks', () => {
    const f = new DictationFormatter({ language: 'fr' });
    f.setOptions({ language: 'en' });
    assert.equal(f.commit('c1', 'the end period', start).text, 'The end.');
  });
});
