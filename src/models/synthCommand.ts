/**
 * `npm run models -- synth NAME --out DIR [--defect D]` (synth.ts): writes a synthetic model of a catalogue
 * entry's shape and says what it is, so that nobody takes it for the published model.
 */
import path from 'node:path';
import { UsageError, nonEmpty } from '../shared/args';
import { SYNTH_DEFECTS, type SynthDefect, synthModel } from './synth';

export async function synthCommand(
  name: string | undefined,
  v: { out?: string; defect?: string; size?: string },
  out: (s: string) => void,
): Promise<void> {
  if (!name) throw new UsageError('synth needs a model name (npm run models -- list)');
  if (v.out === undefined) throw new UsageError('synth needs --out DIR (where the synthetic model is written)');
  const dir = path.resolve(nonEmpty('--out', v.out));
  const defect = v.defect;
  if (defect !== undefined && !(SYNTH_DEFECTS as readonly string[]).includes(defect))
    throw new UsageError(`--defect must be one of ${SYNTH_DEFECTS.join(', ')}`);
  if (v.size !== undefined && v.size !== 'tiny' && v.size !== 'real') throw new UsageError('--size must be tiny or real');
  const m = await synthModel(name, dir, { ...(defect ? { defect: defect as SynthDefect } : {}), ...(v.size ? { size: v.size } : {}) });
  if (m.size === 'real') {
    out(
      `wrote a REAL-SIZE SYNTHETIC model of ${name} to ${dir}: its dimensions, RANDOM int8 weights (to measure cost; it recognises nothing)\n`,
    );
    return;
  }
  out(`wrote a SYNTHETIC ${m.family} model of ${name}'s shape to ${dir} (made-up weights: it recognises no speech)\n`);
  out(
    `tones ${m.tones_hz.join(', ')} Hz decode to: ${Object.entries(m.words)
      .map(([l, w]) => `${l}: ${w.join(' ')}`)
      .join('; ')}\n`,
  );
  out(`start the service with: npm run server -- --engine sherpa-onnx --${m.family === 'nemo-tdt' ? 'proofread-model' : 'model'} ${dir}\n`);
}
