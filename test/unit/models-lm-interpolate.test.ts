/**
 * `lm adapt`'s pieces on small texts made here: ARPA read and written back, the linear interpolation
 * merged into one back-off model (every context's distribution sums to 1, listed n-grams get the
 * mixture of both models' probabilities, the output is the same every run), and the text taken from
 * Markdown reports, template fields and settings.json's vocabulary.
 */
import assert from 'node:assert/strict';
import { ArpaError } from '../../src/models/lm/arpa';
import { type ArpaModel, logProb, parseArpa, writeArpaModel } from '../../src/models/lm/arpaModel';
import { AdaptSourceError, expandFields, markdownSentences, vocabularyOfSettings } from '../../src/models/lm/adaptSources';
import { InterpolateError, interpolate } from '../../src/models/lm/interpolate';
import { EOS, TrigramCounter, estimate, writeArpa } from '../../src/models/lm/kneserNey';

/** A trigram of `lines` (words split on spaces), as ARPA text, by the builder's estimate. */
function model(lines: string[], prune = false): ArpaModel {
  const vocab = [...new Set(lines.flatMap((l) => l.split(' ')))].sort();
  const id = new Map(vocab.map((w, i) => [w, i + EOS + 1]));
  const c = new TrigramCounter();
  for (const l of lines) c.add(l.split(' ').map((w) => id.get(w)!));
  let text = '';
  writeArpa(estimate(c, ['<unk>', '<s>', '</s>', ...vocab], prune), (s) => void (text += s));
  return parseArpa(text);
}

const text = (m: ArpaModel): string => {
  let s = '';
  writeArpaModel(m, (x) => void (s += x));
  return s;
};

/** Seeded sentences over a few words (the same every run). */
function sentences(words: string[], n: number, seed: number): string[] {
  let x = seed;
  const rnd = (): number => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return Array.from({ length: n }, () =>
    Array.from({ length: 2 + Math.floor(rnd() * 6) }, () => words[Math.floor(rnd() * rnd() * words.length)]!).join(' '),
  );
}

const GENERAL = sentences(['le', 'la', 'de', 'est', 'un', 'une', 'et', 'patient', 'examen', 'normal', 'maison', 'chat', 'soleil'], 400, 3);
const DOMAIN = sentences(
  ['le', 'de', 'est', 'nodule', 'pulmonaire', 'pleural', 'épanchement', 'absence', 'examen', 'normal', 'scanner'],
  60,
  11,
);

/** Σ over the vocabulary (but <s>) of p(w | ctx), by the model's back-off rule. */
function total(m: ArpaModel, ctx: number[]): number {
  let s = 0;
  const bos = m.index.get('<s>');
  for (let w = 0; w < m.words.length; w++) if (w !== bos) s += 10 ** logProb(m, ctx, w);
  return s;
}

