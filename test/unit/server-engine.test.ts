import assert from 'node:assert/strict';
import { resolveConfig } from '../../src/protocol';
import { allBuiltInScripts, builtInScript } from '../../src/server/engine/scripts';
import type { Recognizer } from '../../src/server/engine/recognizer';
import { MS_PER_WORD, SimulatedEngine, SimulatedRecognizer, rawForm, tokenize } from '../../src/server/engine/simulated';

const W = Buffer.alloc(640);

/** Feeds one window; returns the words it released (the open utterance only grows in this engine). */
function step(r: Recognizer, voiced = true): string[] {
  const before = (r as unknown as { seen?: number }).seen ?? 0;
  const utterance = r.push(W, voiced, 20);
  if (!utterance) return [];
  (r as unknown as { seen?: number }).seen = utterance.length;
  return utterance.slice(before).map((w) => w.raw);
}

describe('server simulated engine', () => {
  it('first pass is lower case without punctuation; proofreading restores the tokens', () => {
    assert.equal(rawForm('Impression:'), 'impression');
    assert.equal(rawForm('"Fifty-two'), 'fifty-two');
    assert.equal(rawForm("l'épanchement,"), "l'épanchement");
    assert.equal(rawForm('3.5.'), '3.5');
    const words = tokenize('Hello,   World —  it works.');
    assert.deepEqual(
      words.map((w) => w.raw),
      ['hello', 'world', 'it', 'works'],
    );
    assert.equal(new SimulatedRecognizer(words).endSentence(words, true), 'Hello, World — it works.');
    assert.equal(new SimulatedRecognizer(words).endSentence(words, false), undefined);
  });

  it('releases one word per 300 ms of voiced audio, none for unvoiced, nothing after the script', () => {
    const r = new SimulatedRecognizer(tokenize('a b c'));
    const out: string[] = [];
    for (let i = 0; i < 14; i++) out.push(...step(r)); // 280 ms
    assert.equal(out.length, 0);
    for (let i = 0; i < 100; i++) out.push(...step(r, false)); // silence counts for nothing
    assert.equal(out.length, 0);
    out.push(...step(r)); // 300 ms voiced
    assert.deepEqual(out, ['a']);
    for (let i = 0; i < 15 * 10; i++) out.push(...step(r));
    assert.deepEqual(out, ['a', 'b', 'c']);
    assert.equal(MS_PER_WORD, 300);
    assert.deepEqual(r.endUtterance().map((w) => w.raw), ['a', 'b', 'c']);
    assert.deepEqual(r.endUtterance(), [], 'a new utterance starts empty');
  });

  it('checkpoints and restores the word cursor', () => {
    const words = tokenize('one two three four');
    const a = new SimulatedRecognizer(words);
    for (let i = 0; i < 20; i++) step(a); // 400 ms: one word, 100 ms towards the next
    const b = new SimulatedRecognizer(words);
    b.restore(JSON.parse(JSON.stringify(a.checkpoint())));
    const next = (r: SimulatedRecognizer): string[] => {
      const out: string[] = [];
      for (let i = 0; i < 10; i++) out.push(...step(r));
      return out;
    };
    assert.deepEqual(next(b), ['two']);
    assert.deepEqual(next(a), ['two']);
    assert.throws(() => b.restore({ engine: 'other' }), /simulated/);
  });

  it('has a built-in report of 40–120 words for every language × specialty', () => {
    const all = allBuiltInScripts();
    assert.equal(all.length, 16);
    for (const s of all) {
      const n = tokenize(s.text).length;
      assert.ok(n >= 40 && n <= 120, `${s.language}/${s.specialty}: ${n} words`);
    }
    assert.equal(builtInScript('xx', 'general'), undefined);
  });

  it('serves pcm_s16le at the listed rates only (INIT_ERROR reasons otherwise)', () => {
    const e = new SimulatedEngine();
    assert.equal(e.unsupported(resolveConfig({ sample_rate: 16000 })), undefined);
    assert.equal(e.unsupported(resolveConfig({ sample_rate: 44100 })), undefined);
    assert.match(e.unsupported(resolveConfig({ sample_rate: 11025 }))!, /sample_rate 11025/);
    assert.match(e.unsupported(resolveConfig({ encoding: 'opus' }))!, /encoding "opus"/);
  });

  it('uses the --script text instead of the built-in report', () => {
    const e = new SimulatedEngine('Custom words only.');
    const r = e.create(resolveConfig({ language: 'de', specialty: 'legal' })) as Recognizer;
    const out: string[] = [];
    for (let i = 0; i < 100; i++) out.push(...step(r));
    assert.deepEqual(out, ['custom', 'words', 'only']);
  });
});
