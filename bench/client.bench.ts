/**
 * Cost per event of the transcript model (message → editor operations) for runs of 100, 1,000 and
 * 10,000 chunks, beside a baseline measured in the same run: a bare `Map.set` + array push per event
 * (the least any model keeping chunks by id and in order must do).
 *
 * The event stream is shaped like the service's: each chunk gets three `streaming` updates, then its
 * `final`; every fifth chunk a `batch.replace` merges the last five committed chunks into one.
 */
import type { BenchSection } from './run';
import { TranscriptModel } from '../src/client/transcript';
import type { BatchReplaceMessage, TranscriptMessage } from '../src/protocol';

type Msg = TranscriptMessage | BatchReplaceMessage;

/** A dictation's events: each chunk streamed three times then final, every five finals merged by a batch.replace (also bench/writerPath.ts). */
export function transcriptEvents(chunks: number): Msg[] {
  const out: Msg[] = [];
  let seq = 0;
  let index = 0;
  const group: string[] = [];
  for (let c = 0; c < chunks; c++) {
    const id = `chunk-${c}`;
    const i = index++;
    const words = ['the', 'left', 'ventricle', 'is', 'normal'];
    for (let k = 1; k <= 3; k++)
      out.push({ type: 'transcript', status: 'streaming', id, index: i, seq: ++seq, text: words.slice(0, k + 1).join(' ') });
    out.push({ type: 'transcript', status: 'final', id, index: i, seq: ++seq, text: words.join(' ') });
    group.push(id);
    if (group.length === 5) {
      out.push({
        type: 'batch.replace',
        seq: ++seq,
        data: {
          target_ids: [...group],
          new_chunk: { id: `merged-${c}`, index: index++, text: 'The left ventricle is normal.', status: 'final' },
        },
      });
      group.length = 0;
    }
  }
  return out;
}

function timeModel(msgs: Msg[]): { ns: number; ops: number } {
  const t0 = process.hrtime.bigint();
  const model = new TranscriptModel();
  let ops = 0;
  for (const m of msgs) ops += model.apply(m).length;
  const ns = Number(process.hrtime.bigint() - t0);
  return { ns, ops };
}

function timeBaseline(msgs: Msg[]): number {
  const t0 = process.hrtime.bigint();
  const map = new Map<string, Msg>();
  const list: Msg[] = [];
  for (const m of msgs) {
    map.set(m.type === 'transcript' ? m.id : m.data.new_chunk.id, m);
    list.push(m);
  }
  const ns = Number(process.hrtime.bigint() - t0);
  if (map.size === 0 || list.length !== msgs.length) throw new Error('baseline did nothing');
  return ns;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

export async function run(): Promise<BenchSection> {
  const rows: string[] = [];
  const perEventBySize: number[] = [];
  const baseBySize: number[] = [];
  const sizes = [100, 1_000, 10_000];
  // Warm-up so both sides are measured optimised.
  for (let i = 0; i < 5; i++) {
    const w = transcriptEvents(2_000);
    timeModel(w);
    timeBaseline(w);
  }
  for (const n of sizes) {
    const msgs = transcriptEvents(n);
    const repeats = n <= 1_000 ? 41 : 11;
    const model: number[] = [];
    const base: number[] = [];
    let opsPerRun = 0;
    for (let r = 0; r < repeats; r++) {
      const m = timeModel(msgs);
      model.push(m.ns);
      opsPerRun = m.ops;
      base.push(timeBaseline(msgs));
      await new Promise((res) => setImmediate(res));
    }
    const perEvent = median(model) / msgs.length / 1000;
    const basePerEvent = median(base) / msgs.length / 1000;
    perEventBySize.push(perEvent);
    baseBySize.push(basePerEvent);
    rows.push(
      `| ${n.toLocaleString('en')} | ${msgs.length.toLocaleString('en')} | ${opsPerRun.toLocaleString('en')} | ${perEvent.toFixed(3)} | ${basePerEvent.toFixed(3)} | ${(perEvent / basePerEvent).toFixed(1)}× |`,
    );
  }
  const markdown = [
    "Method: a synthetic run shaped like the service's (per chunk three `streaming` updates and a `final`;",
    'every fifth chunk a `batch.replace` of the last five), fed to a fresh `TranscriptModel`; the time covers',
    'applying every message and computing its editor operations. Median of repeated runs after a warm-up.',
    'Baseline, same run and same messages: one `Map.set` and one array push per event.',
    '',
    '| chunks | events | ops | model µs/event | baseline µs/event | ratio |',
    '|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    `From 100 to 10,000 chunks the model's cost per event grows ${(perEventBySize[2]! / perEventBySize[0]!).toFixed(1)}× and the baseline's`,
    `${(baseBySize[2]! / baseBySize[0]!).toFixed(1)}× (memory effects of larger maps): inserts at the end are appends, and a`,
    '`batch.replace` finds its targets by id and their place by binary search, so nothing scans the run.',
  ].join('\n');
  return { title: 'Client: transcript model cost per event', markdown };
}
