/**
 * Our French grapheme-to-phoneme measured on the French model's own dictionary (105k words, fetched from
 * the npm registry like a user's): a held-out tenth of its words (every tenth entry, never looked at
 * while the rules were written), word accuracy (the rules' pronunciation is one of the dictionary's
 * variants) and phone error rate (edits to the nearest variant over its length).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { G2pError, frenchPronunciations } from '../../src/models/lm/frenchG2p';
import { readDictionary } from '../../src/models/lm/pronounce';
import { POCKETSPHINX_FR } from '../../src/server/engine/pocketsphinx/languages';
import { ensurePocketsphinxFr } from '../helpers/frenchLm';

function editDistance(a: readonly string[], b: readonly string[]): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

describe('French grapheme-to-phoneme, on the dictionary of the French model', function () {
  this.timeout(120_000);

  it('pronounces a held-out tenth of the dictionary: ≥ 70 % of the words exactly, ≤ 10 % phone errors', async () => {
    const dir = await ensurePocketsphinxFr();
    const dict = readDictionary(path.join(dir, POCKETSPHINX_FR.name, POCKETSPHINX_FR.dict));
    let words = 0;
    let exact = 0;
    let edits = 0;
    let phones = 0;
    let unmapped = 0;
    let i = 0;
    for (const [w, variants] of dict) {
      if (!/^[a-zàâäéèêëîïôöûüùÿçœæ'-]+$/u.test(w) || ++i % 10 !== 0) continue;
      words++;
      let hyp: string[][];
      try {
        hyp = frenchPronunciations(w);
      } catch (e) {
        assert.ok(e instanceof G2pError, String(e));
        unmapped++;
        continue;
      }
      let best = Infinity;
      let len = 1;
      for (const v of variants) {
        const ref = v.split(' ');
        for (const h of hyp) {
          const d = editDistance(ref, h);
          if (d < best) [best, len] = [d, ref.length];
        }
      }
      if (best === 0) exact++;
      edits += best;
      phones += len;
    }
    const accuracy = exact / words;
    const per = edits / phones;
    console.log(
      `      G2P on ${words} held-out dictionary words: word accuracy ${(100 * accuracy).toFixed(1)} %, phone error rate ${(100 * per).toFixed(1)} % (${unmapped} unmapped)`,
    );
    assert.ok(words > 5000);
    assert.ok(accuracy >= 0.7, `word accuracy ${accuracy}`);
    assert.ok(per <= 0.1, `PER ${per}`);
    assert.ok(unmapped <= 5);
  });
});
