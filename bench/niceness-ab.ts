/**
 * `node --import tsx bench/niceness-ab.ts [STEPS] [NICENESSES]` (not part of `npm run bench`): the capacity
 * steps of capacity.bench.ts for the pocketsphinx service started once per value of
 * DICTEE_PROOFREAD_NICENESS, alternated (default `1,2,3` and `0,5,0,5`) so that the machine's load, which
 * changes, weighs on both alike. Prints one line per service.
 */
import os from 'node:os';
import { recordings } from '../test/helpers/recordings';
import { framesOf, silence } from '../test/helpers/speech';
import { capacity, causes } from './capacity.bench';
import { disposeProofreader, startService, stopService } from './engineService';
async function main(): Promise<void> {
  const loop = recordings().find((r) => r.name.endsWith('0870'))!;
  const one = framesOf(Buffer.concat([loop.pcm, silence(2500)]), 3200).filter((f) => f.length === 3200);
  const frames: Buffer[] = [];
  while (frames.length < 120) frames.push(...one);
  frames.length = 120;
  const cause = await causes('pocketsphinx', frames);
  disposeProofreader();
  const steps = (process.argv[2] ?? '1,2,3').split(',').map(Number);
  for (const nice of (process.argv[3] ?? '0,5,0,5').split(',')) {
    process.env.DICTEE_PROOFREAD_NICENESS = nice;
    const svc = await startService('pocketsphinx');
    const r = await capacity(svc, 'pocketsphinx', frames, cause, steps);
    await stopService(svc);
    console.log(
      `nice ${nice}: capacity ${r.capacity}; ` +
        r.steps
          .map(
            (s) =>
              `${s.sessions}: p50 ${s.p50.toFixed(0)} p99 ${s.p99.toFixed(0)} cores ${(s.cores ?? NaN).toFixed(2)} load ${(s.load ?? NaN).toFixed(1)} replace ${s.replaceP50.toFixed(0)}`,
          )
          .join(' | '),
    );
  }
  console.log('load at end', os.loadavg()[0]);
}
void main();