describe('lm adapt: ARPA models mixed as one back-off model', () => {
  const general = model(GENERAL, true);
  const domain = model(DOMAIN);
  const mixed = interpolate(domain, general, 0.5);

  it('every context of the mixture sums to 1 (listed contexts, unlisted ones, and none)', () => {
    assert.ok(Math.abs(total(mixed, []) - 1) < 1e-3, `unigrams: ${total(mixed, [])}`);
    let checked = 0;
    for (let n = 1; n < mixed.order; n++) {
      for (const k of mixed.grams[n - 1]!.keys()) {
        const ctx = n === 1 ? [k] : [Math.floor(k / 2 ** 17), k % 2 ** 17];
        const s = total(mixed, ctx);
        assert.ok(Math.abs(s - 1) < 2e-3, `context ${ctx.map((i) => mixed.words[i]).join(' ')}: ${s}`);
        checked++;
      }
    }
    // A context listed in neither model.
    const [a, b] = [mixed.index.get('soleil')!, mixed.index.get('pleural')!];
    assert.ok(Math.abs(total(mixed, [a, b]) - 1) < 2e-3);
    assert.ok(checked > 100, `${checked} contexts`);
  });

  it('a listed n-gram has λ·p_domain + (1−λ)·p_general; a word of one model only, λ times its probability there', () => {
    const words = (ws: string[], m: ArpaModel): number[] => ws.map((w) => m.index.get(w) ?? -1);
    for (const ngram of [
      ['le', 'patient'],
      ['de', 'est'],
      ['absence', 'de'],
      ['examen', 'normal'],
    ]) {
      const ctx = ngram.slice(0, -1);
      const w = ngram[ngram.length - 1]!;
      const want =
        0.5 * 10 ** logProb(domain, words(ctx, domain), domain.index.get(w) ?? -1) +
        0.5 * 10 ** logProb(general, words(ctx, general), general.index.get(w) ?? -1);
      const got = 10 ** logProb(mixed, words(ctx, mixed), mixed.index.get(w)!);
      assert.ok(Math.abs(got - want) / want < 1e-4, `${ngram.join(' ')}: ${got} vs ${want}`);
    }
    const onlyDomain = 10 ** logProb(mixed, [], mixed.index.get('pulmonaire')!);
    assert.ok(Math.abs(onlyDomain - 0.5 * 10 ** logProb(domain, [], domain.index.get('pulmonaire')!)) < 1e-6);
    assert.equal(general.index.has('pulmonaire'), false);
    // More weight on the domain: its words more likely.
    const heavier = interpolate(domain, general, 0.8);
    assert.ok(logProb(heavier, [], heavier.index.get('pulmonaire')!) > logProb(mixed, [], mixed.index.get('pulmonaire')!));
  });

  it('is deterministic, and what it writes reads back to the same model', () => {
    const once = text(mixed);
    assert.equal(text(interpolate(model(DOMAIN), model(GENERAL, true), 0.5)), once);
    assert.equal(text(parseArpa(once)), once);
    assert.deepEqual(mixed.words.slice(0, 3), ['<unk>', '<s>', '</s>']);
    assert.deepEqual(mixed.words.slice(3), [...mixed.words.slice(3)].sort());
  });

  it('refuses a weight outside (0, 1)', () => {
    for (const l of [0, 1, -0.2, 1.5, Number.NaN]) assert.throws(() => interpolate(domain, general, l), InterpolateError);
  });

  it('refuses malformed ARPA with the line that is wrong', () => {
    const good = text(domain);
    assert.throws(() => parseArpa(good.replace('\\end\\', ''), 'x.arpa'), /x\.arpa.*no \\end\\ line/);
    assert.throws(() => parseArpa(good.replace(/ngram 2=(\d+)/, (_, n: string) => `ngram 2=${Number(n) + 1}`)), /the header says/);
    assert.throws(() => parseArpa(good.replace(/\n-[\d.]+\t<unk>/, '\nabc\t<unk>')), /line \d+: "abc" is not a log10 probability/);
    assert.throws(() => parseArpa(good.replace(/(\\2-grams:\n-[\d.]+\t)\S+/, '$1zzz')), /the word "zzz" is not among the 1-grams/);
    assert.throws(() => parseArpa('hello\n'), ArpaError);
    assert.throws(() => parseArpa('\\data\\\nngram 1=1\nngram 2=0\nngram 3=0\nngram 4=0\n'), /order 4/);
  });
});

describe('lm adapt: the text of reports, templates and vocabulary', () => {
  it('gives one sentence per choice of a template field', () => {
    assert.deepEqual(expandFields('Examen {{normal|anormal}} du {{thorax}}.'), ['Examen normal du thorax.', 'Examen anormal du thorax.']);
    assert.deepEqual(expandFields('sans champ'), ['sans champ']);
  });

  it('drops Markdown markup and splits sentences', () => {
    const md = [
      '<!-- name: Radiologie -->',
      '# Compte rendu',
      '',
      '- **Technique** : coupes [axiales](https://example.org/x).',
      '> Pas de lésion. Foie normal !',
      '```',
      'code ignoré',
      '```',
      '| Organe | État |',
      '|---|---|',
      '| foie | normal |',
      '1. {{Bilan.|Suivi.}}',
    ].join('\n');
    assert.deepEqual(markdownSentences(md), [
      'Compte rendu',
      'Technique :',
      'coupes axiales.',
      'Pas de lésion.',
      'Foie normal !',
      'Organe',
      'État',
      'foie',
      'normal',
      'Bilan.',
      'Suivi.',
    ]);
  });

  it('takes the spoken forms of dictee.vocabulary for the language from a settings.json with comments', () => {
    const s =
      '{\n // mine\n "dictee.vocabulary": { "fr": { "scanner": "TDM", "lobe supérieur droit": "LSD", }, "en": {"sea tea": "CT"} },\n /* x */ "a": 1 }';
    assert.deepEqual(vocabularyOfSettings(s, 'fr', 'settings.json'), ['scanner', 'lobe supérieur droit']);
    assert.deepEqual(vocabularyOfSettings('{"editor.fontSize": 3}', 'fr', 's'), []);
    assert.throws(
      () => vocabularyOfSettings('{"dictee.vocabulary": {"fr": "x"}}', 'fr', 's.json'),
      /s\.json: dictee\.vocabulary must be an object/,
    );
    assert.throws(() => vocabularyOfSettings('{oops', 'fr', 's.json'), AdaptSourceError);
  });
});
