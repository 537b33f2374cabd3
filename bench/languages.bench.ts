/**
 * French and Spanish with `--engine pocketsphinx` on the shared real read speech (/work/shared/speech,
 * development recordings), each measure beside a baseline of the same run:
 *
 * 1. WER of the service's final text (streamed in real time through the built service over real
 *    sockets, proofread) and of its first pass, beside the same model decoding each whole file.
 * 2. The same decodes in process (bench/speechCompare.ts: the service's segmenter and recognizer without
 *    sockets or threads), with their CPU cost: real-time factor, and the French sessions per core it
 *    allows (an estimate from CPU seconds, not a latency measure).
 *
 * 3. French: the service's search settings beside the earlier ones ({@link EARLIER_SEARCH}, and
 *    {@link UNBOUNDED_PROOFREADING}) and beside `--search fast` (languages.ts `fastSearch`), in process on
 *    the same clips: WER and CPU seconds of each, and ratios.
 *
 * French: the model `npm run models -- fetch pocketsphinx-fr` installs and a trigram of the whole shared
 * corpus (test/helpers/frenchLm.ts, cached; given to the decoders in binary form as the service does,
 * when sphinx_lm_convert is installed). Spanish: the shared model files, no language model.
 *
 * `DICTEE_LANGUAGES_CLIPS=N`: at most N recordings per language (the first of the manifest), for a quicker
 * run; all of them by default (about 15 minutes here on a quiet two-core machine).
 */
import { cpSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  type Clip,
  type Comparison,
  LEAD_MS,
  TAIL_MS,
  compareDecodes,
  percent,
  scoredWords,
  serviceModel,
  speechClips,
} from './speechCompare';
import { ensureFrenchLm } from '../test/helpers/frenchLm';
import { type DecoderOptions, type PocketsphinxModel, searchSettings } from '../src/server/engine/pocketsphinx/ffi';
import { modelsDirWith } from '../test/helpers/pocketsphinxModels';
import { wordErrors } from '../test/helpers/recordings';
import { framesOf, silence } from '../test/helpers/speech';
import { type Svc, finalText, session, startService, stopService } from './engineService';

const FRAME = 3200;
const CLIPS_ENV = 'DICTEE_LANGUAGES_CLIPS';

/**
 * The search before it was bounded for French (pocketsphinx's own defaults for what ffi.ts now sets): the
 * streaming decoder bounded at 5000 HMMs a frame only, the proofreading decoder not at all.
 */
const EARLIER_SEARCH: { live: DecoderOptions; proofread: DecoderOptions } = {
  live: {
    live: true,
    search: [
      ['-maxhmmpf', '5000'],
      ['-maxwpf', '-1'],
    ],
  },
  proofread: {
    search: [
      ['-maxhmmpf', '30000'],
      ['-maxwpf', '-1'],
    ],
  },
};

/**
 * The search before the French proofreading decoder was bounded (2026-11-28): the streaming decoder as now,
 * the whole-sentence decoder with the full search and one pass.
 */
const UNBOUNDED_PROOFREADING: { live?: DecoderOptions; proofread: DecoderOptions } = {
  proofread: {
    search: [
      ['-maxhmmpf', '30000'],
      ['-maxwpf', '-1'],
      ['-fwdflat', 'no'],
      ['-bestpath', 'no'],
    ],
  },
};

