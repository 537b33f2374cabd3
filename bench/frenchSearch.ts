/**
 * French search settings tried side by side, in process on the French development recordings
 * (bench/speechCompare.ts's pipeline: the service's segmenter and recognizer without sockets or threads):
 * for each named configuration, the word errors of the whole-file decode, of the first pass and of the final
 * text, and the CPU seconds per audio second of the first pass, of the proofreading decodes and in all.
 * Not a bench itself (run.ts reads only *.bench.ts): docs/engines.md "French capacity" records its rows.
 *
 *   node --import tsx bench/frenchSearch.ts [--out DIR] [--models DIR] NAME…   (names: {@link CONFIGS}; none: list them)
 *   node --import tsx bench/frenchSearch.ts --skip DIR/now.json  (skipping sure sentences' proofreading)
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Comparison, compareDecodes, percent, scoredWords, serviceModel, speechClips } from './speechCompare';
import { sentenceCase } from '../src/server/engine/recognizer';
import { wordErrors } from '../test/helpers/recordings';
import { ensureFrenchLm } from '../test/helpers/frenchLm';
import type { DecoderOptions } from '../src/server/engine/pocketsphinx/ffi';

type Options = Array<[string, string]>;
interface Config {
  live?: Options;
  proofread?: Options;
  /** Sessions without details (word times, confidences, alternatives): the rest measures sessions with them. */
  noDetails?: boolean;
}

/** Each configuration: options added to the service's own (languages.ts FRENCH_SEARCH). */
export const CONFIGS: Record<string, Config> = {
  now: {},
  'now, no details': { noDetails: true },
  'topn 3': { live: [['-topn', '3']], proofread: [['-topn', '3']] },
  'ds 2 both': { live: [['-ds', '2']], proofread: [['-ds', '2']] },
  'pl_window 0': { live: [['-pl_window', '0']], proofread: [['-pl_window', '0']] },
  'pl_window 10': { live: [['-pl_window', '10']], proofread: [['-pl_window', '10']] },
  'proofread 4000/10': { proofread: [['-maxwpf', '10']] },
  'proofread 3000/10': {
    proofread: [
      ['-maxhmmpf', '3000'],
      ['-maxwpf', '10'],
    ],
  },
  'proofread 4000/10 topn 3': {
    live: [['-topn', '3']],
    proofread: [
      ['-maxwpf', '10'],
      ['-topn', '3'],
    ],
  },
  'live 1500': { live: [['-maxhmmpf', '1500']] },
  'proofread 2500/10': {
    proofread: [
      ['-maxhmmpf', '2500'],
      ['-maxwpf', '10'],
    ],
  },
  'proofread 2000/10': {
    proofread: [
      ['-maxhmmpf', '2000'],
      ['-maxwpf', '10'],
    ],
  },
  'live 1500, proofread 2000/10': {
    live: [['-maxhmmpf', '1500']],
    proofread: [
      ['-maxhmmpf', '2000'],
      ['-maxwpf', '10'],
    ],
  },
  'live 1500, proofread 3000': { live: [['-maxhmmpf', '1500']], proofread: [['-maxhmmpf', '3000']] },
  'proofread fwdflat beams': {
    proofread: [
      ['-fwdflatbeam', '1e-40'],
      ['-fwdflatwbeam', '1e-20'],
    ],
  },
};

export interface Row {
  name: string;
  words: number;
  errors: Comparison['errors'];
  cpu: { whole: number; firstPass: number; proofread: number; total: number };
  sentences: Comparison['sentences'];
  clips: Comparison['clips'];
}

/**
 * Skipping the proofreading of a sentence whose first pass is sure of itself, from a row's sentences: for
 * each threshold on the first pass's least word confidence (and on its mean), the final errors with the
 * first pass kept where it passes, the sentences skipped and the proofreading CPU saved (per audio s).
 */
