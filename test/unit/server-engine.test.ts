import assert from 'node:assert/strict';
import { resolveConfig } from '../../src/protocol';
import { allBuiltInScripts, builtInScript } from '../../src/server/engine/scripts';
import type { Recognizer } from '../../src/server/engine/recognizer';
import { MS_PER_WORD, SimulatedEngine, SimulatedRecognizer, parseUtterances, rawForm, tokenize } from '../../src/server/engine/simulated';
import { Segmenter, type SegmentEvent } from '../../src/server/engine/segmenter';
import { framesOf, silence, tone } from '../helpers/speech';

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
    assert.deepEqual(
      r.endUtterance().map((w) => w.raw),
      ['a', 'b', 'c'],
    );
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

  describe('a script of one utterance per line (#utterances)', () => {
    const SCRIPT = '#utterances\nInsérer modèle radiologie.\n\nChamp suivant.\nLe foie est normal, la rate aussi point.\n';

    /** A recognizer driven as the segmenter does: windows of 20 ms, and the end of each utterance. */
    class Driver {
      private seen = 0;
      constructor(readonly r: SimulatedRecognizer) {}
      /** `ms` of audio, voiced or not: the words it released. */
      audio(voiced: boolean, ms: number): string[] {
        const out: string[] = [];
        for (let t = 0; t < ms; t += 20) {
          const u = this.r.push(W, voiced, 20);
          if (u) {
            out.push(...u.slice(this.seen).map((w) => w.raw));
            this.seen = u.length;
          }
        }
        return out;
      }
      /** The segmenter ends the utterance (a pause of engine_endpointing): the words that come out with it. */
      end(): string[] {
        const u = this.r.endUtterance();
        const out = u.slice(this.seen).map((w) => w.raw);
        this.seen = 0;
        return out;
      }
    }

    it('reads the lines as utterances, blank lines skipped; any other script is one stream', () => {
      const u = parseUtterances(SCRIPT)!;
      assert.deepEqual(u.ends, [3, 5, 13]);
      assert.equal(u.words[5]!.proofread, 'Le');
      assert.equal(parseUtterances('Insérer modèle.\nChamp suivant.'), null);
      assert.equal(parseUtterances('#utterances is only a marker on a line of its own'), null);
    });

    it('each utterance releases one line: one word per 300 ms, the rest when it ends, nothing beyond the line', () => {
      const d = new Driver(new SimulatedEngine(SCRIPT).create(resolveConfig({})));
      assert.deepEqual(d.end(), [], 'an utterance of silence ends nothing');
      assert.deepEqual(d.audio(true, 400), ['insérer']);
      assert.deepEqual(d.end(), ['modèle', 'radiologie'], 'the rest of the line when the utterance ends');
      assert.deepEqual(d.audio(false, 2000), [], 'silence releases nothing');
      assert.deepEqual(d.end(), []);
      assert.deepEqual(d.audio(true, 3000), ['champ', 'suivant'], 'a long utterance releases its line only');
      assert.deepEqual(d.end(), []);
      assert.deepEqual(d.audio(true, 100), [], 'a short utterance: no word yet');
      assert.deepEqual(d.end(), ['le', 'foie', 'est', 'normal', 'la', 'rate', 'aussi', 'point']);
      assert.deepEqual(d.audio(true, 3000), [], 'nothing after the last line');
    });

    it('checkpoints and restores the line being said', () => {
      const u = parseUtterances(SCRIPT)!;
      const a = new Driver(new SimulatedRecognizer(u.words, u.ends));
      a.audio(true, 400);
      const b = new Driver(new SimulatedRecognizer(u.words, u.ends));
      b.r.restore(JSON.parse(JSON.stringify(a.r.checkpoint())));
      assert.deepEqual(b.end(), ['modèle', 'radiologie']);
      assert.deepEqual(b.audio(true, 300), ['champ']);
    });

    it('through the segmenter: one final chunk and one proofread sentence per line', () => {
      const cfg = resolveConfig({ engine_endpointing: 0.3, silence_threshold: 0.8 });
      const seg = new Segmenter(cfg, new SimulatedEngine(SCRIPT).create(cfg));
      const events: SegmentEvent[] = [];
      for (const part of [silence(500), tone(700), silence(1200), tone(500), silence(1200), tone(1900), silence(1200)])
        for (const f of framesOf(part)) events.push(...seg.push(f));
      const finals = events.flatMap((e) => (e.type === 'transcript' && e.status === 'final' ? [e.text] : []));
      assert.deepEqual(finals, ['insérer modèle radiologie', 'champ suivant', 'le foie est normal la rate aussi point']);
      const proofread = events.flatMap((e) => (e.type === 'batch.replace' ? [e.data.new_chunk.text] : []));
      assert.deepEqual(proofread, ['Insérer modèle radiologie.', 'Champ suivant.', 'Le foie est normal, la rate aussi point.']);
    });
  });
});