/** The recordings of `language`, at most {@link CLIPS_ENV} of them. */
function clipsOf(language: string): Clip[] {
  const all = speechClips(language);
  const n = Number(process.env[CLIPS_ENV] ?? all.length);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${CLIPS_ENV} must be a whole number of recordings, 1 or more`);
  return all.slice(0, n);
}

/**
 * A streamed session: its first pass (its `final` chunks), its final text as a client keeps it (the finals
 * with each sentence's `batch.replace` in their place: engineService.ts `finalText`), how many sentences
 * were proofread, and the codes of the errors it got.
 */
interface Streamed {
  first: string;
  final: string;
  proofread: number;
  errorCodes: string[];
}

/** Each clip alone in a session streamed in real time (two at a time); its first pass and final text. */
async function streamed(svc: Svc, language: string, clips: readonly Clip[]): Promise<Streamed[]> {
  const out: Streamed[] = [];
  for (let i = 0; i < clips.length; i += 2) {
    out.push(
      ...(await Promise.all(
        clips.slice(i, i + 2).map(async (c) => {
          const frames = framesOf(Buffer.concat([silence(LEAD_MS), c.pcm, silence(TAIL_MS)]), FRAME);
          const s = await session(svc, frames, { config: { language, silence_threshold: 1, engine_endpointing: 0.5 } });
          const join = (xs: Array<string | undefined>): string => xs.filter((x) => x !== undefined).join(' ');
          return {
            first: join(s.events.filter((e) => e.type === 'transcript' && e.status === 'final').map((e) => e.text)),
            final: finalText(s.events),
            proofread: s.events.filter((e) => e.type === 'batch.replace').length,
            errorCodes: s.errorCodes,
          };
        }),
      )),
    );
  }
  return out;
}

/** The service's search beside the earlier one (in process, the same clips, one after the other). */
function searchTable(
  model: PocketsphinxModel,
  fastModel: PocketsphinxModel,
  now: Comparison,
  fast: Comparison,
  earlier: Comparison,
  unboundedProofreading: Comparison,
): string[] {
  const row = (name: string, c: Comparison): string =>
    `| ${name} | ${percent(c.errors.whole, c.words)} | ${percent(c.errors.firstPass, c.words)} | ${percent(c.errors.final, c.words)} | ${c.rtf.whole.toFixed(3)} | ${c.rtf.streamed.toFixed(3)} | ${(1 / c.rtf.streamed).toFixed(2)} |`;
  return [
    'The search settings, in process on the same recordings (CPU s per audio s on one thread; sessions per core = 1 / the streamed cost):',
    '',
    '| search | whole file | first pass | final | CPU whole file | CPU streamed + proofread | sessions per core |',
    '|---|---:|---:|---:|---:|---:|---:|',
    row('earlier (live -maxhmmpf 5000; proofreading unbounded)', earlier),
    row('live -maxhmmpf 2000 -maxwpf 10; proofreading unbounded, one pass', unboundedProofreading),
    row(`now, \`--search accurate\` (${searchSettings(model)})`, now),
    row(`\`--search fast\` (${searchSettings(fastModel)})`, fast),
    '',
    `Streamed CPU now / earlier: **${(now.rtf.streamed / earlier.rtf.streamed).toFixed(2)}**; now / proofreading unbounded: **${(now.rtf.streamed / unboundedProofreading.rtf.streamed).toFixed(2)}**; ` +
      `fast / accurate: **${(fast.rtf.streamed / now.rtf.streamed).toFixed(2)}** (${(1 / fast.rtf.streamed).toFixed(2)} sessions per core by CPU alone, goal 1.5), final errors ${fast.errors.final} against ${now.errors.final}.`,
    '',
  ];
}

function table(language: string, clips: readonly Clip[], c: Comparison, svc: Streamed[]): string[] {
  const err = (clip: Clip, hyp: string): number => wordErrors(scoredWords(language, clip.reference), scoredWords(language, hyp)).errors;
  return [
    '| recording | s | words | errors whole file | in process: first pass / final | service: first pass / final | service: sentences proofread, errors | service final text |',
    '|---|---:|---:|---:|---:|---:|---|---|',
    ...clips.map(
      (clip, i) =>
        `| ${clip.id} | ${c.clips[i]!.seconds.toFixed(1)} | ${c.clips[i]!.words} | ${c.clips[i]!.errors.whole} | ${c.clips[i]!.errors.firstPass} / ${c.clips[i]!.errors.final} | ${err(clip, svc[i]!.first)} / ${err(clip, svc[i]!.final)} | ${svc[i]!.proofread}, ${svc[i]!.errorCodes.join(' ') || 'none'} | ${svc[i]!.final} |`,
    ),
  ];
}