function skipTable(row: Row): string[] {
  const clips = speechClips('fr');
  const audioS = clips.reduce((n, c) => n + c.pcm.length / 32000, 0);
  const out = [
    "| skip when the first pass's | threshold | sentences skipped | final errors | proofreading CPU saved |",
    '|---|---:|---:|---:|---:|',
  ];
  const measures: Array<[string, (ws: Row['sentences'][number]['firstPass']) => number]> = [
    ['least word confidence', (ws) => Math.min(...ws.map((w) => w.confidence ?? 0))],
    ['mean word confidence', (ws) => ws.reduce((n, w) => n + (w.confidence ?? 0), 0) / Math.max(1, ws.length)],
  ];
  for (const [what, measure] of measures) {
    for (const t of [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]) {
      let skipped = 0;
      let saved = 0;
      let errors = 0;
      for (const clip of clips) {
        const text = row.sentences
          .filter((s) => s.clip === clip.id)
          .map((s) => {
            if (s.firstPass.length && measure(s.firstPass) >= t) {
              skipped++;
              saved += s.cpu;
              return sentenceCase(s.firstPass.map((w) => w.raw));
            }
            return s.proofread;
          })
          .join(' ');
        errors += wordErrors(scoredWords('fr', clip.reference), scoredWords('fr', text)).errors;
      }
      out.push(`| ${what} | ${t} | ${skipped} of ${row.sentences.length} | ${errors} | ${(saved / audioS).toFixed(3)} |`);
    }
  }
  return out;
}

async function main(argv: string[]): Promise<void> {
  if (argv[0] === '--skip') {
    console.log(skipTable(JSON.parse(readFileSync(argv[1]!, 'utf8')) as Row).join('\n'));
    return;
  }
  const outAt = argv.indexOf('--out');
  const out = outAt >= 0 ? argv[outAt + 1]! : '/tmp/french-search';
  const modelsAt = argv.indexOf('--models');
  const names = argv.filter((a, i) => a !== '--out' && i !== outAt + 1 && a !== '--models' && i !== modelsAt + 1);
  if (!names.length || names.some((n) => !CONFIGS[n])) {
    console.log(`configurations: ${Object.keys(CONFIGS).join(', ')}`);
    return;
  }
  mkdirSync(out, { recursive: true });
  // --models DIR: another language model (DIR/lm-fr/general.arpa beside DIR/pocketsphinx-fr), e.g. a pruned one.
  const modelsDir = modelsAt >= 0 ? argv[modelsAt + 1]! : (await ensureFrenchLm()).modelsDir;
  const model = await serviceModel(modelsDir, 'fr');
  const clips = speechClips('fr');
  for (const name of names) {
    const c = CONFIGS[name]!;
    const live: DecoderOptions = { live: true, search: c.live ?? [] };
    const proofread: DecoderOptions = { proofread: true, search: c.proofread ?? [] };
    // The whole-file decode is the proofreading decoder's: the same as `now`'s where its settings are.
    const r = await compareDecodes(model, clips, {
      live,
      proofread,
      whole: c.proofread !== undefined,
      details: !c.noDetails,
    });
    const row: Row = {
      name,
      words: r.words,
      errors: r.errors,
      cpu: { whole: r.rtf.whole, firstPass: r.rtf.streamed - r.rtf.proofread, proofread: r.rtf.proofread, total: r.rtf.streamed },
      sentences: r.sentences,
      clips: r.clips,
    };
    writeFileSync(path.join(out, `${name.replace(/[^\w]+/gu, '_')}.json`), JSON.stringify(row, null, 1));
    console.log(
      `| ${name} | ${percent(r.errors.firstPass, r.words)} | ${percent(r.errors.final, r.words)} | ${percent(r.errors.whole, r.words)} | ${row.cpu.firstPass.toFixed(3)} | ${row.cpu.proofread.toFixed(3)} | ${row.cpu.total.toFixed(3)} | ${(1 / row.cpu.total).toFixed(2)} |`,
    );
  }
}

main(process.argv.slice(2)).catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
