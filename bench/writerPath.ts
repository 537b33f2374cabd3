/**
 * The extension's pure path per final, without VS Code: the service's messages through the real
 * TranscriptModel into the real DocumentWriter (grammar on and off) writing into the MemoryDocument of
 * test/helpers. Per chunk three `streaming` updates and a `final`; every fifth chunk a `batch.replace` of
 * the last five. Reports µs per final (all its chunk's messages), for runs of 200 and 2,000 chunks.
 *
 * `node --import tsx bench/writerPath.ts [OLD_ROOT]`: with OLD_ROOT (a copy of the repository's src/ and
 * test/helpers/ at another commit, e.g. `git archive HEAD~1 src test/helpers | tar -x -C OLD_ROOT`), the
 * same runs with that code too, alternated with this one's in the same process; the median of 7 rounds each.
 * A second argument NEW_ROOT takes this code from a copy made the same way (both copies then load alike).
 * With the grammar off the two run the same code (only the grammar's writer changed): that row is the control.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BatchReplaceMessage, TranscriptMessage } from '../src/protocol';
import { transcriptEvents } from './client.bench';

type Msg = TranscriptMessage | BatchReplaceMessage;
interface Run {
  send(m: Msg): Promise<void>;
}
type RunCtor = new (text: string, options: { grammar?: { language: 'en' } }) => Run;

async function load(root: string): Promise<RunCtor> {
  const mod = (await import(pathToFileURL(path.join(root, 'test/helpers/writerRun.ts')).href)) as { WriterRun: RunCtor };
  return mod.WriterRun;
}

/** µs per final of one whole run. */
async function once(Ctor: RunCtor, msgs: Msg[], chunks: number, grammar: boolean): Promise<number> {
  const run = new Ctor('# Report\n\n', grammar ? { grammar: { language: 'en' } } : {});
  const t0 = process.hrtime.bigint();
  for (const m of msgs) await run.send(m);
  return Number(process.hrtime.bigint() - t0) / 1000 / chunks;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const codes: Array<[string, RunCtor]> = [['this code', await load(path.resolve(process.argv[3] ?? path.join(__dirname, '..')))]];
  if (process.argv[2]) codes.push([`old (${process.argv[2]})`, await load(path.resolve(process.argv[2]))]);
  for (const chunks of [200, 2000]) {
    const msgs = transcriptEvents(chunks);
    for (const grammar of [false, true]) {
      const per = new Map<string, number[]>(codes.map(([n]) => [n, []]));
      for (const [, C] of codes) await once(C, msgs, chunks, grammar); // warm-up
      for (let r = 0; r < 7; r++)
        for (const [n, C] of r % 2 ? [...codes].reverse() : codes) per.get(n)!.push(await once(C, msgs, chunks, grammar));
      const line = codes.map(([n]) => `${n} ${median(per.get(n)!).toFixed(1)} µs`).join(', ');
      const ratio = codes.length > 1 ? `, old / this ${(median(per.get(codes[1]![0])!) / median(per.get(codes[0]![0])!)).toFixed(2)}×` : '';
      console.log(`${chunks} chunks, grammar ${grammar ? 'on' : 'off'}: per final ${line}${ratio}`);
    }
  }
}

void main();