export async function run(): Promise<{ title: string; markdown: string; samples: Record<string, number>; ratios: Record<string, number> }> {
  const lm = await ensureFrenchLm();
  const dir = await modelsDirWith({ es: true });
  cpSync(path.join(lm.modelsDir, 'pocketsphinx-fr'), path.join(dir, 'pocketsphinx-fr'), { recursive: true });
  cpSync(path.dirname(lm.arpa), path.join(dir, 'lm-fr'), { recursive: true });
  const md: string[] = [];
  const loadAtStart = os.loadavg();
  const samples: Record<string, number> = {};
  const ratios: Record<string, number> = {};
  const svc = await startService('pocketsphinx', ['--workers', '1'], { DICTEE_MODELS_DIR: dir });
  try {
    for (const language of ['fr', 'es']) {
      const clips = clipsOf(language);
      const model = await serviceModel(dir, language);
      const c = await compareDecodes(model, clips);
      const earlier = language === 'fr' ? await compareDecodes(model, clips, EARLIER_SEARCH) : undefined;
      const unboundedProofreading = language === 'fr' ? await compareDecodes(model, clips, UNBOUNDED_PROOFREADING) : undefined;
      // `--search fast`: the same clips with the language's fast bounds (languages.ts `fastSearch`).
      const fastModel = language === 'fr' ? await serviceModel(dir, language, 'fast') : undefined;
      const fast = fastModel ? await compareDecodes(fastModel, clips) : undefined;
      const s = await streamed(svc, language, clips);
      const sum = (k: 'first' | 'final'): number =>
        clips.reduce((n, clip, i) => n + wordErrors(scoredWords(language, clip.reference), scoredWords(language, s[i]![k])).errors, 0);
      const svcFinal = sum('final');
      const svcFirst = sum('first');
      const audioS = clips.reduce((n, x) => n + x.pcm.length / 32000, 0);
      samples[`${language} clips`] = clips.length;
      ratios[`${language} service final / whole file`] = (svcFinal + 0.5) / (c.errors.whole + 0.5);
      if (earlier) {
        ratios['fr CPU per audio s, search now / earlier'] = c.rtf.streamed / earlier.rtf.streamed;
        ratios['fr final errors, search now / earlier'] = (c.errors.final + 0.5) / (earlier.errors.final + 0.5);
      }
      if (fast) {
        ratios['fr CPU per audio s, search fast / accurate'] = fast.rtf.streamed / c.rtf.streamed;
        ratios['fr final errors, search fast / accurate'] = (fast.errors.final + 0.5) / (c.errors.final + 0.5);
        ratios['fr final errors, search fast: in process / whole file'] = (fast.errors.final + 0.5) / (fast.errors.whole + 0.5);
      }
      if (unboundedProofreading) {
        ratios['fr CPU per audio s, search now / proofreading unbounded'] = c.rtf.streamed / unboundedProofreading.rtf.streamed;
        ratios['fr final errors, search now / proofreading unbounded'] =
          (c.errors.final + 0.5) / (unboundedProofreading.errors.final + 0.5);
      }
      md.push(
        `### ${language === 'fr' ? 'French' : 'Spanish'}`,
        '',
        `${clips.length} recordings, ${audioS.toFixed(1)} s, ${c.words} words. **Service, final text: ${percent(svcFinal, c.words)}; first pass ${percent(svcFirst, c.words)}. Whole-file decode (baseline): ${percent(c.errors.whole, c.words)}.**`,
        `In process (the same pipeline without sockets): first pass ${percent(c.errors.firstPass, c.words)}, final ${percent(c.errors.final, c.words)}.`,
        `CPU seconds per audio second, one thread: whole file ${c.rtf.whole.toFixed(3)}; streamed with proofreading ${c.rtf.streamed.toFixed(3)}` +
          (language === 'fr' ? `, so about ${(1 / c.rtf.streamed).toFixed(2)} real-time sessions per core by CPU alone (goal 1.5).` : '.'),
        '',
        ...(earlier && unboundedProofreading && fastModel && fast
          ? searchTable(model, fastModel, c, fast, earlier, unboundedProofreading)
          : []),
        ...table(language, clips, c, s),
        '',
      );
    }
  } finally {
    await stopService(svc);
    rmSync(dir, { recursive: true, force: true });
  }
  const markdown = [
    'The shared development recordings (/work/shared/speech: French VoxForge, LibriVox, Picovoice; Spanish VoxForge,',
    'Picovoice; 16 kHz read speech, not the telephone prompts), each alone in a session: 0.4 s of silence, the recording,',
    '1.2 s of silence, 100 ms frames in real time (two sessions at a time), `silence_threshold` 1 s, `engine_endpointing`',
    '0.5 s, proofreading on; the service started with `--engine pocketsphinx --workers 1`. Its final text is what a client keeps:',
    "its `final` chunks, each sentence's replaced by its `batch.replace` where one came. Baseline: the same model (the service's, grammar words added) decoding each whole file in one utterance. French:",
    'the 8 kHz model of soundswallower@0.6.3 and a trigram of the whole shared CC0 corpus (65k words), given to the decoders in',
    'binary form as the service does; Spanish: cmusphinx-es-5.2,',
    'no language model. Words scored as the dictation grammar writes them (French elisions and numbers).',
    `Load average when it began: ${loadAtStart.map((x) => x.toFixed(1)).join(' / ')}; when it ended: ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' / ')} (1 / 5 / 15 min; other work shares the machine).`,
    `Recordings: ${process.env[CLIPS_ENV] ? `the first ${process.env[CLIPS_ENV]} of each language (${CLIPS_ENV})` : 'all'}.`,
    '',
    ...md,
  ].join('\n');
  return { title: 'Speech recognition: French and Spanish (pocketsphinx) on real read speech', markdown, samples, ratios };
}
